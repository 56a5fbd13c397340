//! What the code `ctm_kernel!` generates calls: binding typed arguments,
//! choosing the embedded ELF for the device, and launching it through
//! [`super::launch`]. Not a stable API: use the generated functions.

use super::launch::{Bound, launch_kernel, launch_reduction};
use super::{Device, Element, Error, KernelImage, Stats, Stream};
use ctm_driver::target::MachineProgram;
use ctm_frontend::data::{StreamData, UniformValue};
use ctm_frontend::value::Value;

/// The ELF `image` holds for `dev`'s target.
fn elf_for(dev: &Device, image: &KernelImage) -> Result<&'static [u8], Error> {
    let target = dev.target();
    let build = image
        .builds
        .iter()
        .find(|b| b.target == target.name())
        .ok_or_else(|| Error::Unavailable {
            entry: image.name.to_string(),
            target,
            reason: "ctm_kernel! did not compile it for this target".into(),
        })?;
    build.elf.map_err(|reason| Error::Unavailable {
        entry: image.name.to_string(),
        target,
        reason: reason.to_string(),
    })
}

fn program_for(dev: &Device, image: &KernelImage) -> Result<Box<dyn MachineProgram>, Error> {
    let elf = elf_for(dev, image)?;
    dev.machine().read_elf(elf).map_err(|e| {
        Error::Internal(format!(
            "the ELF of `{}` embedded by ctm_kernel! does not read back: {e}",
            image.name
        ))
    })
}

/// Launches the kernel of `image` on `dev` with `bound`.
///
/// # Errors
/// As the generated `launch`.
pub fn launch_image(
    dev: &mut Device,
    image: &KernelImage,
    bound: &[(String, Bound)],
) -> Result<(Vec<(String, StreamData)>, Stats), Error> {
    let program = program_for(dev, image)?;
    launch_kernel(dev, program.as_ref(), image.name, bound, None)
}

/// A reduction's value type: `f32`, `[f32; 2]`, `[f32; 4]`.
pub trait ReduceValue: Element {
    /// The value of `lanes`.
    fn from_lanes(lanes: &[f32]) -> Option<Self>;
}

impl ReduceValue for f32 {
    fn from_lanes(lanes: &[f32]) -> Option<f32> {
        lanes.first().copied()
    }
}

impl<const N: usize> ReduceValue for [f32; N]
where
    [f32; N]: Element,
{
    fn from_lanes(lanes: &[f32]) -> Option<[f32; N]> {
        <[f32; N]>::try_from(lanes.get(..N)?).ok()
    }
}

/// Runs the reduction of `image` over `input` on `dev`.
///
/// # Errors
/// As the generated `reduce`.
pub fn reduce_image<T: ReduceValue>(
    dev: &mut Device,
    image: &KernelImage,
    input: &Stream<T>,
) -> Result<(T, Stats), Error> {
    let elf = elf_for(dev, image)?;
    let data = input.to_data();
    let (lanes, stats) = launch_reduction(dev, elf, image.name, data.channels, &data)?;
    let value = T::from_lanes(&lanes).ok_or_else(|| {
        Error::Internal(format!("`{}` produced {} lanes", image.name, lanes.len()))
    })?;
    Ok((value, stats))
}

/// An input stream argument.
pub fn input<T: Element>(name: &str, stream: &Stream<T>) -> (String, Bound) {
    (name.to_string(), Bound::Input(stream.to_data()))
}

/// An output stream argument (its shape).
pub fn output<T: Element>(name: &str, stream: &Stream<T>) -> (String, Bound) {
    (
        name.to_string(),
        Bound::Output(stream.width(), stream.height()),
    )
}

/// A uniform argument.
pub fn uniform(name: &str, value: UniformValue) -> (String, Bound) {
    (name.to_string(), Bound::Uniform(value))
}

/// An `f32` uniform.
pub fn f32_value(x: f32) -> UniformValue {
    UniformValue::Value(Value::f32(x))
}

/// An `i32` uniform.
pub fn i32_value(x: i32) -> UniformValue {
    UniformValue::Value(Value::I32(x))
}

/// A `bool` uniform.
pub fn bool_value(x: bool) -> UniformValue {
    UniformValue::Value(Value::Bool(x))
}

/// A `vecN` uniform.
pub fn vec_value<const N: usize>(x: [f32; N]) -> UniformValue {
    UniformValue::Value(Value::floats(&x[..N.clamp(1, 4)]))
}

/// A `mat4` uniform, column-major.
pub fn mat4_value(x: [f32; 16]) -> UniformValue {
    UniformValue::Mat4(x)
}

/// An `[f32; N]` uniform.
pub fn f32_array<const N: usize>(x: [f32; N]) -> UniformValue {
    UniformValue::Array(x.iter().map(|v| Value::f32(*v)).collect())
}

/// An `[i32; N]` uniform.
pub fn i32_array<const N: usize>(x: [i32; N]) -> UniformValue {
    UniformValue::Array(x.iter().map(|v| Value::I32(*v)).collect())
}

/// A `[vecK; N]` uniform.
pub fn vec_array<const K: usize, const N: usize>(x: [[f32; K]; N]) -> UniformValue {
    UniformValue::Array(
        x.iter()
            .map(|v| Value::floats(&v[..K.clamp(1, 4)]))
            .collect(),
    )
}

/// Stores the output `name` of a launch into `stream`.
///
/// # Errors
/// [`Error::Internal`] if the launch has no such output of `T`.
pub fn store<T: Element>(
    outputs: &[(String, StreamData)],
    name: &str,
    stream: &mut Stream<T>,
) -> Result<(), Error> {
    let data = outputs
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, d)| d)
        .ok_or_else(|| Error::Internal(format!("the launch produced no output `{name}`")))?;
    *stream = Stream::from_data(data).ok_or_else(|| {
        Error::Internal(format!("output `{name}` is not a stream of {}", T::NAME))
    })?;
    Ok(())
}
