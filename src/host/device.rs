//! [`Device`]: one simulated GPU (the X1K on its CTM device, or the R700)
//! with its configurable model, on which kernels are launched.

use super::{Error, Stats};
use ctm_driver::target::MachineTarget;
use ctm_driver::{SimulateOptions, Target};

/// A simulated GPU: a machine target of the target layer
/// ([`ctm_driver::target::machine`]) and the options of its model.
///
/// ```
/// let dev = ctm::Device::x1k();
/// assert_eq!(dev.target(), ctm::Target::X1k);
/// assert!(ctm::Device::new(ctm::Target::Ref).is_err());
/// ```
#[derive(Clone)]
pub struct Device {
    target: &'static dyn MachineTarget,
    options: SimulateOptions,
    last: Option<Stats>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("target", &self.target())
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Device {
    /// The X1K (R5xx) on the simulated CTM device, default model.
    pub fn x1k() -> Device {
        Device::from_machine(&ctm_driver::target::x1k::X1K)
    }

    /// The R700 (RV770) on its simulated SIMD engines, default model.
    pub fn r700() -> Device {
        Device::from_machine(&ctm_driver::target::r700::R700)
    }

    /// The device of a machine target.
    ///
    /// # Errors
    /// [`Error::Unavailable`] for [`Target::Ref`], the reference
    /// interpreter, which has no machine code.
    pub fn new(target: Target) -> Result<Device, Error> {
        ctm_driver::target::machine(target)
            .map(Device::from_machine)
            .ok_or_else(|| Error::Unavailable {
                entry: String::new(),
                target,
                reason: "`ref` is the reference interpreter, not a device".into(),
            })
    }

    /// The device of a machine target object.
    pub fn from_machine(target: &'static dyn MachineTarget) -> Device {
        Device {
            target,
            options: SimulateOptions::default(),
            last: None,
        }
    }

    /// The device with the models of `options` (SIMD group size, step
    /// limit, hazard policy, cycle model: [`SimulateOptions::models`]).
    pub fn with_options(mut self, options: SimulateOptions) -> Device {
        self.options = options;
        self
    }

    /// Its target.
    pub fn target(&self) -> Target {
        self.target.target()
    }

    /// Its machine target object.
    pub fn machine(&self) -> &'static dyn MachineTarget {
        self.target
    }

    /// The options of its model.
    pub fn options(&self) -> &SimulateOptions {
        &self.options
    }

    /// The options of its model, to change.
    pub fn options_mut(&mut self) -> &mut SimulateOptions {
        &mut self.options
    }

    /// What the last successful launch on this device measured.
    pub fn last_stats(&self) -> Option<&Stats> {
        self.last.as_ref()
    }

    pub(crate) fn record(&mut self, stats: &Stats) {
        self.last = Some(stats.clone());
    }
}
