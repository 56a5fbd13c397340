//! `ctmc FILE.ck` end to end with the reference interpreter
//! (`--target ref`): exit codes of every error class, the "source is
//! checked first" rule, `.npy` round trips, `--stats=json`, `--check`,
//! `--trace` and reductions.
//!
//! These tests use the real front end (parser, checker, reference
//! interpreter).

mod common;
use common::{BAD, SAXPY, SUM, Work, f32s, read_npy, write_npy};
use ctm::io::NpyData;

// ---- compiling ----

#[test]
fn a_good_source_checks_with_exit_0() {
    let w = Work::new();
    let k = w.file("saxpy.ck", SAXPY);
    let run = w.ctmc(&[&k, "--target", "ref"]);
    run.expect(0);
    assert!(run.stdout.is_empty(), "{run:#?}");
}

#[test]
fn compile_errors_exit_1_with_coded_diagnostics() {
    let w = Work::new();
    let k = w.file("bad.ck", BAD);
    for target in ["ref", "x1k", "r700"] {
        w.ctmc(&[&k, "--target", target])
            .expect(1)
            .stderr_has("error[CK0021]")
            .stderr_has("bad.ck");
    }
    // Also with --simulate and with the default target.
    w.ctmc(&[&k, "--simulate"]).expect(1).stderr_has("CK0021");
}

#[test]
fn every_error_is_reported() {
    let w = Work::new();
    let k = w.file(
        "two.ck",
        "kernel a(x: In<f32>, r: Out<f32>) {\n    r = x * 2;\n}\nkernel b(x: In<f32>, r: Out<f32>) {\n    r = nope;\n}\n",
    );
    w.ctmc(&[&k, "--target", "ref"])
        .expect(1)
        .stderr_has("CK0021")
        .stderr_has("CK0010");
}

#[test]
fn source_is_checked_first() {
    let w = Work::new();
    let k = w.file("bad.ck", BAD);
    // Whatever else is wrong, a source with errors exits 1 with its errors.
    for args in [
        vec!["--frobnicate"],
        vec!["--stats", "json", "--simulate"],
        vec!["--target", "foo"],
        vec!["--target=foo"],
        vec!["-O7"],
        vec!["--emit", "pdf"],
        vec!["--simulate", "--domain", "0x0"],
        vec!["--simulate", "--input", "nope=missing.npy"],
        vec!["--simulate", "--uniform", "a=zzz"],
        vec!["--kernel", "nope"],
        vec!["--input", "x=seq"],
        vec!["--target", "x1k", "--simulate"],
    ] {
        let mut all = vec![k.as_str()];
        all.extend(args.iter().copied());
        w.ctmc(&all).expect(1).stderr_has("CK0021");
    }
    // The same mistakes with a good source are usage errors.
    let good = w.file("saxpy.ck", SAXPY);
    w.ctmc(&[&good, "--frobnicate"]).expect(2);
    w.ctmc(&[&good, "--target", "foo"])
        .expect(2)
        .stderr_has("--target");
    w.ctmc(&[&good, "-O7"]).expect(2).stderr_has("-O7");
    w.ctmc(&[&good, "--target", "ref", "--emit", "pdf"])
        .expect(2)
        .stderr_has("--emit");
}

#[test]
fn warnings_do_not_fail() {
    let w = Work::new();
    let k = w.file(
        "warn.ck",
        "kernel k(x: In<f32>, r: Out<f32>) {\n    let unused = 1.0;\n    r = x;\n}\n",
    );
    w.ctmc(&[&k, "--target", "ref"])
        .expect(0)
        .stderr_has("warning[CK0052]");
}

