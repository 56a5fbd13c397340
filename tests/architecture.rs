//! The structure the architecture promises (docs/architecture.md), checked:
//! the simulator is built without the compiler, the library without the
//! command line, and `--emit ir` is exactly the IR a target's code
//! generator receives.

use ctm::pipeline::{compile_entry, optimized_ir};
use ctm::target::{CodegenFailure, MachineProgram, MachineTarget, machine, machines};
use ctm::{CompileOptions, EmitKind, Emitted, Target, compile, emit};
use ctm_ir::verify::Verified;
use std::process::Command;
use std::sync::Mutex;

/// The normal (non-dev) dependencies of `package`, one name per line.
fn normal_dependencies(package: &str, features: &[&str]) -> Vec<String> {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["tree", "-p", package, "-e", "normal", "--prefix", "none"])
        .args(["--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    for f in features {
        if f.starts_with("--") {
            cmd.arg(f);
        } else {
            cmd.args(["--features", f]);
        }
    }
    let out = cmd.output().expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_simulator_does_not_depend_on_the_compiler() {
    let deps = normal_dependencies("ctm-sim", &[]);
    assert!(deps.iter().any(|d| d == "ctm-backend-x1k"), "{deps:?}");
    assert!(deps.iter().any(|d| d == "ctm-backend-r700"), "{deps:?}");
    for compiler in ["ctm-frontend", "ctm-ir"] {
        assert!(
            !deps.iter().any(|d| d == compiler),
            "ctm-sim depends on {compiler}: {deps:?}"
        );
    }
}

#[test]
fn the_library_does_not_depend_on_the_command_line() {
    let lean = normal_dependencies("ctm", &["--no-default-features"]);
    assert!(!lean.iter().any(|d| d == "clap"), "{lean:?}");
    let full = normal_dependencies("ctm", &[]);
    assert!(full.iter().any(|d| d == "clap"), "{full:?}");
}

/// A target that records the IR its code generator receives, and
/// otherwise is the X1K.
struct Spy {
    inner: &'static dyn MachineTarget,
    received: Mutex<Vec<String>>,
}

impl MachineTarget for Spy {
    fn target(&self) -> Target {
        self.inner.target()
    }
    fn elf_machine(&self) -> u16 {
        self.inner.elf_machine()
    }
    fn fused_mad(&self) -> bool {
        self.inner.fused_mad()
    }
    fn cost_model(&self) -> &'static dyn ctm_ir::cost::CostModel {
        self.inner.cost_model()
    }
    fn compile(&self, ir: &Verified) -> Result<Box<dyn MachineProgram>, CodegenFailure> {
        self.received
            .lock()
            .unwrap()
            .push(ctm_ir::print::to_text(ir.module()));
        self.inner.compile(ir)
    }
    fn read_elf(&self, bytes: &[u8]) -> Result<Box<dyn MachineProgram>, String> {
        self.inner.read_elf(bytes)
    }
    fn listing_elf(&self, bytes: &[u8]) -> Result<String, String> {
        self.inner.listing_elf(bytes)
    }
    fn listing_raw(&self, bytes: &[u8]) -> Result<String, String> {
        self.inner.listing_raw(bytes)
    }
    fn constant_slots(&self) -> u32 {
        self.inner.constant_slots()
    }
    fn max_raw_elements(&self) -> u32 {
        self.inner.max_raw_elements()
    }
    fn run_raw(
        &self,
        name: &str,
        bytes: &[u8],
        run: &ctm::target::RawRun,
    ) -> Result<ctm::target::RawOutcome, ctm::target::RawError> {
        self.inner.run_raw(name, bytes, run)
    }
    fn session(&self, options: &ctm::SimulateOptions) -> Box<dyn ctm::target::Session> {
        self.inner.session(options)
    }
}

#[test]
fn emit_ir_is_what_the_code_generator_receives() {
    let x1k = machine(Target::X1k).expect("x1k");
    for name in ["saxpy", "mandelbrot", "convolution", "black_scholes", "sum"] {
        let path = format!("{}/examples/{name}.ck", env!("CARGO_MANIFEST_DIR"));
        let source = std::fs::read_to_string(&path).expect("example");
        let options = CompileOptions {
            target: Target::X1k,
            ..CompileOptions::default()
        };
        let compilation = compile(&source, &options).expect("compiles");
        let Emitted::Text(printed) = emit(&source, &compilation, EmitKind::Ir).expect("emits")
        else {
            panic!("ir is text")
        };
        let spy = Spy {
            inner: x1k,
            received: Mutex::new(Vec::new()),
        };
        let program = compile_entry(Some(&source), &compilation, &spy, None).expect("compiles");
        let received = spy.received.into_inner().unwrap();
        assert_eq!(received, vec![printed.clone()], "{name}");
        // And the same program as the target object compiles from the IR
        // the pipeline gives.
        let ir = optimized_ir(&compilation, x1k.cost_model(), None).expect("ir");
        let direct = x1k.compile(&ir).expect("compiles");
        assert_eq!(direct.elf().unwrap(), program.elf().unwrap(), "{name}");
        let Emitted::Binary(elf) = emit(&source, &compilation, EmitKind::Elf).expect("elf") else {
            panic!("elf is binary")
        };
        // `emit` writes the source beside the code (`.ctm.source`, for
        // `ctmc run FILE.elf --check`).
        let embedded = ctm::target::EmbeddedSource {
            entry: compilation.entry().name().to_string(),
            opt_level: compilation.options().opt_level,
            source: source.clone(),
        };
        assert_eq!(elf, program.elf_with_source(&embedded).unwrap(), "{name}");
    }
}

#[test]
fn every_target_is_reached_through_the_target_layer() {
    for t in machines() {
        assert!(machine(t.target()).is_some());
        assert_eq!(
            ctm::target::by_elf_machine(t.elf_machine()).map(|m| m.target()),
            Some(t.target())
        );
    }
    assert!(machine(Target::Ref).is_none());
}
