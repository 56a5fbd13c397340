//! Runs a kernel over its domain, in parallel but deterministically.
//!
//! The domain's elements, in row-major order (j outer, i inner), are cut
//! into contiguous chunks. Each chunk runs on one thread with its own
//! [`Machine`] and writes its `Out` values straight into its own slice of
//! every output buffer. Scatter writes are only recorded; after all chunks
//! are done they are applied in chunk order, so in element order and
//! within an element in program order: the last write wins, every run.
//!
//! A chunk stops at its first element past the step limit; the run then
//! reports the earliest such element of all chunks, and chunks that start
//! after an element already known to fail stop early (their results would
//! be dropped anyway).

use super::bind::{self, OutputSpec};
use super::exec::{ElementEnd, Env, Machine, ScatterWrite};
use super::stats::Counts;
use super::{KernelRun, OutputData, RefStats, RunOptions, RuntimeError};
use crate::data::{KernelArgs, StreamBuffer, StreamData};
use crate::tast::{Kernel, ParamId, Program};
use crate::value::Value;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How elements are spread over threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Schedule {
    /// On the rayon pool the caller runs in.
    Parallel,
    /// On the calling thread only (deeply nested programs, which need the
    /// large stack of that thread).
    Sequential,
}

/// Elements per chunk at least: below this, splitting costs more than it
/// gains.
const MIN_CHUNK_ELEMENTS: usize = 256;

/// Chunks per thread, so that uneven elements (loops) still balance.
const CHUNKS_PER_THREAD: usize = 16;

/// What one chunk produced besides its `Out` values.
struct ChunkResult {
    counts: Counts,
    elements: u64,
    discarded: u64,
    scatters: Vec<ScatterWrite>,
    /// The first element (row-major index) past the step limit.
    step_limit: Option<usize>,
}

/// Runs `kernel` on `args` (the program already verified).
pub(crate) fn run(
    program: &Program,
    kernel: &Kernel,
    args: &KernelArgs,
    options: &RunOptions,
    schedule: Schedule,
) -> Result<KernelRun, RuntimeError> {
    let bound = bind::kernel(kernel, args)?;
    let (width, height) = args.domain;
    let total = width * height; // Checked by `bind::kernel`.
    let env = Env {
        program,
        params: bound.params,
        domain: args.domain,
    };

    let chunk = chunk_elements(total, schedule);
    let mut out_buffers: Vec<Vec<f32>> = bound
        .outs
        .iter()
        .map(|o| vec![0.0; total * o.channels])
        .collect();
    let channels: Vec<usize> = bound.outs.iter().map(|o| o.channels).collect();
    // Per chunk, its slice of every `Out` buffer.
    let mut chunk_outs: Vec<Vec<&mut [f32]>> = (0..total.div_ceil(chunk))
        .map(|_| Vec::with_capacity(out_buffers.len()))
        .collect();
    for (buffer, &ch) in out_buffers.iter_mut().zip(&channels) {
        for (k, piece) in buffer.chunks_mut(chunk * ch).enumerate() {
            chunk_outs[k].push(piece);
        }
    }

    let first_failure = AtomicUsize::new(usize::MAX);
    let work = |(k, outs): (usize, Vec<&mut [f32]>)| {
        let range = k * chunk..total.min((k + 1) * chunk);
        run_chunk(
            &env,
            kernel,
            range,
            outs,
            &channels,
            options.max_steps_per_element,
            &first_failure,
        )
    };
    let results: Vec<ChunkResult> = match schedule {
        Schedule::Parallel => chunk_outs.into_par_iter().enumerate().map(work).collect(),
        Schedule::Sequential => chunk_outs.into_iter().enumerate().map(work).collect(),
    };

    if let Some(index) = results.iter().filter_map(|r| r.step_limit).min() {
        return Err(RuntimeError::StepLimit {
            i: index % width,
            j: index / width,
            limit: options.max_steps_per_element,
        });
    }

    let mut scatter_buffers: Vec<Vec<f32>> = vec![vec![0.0; total]; bound.scatters.len()];
    let mut stats = RefStats::default();
    let mut counts = Counts::default();
    for r in &results {
        for w in &r.scatters {
            // Slots and indices were made in range by `bind` and the walker.
            if let Some(x) = scatter_buffers
                .get_mut(w.slot as usize)
                .and_then(|b| b.get_mut(w.index))
            {
                *x = w.value;
            }
        }
        stats.elements += r.elements;
        stats.discarded += r.discarded;
        counts.merge(&r.counts);
    }
    counts.add_to(&mut stats);

    let mut outputs: Vec<OutputData> = Vec::new();
    let streams = bound
        .outs
        .iter()
        .zip(out_buffers)
        .chain(bound.scatters.iter().zip(scatter_buffers));
    for (spec, buffer) in streams {
        outputs.push(output(kernel, spec, buffer, args.domain));
    }
    outputs.sort_by_key(|o| o.param);
    Ok(KernelRun { outputs, stats })
}

fn output(
    kernel: &Kernel,
    spec: &OutputSpec,
    buffer: Vec<f32>,
    domain: (usize, usize),
) -> OutputData {
    OutputData {
        param: ParamId(spec.param as u32),
        name: kernel.params[spec.param].name.clone(),
        data: StreamData {
            width: domain.0,
            height: domain.1,
            channels: spec.channels,
            buffer: StreamBuffer::F32(buffer),
        },
    }
}

/// Elements per chunk for `total` elements.
fn chunk_elements(total: usize, schedule: Schedule) -> usize {
    match schedule {
        Schedule::Sequential => total.max(1),
        Schedule::Parallel => {
            let chunks = rayon::current_num_threads() * CHUNKS_PER_THREAD;
            total.div_ceil(chunks.max(1)).max(MIN_CHUNK_ELEMENTS)
        }
    }
}

/// Runs the elements `range` (row-major indices), writing `Out` values
/// into `outs` (one slice per `Out`, starting at `range.start`).
fn run_chunk(
    env: &Env,
    kernel: &Kernel,
    range: std::ops::Range<usize>,
    mut outs: Vec<&mut [f32]>,
    channels: &[usize],
    max_steps: u64,
    first_failure: &AtomicUsize,
) -> ChunkResult {
    let mut m = Machine::new(env, max_steps, outs.len());
    let mut result = ChunkResult {
        counts: Counts::default(),
        elements: 0,
        discarded: 0,
        scatters: Vec::new(),
        step_limit: None,
    };
    let width = env.domain.0.max(1);
    for index in range.clone() {
        if index > first_failure.load(Ordering::Relaxed) {
            break;
        }
        m.start_element(index % width, index / width);
        match m.run_kernel_body(kernel) {
            ElementEnd::Done => {
                result.elements += 1;
                let local = index - range.start;
                for ((out, value), &ch) in outs.iter_mut().zip(&m.outputs).zip(channels) {
                    // An `Out` not written (or of a wrong type) stays 0.
                    if let (Value::Float { lanes, .. }, Some(dst)) =
                        (value, out.get_mut(local * ch..(local + 1) * ch))
                    {
                        dst.copy_from_slice(&lanes[..ch.min(4)]);
                    }
                }
            }
            ElementEnd::Discarded => {
                result.elements += 1;
                result.discarded += 1;
            }
            ElementEnd::StepLimit => {
                first_failure.fetch_min(index, Ordering::Relaxed);
                result.step_limit = Some(index);
                break;
            }
        }
    }
    result.counts = m.counts;
    result.scatters = m.scatters;
    result
}
