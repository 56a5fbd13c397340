//! Runs a reduction (spec §8) in passes, in the exact tree order the GPU
//! pass kernels follow.
//!
//! Each pass maps a W x H grid to ceil(W/bw) x ceil(H/bh) with the block
//! (bw, bh) = (2, 2) if W > 1 and H > 1, (4, 1) if H == 1, (1, 4) if
//! W == 1. An output element takes the block's existing elements e0..e3 in
//! row-major order and combines them as `f(f(e0, e1), f(e2, e3))`; with
//! three, `f(f(e0, e1), e2)`; with two, `f(e0, e1)`; with one, `e0`.
//! Passes repeat until one element is left.
//!
//! Each output element of a pass is one element for the statistics and
//! the step limit; it counts one `input` per element read and one `output`.

use super::bind;
use super::exec::{Env, Flow, Machine};
use super::kernel::Schedule;
use super::stats::{Counts, OpKind};
use super::{ReductionRun, RefStats, RunOptions, RuntimeError};
use crate::data::StreamData;
use crate::tast::{Program, Reduction};
use crate::value::Value;
use rayon::prelude::*;

/// Output elements per chunk of a pass, at least.
const MIN_CHUNK_ELEMENTS: usize = 256;

/// The block of a pass over a `width` x `height` grid (both at least 1,
/// not both 1).
pub(crate) fn block_shape(width: usize, height: usize) -> (usize, usize) {
    if height == 1 {
        (4, 1)
    } else if width == 1 {
        (1, 4)
    } else {
        (2, 2)
    }
}

/// Runs `reduction` over `input` (the program already verified).
pub(crate) fn run(
    program: &Program,
    reduction: &Reduction,
    input: &StreamData,
    options: &RunOptions,
    schedule: Schedule,
) -> Result<ReductionRun, RuntimeError> {
    let name = reduction
        .locals
        .get(reduction.params[0].index())
        .map_or("input", |l| l.name.as_str());
    bind::check_shape(name, input)?;
    let width = match bind::stream_value_type(input) {
        Some(ty) if ty == reduction.ty => ty.float_width().unwrap_or(1),
        found => {
            let found = found.map_or_else(|| "no stream type".to_string(), |t| t.to_string());
            return Err(RuntimeError::BadArguments(format!(
                "reduction `{}` combines {} values, but its input `{name}` reads as {found}",
                reduction.name, reduction.ty
            )));
        }
    };

    let env = Env {
        program,
        params: Vec::new(),
        domain: (input.width, input.height),
    };
    let (mut w, mut h) = (input.width, input.height);
    let mut grid: Vec<Value> = (0..h)
        .flat_map(|j| (0..w).map(move |i| (i, j)))
        .map(|(i, j)| Value::Float {
            lanes: input.read(i as i64, j as i64),
            width,
        })
        .collect();
    let mut stats = RefStats::default();
    let mut counts = Counts::default();
    let mut passes = 0u32;
    while w > 1 || h > 1 {
        let block = block_shape(w, h);
        let (out_w, out_h) = (w.div_ceil(block.0), h.div_ceil(block.1));
        let mut next = vec![Value::Unit; out_w * out_h];
        let chunk = match schedule {
            Schedule::Parallel => MIN_CHUNK_ELEMENTS,
            Schedule::Sequential => next.len().max(1),
        };
        let pass = Pass {
            env: &env,
            reduction,
            grid: &grid,
            size: (w, h),
            block,
            out_width: out_w,
            max_steps: options.max_steps_per_element,
        };
        let work = |(k, piece): (usize, &mut [Value])| pass.run_chunk(k * chunk, piece);
        let results: Vec<(Counts, Option<usize>)> = match schedule {
            Schedule::Parallel => next.par_chunks_mut(chunk).enumerate().map(work).collect(),
            Schedule::Sequential => next.chunks_mut(chunk).enumerate().map(work).collect(),
        };
        if let Some(index) = results.iter().filter_map(|r| r.1).min() {
            return Err(RuntimeError::StepLimit {
                i: index % out_w,
                j: index / out_w,
                limit: options.max_steps_per_element,
            });
        }
        for (c, _) in &results {
            counts.merge(c);
        }
        passes += 1;
        stats.elements += (out_w * out_h) as u64;
        grid = next;
        (w, h) = (out_w, out_h);
    }
    counts.add_to(&mut stats);
    Ok(ReductionRun {
        value: grid.first().copied().unwrap_or(Value::Unit),
        passes,
        stats,
    })
}

/// One pass: a grid and how to combine it.
struct Pass<'a> {
    env: &'a Env<'a>,
    reduction: &'a Reduction,
    grid: &'a [Value],
    /// (W, H) of `grid`.
    size: (usize, usize),
    /// (bw, bh).
    block: (usize, usize),
    /// Width of the output grid.
    out_width: usize,
    max_steps: u64,
}

impl Pass<'_> {
    /// Computes the output elements `start..start + out.len()`; returns the
    /// counts and the first element past the step limit, if any.
    fn run_chunk(&self, start: usize, out: &mut [Value]) -> (Counts, Option<usize>) {
        let mut m = Machine::new(self.env, self.max_steps, 0);
        let mut failure = None;
        for (k, slot) in out.iter_mut().enumerate() {
            let index = start + k;
            let (x, y) = (index % self.out_width, index / self.out_width);
            m.start_element(x, y);
            match self.combine_block(&mut m, x, y) {
                Ok(v) => {
                    *slot = v;
                    m.count(OpKind::Output);
                }
                Err(_) => {
                    failure = Some(index);
                    break;
                }
            }
        }
        (m.counts, failure)
    }

    /// The output element `(x, y)`: its block's elements combined.
    fn combine_block(&self, m: &mut Machine, x: usize, y: usize) -> Flow<Value> {
        let (w, h) = self.size;
        let (bw, bh) = self.block;
        let mut e = [Value::Unit; 4];
        let mut n = 0;
        for dy in 0..bh {
            for dx in 0..bw {
                let (i, j) = (x * bw + dx, y * bh + dy);
                if i < w && j < h && n < 4 {
                    e[n] = self.grid[j * w + i];
                    n += 1;
                    m.count(OpKind::Input);
                }
            }
        }
        let f = self.reduction;
        match n {
            0 | 1 => Ok(e[0]),
            2 => m.combine(f, e[0], e[1]),
            3 => {
                let a = m.combine(f, e[0], e[1])?;
                m.combine(f, a, e[2])
            }
            _ => {
                let a = m.combine(f, e[0], e[1])?;
                let b = m.combine(f, e[2], e[3])?;
                m.combine(f, a, b)
            }
        }
    }
}
