//! Launching on a [`Device`]: binding arguments to an entry point's
//! parameters, choosing the domain, and running a kernel or a reduction
//! on the device's simulated machine through the target layer
//! (`MachineTarget::session`, `ctm_driver::simulate::run_reduction`) —
//! the same launches `ctmc --simulate` makes.
//!
//! Shared by the runtime [`Program`](super::Program) and the code
//! `ctm_kernel!` generates ([`__private`](super::__private)).

use super::{Device, Error, Stats};
use ctm_driver::target::{Launch, LaunchError, LaunchValue, MachineProgram};
use ctm_driver::{SimulateError, simulate::run_reduction};
use ctm_frontend::data::{StreamData, UniformValue};
use ctm_frontend::types::Type;
use std::collections::HashMap;

/// A value bound to one parameter of a launch.
#[derive(Clone, Debug)]
pub enum Bound {
    /// An input stream.
    Input(StreamData),
    /// A uniform.
    Uniform(UniformValue),
    /// An output (`Out` or `Scatter`) of this shape (width, height).
    Output(usize, usize),
}

/// Maps a failure of the simulated device to the host API's error.
pub(crate) fn launch_error(dev: &Device, e: LaunchError) -> Error {
    let target = dev.target();
    match e {
        LaunchError::Unfit(detail) => Error::Unfit { target, detail },
        LaunchError::Fault(detail) => Error::Fault { target, detail },
        LaunchError::Internal(e) => Error::Internal(e.to_string()),
    }
}

pub(crate) fn simulate_error(dev: &Device, e: SimulateError) -> Error {
    let target = dev.target();
    match e {
        SimulateError::MachineFault(detail) => Error::Fault { target, detail },
        SimulateError::Fault(f) => Error::Fault {
            target,
            detail: f.to_string(),
        },
        SimulateError::Unfit(detail) => Error::Unfit { target, detail },
        SimulateError::Compile(d) => Error::Limit(d.to_string()),
        SimulateError::Internal(e) => Error::Internal(e.to_string()),
    }
}

/// The domain of a kernel launch: the shape every output shares
/// (`domain` first if given; with no output, the first input's shape).
fn domain_of(
    entry: &str,
    bound: &[(String, Bound)],
    domain: Option<(usize, usize)>,
) -> Result<(usize, usize), Error> {
    let mut found = domain;
    for (name, b) in bound {
        if let Bound::Output(w, h) = b {
            match found {
                None => found = Some((*w, *h)),
                Some(d) if d == (*w, *h) => {}
                Some((dw, dh)) => {
                    return Err(Error::StreamSize(format!(
                        "output `{name}` of `{entry}` is {w}x{h}, but the domain is {dw}x{dh} \
                         (every output has the domain's shape)"
                    )));
                }
            }
        }
    }
    if found.is_none() {
        found = bound.iter().find_map(|(_, b)| match b {
            Bound::Input(s) => Some((s.width, s.height)),
            _ => None,
        });
    }
    match found {
        Some((w, h)) if w > 0 && h > 0 => Ok((w, h)),
        Some((w, h)) => Err(Error::StreamSize(format!(
            "the domain of `{entry}` would be {w}x{h}; streams must not be empty"
        ))),
        None => Err(Error::StreamSize(format!(
            "`{entry}` has no stream to take its domain from"
        ))),
    }
}

/// Launches the kernel `program` on `dev` with `bound` (by parameter
/// name): its outputs by name and what the device measured.
pub(crate) fn launch_kernel(
    dev: &mut Device,
    program: &dyn MachineProgram,
    entry: &str,
    bound: &[(String, Bound)],
    domain: Option<(usize, usize)>,
) -> Result<(Vec<(String, StreamData)>, Stats), Error> {
    let domain = domain_of(entry, bound, domain)?;
    for (name, b) in bound {
        if let Bound::Input(s) = b
            && s.is_empty()
        {
            return Err(Error::StreamSize(format!(
                "input `{name}` of `{entry}` is empty"
            )));
        }
    }
    let values: HashMap<String, LaunchValue<'_>> = bound
        .iter()
        .filter_map(|(name, b)| match b {
            Bound::Input(s) => Some((name.clone(), LaunchValue::Stream(s))),
            Bound::Uniform(u) => Some((name.clone(), LaunchValue::Uniform(u))),
            Bound::Output(..) => None,
        })
        .collect();
    let mut session = dev.machine().session(dev.options());
    let outputs = session
        .launch(program, &Launch { domain, values })
        .map_err(|e| launch_error(dev, e))?;
    let measured = session.finish(entry, None);
    dev.record(&measured.stats);
    Ok((outputs, measured.stats))
}

/// Runs the reduction `entry` (whose value has `channels` lanes) over
/// `input` on `dev`, with `pass` the pass program reading a stream of
/// its own type (its ELF file `elf`): the one value left and the
/// statistics of every pass.
pub(crate) fn launch_reduction(
    dev: &mut Device,
    elf: &[u8],
    entry: &str,
    channels: usize,
    input: &StreamData,
) -> Result<(Vec<f32>, Stats), Error> {
    if input.is_empty() {
        return Err(Error::StreamSize(format!(
            "the input of `{entry}` is empty"
        )));
    }
    let ty = match channels {
        1 => Type::F32,
        2 => Type::Vec2,
        4 => Type::Vec4,
        n => {
            return Err(Error::Internal(format!("a reduction value of {n} lanes")));
        }
    };
    if input.channels != channels || input.as_f32().is_none() {
        return Err(Error::ArgumentType {
            name: entry.to_string(),
            expected: format!("a stream of {ty}"),
            found: format!("a stream of {} lanes", input.channels),
        });
    }
    let target = dev.machine();
    let mut program = |_| -> Result<Box<dyn MachineProgram>, SimulateError> {
        target
            .read_elf(elf)
            .map_err(|e| SimulateError::Internal(ctm_driver::InternalError::Driver(e)))
    };
    let sim = run_reduction(target, entry, ty, &mut program, input, dev.options())
        .map_err(|e| simulate_error(dev, e))?;
    dev.record(&sim.stats);
    let value = sim
        .outputs
        .first()
        .map(|o| o.values())
        .ok_or_else(|| Error::Internal(format!("the reduction `{entry}` produced no value")))?;
    Ok((value, sim.stats))
}
