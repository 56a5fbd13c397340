//! The processor array as the CTM device drives it: [`Dpp`] implements the
//! device's [`ProcessorArray`] trait (`docs/ctm-device.md` §11) on top of
//! [`run_program`] (streamed: [`run_program_streaming`]), and keeps each run's statistics, batch timings and
//! warnings for the driver (`--stats`, `--trace`).

use super::{
    BatchTiming, DppOptions, DppStats, StreamError, Warning, run_program, run_program_streaming,
};
use crate::x1k::device::array::{ArrayCycles, ArrayError, ArrayRun, ProcessorArray, StreamFailure};
use crate::x1k::interface::{DppMemory, ElementResult, Elements, Program};

/// What one `start_program` run of the array recorded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunRecord {
    /// Statistics.
    pub stats: DppStats,
    /// Batch timings.
    pub batches: Vec<BatchTiming>,
    /// Hazard warnings (under [`super::HazardPolicy::Warn`]).
    pub warnings: Vec<Warning>,
}

/// The X1K processor array with its options; one [`RunRecord`] per run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dpp {
    /// Options for every run.
    pub options: DppOptions,
    /// The runs so far, in order.
    pub runs: Vec<RunRecord>,
}

impl Dpp {
    /// An array with `options`.
    pub fn new(options: DppOptions) -> Self {
        Dpp {
            options,
            runs: Vec::new(),
        }
    }
}

/// Clocks in which at least one batch was resident: the union of the
/// batches' [admission, end] intervals.
fn active_cycles(batches: &[BatchTiming]) -> u64 {
    let mut spans: Vec<(u64, u64)> = batches
        .iter()
        .map(|b| (b.admit_cycle, b.end_cycle))
        .collect();
    spans.sort_unstable();
    let mut total = 0;
    let mut current: Option<(u64, u64)> = None;
    for (start, end) in spans {
        match current {
            Some((s, e)) if start <= e => current = Some((s, e.max(end))),
            Some((s, e)) => {
                total += e - s;
                current = Some((start, end));
            }
            None => current = Some((start, end)),
        }
    }
    total + current.map_or(0, |(s, e)| e - s)
}

impl ProcessorArray for Dpp {
    fn run(
        &mut self,
        program: &Program,
        pairs: &[(u32, u32)],
        memory: &dyn DppMemory,
    ) -> Result<ArrayRun, ArrayError> {
        let run = run_program(program, pairs, memory, &self.options)?;
        let cycles = ArrayCycles {
            total_cycles: run.stats.cycles,
            active_cycles: active_cycles(&run.batches).min(run.stats.cycles),
        };
        self.runs.push(RunRecord {
            stats: run.stats,
            batches: run.batches,
            warnings: run.warnings,
        });
        Ok(ArrayRun {
            results: run.results,
            cycles,
        })
    }

    fn run_streaming<E: Send>(
        &mut self,
        program: &Program,
        pairs: Elements<'_>,
        memory: &dyn DppMemory,
        sink: &mut (dyn FnMut(&[ElementResult]) -> Result<(), E> + Send),
    ) -> Result<ArrayCycles, StreamFailure<E>> {
        let run = run_program_streaming(program, pairs, memory, &self.options, sink).map_err(
            |e| match e {
                StreamError::Fault(f) => StreamFailure::Array(Box::new(f)),
                StreamError::Sink(e) => StreamFailure::Sink(e),
            },
        )?;
        let cycles = ArrayCycles {
            total_cycles: run.stats.cycles,
            active_cycles: active_cycles(&run.batches).min(run.stats.cycles),
        };
        self.runs.push(RunRecord {
            stats: run.stats,
            batches: run.batches,
            warnings: run.warnings,
        });
        Ok(cycles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(admit: u64, end: u64) -> BatchTiming {
        BatchTiming {
            batch: 0,
            dispatcher: 0,
            first_element: 0,
            elements: 1,
            admit_cycle: admit,
            start_cycle: admit,
            end_cycle: end,
        }
    }

    #[test]
    fn active_is_the_union_of_spans() {
        assert_eq!(
            active_cycles(&[timing(0, 10), timing(5, 20), timing(30, 35)]),
            25
        );
        assert_eq!(active_cycles(&[]), 0);
    }
}