#[test]
fn entry_point_choice() {
    let w = Work::new();
    let k = w.file(
        "two.ck",
        "kernel a(x: In<f32>, r: Out<f32>) {\n    r = x;\n}\nkernel b(x: In<f32>, r: Out<f32>) {\n    r = x + 1.0;\n}\n",
    );
    // Checking needs no entry point.
    w.ctmc(&[&k, "--target", "ref"]).expect(0);
    w.ctmc(&[&k, "--target", "ref", "--simulate", "--domain", "2x1"])
        .expect(2)
        .stderr_has("CK0018")
        .stderr_has("--kernel");
    w.ctmc(&[&k, "--target", "ref", "--kernel", "zzz"])
        .expect(2)
        .stderr_has("CK0019")
        .stderr_has("`a`, `b`");
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--kernel",
        "b",
        "--simulate",
        "--domain",
        "2x1",
        "--input",
        "x=seq",
    ])
    .expect(0)
    .stdout_has("r (2x1 f32): [1.0, 2.0]");
}

#[test]
fn the_graph_ir_prints_as_text_and_graphviz_for_every_target() {
    let w = Work::new();
    let k = w.file("saxpy.ck", SAXPY);
    for target in ["ref", "x1k", "r700"] {
        w.ctmc(&[&k, "--target", target, "--emit", "ir"])
            .expect(0)
            .stdout_has("kernel saxpy")
            .stdout_has("= mad ");
        w.ctmc(&[&k, "--target", target, "--emit", "dot"])
            .expect(0)
            .stdout_has("digraph \"saxpy\"")
            .stdout_has("subgraph cluster_r0");
    }
    // -O0 keeps the multiply and the add apart.
    w.ctmc(&[&k, "--emit", "ir", "-O0"])
        .expect(0)
        .stdout_has("= fmul ")
        .stdout_has("= fadd ");
}

#[test]
fn r700_compiles_and_runs_through_the_target_layer() {
    let w = Work::new();
    let k = w.file("saxpy.ck", SAXPY);
    w.ctmc(&[&k, "--target", "r700", "--simulate", "--check"])
        .expect(0)
        .stdout_has("check passed");
    w.ctmc(&[&k, "--target", "r700"]).expect(0);
    assert!(w.path("saxpy.r700.elf").exists());
    let elf = std::fs::read(w.path("saxpy.r700.elf")).unwrap();
    assert_eq!(u16::from_le_bytes([elf[18], elf[19]]), 125, "e_machine");
    let asm = w.ctmc(&[&k, "--target", "r700", "--emit", "asm"]);
    asm.expect(0);
    let disasm = w.ctmc(&["disasm", &w.path("saxpy.r700.elf").display().to_string()]);
    disasm.expect(0);
    assert_eq!(
        asm.stdout, disasm.stdout,
        "--emit asm is what disasm prints"
    );
    w.ctmc(&[&k, "--target", "ref", "--emit", "elf"])
        .expect(2)
        .stderr_has("needs a machine target");
    assert!(!w.path("saxpy.x1k.elf").exists());
}

#[test]
fn emit_ast_prints_the_tree() {
    let w = Work::new();
    let k = w.file("saxpy.ck", SAXPY);
    w.ctmc(&[&k, "--target", "ref", "--emit", "ast"])
        .expect(0)
        .stdout_has("saxpy");
    let out = w.path("saxpy.ast");
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--emit",
        "ast",
        "-o",
        out.to_str().unwrap(),
    ])
    .expect(0);
    assert!(std::fs::read_to_string(&out).unwrap().contains("saxpy"));
}

// ---- simulating: data in and out ----

#[test]
fn saxpy_runs_as_it_is() {
    let w = Work::new();
    let k = w.file("saxpy.ck", SAXPY);
    let run = w.ctmc(&[&k, "--target", "ref", "--simulate"]);
    run.expect(0).stdout_has("r (256x256 f32): [");
}

