//! Typed 2-D streams ([`Stream`]) and their element types ([`Element`]):
//! what a launch reads and writes, converted to and from the driver's
//! [`StreamData`] and `.npy` files.

use super::Error;
use ctm_frontend::data::{StreamBuffer, StreamData};
use ctm_frontend::types::StreamType;
use std::path::Path;

/// Four bytes read by a kernel as a `vec4` in [0, 1] (`In<unorm8x4>`,
/// spec §4): an RGBA8 pixel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Unorm8x4(pub [u8; 4]);

/// An element type of a [`Stream`]: `f32`, `[f32; 2]`, `[f32; 4]`
/// (`f32`, `vec2`, `vec4` streams), [`Unorm8x4`] and `u16` (input only).
///
/// The methods are the host API's plumbing; implement it for no other
/// type.
pub trait Element: Copy + Default + Send + Sync + 'static {
    /// The stream type's name in the language (`f32`, `vec4`, ...).
    const NAME: &'static str;
    /// The stream type.
    #[doc(hidden)]
    fn stream_type() -> StreamType;
    /// The driver's form of `data`.
    #[doc(hidden)]
    fn to_data(width: usize, height: usize, data: &[Self]) -> StreamData;
    /// The elements of `data`, if it holds this type.
    #[doc(hidden)]
    fn from_data(data: &StreamData) -> Option<Vec<Self>>;
}

fn floats(data: &StreamData, channels: usize) -> Option<&[f32]> {
    match &data.buffer {
        StreamBuffer::F32(v) if data.channels == channels => Some(v),
        _ => None,
    }
}

impl Element for f32 {
    const NAME: &'static str = "f32";
    fn stream_type() -> StreamType {
        StreamType::F32
    }
    fn to_data(width: usize, height: usize, data: &[f32]) -> StreamData {
        StreamData {
            width,
            height,
            channels: 1,
            buffer: StreamBuffer::F32(data.to_vec()),
        }
    }
    fn from_data(data: &StreamData) -> Option<Vec<f32>> {
        floats(data, 1).map(<[f32]>::to_vec)
    }
}

macro_rules! float_vector {
    ($n:literal, $name:literal, $st:ident) => {
        impl Element for [f32; $n] {
            const NAME: &'static str = $name;
            fn stream_type() -> StreamType {
                StreamType::$st
            }
            fn to_data(width: usize, height: usize, data: &[[f32; $n]]) -> StreamData {
                StreamData {
                    width,
                    height,
                    channels: $n,
                    buffer: StreamBuffer::F32(data.iter().flatten().copied().collect()),
                }
            }
            fn from_data(data: &StreamData) -> Option<Vec<[f32; $n]>> {
                let v = floats(data, $n)?;
                Some(
                    v.chunks_exact($n)
                        .map(|c| {
                            let mut e = [0.0; $n];
                            e.copy_from_slice(c);
                            e
                        })
                        .collect(),
                )
            }
        }
    };
}
float_vector!(2, "vec2", Vec2);
float_vector!(4, "vec4", Vec4);

impl Element for Unorm8x4 {
    const NAME: &'static str = "unorm8x4";
    fn stream_type() -> StreamType {
        StreamType::Unorm8x4
    }
    fn to_data(width: usize, height: usize, data: &[Unorm8x4]) -> StreamData {
        StreamData {
            width,
            height,
            channels: 4,
            buffer: StreamBuffer::U8(data.iter().flat_map(|p| p.0).collect()),
        }
    }
    fn from_data(data: &StreamData) -> Option<Vec<Unorm8x4>> {
        match &data.buffer {
            StreamBuffer::U8(v) if data.channels == 4 => Some(
                v.chunks_exact(4)
                    .map(|c| Unorm8x4([c[0], c[1], c[2], c[3]]))
                    .collect(),
            ),
            _ => None,
        }
    }
}

