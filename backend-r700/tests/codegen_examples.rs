//! Every example compiles for the R700 at every level, passes the hardware
//! validator (inside `compile`; checked again here), round-trips through
//! the encoder, decoder and the ELF image, and its listing is pinned.

mod codegen_common;

use codegen_common::{EXAMPLES, compile_program, example, example_program};
use ctm_backend_r700::{elf, isa, stats, validate};
use ctm_ir::passes::OptLevel;

#[test]
fn every_example_compiles_validates_and_round_trips() {
    let mut failures = Vec::new();
    for name in EXAMPLES {
        let program = example_program(name);
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
            match compile_program(&program, level) {
                Ok(exe) => {
                    let config = validate::Config {
                        stack_size: exe.resources.stack_size as usize,
                        ..validate::Config::default()
                    };
                    if let Err(v) = validate::validate_with(&exe.program, &config) {
                        failures.push(format!("{name} {level:?}: {}", v[0]));
                        continue;
                    }
                    let bytes = isa::encode_program(&exe.program).expect("encodes");
                    let back = isa::decode_program(&bytes).expect("decodes");
                    assert_eq!(back, exe.program, "{name}: decode(encode(p)) != p");
                    assert_eq!(isa::encode_program(&back).expect("re-encodes"), bytes);
                    let image = elf::write(&exe).expect("elf");
                    assert_eq!(
                        elf::read(&image).as_ref(),
                        Ok(&exe),
                        "{name}: elf round trip"
                    );
                }
                Err(e) => failures.push(format!("{name} {level:?}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn example_listings() {
    for name in EXAMPLES {
        let exe = example(name);
        let image = elf::write(&exe).expect("elf");
        let listing = elf::listing(&image).expect("listing");
        let m = stats::static_metrics(&exe);
        insta::assert_snapshot!(
            format!("listing_{name}"),
            format!("{}\n{listing}", m.to_json())
        );
    }
}

/// The program kills (a `KILL*`, `Resources::kill`, the listing's `kill`
/// and ABI EARLYEXIT) exactly when the kernel can `discard`: a kernel with
/// loops but no `discard` carries a `false` flag through them at -O0 and
/// used to be marked as killing.
#[test]
fn kill_only_where_the_kernel_discards() {
    let looping = "kernel b(x: In<f32>, r: Out<f32>) {\n    let mut s = 0.0;\n    \
                   for _i in 0..4 {\n        if s > x {\n            break;\n        }\n        \
                   s += x;\n    }\n    r = s;\n}\n";
    let discarding = "kernel c(x: In<f32>, r: Out<f32>) {\n    let mut s = 0.0;\n    \
                      for _i in 0..4 {\n        if s > x {\n            discard;\n        }\n        \
                      s += x;\n    }\n    r = s;\n}\n";
    for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
        for (src, kills) in [(looping, false), (discarding, true)] {
            let program = codegen_common::checked(src).expect("checks");
            let exe = compile_program(&program, level).expect("compiles");
            assert_eq!(exe.resources.kill, kills, "{level:?}: {src}");
            let has_kill = isa::format_program(&exe.program).contains("KILL");
            assert_eq!(has_kill, kills, "{level:?}: {src}");
        }
        let exe = compile_program(&example_program("threshold"), level).expect("compiles");
        assert!(exe.resources.kill, "threshold {level:?}");
    }
}
