//! The one error type of the host API ([`Error`]): everything a user of
//! [`Device`](super::Device), [`Stream`](super::Stream),
//! [`Program`](super::Program) and the `ctm_kernel!` launch functions can
//! get wrong, and the failures of the simulated devices.

use ctm_frontend::Target;

/// Why a host-API call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A stream whose data does not match its shape, or streams of one
    /// launch whose shapes disagree (every output has the domain's shape).
    #[error("wrong stream size: {0}")]
    StreamSize(String),
    /// An argument of the wrong type for its parameter.
    #[error("argument `{name}`: expected {expected}, found {found}")]
    ArgumentType {
        /// The parameter.
        name: String,
        /// The parameter's type, as the language writes it.
        expected: String,
        /// What was given.
        found: String,
    },
    /// A parameter given no argument, an argument naming no parameter,
    /// or the same name twice.
    #[error("wrong arguments for `{entry}`: {detail}")]
    ArgumentCount {
        /// The entry point.
        entry: String,
        /// What is missing or extra.
        detail: String,
    },
    /// The entry point cannot run on this device; `reason` says why (a
    /// rule of the target the source breaks, a hardware limit, or a part
    /// of the toolchain not built yet).
    #[error("`{entry}` is not available on the {target} device: {reason}")]
    Unavailable {
        /// The entry point.
        entry: String,
        /// The device's target.
        target: Target,
        /// Why.
        reason: String,
    },
    /// A source compiled at run time has errors; the rendered diagnostics.
    #[error("the source has errors:\n{0}")]
    Source(String),
    /// The entry point is beyond a hardware limit of the target (a `CK`
    /// diagnostic of its code generator, rendered).
    #[error("hardware limit: {0}")]
    Limit(String),
    /// The data cannot run on the device (a domain beyond its limit, a
    /// loop bound beyond its counter, ...).
    #[error("cannot run on the {target} device: {detail}")]
    Unfit {
        /// The device's target.
        target: Target,
        /// Why.
        detail: String,
    },
    /// The program faulted on the simulated device.
    #[error("runtime fault on the {target} device: {detail}")]
    Fault {
        /// The device's target.
        target: Target,
        /// The address, the rule and the element.
        detail: String,
    },
    /// A file could not be read or written (`.npy`, `.ck`).
    #[error("{0}")]
    Io(String),
    /// A bug of ctm.
    #[error("internal error (a bug in ctm): {0}")]
    Internal(String),
}
