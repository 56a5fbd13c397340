//! Checks a run's arguments against the kernel's parameters and binds them
//! ([`Binding`]); every mismatch is a [`RuntimeError::BadArguments`] naming
//! the parameter.

use super::RuntimeError;
use super::exec::Binding;
use crate::data::{KernelArgs, ParamData, StreamBuffer, StreamData, UniformValue};
use crate::tast::{Kernel, ParamKind};
use crate::types::{StreamType, Type};
use crate::value::Value;

/// An output stream to create: its parameter index and channels.
pub(crate) struct OutputSpec {
    /// Index of the parameter in [`Kernel::params`].
    pub(crate) param: usize,
    /// Channels per element (1, 2 or 4; `Scatter` 1).
    pub(crate) channels: usize,
}

/// The bound parameters and the outputs to create, `Out`s and `Scatter`s
/// each in parameter order (their slot numbers).
pub(crate) struct Bound<'a> {
    /// One binding per parameter.
    pub(crate) params: Vec<Binding<'a>>,
    /// The `Out` parameters.
    pub(crate) outs: Vec<OutputSpec>,
    /// The `Scatter` parameters.
    pub(crate) scatters: Vec<OutputSpec>,
}

fn bad<T>(message: String) -> Result<T, RuntimeError> {
    Err(RuntimeError::BadArguments(message))
}

/// Checks `args` against `kernel` and binds them.
///
/// # Errors
/// [`RuntimeError::BadArguments`] on a wrong number of arguments, a domain
/// too large to address, or any argument that does not fit its parameter.
pub(crate) fn kernel<'a>(kernel: &Kernel, args: &'a KernelArgs) -> Result<Bound<'a>, RuntimeError> {
    if args.params.len() != kernel.params.len() {
        return bad(format!(
            "kernel `{}` has {} parameters, {} arguments given",
            kernel.name,
            kernel.params.len(),
            args.params.len()
        ));
    }
    let (width, height) = args.domain;
    if width
        .checked_mul(height)
        .and_then(|n| n.checked_mul(4))
        .is_none()
    {
        return bad(format!("domain {width}x{height} is too large"));
    }
    let mut bound = Bound {
        params: Vec::with_capacity(args.params.len()),
        outs: Vec::new(),
        scatters: Vec::new(),
    };
    for (k, (param, data)) in kernel.params.iter().zip(&args.params).enumerate() {
        let name = &param.name;
        let binding = match (param.kind, data) {
            (ParamKind::Uniform(ty), ParamData::Uniform(u)) => uniform(name, ty, u)?,
            (ParamKind::Input(ty), ParamData::Input(stream)) => {
                check_stream(name, ty, stream)?;
                Binding::Input {
                    stream,
                    width: ty.value_type().float_width().unwrap_or(1),
                }
            }
            (ParamKind::Output(ty), ParamData::Output) => {
                bound.outs.push(OutputSpec {
                    param: k,
                    channels: ty.channels(),
                });
                Binding::Output {
                    slot: bound.outs.len() - 1,
                }
            }
            (ParamKind::Scatter, ParamData::Output) => {
                bound.scatters.push(OutputSpec {
                    param: k,
                    channels: 1,
                });
                Binding::Scatter {
                    slot: u32::try_from(bound.scatters.len() - 1).unwrap_or(u32::MAX),
                }
            }
            (kind, data) => {
                return bad(format!(
                    "parameter `{name}` is {}, but {} was given",
                    describe_kind(&kind),
                    describe_data(data)
                ));
            }
        };
        bound.params.push(binding);
    }
    Ok(bound)
}

/// Checks that `stream` holds a non-empty stream of element type `ty` with
/// as many values as its shape says.
fn check_stream(name: &str, ty: StreamType, stream: &StreamData) -> Result<(), RuntimeError> {
    if !stream.fits(ty) {
        return bad(format!(
            "input `{name}` is In<{}> ({} channel(s)), but the stream holds {} with {} channel(s)",
            ty.name(),
            ty.channels(),
            storage_name(&stream.buffer),
            stream.channels
        ));
    }
    check_shape(name, stream)
}

/// Checks that `stream` is non-empty and its buffer has
/// `width * height * channels` values.
pub(crate) fn check_shape(name: &str, stream: &StreamData) -> Result<(), RuntimeError> {
    if stream.is_empty() {
        return bad(format!(
            "input `{name}` is empty ({}x{})",
            stream.width, stream.height
        ));
    }
    let expected = stream
        .width
        .checked_mul(stream.height)
        .and_then(|n| n.checked_mul(stream.channels));
    let held = match &stream.buffer {
        StreamBuffer::F32(v) => v.len(),
        StreamBuffer::U8(v) => v.len(),
        StreamBuffer::U16(v) => v.len(),
    };
    if expected != Some(held) {
        return bad(format!(
            "input `{name}` is {}x{} with {} channel(s), but its buffer holds {held} values",
            stream.width, stream.height, stream.channels
        ));
    }
    Ok(())
}

