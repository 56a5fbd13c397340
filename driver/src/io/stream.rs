//! Arrays to streams and back: the shape and dtype rules of spec §9, raw
//! `.f32` data, and the `.npy` form of outputs and reduction results.
//!
//! Shapes: a scalar stream (`f32`, `u16`) is `(H, W)`, also `(H, W, 1)`;
//! a vector stream (`vec2`, `vec4`, `unorm8x4`) is `(H, W, C)` with C its
//! channel count; a 1-D array of length N is a 1×N scalar stream, and a
//! 2-D `(N, C)` array a 1×N vector stream.
//!
//! Dtypes (`docs/cli.md` has the table): float streams read `<f4`, and
//! `<f8`, `<i4`, `<i8` converted to the nearest `f32` (exact for the `f32`
//! values and for integers up to 2^24; a finite value beyond the `f32`
//! range is an error); `u16` streams read `<u2`, `|u1`, and integer-valued
//! elements of any other numeric dtype in 0..=65535; `unorm8x4` streams
//! read `|u1` only, because any other dtype would need a guess at its scale.

use super::npy::{NpyArray, NpyData, NpyDtype};
use ctm_frontend::data::{StreamBuffer, StreamData};
use ctm_frontend::types::StreamType;

/// Why an array cannot be a stream of the declared type.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StreamError {
    /// A shape the stream type cannot take.
    #[error("shape {shape:?} does not fit an `In<{}>` stream: expected {}", stream.name(), expected_shapes(*stream))]
    Shape {
        /// The array's shape.
        shape: Vec<usize>,
        /// The declared stream type.
        stream: StreamType,
    },
    /// An array of no elements.
    #[error("shape {shape:?} has no elements")]
    Empty {
        /// The array's shape.
        shape: Vec<usize>,
    },
    /// A dtype the stream type does not read.
    #[error("dtype {dtype} cannot be read by an `In<{}>` stream: use {}{}", stream.name(), accepted_dtypes(*stream), dtype_hint(*stream))]
    Dtype {
        /// The array's dtype.
        dtype: NpyDtype,
        /// The declared stream type.
        stream: StreamType,
    },
    /// An element that the conversion to the stream's storage cannot keep.
    #[error("element {index} ({value}) {}", range_text(*stream))]
    OutOfRange {
        /// Position in the flat array.
        index: usize,
        /// The value (as text, exactly as it was).
        value: String,
        /// The declared stream type.
        stream: StreamType,
    },
    /// A raw file whose length is not what the domain needs.
    #[error(
        "raw .f32 data has {found_bytes} bytes; a {width}x{height} stream of {channels} channel(s) needs {expected_bytes}"
    )]
    RawLength {
        /// Domain width.
        width: usize,
        /// Domain height.
        height: usize,
        /// Channels per element.
        channels: usize,
        /// `4 * width * height * channels`.
        expected_bytes: usize,
        /// The file's length.
        found_bytes: usize,
    },
}

fn expected_shapes(stream: StreamType) -> String {
    match stream.channels() {
        1 => "(H, W), (H, W, 1) or (N,)".to_string(),
        c => format!("(H, W, {c}) or (N, {c})"),
    }
}

fn accepted_dtypes(stream: StreamType) -> &'static str {
    match stream {
        StreamType::F32 | StreamType::Vec2 | StreamType::Vec4 => "<f4 (also <f8, <i4, <i8)",
        StreamType::U16 => "<u2 (also |u1, or integer values in another dtype)",
        StreamType::Unorm8x4 => "|u1",
    }
}

fn dtype_hint(stream: StreamType) -> &'static str {
    match stream {
        StreamType::F32 | StreamType::Vec2 | StreamType::Vec4 => {
            "; bytes are read by `In<unorm8x4>` streams, or convert with `a.astype(np.float32)`"
        }
        StreamType::U16 => "",
        StreamType::Unorm8x4 => {
            "; convert floats in [0, 1] with `(a * 255).round().astype(np.uint8)`"
        }
    }
}

fn range_text(stream: StreamType) -> &'static str {
    match stream {
        StreamType::U16 => "is not an integer in 0..=65535 as a `u16` stream needs",
        _ => "is beyond the range of f32",
    }
}