#[test]
fn npy_round_trip_through_input_and_output() {
    let w = Work::new();
    let k = w.file("saxpy.ck", SAXPY);
    let x: Vec<f32> = (0..12).map(|v| v as f32 * 0.5).collect();
    write_npy(&w.path("x.npy"), &[3, 4], NpyData::F32(x.clone()));
    write_npy(&w.path("y.npy"), &[3, 4], NpyData::F64(vec![1.0; 12]));
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--input",
        "x=x.npy",
        "--input",
        "y=y.npy",
        "--uniform",
        "a=2",
        "--output",
        "r=out.npy",
    ])
    .expect(0);
    let out = read_npy(&w.path("out.npy"));
    assert_eq!(out.shape, [3, 4], "domain from the first .npy input");
    let want: Vec<f32> = x.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_eq!(f32s(&out), want);
    // Raw .f32 output of the same.
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--input",
        "x=x.npy",
        "--input",
        "y=y.npy",
        "--uniform",
        "a=2",
        "--output",
        "r=out.f32",
    ])
    .expect(0);
    let raw = std::fs::read(w.path("out.f32")).unwrap();
    assert_eq!(raw.len(), 48);
}

#[test]
fn generated_inputs_and_domain() {
    let w = Work::new();
    let k = w.file("saxpy.ck", SAXPY);
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--domain",
        "4x2",
        "--input",
        "x=seq",
        "--input",
        "y=const:1",
        "--uniform",
        "a=3",
        "--output",
        "r=r.npy",
    ])
    .expect(0);
    let r = read_npy(&w.path("r.npy"));
    assert_eq!(r.shape, [2, 4]);
    assert_eq!(
        f32s(&r),
        (0..8).map(|k| 3.0 * k as f32 + 1.0).collect::<Vec<_>>()
    );
    // Uniforms default to zero and inputs to random values in [0, 1).
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--domain",
        "8x8",
        "--output",
        "r=r.npy",
    ])
    .expect(0);
    let r = f32s(&read_npy(&w.path("r.npy")));
    assert!(r.iter().all(|v| (0.0..1.0).contains(v)), "{r:?}");
    // random is deterministic.
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--domain",
        "8x8",
        "--output",
        "r=r2.npy",
    ])
    .expect(0);
    assert_eq!(r, f32s(&read_npy(&w.path("r2.npy"))));
}

#[test]
fn vector_streams_and_uniforms() {
    let w = Work::new();
    let k = w.file(
        "vec.ck",
        "kernel v(s: vec4, m: mat4, n: i32, on: bool, arr: [vec4; 2], p: In<vec2>, o: Out<vec4>, q: Out<vec2>) {\n    let base = m * s + arr[n];\n    o = select(on, base, vec4(0.0));\n    q = p * 2.0;\n}\n",
    );
    let p: Vec<f32> = (0..12).map(|v| v as f32).collect();
    write_npy(&w.path("p.npy"), &[2, 3, 2], NpyData::F32(p.clone()));
    let identity = "1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1";
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--input",
        "p=p.npy",
        "--uniform",
        "s=1,2,3,4",
        "--uniform",
        &format!("m={identity}"),
        "--uniform",
        "n=1",
        "--uniform",
        "on=true",
        "--uniform",
        "arr=0,0,0,0,10,20,30,40",
        "--output",
        "o=o.npy",
        "--output",
        "q=q.npy",
    ])
    .expect(0);
    let o = read_npy(&w.path("o.npy"));
    assert_eq!(o.shape, [2, 3, 4]);
    assert_eq!(&f32s(&o)[..4], [11.0, 22.0, 33.0, 44.0]);
    let q = read_npy(&w.path("q.npy"));
    assert_eq!(q.shape, [2, 3, 2]);
    assert_eq!(f32s(&q), p.iter().map(|v| v * 2.0).collect::<Vec<_>>());
}

#[test]
fn byte_and_u16_streams() {
    let w = Work::new();
    let k = w.file(
        "img.ck",
        "kernel img(c: In<unorm8x4>, h: In<u16>, o: Out<vec4>, g: Out<f32>) {\n    o = c;\n    g = h;\n}\n",
    );
    write_npy(
        &w.path("c.npy"),
        &[1, 2, 4],
        NpyData::U8(vec![0, 51, 255, 102, 1, 2, 3, 4]),
    );
    write_npy(&w.path("h.npy"), &[1, 2], NpyData::U16(vec![7, 65535]));
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--input",
        "c=c.npy",
        "--input",
        "h=h.npy",
        "--output",
        "o=o.npy",
        "--output",
        "g=g.npy",
    ])
    .expect(0);
    assert_eq!(
        &f32s(&read_npy(&w.path("o.npy")))[..4],
        [0.0, 0.2, 1.0, 0.4]
    );
    assert_eq!(f32s(&read_npy(&w.path("g.npy"))), [7.0, 65535.0]);
    // The wrong dtype for the stream.
    write_npy(&w.path("f.npy"), &[1, 2, 4], NpyData::F32(vec![0.0; 8]));
    w.ctmc(&[&k, "--target", "ref", "--simulate", "--input", "c=f.npy"])
        .expect(2)
        .stderr_has("|u1");
}