impl Element for u16 {
    const NAME: &'static str = "u16";
    fn stream_type() -> StreamType {
        StreamType::U16
    }
    fn to_data(width: usize, height: usize, data: &[u16]) -> StreamData {
        StreamData {
            width,
            height,
            channels: 1,
            buffer: StreamBuffer::U16(data.to_vec()),
        }
    }
    fn from_data(data: &StreamData) -> Option<Vec<u16>> {
        match &data.buffer {
            StreamBuffer::U16(v) if data.channels == 1 => Some(v.clone()),
            _ => None,
        }
    }
}

/// A 2-D stream of `width × height` elements of type `T`, row-major
/// (element `(i, j)` — column i, row j — at `j * width + i`).
///
/// ```
/// use ctm::Stream;
/// let s = Stream::from_vec(3, 2, vec![0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0])?;
/// assert_eq!((s.width(), s.height()), (3, 2));
/// assert_eq!(s.get(2, 1), Some(5.0));
/// assert!(Stream::from_vec(3, 2, vec![0.0f32; 5]).is_err());
/// # Ok::<(), ctm::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Stream<T: Element> {
    width: usize,
    height: usize,
    data: Vec<T>,
}

impl<T: Element> Stream<T> {
    /// A stream of `data`, which must hold `width * height` elements.
    ///
    /// # Errors
    /// [`Error::StreamSize`] when it does not.
    pub fn from_vec(width: usize, height: usize, data: Vec<T>) -> Result<Stream<T>, Error> {
        if width.checked_mul(height) != Some(data.len()) {
            return Err(Error::StreamSize(format!(
                "{} elements given for a {width}x{height} stream",
                data.len()
            )));
        }
        Ok(Stream {
            width,
            height,
            data,
        })
    }

    /// A stream of zeros (`T::default()`), e.g. for an output.
    ///
    /// ```
    /// let r: ctm::Stream<[f32; 4]> = ctm::Stream::zeros(4, 4);
    /// assert_eq!(r.to_vec(), vec![[0.0; 4]; 16]);
    /// ```
    pub fn zeros(width: usize, height: usize) -> Stream<T> {
        Stream {
            width,
            height,
            data: vec![T::default(); width.saturating_mul(height)],
        }
    }

    /// Columns.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The elements, row-major.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    /// A copy of the elements, row-major.
    pub fn to_vec(&self) -> Vec<T> {
        self.data.clone()
    }

    /// The elements, row-major, consuming the stream.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// Element `(i, j)` (column i, row j), if it exists.
    pub fn get(&self, i: usize, j: usize) -> Option<T> {
        if i >= self.width {
            return None;
        }
        self.data
            .get(j.checked_mul(self.width)?.checked_add(i)?)
            .copied()
    }

    /// Reads a `.npy` file: shape `(H, W)` for scalar streams, `(H, W, C)`
    /// for vectors, of a dtype the stream type accepts (as `ctmc
    /// --input NAME=FILE.npy` reads it).
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read or does not fit.
    pub fn from_npy(path: impl AsRef<Path>) -> Result<Stream<T>, Error> {
        let data = ctm_driver::io::read_npy_stream(path.as_ref(), T::stream_type())
            .map_err(|e| Error::Io(format!("{}: {e}", path.as_ref().display())))?;
        Stream::from_data(&data).ok_or_else(|| {
            Error::Io(format!(
                "{}: does not hold a stream of {}",
                path.as_ref().display(),
                T::NAME
            ))
        })
    }

    /// Writes the stream as a `.npy` file (as `ctmc --output` does).
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be written.
    pub fn to_npy(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let array = ctm_driver::io::stream_to_array(&self.to_data());
        ctm_driver::io::write_npy_file(path.as_ref(), &array)
            .map_err(|e| Error::Io(format!("{}: {e}", path.as_ref().display())))
    }

    /// The driver's form of the stream.
    #[doc(hidden)]
    pub fn to_data(&self) -> StreamData {
        T::to_data(self.width, self.height, &self.data)
    }

    /// A stream of the driver's form, if it holds elements of `T`.
    #[doc(hidden)]
    pub fn from_data(data: &StreamData) -> Option<Stream<T>> {
        let v = T::from_data(data)?;
        Stream::from_vec(data.width, data.height, v).ok()
    }
}