/// The element count and grid of an array for `ty`: `(width, height)`.
fn stream_shape(shape: &[usize], ty: StreamType) -> Result<(usize, usize), StreamError> {
    let c = ty.channels();
    let bad = || StreamError::Shape {
        shape: shape.to_vec(),
        stream: ty,
    };
    let (w, h) = match (c, shape) {
        (1, &[n]) => (n, 1),
        (1, &[h, w]) | (1, &[h, w, 1]) => (w, h),
        (_, &[n, cc]) if cc == c && c > 1 => (n, 1),
        (_, &[h, w, cc]) if cc == c && c > 1 => (w, h),
        _ => return Err(bad()),
    };
    if w == 0 || h == 0 {
        return Err(StreamError::Empty {
            shape: shape.to_vec(),
        });
    }
    Ok((w, h))
}

/// Converts an array to a stream of element type `ty` (shape and dtype
/// rules in the module doc).
///
/// # Errors
/// [`StreamError`] naming the shape, the dtype or the first element that
/// does not fit.
pub fn array_to_stream(array: &NpyArray, ty: StreamType) -> Result<StreamData, StreamError> {
    let (width, height) = stream_shape(&array.shape, ty)?;
    let dtype_error = || StreamError::Dtype {
        dtype: array.data.dtype(),
        stream: ty,
    };
    let buffer = match ty {
        StreamType::F32 | StreamType::Vec2 | StreamType::Vec4 => {
            StreamBuffer::F32(to_f32(&array.data, ty).ok_or_else(dtype_error)??)
        }
        StreamType::U16 => StreamBuffer::U16(to_u16(&array.data, ty)?),
        StreamType::Unorm8x4 => match &array.data {
            NpyData::U8(v) => StreamBuffer::U8(v.clone()),
            _ => return Err(dtype_error()),
        },
    };
    Ok(StreamData {
        width,
        height,
        channels: ty.channels(),
        buffer,
    })
}

/// Float conversion: `None` for a dtype float streams do not read.
fn to_f32(data: &NpyData, ty: StreamType) -> Option<Result<Vec<f32>, StreamError>> {
    let overflow = |index: usize, value: String| StreamError::OutOfRange {
        index,
        value,
        stream: ty,
    };
    Some(match data {
        NpyData::F32(v) => Ok(v.clone()),
        NpyData::F64(v) => v
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let y = x as f32;
                if y.is_infinite() && x.is_finite() {
                    Err(overflow(i, x.to_string()))
                } else {
                    Ok(y)
                }
            })
            .collect(),
        NpyData::I32(v) => Ok(v.iter().map(|&x| x as f32).collect()),
        NpyData::I64(v) => Ok(v.iter().map(|&x| x as f32).collect()),
        NpyData::U8(_) | NpyData::U16(_) => return None,
    })
}

/// `u16` conversion: exact values only.
fn to_u16(data: &NpyData, ty: StreamType) -> Result<Vec<u16>, StreamError> {
    fn exact<T: Copy + ToString>(
        v: &[T],
        ty: StreamType,
        f: impl Fn(T) -> Option<u16>,
    ) -> Result<Vec<u16>, StreamError> {
        v.iter()
            .enumerate()
            .map(|(index, &x)| {
                f(x).ok_or_else(|| StreamError::OutOfRange {
                    index,
                    value: x.to_string(),
                    stream: ty,
                })
            })
            .collect()
    }
    let from_float =
        |x: f64| (x.fract() == 0.0 && (0.0..=65535.0).contains(&x)).then_some(x as u16);
    match data {
        NpyData::U16(v) => Ok(v.clone()),
        NpyData::U8(v) => Ok(v.iter().map(|&b| u16::from(b)).collect()),
        NpyData::I32(v) => exact(v, ty, |x| u16::try_from(x).ok()),
        NpyData::I64(v) => exact(v, ty, |x| u16::try_from(x).ok()),
        NpyData::F32(v) => exact(v, ty, |x| from_float(f64::from(x))),
        NpyData::F64(v) => exact(v, ty, from_float),
    }
}

/// Reads raw little-endian `f32` data as a `width`×`height` stream of
/// `ty`, converted as a `<f4` array would be.
///
/// # Errors
/// [`StreamError::RawLength`] unless the data holds exactly
/// `width * height * channels` floats; the conversion's errors.
pub fn raw_f32_to_stream(
    bytes: &[u8],
    ty: StreamType,
    (width, height): (usize, usize),
) -> Result<StreamData, StreamError> {
    let channels = ty.channels();
    let expected_bytes = width * height * channels * 4;
    if bytes.len() != expected_bytes {
        return Err(StreamError::RawLength {
            width,
            height,
            channels,
            expected_bytes,
            found_bytes: bytes.len(),
        });
    }
    let values = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let shape = if channels == 1 {
        vec![height, width]
    } else {
        vec![height, width, channels]
    };
    array_to_stream(
        &NpyArray {
            shape,
            data: NpyData::F32(values),
        },
        ty,
    )
}

