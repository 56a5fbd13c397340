//! The cycle model and statistics (`docs/sim-x1k.md` §3): instruction
//! counts, issue cost per batch, NOP and FC costs, latency hiding by other
//! batches, batches in flight from `US_PIXSIZE` and the flow-control mode,
//! the memory bound, batch timings, determinism. Expected numbers follow
//! from the model's documented constants.

mod x1k_dpp_common;

use ctm_sim::x1k::dpp::{CycleModel, DppOptions, TableMemory, run_program};
use x1k_dpp_common::*;

fn elements(n: u32) -> Vec<(u32, u32)> {
    (0..n).map(|k| (k % 64, k / 64)).collect()
}

const MAD: &str =
    "alu r1.rgb = mad(s0.rgb, s1.rgb, s0.rgb) ; r1.a = mad(s0.a, s1.a, s0.a) ; s0=r1 s1=c0";

#[test]
fn counts_and_issue_cycles() {
    // 3 ALU + 1 OUT over 100 elements: 3 batches of 48 (the last has 4).
    let text = format!(
        "{MAD}\n{MAD}\nalu r2.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1\n{}",
        out_reg(2)
    );
    let prog = program(&text, Mode::Partial);
    // Unlimited bandwidth, so the schedule decides.
    let options = DppOptions {
        cycle_model: CycleModel {
            memory_bytes_per_cycle: 1e9,
            ..CycleModel::default()
        },
        ..DppOptions::default()
    };
    let r = run_checked(&prog, &elements(100), &TableMemory::default(), &options).unwrap();
    let s = &r.stats;
    assert_eq!(s.batches, 3);
    assert_eq!(
        (s.instructions.alu, s.instructions.out, s.instructions.total),
        (9, 3, 12)
    );
    assert_eq!(s.element_instructions, 400);
    assert_eq!(s.coissue.both, 2 * 3 + 3);
    assert_eq!(s.coissue.rgb_only, 3);
    // Each instruction takes ceil(48 / 12) = 4 clocks per batch; the three
    // batches go to three of the four dispatchers: 16 cycles.
    assert_eq!(s.cycles, 16);
    assert_eq!(r.batches.len(), 3);
    assert!(r.batches.iter().all(|b| b.end_cycle == 16));
    // Every processor of every batch ran every instruction.
    assert_eq!(s.simd_efficiency, 1.0);
    // Eight batches: two per dispatcher.
    let r = run_checked(&prog, &elements(8 * 48), &TableMemory::default(), &options).unwrap();
    assert_eq!(r.stats.cycles, 32);
}

#[test]
fn nop_and_flow_control_costs() {
    let model = CycleModel::default();
    let text = format!("{MAD} nop\n{MAD}\nfc jump 3 func=never\n{}", out_reg(1));
    let r = run(
        &program(&text, Mode::Partial),
        &elements(48),
        &TableMemory::default(),
    )
    .unwrap();
    assert_eq!(r.stats.stalls.nop, 4);
    assert_eq!(r.stats.stalls.flow_control, model.fc_cycles);
    assert_eq!(r.stats.cycles, 4 * 3 + 4 + model.fc_cycles);
    assert_eq!(r.stats.instructions.fc, 1);
}