// ---- simulating: usage and I/O errors ----

#[test]
fn data_errors_exit_2() {
    let w = Work::new();
    let k = w.file("saxpy.ck", SAXPY);
    let sim = |extra: &[&str]| {
        let mut args = vec![k.as_str(), "--target", "ref", "--simulate"];
        args.extend(extra);
        w.ctmc(&args)
    };
    sim(&["--domain", "0x4"]).expect(2).stderr_has("--domain");
    sim(&["--domain", "12"]).expect(2).stderr_has("WxH");
    sim(&["--input", "x=missing.npy"])
        .expect(2)
        .stderr_has("missing.npy");
    let garbage = w.file("garbage.npy", b"not a numpy file at all");
    sim(&["--input", &format!("x={garbage}")])
        .expect(2)
        .stderr_has("not a .npy file");
    write_npy(&w.path("vec.npy"), &[2, 2, 4], NpyData::F32(vec![0.0; 16]));
    sim(&["--input", "x=vec.npy"]).expect(2).stderr_has("shape");
    let raw = w.file("x.f32", [0u8; 12]);
    sim(&["--input", &format!("x={raw}")])
        .expect(2)
        .stderr_has("--domain");
    sim(&["--input", &format!("x={raw}"), "--domain", "2x2"])
        .expect(2)
        .stderr_has("bytes");
    sim(&["--input", "x=nonsense"])
        .expect(2)
        .stderr_has("unknown input source");
    sim(&["--input", "z=seq"])
        .expect(2)
        .stderr_has("`z`")
        .stderr_has("`x`, `y`");
    sim(&["--input", "a=seq"]).expect(2).stderr_has("uniform");
    sim(&["--uniform", "x=1"])
        .expect(2)
        .stderr_has("input stream");
    sim(&["--uniform", "a=abc"])
        .expect(2)
        .stderr_has("not a number");
    sim(&["--uniform", "a=1,2"])
        .expect(2)
        .stderr_has("--uniform a");
    sim(&["--uniform", "nope=1"])
        .expect(2)
        .stderr_has("(valid: `a`)");
    sim(&["--output", "x=o.npy"])
        .expect(2)
        .stderr_has("--output x");
    sim(&["--output", "q=o.npy"])
        .expect(2)
        .stderr_has("(valid: `r`)");
    sim(&["--output", "r=no/such/dir/o.npy"])
        .expect(2)
        .stderr_has("cannot write");
    sim(&["--input", "x=seq", "--input", "x=seq"])
        .expect(2)
        .stderr_has("twice");
    sim(&["--input", "x"]).expect(2).stderr_has("NAME=SRC");
    sim(&["--stats=xml"]).expect(2).stderr_has("--stats");
    // Data options without --simulate.
    w.ctmc(&[&k, "--target", "ref", "--input", "x=seq"])
        .expect(2)
        .stderr_has("--simulate");
}

#[test]
fn runtime_fault_exits_1() {
    let w = Work::new();
    let k = w.file(
        "spin.ck",
        "kernel spin(x: In<f32>, r: Out<f32>) {\n    let mut k = 0.0;\n    while x >= 0.0 {\n        k += 1.0;\n    }\n    r = k;\n}\n",
    );
    w.ctmc(&[&k, "--target", "ref", "--simulate", "--domain", "1x1"])
        .expect(1)
        .stderr_has("runtime fault");
}

