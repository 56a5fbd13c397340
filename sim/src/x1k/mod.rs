//! The X1K as exposed by CTM: the device ([`device`]: command processor,
//! memory controller, conditional operation unit, performance counters) and
//! the data-parallel processor array ([`dpp`]: exact DPP semantics and the
//! cycle model). [`interface`] is the boundary between the two.

pub mod device;
pub mod dpp;
pub mod interface;