#[test]
fn texture_latency_is_hidden_by_other_batches() {
    let model = CycleModel::default();
    let text = format!(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait unscaled\n{MAD} sem_wait\n{}",
        out_reg(1)
    );
    let mut prog = program(&text, Mode::Partial);
    // Two temporaries: 128 batches may be in flight.
    prog.us_pixsize = 1;
    let mut mem = TableMemory::default();
    mem.set_input(0, 64, 64, vec![[1.0; 4]; 64 * 64]);
    // One batch: the fetch of 48 texels on 4 TMUs (12 clocks) starts with
    // the TEX issue (1 clock); the waiting MAD issues after the latency, then
    // the OUT: 12 + latency + 2 × 4.
    let one = run(&prog, &elements(48), &mem).unwrap();
    assert_eq!(one.stats.cycles, 12 + model.texture_latency + 8);
    assert_eq!(one.stats.stalls.semaphore, 12 + model.texture_latency - 1);
    // Many batches per dispatcher: the latency overlaps with other batches,
    // so the time per batch drops well below the single batch's (with
    // unlimited bandwidth; otherwise this kernel is memory-bound).
    let options = DppOptions {
        cycle_model: CycleModel {
            memory_bytes_per_cycle: 1e9,
            ..CycleModel::default()
        },
        ..DppOptions::default()
    };
    let many = run_checked(&prog, &elements(48 * 4 * 64), &mem, &options).unwrap();
    // The texture unit (12 clocks per batch) is now the bottleneck.
    assert_eq!(many.stats.bound, ctm_sim::x1k::dpp::stats::Bound::Schedule);
    let per_batch = many.stats.cycles as f64 / 64.0;
    assert!(per_batch < one.stats.cycles as f64 / 4.0, "{per_batch}");
    assert!(many.stats.batches_in_flight.max > 1);
    // With 128 temporaries only 4 batches fit: latency is exposed again.
    prog.us_pixsize = 127;
    let few = run_checked(&prog, &elements(48 * 4 * 64), &mem, &options).unwrap();
    assert_eq!(few.stats.batches_in_flight.limit, 4);
    assert!(few.stats.cycles > 2 * many.stats.cycles);
    assert!(few.stats.stalls.semaphore > many.stats.stalls.semaphore);
}

#[test]
fn batches_in_flight_limits() {
    let model = CycleModel::default();
    // The register budget divides by the frame size; full mode halves it.
    assert_eq!(model.batches_in_flight(1, false), 128);
    assert_eq!(model.batches_in_flight(8, false), 64);
    assert_eq!(model.batches_in_flight(8, true), 32);
    assert_eq!(model.batches_in_flight(128, true), 2);
    let mut prog = program(&out_reg(0), Mode::Full);
    prog.us_pixsize = 7;
    let r = run(&prog, &elements(48), &TableMemory::default()).unwrap();
    assert_eq!(r.stats.batches_in_flight.limit, 32);
    assert_eq!((r.stats.registers, r.stats.fc_mode), (8, "full"));
}

#[test]
fn memory_bound_copy() {
    // A copy kernel: one lookup and one output per element; 16 + 16 bytes
    // per element against ~76 bytes per clock.
    let text = format!(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait unscaled\n{}",
        out_reg(1)
    );
    let mut mem = TableMemory::default();
    mem.set_input(0, 64, 64, vec![[1.0; 4]; 64 * 64]);
    let r = run(&program(&text, Mode::Partial), &elements(4096), &mem).unwrap();
    let model = CycleModel::default();
    let bytes = 4096.0 * 32.0;
    assert_eq!(
        r.stats.memory.texture_bytes + r.stats.memory.output_bytes,
        bytes as u64
    );
    assert_eq!(
        r.stats.cycles,
        (bytes / model.memory_bytes_per_cycle).ceil() as u64
    );
    assert_eq!(r.stats.bound, ctm_sim::x1k::dpp::stats::Bound::Memory);
    assert!(r.batches.iter().all(|b| b.end_cycle <= r.stats.cycles));
}

#[test]
fn runs_are_deterministic_and_serialise() {
    let text = format!(
        "alu p.r<0 = mad(s0.rrr, s1.111, -s1.rrr) ; _ ; s0=r0 s1=8.0
         fc jump 3 func=!p pred=p.rrrr b_op0=incr alu_wait
         {MAD}
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1
         {}",
        out_reg(1)
    );
    let prog = program(&text, Mode::Partial);
    let mem = consts(&[[0.5; 4]]);
    let options = DppOptions::default();
    let a = run_checked(&prog, &elements(3000), &mem, &options).unwrap();
    let b = run_program(&prog, &elements(3000), &mem, &options).unwrap();
    assert_eq!(a, b);
    let json = serde_json::to_value(&a.stats).unwrap();
    for key in [
        "elements",
        "cycles",
        "cycles_per_element",
        "instructions",
        "alu_slot_utilization",
        "registers",
        "stalls",
    ] {
        assert!(json.get(key).is_some(), "{key}");
    }
    assert!(a.stats.simd_efficiency < 1.0);
}