// ---- reporting ----

#[test]
fn stats_json_is_the_last_line() {
    let w = Work::new();
    let k = w.file("saxpy.ck", SAXPY);
    let run = w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--domain",
        "16x8",
        "--stats=json",
    ]);
    run.expect(0);
    let v = run.last_json();
    for key in [
        "target",
        "elements",
        "cycles",
        "cycles_per_element",
        "instructions",
        "alu_slot_utilization",
        "registers",
        "stalls",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["target"], "ref");
    assert_eq!(v["elements"], 128);
    assert_eq!(v["cycles"], 0);
    assert!(v["stalls"].is_object());
    assert!(v["instructions"].as_u64().unwrap() > 0);
    let u = v["alu_slot_utilization"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&u));
    assert!(v["operations"].is_object());
    // The human-readable report.
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--domain",
        "16x8",
        "--stats",
    ])
    .expect(0)
    .stdout_has("elements            128");
}

#[test]
fn check_passes_against_the_reference() {
    let w = Work::new();
    let k = w.file("saxpy.ck", SAXPY);
    let run = w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--domain",
        "32x32",
        "--check",
        "--stats=json",
    ]);
    run.expect(0).stdout_has("check passed");
    assert_eq!(run.last_json()["elements"], 1024);
}

#[test]
fn trace_is_chrome_json() {
    let w = Work::new();
    let k = w.file("saxpy.ck", SAXPY);
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--domain",
        "4x4",
        "--trace",
        "t.json",
    ])
    .expect(0);
    let text = std::fs::read_to_string(w.path("t.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    assert!(
        events
            .iter()
            .any(|e| e["ph"] == "X" && e["name"] == "saxpy")
    );
}

#[test]
fn reductions() {
    let w = Work::new();
    let k = w.file("sum.ck", SUM);
    write_npy(
        &w.path("a.npy"),
        &[10],
        NpyData::F32((1..=10).map(|v| v as f32).collect()),
    );
    let run = w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--input",
        "a=a.npy",
        "--stats=json",
    ]);
    run.expect(0).stdout_has("sum (f32): 55.0");
    assert_eq!(run.last_json()["target"], "ref");
    w.ctmc(&[
        &k,
        "--target",
        "ref",
        "--simulate",
        "--input",
        "a=a.npy",
        "--output",
        "sum=s.npy",
        "--check",
    ])
    .expect(0);
    let s = read_npy(&w.path("s.npy"));
    assert_eq!(s.shape, [1]);
    assert_eq!(f32s(&s), [55.0]);
    w.ctmc(&[&k, "--target", "ref", "--simulate", "--input", "b=seq"])
        .expect(2)
        .stderr_has("(valid: `a`)");
    w.ctmc(&[&k, "--target", "ref", "--simulate", "--output", "a=s.npy"])
        .expect(2)
        .stderr_has("(valid: `sum`)");
    // A vec4 reduction writes 4 values.
    let m = w.file(
        "maxv.ck",
        "reduce maxv(a: vec4, b: vec4) -> vec4 {\n    max(a, b)\n}\n",
    );
    w.ctmc(&[
        &m,
        "--target",
        "ref",
        "--simulate",
        "--domain",
        "3x3",
        "--input",
        "a=seq",
        "--output",
        "maxv=m.npy",
    ])
    .expect(0);
    let m = read_npy(&w.path("m.npy"));
    assert_eq!(m.shape, [4]);
    assert_eq!(f32s(&m), [8.0; 4]);
}

#[test]
fn every_example_runs_and_checks_on_ref() {
    let w = Work::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ck") {
            continue;
        }
        let file = path.to_str().unwrap();
        let run = w.ctmc(&[
            file,
            "--target",
            "ref",
            "--simulate",
            "--domain",
            "16x16",
            "--check",
            "--stats=json",
        ]);
        run.expect(0).stdout_has("check passed");
        assert_eq!(run.last_json()["target"], "ref", "{file}");
        count += 1;
    }
    assert!(count >= 20, "found {count} examples");
}
