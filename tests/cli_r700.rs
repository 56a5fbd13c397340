//! The `ctmc` command line on the R700 target (spec §9, §10): the
//! `--stats=json` keys, the Chrome trace per SIMD engine, `ctmc run` of a
//! written `.r700.elf`, raw runs of LLVM-compiled programs (the fixtures
//! `sim/tests/fixtures/r700/` made by `llc -march=r600 -mcpu=rv770`,
//! committed as bytes) whose exports match a formula, and faults.

mod common;

use common::Work;
use std::path::Path;

/// The words of a committed `.hex` fixture (bytes as hex pairs, `#`
/// comment lines).
fn fixture_bytes(rel: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| l.split_whitespace())
        .map(|h| u8::from_str_radix(h, 16).unwrap_or_else(|e| panic!("{rel}: {h}: {e}")))
        .collect()
}

#[test]
fn stats_json_has_the_spec_keys_and_the_r700_ones() {
    let w = Work::new();
    w.file("saxpy.ck", common::SAXPY);
    let run = w.ctmc(&[
        "saxpy.ck",
        "--target",
        "r700",
        "--simulate",
        "--stats=json",
        "--domain",
        "64x4",
    ]);
    run.expect(0);
    let v = run.last_json();
    for k in [
        "target",
        "elements",
        "cycles",
        "cycles_per_element",
        "instructions",
        "alu_slot_utilization",
        "registers",
        "stalls",
        // R700 ones (docs/sim-r700.md).
        "alu_groups",
        "alu_slots",
        "vliw_occupancy",
        "clauses",
        "cf_instructions",
        "wavefronts",
        "wavefronts_in_flight",
        "alu_fetch_ratio",
        "memory",
    ] {
        assert!(v.get(k).is_some(), "no key {k}: {v}");
    }
    assert_eq!(v["target"], "r700");
    assert_eq!(v["elements"], 256);
    // 256 elements are four wavefronts of 64.
    assert_eq!(v["wavefronts"], 4);
    assert!(v["stalls"].is_object());
    let u = v["alu_slot_utilization"].as_f64().unwrap();
    assert!(u > 0.0 && u <= 1.0, "{u}");
    let hist = v["vliw_occupancy"].as_array().expect("histogram");
    assert_eq!(hist.len(), 5);
    let groups: u64 = hist.iter().map(|h| h.as_u64().unwrap()).sum();
    assert_eq!(Some(groups), v["alu_groups"].as_u64());
    let cpe = v["cycles_per_element"].as_f64().unwrap();
    let cycles = v["cycles"].as_f64().unwrap();
    assert!((cpe - cycles / 256.0).abs() < 1e-9, "{cpe} vs {cycles}");

    // A reduction: statistics over all passes.
    w.file("sum.ck", common::SUM);
    let run = w.ctmc(&[
        "sum.ck",
        "--target",
        "r700",
        "--simulate",
        "--check",
        "--stats=json",
        "--domain",
        "100x30",
    ]);
    run.expect(0);
    let v = run.last_json();
    assert_eq!(v["target"], "r700");
    assert!(v["passes"].as_u64().unwrap_or(0) >= 2, "{v}");
}

#[test]
fn trace_has_a_track_per_simd_engine() {
    let w = Work::new();
    w.file("saxpy.ck", common::SAXPY);
    w.ctmc(&[
        "saxpy.ck",
        "--target",
        "r700",
        "--simulate",
        "--trace",
        "t.json",
        "--domain",
        "64x40",
    ])
    .expect(0);
    let text = std::fs::read_to_string(w.path("t.json")).expect("the trace");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let events = v
        .get("traceEvents")
        .and_then(|e| e.as_array())
        .or_else(|| v.as_array())
        .expect("trace events");
    let mut engines: Vec<String> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .filter_map(|e| e["args"]["name"].as_str())
        .filter(|n| n.starts_with("SIMD "))
        .map(String::from)
        .collect();
    engines.sort();
    engines.dedup();
    // 40 wavefronts over the RV770's 10 SIMD engines.
    assert_eq!(engines.len(), 10, "{engines:?}");
    let spans = events.iter().filter(|e| e["ph"] == "X").count();
    assert!(spans > 0);
    for e in events.iter().filter(|e| e["ph"] == "X") {
        assert!(e["ts"].is_number() && e["dur"].is_number(), "{e}");
    }
}

