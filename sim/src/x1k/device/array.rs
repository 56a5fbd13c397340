//! The device's view of the processor array: the [`ProcessorArray`] trait.
//!
//! The array itself (`x1k::dpp`) is written separately; the device only
//! needs to hand it a program and index pairs and to get back one
//! [`ElementResult`] per pair (as one list, or streamed in slices while
//! the array runs: [`ProcessorArray::run_streaming`]) plus the cycle counts the performance counters
//! accumulate (CTM §2.1.2). Tests drive the device with small fake arrays.

use crate::x1k::interface::{DppMemory, ElementResult, Elements, Program};

/// An error from the array, passed through the device unchanged.
pub type ArrayError = Box<dyn std::error::Error + Send + Sync>;

/// Clock counts of one run, for the PE's performance counters (CTM §2.1.2:
/// "total clocks" and "total clocks during which at least one processor was
/// active").
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ArrayCycles {
    /// Clocks from the first dispatch to the last processor going idle.
    pub total_cycles: u64,
    /// Clocks in which at least one processor was busy (≤ `total_cycles`).
    pub active_cycles: u64,
}

/// What one run of the array produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArrayRun {
    /// One result per index pair, **in the order of the pairs given**.
    pub results: Vec<ElementResult>,
    /// Clock counts (the statistics hook).
    pub cycles: ArrayCycles,
}

/// A data-parallel processor array the device can schedule work on.
pub trait ProcessorArray {
    /// Run `program` once for each index pair in `pairs` (row-major, after
    /// the PE's conditional test), reading inputs and constants through
    /// `memory`.
    ///
    /// The result list must have one entry per pair, in the same order, with
    /// the pair's `(i, j)`; the device checks this.
    ///
    /// # Errors
    /// Any error the array reports (an invalid program, a hang, ...); the
    /// device fails the `start_program` command with it.
    fn run(
        &mut self,
        program: &Program,
        pairs: &[(u32, u32)],
        memory: &dyn DppMemory,
    ) -> Result<ArrayRun, ArrayError>;

    /// As [`ProcessorArray::run`] on the pairs of `pairs` (a list, or a
    /// rectangle that needs no list), but the results go to `sink` in
    /// consecutive slices, in the order of the pairs, instead of one list
    /// (the device applies each slice while the array runs on, so no
    /// per-element list of the whole domain is held). The default calls
    /// `run` and hands its whole list over; an array that streams
    /// overrides it.
    ///
    /// # Errors
    /// [`StreamFailure::Array`] as `run`; [`StreamFailure::Sink`] with the
    /// sink's first error (the run stops there).
    fn run_streaming<E: Send>(
        &mut self,
        program: &Program,
        pairs: Elements<'_>,
        memory: &dyn DppMemory,
        sink: &mut (dyn FnMut(&[ElementResult]) -> Result<(), E> + Send),
    ) -> Result<ArrayCycles, StreamFailure<E>> {
        let list = match pairs {
            Elements::List(l) => std::borrow::Cow::Borrowed(l),
            Elements::Rect { .. } => std::borrow::Cow::Owned(pairs.to_vec()),
        };
        let run = self
            .run(program, &list, memory)
            .map_err(StreamFailure::Array)?;
        sink(&run.results).map_err(StreamFailure::Sink)?;
        Ok(run.cycles)
    }
}

/// Why a streamed run stopped.
#[derive(Debug)]
pub enum StreamFailure<E> {
    /// The array failed.
    Array(ArrayError),
    /// The sink refused results.
    Sink(E),
}