/// The value type an input stream's elements read as, if its storage and
/// channels make a stream type (`f32`/`vec2`/`vec4` floats, `unorm8x4`
/// bytes, `u16`).
pub(crate) fn stream_value_type(stream: &StreamData) -> Option<Type> {
    let ty = match (&stream.buffer, stream.channels) {
        (StreamBuffer::F32(_), 1) => StreamType::F32,
        (StreamBuffer::F32(_), 2) => StreamType::Vec2,
        (StreamBuffer::F32(_), 4) => StreamType::Vec4,
        (StreamBuffer::U8(_), 4) => StreamType::Unorm8x4,
        (StreamBuffer::U16(_), 1) => StreamType::U16,
        _ => return None,
    };
    Some(ty.value_type())
}

fn uniform<'a>(name: &str, ty: Type, u: &'a UniformValue) -> Result<Binding<'a>, RuntimeError> {
    let mismatch = || {
        bad(format!(
            "uniform `{name}` has type {ty}, but {} was given",
            describe_uniform(u)
        ))
    };
    match (ty, u) {
        (Type::Mat4, UniformValue::Mat4(m)) => Ok(Binding::Mat4(m)),
        (Type::Array(a), UniformValue::Array(items)) => {
            if items.len() != usize::from(a.len) || items.is_empty() {
                return bad(format!(
                    "uniform `{name}` has type {ty}, but {} elements were given",
                    items.len()
                ));
            }
            let elem = a.elem.ty();
            let mut out = Vec::with_capacity(items.len());
            for (k, item) in items.iter().enumerate() {
                match normalized(item, elem) {
                    Some(v) => out.push(v),
                    None => {
                        return bad(format!(
                            "uniform `{name}` has type {ty}, but element {k} is {}",
                            describe_value(item)
                        ));
                    }
                }
            }
            Ok(Binding::Array(out))
        }
        (ty, UniformValue::Value(v)) if ty.is_value() => match normalized(v, ty) {
            Some(v) => Ok(Binding::Value(v)),
            None => mismatch(),
        },
        _ => mismatch(),
    }
}

/// `v` if it is a well-formed value of type `ty`, with the lanes at and
/// above its width zeroed (as [`Value`] promises).
fn normalized(v: &Value, ty: Type) -> Option<Value> {
    match (*v, ty) {
        (Value::Bool(_), Type::Bool) | (Value::I32(_), Type::I32) => Some(*v),
        (Value::Float { mut lanes, width }, ty) if ty.float_width() == Some(width) => {
            lanes[usize::from(width)..].fill(0.0);
            Some(Value::Float { lanes, width })
        }
        _ => None,
    }
}

fn describe_kind(kind: &ParamKind) -> String {
    match kind {
        ParamKind::Uniform(ty) => format!("a uniform of type {ty}"),
        ParamKind::Input(ty) => format!("an input stream In<{}>", ty.name()),
        ParamKind::Output(ty) => format!("an output stream Out<{}>", ty.value_type()),
        ParamKind::Scatter => "a scatter output Scatter<f32>".into(),
    }
}

fn describe_data(data: &ParamData) -> String {
    match data {
        ParamData::Uniform(u) => format!("a uniform ({})", describe_uniform(u)),
        ParamData::Input(_) => "an input stream".into(),
        ParamData::Output => "an output".into(),
    }
}

fn describe_uniform(u: &UniformValue) -> String {
    match u {
        UniformValue::Value(v) => describe_value(v),
        UniformValue::Mat4(_) => "a mat4".into(),
        UniformValue::Array(items) => format!("an array of {} elements", items.len()),
    }
}

/// A value's type, without trusting its width (printing a malformed
/// value would panic).
pub(crate) fn describe_value(v: &Value) -> String {
    match v {
        Value::Unit => "()".into(),
        Value::Bool(_) => "a bool".into(),
        Value::I32(_) => "an i32".into(),
        Value::Float { width: 1, .. } => "an f32".into(),
        Value::Float { width, .. } if (2..=4).contains(width) => format!("a vec{width}"),
        Value::Float { width, .. } => format!("a malformed float of width {width}"),
    }
}

fn storage_name(buffer: &StreamBuffer) -> &'static str {
    match buffer {
        StreamBuffer::F32(_) => "f32 values",
        StreamBuffer::U8(_) => "bytes",
        StreamBuffer::U16(_) => "u16 values",
    }
}