#[test]
fn run_of_a_written_elf_works_like_the_source() {
    let w = Work::new();
    w.file("saxpy.ck", common::SAXPY);
    w.ctmc(&["saxpy.ck", "--target", "r700"]).expect(0);
    assert!(w.path("saxpy.r700.elf").exists());
    let args = [
        "--domain",
        "8x2",
        "--input",
        "x=seq",
        "--input",
        "y=const:1",
        "--uniform",
        "a=2",
        "--output",
        "r=r.npy",
    ];
    let mut run = vec!["run", "saxpy.r700.elf", "--simulate"];
    run.extend(args);
    w.ctmc(&run).expect(0);
    let got = common::f32s(&common::read_npy(&w.path("r.npy")));
    let want: Vec<f32> = (0..16).map(|k| 2.0 * k as f32 + 1.0).collect();
    assert_eq!(got, want);
    // The same through the source.
    let mut src = vec!["saxpy.ck", "--target", "r700", "--simulate"];
    src.extend(args);
    w.ctmc(&src).expect(0);
    assert_eq!(common::f32s(&common::read_npy(&w.path("r.npy"))), want);
}

/// `int_ops.ll` (LLVM 14, rv770): integer arithmetic on `fptosi` of the
/// first two lanes of R0, exported to PIXEL0 as
/// `(q + min, r + (((x-y)<<2)>>1 ^ (x*y)>>>3), x >u y ? x+y : x*y, x & 0xffff)`.
#[test]
fn raw_llvm_fixture_exports_match_the_formula() {
    let w = Work::new();
    std::fs::write(
        w.path("int_ops.bin"),
        fixture_bytes("sim/tests/fixtures/r700/int_ops.hex"),
    )
    .expect("write");
    for (x, y) in [(7i32, 3i32), (100, -9), (-50, 13), (65000, 254)] {
        let reg = format!("R0={x},{y},0,0");
        let run = w.ctmc(&[
            "run",
            "int_ops.bin",
            "--raw",
            "--target",
            "r700",
            "--reg",
            &reg,
            "--reg",
            "R1=0,0,0,0",
            "--elements",
            "4",
            "--dump-outputs",
        ]);
        run.expect(0);
        let v = run.last_json();
        let outs = v["outputs"].as_array().expect("outputs");
        assert_eq!(outs.len(), 1, "{v}");
        assert_eq!(outs[0]["kind"], "pixel");
        assert_eq!(outs[0]["index"], 0);
        let (s, d, m) = (x.wrapping_add(y), x.wrapping_sub(y), x.wrapping_mul(y));
        let ux = x & 0xffff;
        let uy = (y | 1) & 255;
        let (q, r) = (ux as u32 / uy as u32, ux as u32 % uy as u32);
        let x1 = ((d << 2) >> 1) ^ ((m as u32 >> 3) as i32);
        let mn = x.min(y);
        let mx = if (x as u32) > (y as u32) { s } else { m };
        let want = [
            (q as i32 + mn) as f32,
            (r as i32 + x1) as f32,
            mx as f32,
            ux as u32 as f32,
        ];
        let values = outs[0]["values"].as_array().expect("values");
        assert_eq!(values.len(), 4);
        for e in values {
            let got: Vec<f32> = e
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_f64().unwrap() as f32)
                .collect();
            assert_eq!(got, want, "x={x} y={y}");
        }
    }
}

#[test]
fn raw_stats_json_is_the_last_line() {
    let w = Work::new();
    std::fs::write(
        w.path("int_ops.bin"),
        fixture_bytes("sim/tests/fixtures/r700/int_ops.hex"),
    )
    .expect("write");
    let run = w.ctmc(&[
        "run",
        "int_ops.bin",
        "--raw",
        "--target",
        "r700",
        "--reg",
        "R0=7,3,0,0",
        "--dump-outputs",
        "--stats=json",
    ]);
    run.expect(0);
    let v = run.last_json();
    assert_eq!(v["target"], "r700");
    assert_eq!(v["elements"], 64);
    assert!(v["cycles"].as_u64().unwrap() > 0);
}

#[test]
fn faults_exit_1_with_the_address_and_the_rule() {
    let w = Work::new();
    // A CF word whose clause address points far past the program.
    std::fs::write(w.path("bad.bin"), [0xffu8; 16]).expect("write");
    let run = w.ctmc(&[
        "run",
        "bad.bin",
        "--raw",
        "--target",
        "r700",
        "--elements",
        "4",
        "--dump-outputs",
    ]);
    run.expect(1)
        .stderr_has("runtime fault")
        .stderr_has("CF instruction 0");
    assert!(run.stdout.is_empty(), "{run:#?}");
}
