//! Streamed runs (`run_program_streaming`, `docs/sim-x1k.md` §5.1): the
//! results arrive wave by wave, in element order, and are the same bit for
//! bit as a collected run's, statistics and batch timings included, for
//! an element list or a rectangle; a sink's error stops the run; the
//! progress counter ends at the element count.

mod x1k_dpp_common;
use x1k_dpp_common::*;

use ctm_sim::x1k::dpp::{DppOptions, Progress, StreamError, TableMemory, run_program_streaming};
use ctm_sim::x1k::interface::{ElementResult, Elements};

/// Kills elements with i < 2 (CTM §3.4.1), writes r0 = (i, j, 0, 0)
/// otherwise.
fn kill_program() -> ctm_sim::x1k::interface::Program {
    let text = format!(
        "alu r2.rgb = mad(s0.rgb, s1.111, -s1.r11) ; _ ; s0=r0 s1=2.0
         tex r2.r = texkill(t0, r2.rrrr) alu_wait
         {}",
        out_reg(0)
    );
    program(&text, Mode::Partial)
}

const W: u32 = 211;
const H: u32 = 97;

fn rect() -> Elements<'static> {
    Elements::Rect {
        i0: 0,
        j0: 5,
        width: W,
        height: H,
    }
}

#[test]
fn a_rectangle_streams_the_same_results_as_a_collected_list() {
    let prog = kill_program();
    let mem = TableMemory::default();
    let list = rect().to_vec();
    assert_eq!(list.len(), (W * H) as usize);
    assert_eq!(list[0], (0, 5));
    assert_eq!(list[W as usize + 1], (1, 6));
    let collected = run(&prog, &list, &mem).unwrap();
    let progress = Progress::new();
    let options = DppOptions {
        progress: progress.clone(),
        ..DppOptions::default()
    };
    let mut streamed: Vec<ElementResult> = Vec::new();
    let mut slices = 0usize;
    let mut sink = |results: &[ElementResult]| -> Result<(), ()> {
        slices += 1;
        streamed.extend_from_slice(results);
        Ok(())
    };
    let summary = run_program_streaming(&prog, rect(), &mem, &options, &mut sink).unwrap();
    // 20,467 elements are 427 groups of 48: several waves.
    assert!(slices > 1, "{slices} slices");
    assert_eq!(streamed.len(), collected.results.len());
    for (k, (a, b)) in streamed.iter().zip(&collected.results).enumerate() {
        assert_eq!(result_bits(a), result_bits(b), "element {k}");
    }
    assert_eq!(summary.stats, collected.stats);
    assert_eq!(summary.batches, collected.batches);
    assert_eq!(summary.warnings, collected.warnings);
    // Columns 0 and 1 are killed.
    assert_eq!(collected.stats.killed, 2 * u64::from(H));
    assert!(streamed[0].killed && !streamed[2].killed);
    assert_eq!(progress.done(), u64::from(W * H));
}

#[test]
fn a_sink_error_stops_the_run() {
    let prog = kill_program();
    let mem = TableMemory::default();
    let mut calls = 0;
    let mut sink = |_: &[ElementResult]| -> Result<(), &'static str> {
        calls += 1;
        Err("full")
    };
    let e = run_program_streaming(&prog, rect(), &mem, &DppOptions::default(), &mut sink);
    assert!(matches!(e, Err(StreamError::Sink("full"))));
    assert_eq!(calls, 1);
}

#[test]
fn elements_index_and_slice() {
    let r = Elements::Rect {
        i0: 1,
        j0: 2,
        width: 3,
        height: 2,
    };
    assert_eq!(r.len(), 6);
    assert_eq!(r.get(4), Some((2, 3)));
    assert_eq!(r.get(6), None);
    let mut buf = Vec::new();
    assert_eq!(r.slice(2, 5, &mut buf), [(3, 2), (1, 3), (2, 3)]);
    assert_eq!(r.slice(5, 99, &mut buf), [(3, 3)]);
    assert!(r.slice(7, 9, &mut buf).is_empty());
    let empty = Elements::Rect {
        i0: 5,
        j0: 0,
        width: 0,
        height: 4,
    };
    assert!(empty.is_empty());
    assert_eq!(empty.get(0), None);
    let pairs = [(9, 9), (0, 1)];
    let list = Elements::List(&pairs);
    assert_eq!(list.get(1), Some((0, 1)));
    assert_eq!(list.slice(1, 2, &mut buf), [(0, 1)]);
    assert_eq!(list.to_vec(), pairs);
}
