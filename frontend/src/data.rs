//! Stream and uniform data handed to a kernel run and returned from it.
//!
//! These types are shared by the reference interpreter, the IR interpreter
//! and the simulators, so that one set of inputs drives all of them. Reading
//! and writing files (`.npy`, raw `.f32`) is the driver's job (`ctm::io`).

use crate::types::StreamType;
use crate::value::Value;

/// The element storage of a stream, in row-major order, `channels` values
/// per element.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamBuffer {
    /// 32-bit floats (`f32`, `vec2`, `vec4` streams and all outputs).
    F32(Vec<f32>),
    /// Bytes (`unorm8x4`).
    U8(Vec<u8>),
    /// 16-bit unsigned integers (`u16`).
    U16(Vec<u16>),
}

/// A 2-D stream: `width` columns (i) by `height` rows (j).
#[derive(Clone, Debug, PartialEq)]
pub struct StreamData {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Values per element (1, 2 or 4).
    pub channels: usize,
    /// `width * height * channels` values, row-major.
    pub buffer: StreamBuffer,
}

impl StreamData {
    /// A stream of zeros of `f32` storage.
    pub fn zeros(width: usize, height: usize, channels: usize) -> StreamData {
        StreamData {
            width,
            height,
            channels,
            buffer: StreamBuffer::F32(vec![0.0; width * height * channels]),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.width * self.height
    }

    /// `true` if the stream has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the storage matches what a stream of element type `ty` needs.
    pub fn fits(&self, ty: StreamType) -> bool {
        let storage_ok = matches!(
            (&self.buffer, ty),
            (
                StreamBuffer::F32(_),
                StreamType::F32 | StreamType::Vec2 | StreamType::Vec4
            ) | (StreamBuffer::U8(_), StreamType::Unorm8x4)
                | (StreamBuffer::U16(_), StreamType::U16)
        );
        let len = match &self.buffer {
            StreamBuffer::F32(v) => v.len(),
            StreamBuffer::U8(v) => v.len(),
            StreamBuffer::U16(v) => v.len(),
        };
        storage_ok
            && self.channels == ty.channels()
            && len == self.width * self.height * self.channels
    }

    /// Element `(i, j)` as it reads in a kernel: floats as stored, bytes as
    /// `b / 255`, `u16` as an integer-valued float. Coordinates are clamped
    /// to the stream's edge. Lanes beyond `channels` are zero.
    pub fn read(&self, i: i64, j: i64) -> [f32; 4] {
        let mut out = [0.0; 4];
        if self.is_empty() {
            return out;
        }
        let x = i.clamp(0, self.width as i64 - 1) as usize;
        let y = j.clamp(0, self.height as i64 - 1) as usize;
        let base = (y * self.width + x) * self.channels;
        for (c, o) in out.iter_mut().enumerate().take(self.channels) {
            *o = match &self.buffer {
                StreamBuffer::F32(v) => v[base + c],
                StreamBuffer::U8(v) => v[base + c] as f32 / 255.0,
                StreamBuffer::U16(v) => v[base + c] as f32,
            };
        }
        out
    }

    /// The `f32` storage, if that is what this stream holds.
    pub fn as_f32(&self) -> Option<&[f32]> {
        match &self.buffer {
            StreamBuffer::F32(v) => Some(v),
            _ => None,
        }
    }
}

/// The value of a uniform parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum UniformValue {
    /// A value-type uniform (`f32`, `vecN`, `i32`, `bool`).
    Value(Value),
    /// A `mat4`, column-major: element `(row r, column c)` at `4 * c + r`.
    Mat4([f32; 16]),
    /// A uniform array's elements.
    Array(Vec<Value>),
}

/// The data bound to one kernel parameter for a run.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamData {
    /// A uniform's value.
    Uniform(UniformValue),
    /// An input stream.
    Input(StreamData),
    /// An `Out` or `Scatter` parameter: nothing to bind (outputs start as
    /// zeros of the domain's shape).
    Output,
}

/// Everything a kernel run needs besides the program.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelArgs {
    /// The domain: (width, height).
    pub domain: (usize, usize),
    /// One entry per kernel parameter, in parameter order.
    pub params: Vec<ParamData>,
}