/// The `.npy` form of a stream: shape `(H, W)` for one channel, else
/// `(H, W, C)`; `f32` storage as `<f4` (outputs always are), bytes as
/// `|u1`, `u16` as `<u2`.
pub fn stream_to_array(stream: &StreamData) -> NpyArray {
    let shape = if stream.channels == 1 {
        vec![stream.height, stream.width]
    } else {
        vec![stream.height, stream.width, stream.channels]
    };
    let data = match &stream.buffer {
        StreamBuffer::F32(v) => NpyData::F32(v.clone()),
        StreamBuffer::U8(v) => NpyData::U8(v.clone()),
        StreamBuffer::U16(v) => NpyData::U16(v.clone()),
    };
    NpyArray { shape, data }
}

/// The `.npy` form of a reduction's result: a 1-D `<f4` array of its lanes
/// (one for `f32`).
pub fn lanes_to_array(lanes: &[f32]) -> NpyArray {
    NpyArray {
        shape: vec![lanes.len()],
        data: NpyData::F32(lanes.to_vec()),
    }
}

/// The raw little-endian bytes of `f32` values (`--output NAME=PATH.f32`).
pub fn f32_to_raw(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(shape: &[usize], data: NpyData) -> NpyArray {
        NpyArray {
            shape: shape.to_vec(),
            data,
        }
    }

    #[test]
    fn scalar_shapes() {
        let d = || NpyData::F32((0..6).map(|x| x as f32).collect());
        for (shape, w, h) in [
            (vec![6], 6, 1),
            (vec![2, 3], 3, 2),
            (vec![3, 2, 1], 2, 3),
            (vec![1, 6], 6, 1),
        ] {
            let s = array_to_stream(&arr(&shape, d()), StreamType::F32).unwrap();
            assert_eq!((s.width, s.height, s.channels), (w, h, 1), "{shape:?}");
            assert_eq!(s.read(1, 0)[0], 1.0);
        }
        for shape in [vec![], vec![1, 2, 3], vec![1, 1, 2, 3], vec![3, 1, 2]] {
            let n = shape.iter().product();
            let e = array_to_stream(&arr(&shape, NpyData::F32(vec![0.0; n])), StreamType::F32);
            assert!(matches!(e, Err(StreamError::Shape { .. })), "{shape:?}");
        }
    }

    #[test]
    fn vector_shapes() {
        let s = array_to_stream(
            &arr(
                &[2, 3, 4],
                NpyData::F32((0..24).map(|x| x as f32).collect()),
            ),
            StreamType::Vec4,
        )
        .unwrap();
        assert_eq!((s.width, s.height, s.channels), (3, 2, 4));
        assert_eq!(s.read(1, 1), [16.0, 17.0, 18.0, 19.0]);
        let s =
            array_to_stream(&arr(&[5, 2], NpyData::F32(vec![1.0; 10])), StreamType::Vec2).unwrap();
        assert_eq!((s.width, s.height, s.channels), (5, 1, 2));
        for (shape, ty) in [
            (vec![2, 3, 4], StreamType::Vec2),
            (vec![2, 3, 2], StreamType::Vec4),
            (vec![8], StreamType::Vec4),
            (vec![2, 4, 4, 1], StreamType::Vec4),
            (vec![2, 3], StreamType::Vec2),
        ] {
            let n = shape.iter().product();
            let e = array_to_stream(&arr(&shape, NpyData::F32(vec![0.0; n])), ty);
            assert!(
                matches!(e, Err(StreamError::Shape { .. })),
                "{shape:?} {ty:?}"
            );
        }
        let msg = array_to_stream(
            &arr(&[2, 3, 3], NpyData::F32(vec![0.0; 18])),
            StreamType::Vec4,
        )
        .unwrap_err()
        .to_string();
        assert!(msg.contains("(H, W, 4)"), "{msg}");
    }

    #[test]
    fn empty_arrays_are_rejected() {
        let e = array_to_stream(&arr(&[0], NpyData::F32(vec![])), StreamType::F32);
        assert!(matches!(e, Err(StreamError::Empty { .. })));
        let e = array_to_stream(&arr(&[3, 0, 4], NpyData::U8(vec![])), StreamType::Unorm8x4);
        assert!(matches!(e, Err(StreamError::Empty { .. })));
    }

    #[test]
    fn float_dtypes_convert() {
        let f = |data| {
            array_to_stream(&arr(&[3], data), StreamType::F32).map(|s| s.as_f32().unwrap().to_vec())
        };
        assert_eq!(
            f(NpyData::F64(vec![0.5, -2.0, 0.1])).unwrap(),
            [0.5, -2.0, 0.1f32]
        );
        assert_eq!(
            f(NpyData::I32(vec![1, -7, 1 << 24])).unwrap(),
            [1.0, -7.0, 16777216.0]
        );
        assert_eq!(f(NpyData::I64(vec![1, 2, 3])).unwrap(), [1.0, 2.0, 3.0]);
        assert!(f(NpyData::F64(vec![f64::NAN, f64::INFINITY, 0.0])).is_ok());
        assert!(matches!(
            f(NpyData::F64(vec![0.0, 1e300, 0.0])),
            Err(StreamError::OutOfRange { index: 1, .. })
        ));
        for bad in [NpyData::U8(vec![0; 3]), NpyData::U16(vec![0; 3])] {
            assert!(matches!(f(bad), Err(StreamError::Dtype { .. })));
        }
    }

    #[test]
    fn u16_dtypes_convert_exactly() {
        let f = |data| array_to_stream(&arr(&[2], data), StreamType::U16).map(|s| s.buffer);
        let want = Ok(StreamBuffer::U16(vec![7, 65535]));
        assert_eq!(f(NpyData::U16(vec![7, 65535])), want);
        assert_eq!(f(NpyData::I32(vec![7, 65535])), want);
        assert_eq!(f(NpyData::I64(vec![7, 65535])), want);
        assert_eq!(f(NpyData::F32(vec![7.0, 65535.0])), want);
        assert_eq!(f(NpyData::F64(vec![7.0, 65535.0])), want);
        assert_eq!(
            f(NpyData::U8(vec![7, 255])),
            Ok(StreamBuffer::U16(vec![7, 255]))
        );
        for bad in [
            NpyData::I32(vec![0, -1]),
            NpyData::I32(vec![0, 65536]),
            NpyData::F32(vec![0.0, 1.5]),
            NpyData::F64(vec![0.0, f64::NAN]),
        ] {
            assert!(
                matches!(
                    f(bad.clone()),
                    Err(StreamError::OutOfRange { index: 1, .. })
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn unorm_needs_bytes() {
        let s = array_to_stream(
            &arr(&[1, 2, 4], NpyData::U8(vec![0, 51, 255, 1, 2, 3, 4, 5])),
            StreamType::Unorm8x4,
        )
        .unwrap();
        assert_eq!(s.read(0, 0), [0.0, 0.2, 1.0, 1.0 / 255.0]);
        let e = array_to_stream(
            &arr(&[1, 1, 4], NpyData::F32(vec![0.0; 4])),
            StreamType::Unorm8x4,
        );
        assert!(matches!(e, Err(StreamError::Dtype { .. })));
        let msg = e.unwrap_err().to_string();
        assert!(msg.contains("|u1"), "{msg}");
    }

    #[test]
    fn raw_f32() {
        let bytes = f32_to_raw(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let s = raw_f32_to_stream(&bytes, StreamType::F32, (3, 2)).unwrap();
        assert_eq!(s.read(2, 1)[0], 6.0);
        let s = raw_f32_to_stream(&bytes, StreamType::Vec2, (3, 1)).unwrap();
        assert_eq!(s.read(1, 0)[..2], [3.0, 4.0]);
        assert!(matches!(
            raw_f32_to_stream(&bytes, StreamType::F32, (2, 2)),
            Err(StreamError::RawLength {
                expected_bytes: 16,
                found_bytes: 24,
                ..
            })
        ));
        assert!(raw_f32_to_stream(&bytes[..23], StreamType::F32, (6, 1)).is_err());
        let s = raw_f32_to_stream(&bytes, StreamType::U16, (6, 1)).unwrap();
        assert_eq!(s.buffer, StreamBuffer::U16(vec![1, 2, 3, 4, 5, 6]));
    }

    #[test]
    fn streams_to_arrays() {
        let s = StreamData::zeros(3, 2, 4);
        assert_eq!(stream_to_array(&s).shape, [2, 3, 4]);
        let s = StreamData::zeros(3, 2, 1);
        assert_eq!(stream_to_array(&s).shape, [2, 3]);
        assert_eq!(lanes_to_array(&[1.0]).shape, [1]);
        assert_eq!(lanes_to_array(&[1.0, 2.0, 3.0, 4.0]).shape, [4]);
    }
}
