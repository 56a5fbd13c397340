//! The PE's performance counters (CTM §2.1.2, §2.2.1): total clocks and
//! clocks with at least one processor active.
//!
//! Clock model (`docs/ctm-device.md` §9): the PE spends
//! [`CLOCKS_PER_COMMAND`] clock parsing each command; a `start_program`
//! adds the array's reported `total_cycles` to the total and its
//! `active_cycles` to the active count. Execution is synchronous, so
//! `wait_for_idle` adds nothing. Counters only advance while started, and
//! are written as 32-bit values (the low 32 bits).

use super::array::ArrayCycles;
use super::params::PerfCounterMode;

/// PE clocks charged for parsing one command (an assumption; the guide gives
/// no number).
pub const CLOCKS_PER_COMMAND: u64 = 1;

/// The two counters and their enable/run state.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PerfCounters {
    mode: PerfCounterMode,
    running: bool,
    total_clocks: u64,
    active_clocks: u64,
}

impl PerfCounters {
    /// `init_perf_counters`: enable or disable; a disabled set stops and
    /// ignores the other commands.
    pub fn init(&mut self, mode: PerfCounterMode) {
        self.mode = mode;
        if mode == PerfCounterMode::Disabled {
            self.running = false;
        }
    }

    /// Whether the counters are enabled.
    pub fn enabled(&self) -> bool {
        self.mode == PerfCounterMode::Enabled
    }

    /// Whether the counters are counting.
    pub fn running(&self) -> bool {
        self.running
    }

    /// `start_perf_counters`: zero and start (if enabled).
    pub fn start(&mut self) {
        if self.enabled() {
            self.total_clocks = 0;
            self.active_clocks = 0;
            self.running = true;
        }
    }

    /// `stop_perf_counters` (if enabled).
    pub fn stop(&mut self) {
        if self.enabled() {
            self.running = false;
        }
    }

    /// Advance by `total` clocks of which `active` had a processor busy.
    pub fn advance(&mut self, cycles: ArrayCycles) {
        if self.running {
            self.total_clocks = self.total_clocks.saturating_add(cycles.total_cycles);
            self.active_clocks = self
                .active_clocks
                .saturating_add(cycles.active_cycles.min(cycles.total_cycles));
        }
    }

    /// (total clocks, active clocks), full width.
    pub fn values(&self) -> (u64, u64) {
        (self.total_clocks, self.active_clocks)
    }

    /// The words `read_perf_counters` writes: total clocks, then clocks
    /// active (§2.1.2); `None` when disabled ("this command has no effect").
    pub fn read_words(&self) -> Option<[u32; 2]> {
        self.enabled()
            .then_some([self.total_clocks as u32, self.active_clocks as u32])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disabled_counters_ignore_commands() {
        let mut p = PerfCounters::default();
        p.start();
        p.advance(ArrayCycles {
            total_cycles: 5,
            active_cycles: 3,
        });
        assert_eq!(p.values(), (0, 0));
        assert_eq!(p.read_words(), None);
    }

    #[test]
    fn start_zeroes_and_stop_freezes() {
        let mut p = PerfCounters::default();
        p.init(PerfCounterMode::Enabled);
        p.start();
        p.advance(ArrayCycles {
            total_cycles: 10,
            active_cycles: 4,
        });
        p.stop();
        p.advance(ArrayCycles {
            total_cycles: 10,
            active_cycles: 4,
        });
        assert_eq!(p.read_words(), Some([10, 4]));
        p.start();
        assert_eq!(p.values(), (0, 0));
    }
}
