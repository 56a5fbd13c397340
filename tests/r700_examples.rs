//! Every example in `examples/` on the R700 target, end to end through
//! `ctmc` (issues 9 and 10):
//!
//! - compiled at `-O0`, `-O1` and `-O2`, simulated on the RV770 model and
//!   checked against the reference interpreter on random inputs
//!   (`--check`, spec §9), reductions included;
//! - `--emit asm` equals `ctmc disasm` of the `.r700.elf` written;
//! - `--emit stats` has exactly the nine r700 keys of spec §9.
//!
//! `examples/cbrt.ck` is the one example whose `--check` fails, for a
//! reason pinned here (`cbrt_steps_flip_by_reciprocal_division`): the
//! R700 divides as `a · RECIP_IEEE(b)` (two roundings, which spec §7
//! allows for `/`), the reference divides in IEEE; the convergence test
//! on the last bits then ends a few iterations one step earlier or later
//! (`docs/sim-r700.md` §"Known differences").

mod common;

use common::Work;

/// Examples whose `--check` fails for a documented numerical reason (see
/// the module comment); every other example must pass.
const NUMERIC_FLIPS: &[&str] = &["cbrt"];

#[test]
fn every_example_simulates_and_checks_at_every_level() {
    let w = Work::new();
    for name in common::example_names() {
        if NUMERIC_FLIPS.contains(&name.as_str()) {
            continue;
        }
        let file = format!("{name}.ck");
        w.file(&file, common::example_source(&name));
        for level in ["-O0", "-O1", "-O2"] {
            let run = w.ctmc(&[
                &file,
                "--target",
                "r700",
                level,
                "--simulate",
                "--check",
                "--domain",
                "40x24",
                "--stats=json",
            ]);
            run.expect(0);
            let v = run.last_json();
            assert_eq!(v["target"], "r700", "{name} {level}");
            assert!(v["cycles"].as_u64().unwrap_or(0) > 0, "{name} {level}");
        }
    }
}

#[test]
fn asm_equals_disasm_of_the_elf_and_stats_have_the_spec_keys() {
    const KEYS: [&str; 9] = [
        "cf_instructions",
        "alu_clauses",
        "fetch_clauses",
        "alu_groups",
        "alu_slots",
        "literals",
        "fetches",
        "gprs",
        "stack",
    ];
    let w = Work::new();
    for name in common::example_names() {
        let file = format!("{name}.ck");
        w.file(&file, common::example_source(&name));
        let asm = w.ctmc(&[&file, "--target", "r700", "--emit", "asm"]);
        asm.expect(0);
        w.ctmc(&[&file, "--target", "r700"]).expect(0);
        let elf = format!("{name}.r700.elf");
        assert!(w.path(&elf).exists(), "{name}: no {elf}");
        let disasm = w.ctmc(&["disasm", &elf]);
        disasm.expect(0);
        assert_eq!(disasm.stdout, asm.stdout, "{name}: disasm differs");

        let stats = w.ctmc(&[&file, "--target", "r700", "--emit", "stats"]);
        stats.expect(0);
        let v = stats.last_json();
        let obj = v.as_object().expect("a JSON object");
        let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut want = KEYS.to_vec();
        want.sort_unstable();
        assert_eq!(keys, want, "{name}");
        for k in KEYS {
            assert!(obj[k].is_u64(), "{name}: {k} = {}", obj[k]);
        }
        assert!(obj["cf_instructions"].as_u64() > Some(0), "{name}");
    }
}

/// `cbrt`'s `root` (continuous) matches the reference everywhere on the
/// default 256×256 random input; `steps` (an iteration count ended by a
/// test on the last bits) differs in exactly the elements where
/// `a · RECIP_IEEE(b)` and IEEE `a / b` differ in the last bit along the
/// iteration, by one step, in very few elements (4 of 65536 at this
/// commit). If the R700 division becomes correctly rounded, this test
/// fails on `flipped > 0` being false: then move cbrt out of
/// `NUMERIC_FLIPS`.
#[test]
fn cbrt_steps_flip_by_reciprocal_division() {
    let w = Work::new();
    w.file("cbrt.ck", common::example_source("cbrt"));
    let mut outs = Vec::new();
    for target in ["r700", "ref"] {
        let root = format!("root_{target}.npy");
        let steps = format!("steps_{target}.npy");
        w.ctmc(&[
            "cbrt.ck",
            "--target",
            target,
            "--simulate",
            "--output",
            &format!("root={root}"),
            "--output",
            &format!("steps={steps}"),
        ])
        .expect(0);
        outs.push((
            common::f32s(&common::read_npy(&w.path(&root))),
            common::f32s(&common::read_npy(&w.path(&steps))),
        ));
    }
    let ((root, steps), (root_ref, steps_ref)) = (&outs[0], &outs[1]);
    assert_eq!(root.len(), 256 * 256);
    for (k, (g, r)) in root.iter().zip(root_ref).enumerate() {
        assert!(
            (g - r).abs() <= 1e-5 * r.abs().max(1.0),
            "root[{k}]: {g} vs {r}"
        );
    }
    let mut flipped = 0;
    for (k, (g, r)) in steps.iter().zip(steps_ref).enumerate() {
        if g != r {
            assert_eq!((g - r).abs(), 1.0, "steps[{k}]: {g} vs {r}");
            flipped += 1;
        }
    }
    assert!(flipped > 0 && flipped <= 16, "{flipped} step counts differ");
    // And --check reports it as a failure (exit 1), naming `steps` only.
    let check = w.ctmc(&["cbrt.ck", "--target", "r700", "--simulate", "--check"]);
    check.expect(1).stderr_has("`steps`");
    assert!(!check.stderr.contains("`root`"), "{check:#?}");
}
