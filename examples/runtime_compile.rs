//! Compiles a `.ck` file at run time and launches it on the simulated
//! X1K with generated inputs: every input stream gets `0, 1, 2, ...`,
//! every `f32`/`i32` uniform `1`; prints the first outputs and the cycles.
//!
//! `cargo run --release --example runtime_compile -- examples/saxpy.ck [KERNEL] [x1k|r700]`

use ctm::prelude::*;
use ctm::{Options, Role};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "examples/saxpy.ck".into());
    let kernel = args.next().filter(|k| !k.is_empty());
    let target = match args.next().as_deref() {
        Some("r700") => Target::R700,
        _ => Target::X1k,
    };
    let source = std::fs::read_to_string(&path)?;
    let options = Options {
        kernel,
        ..Options::default()
    };
    let program = match compile_kernel(&source, target, &options) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    for w in program.warnings() {
        eprintln!("{w}");
    }
    let mut dev = Device::new(target)?;
    let (width, height) = (16, 4);
    let ramp = Stream::from_vec(
        width,
        height,
        (0..width * height).map(|k| k as f32).collect(),
    )?;
    println!("{path}: `{}` for {target}", program.name());
    if program.is_reduction() {
        let (value, stats) = program.reduce(&mut dev, &ramp)?;
        println!(
            "reduction over 0..{}: {value:?} ({} cycles)",
            width * height,
            stats.cycles
        );
        return Ok(());
    }
    // A kernel: bind by name, trying f32 streams and f32 uniforms.
    let params = program.parameters();
    let mut launch_args = vec![Arg::Domain(width, height)];
    for (name, role, ty) in &params {
        match (role, ty.as_str()) {
            (Role::Input, "f32") => launch_args.push(Arg::input(name, &ramp)),
            (Role::Uniform, "f32") => launch_args.push(Arg::uniform(name, 1.0f32)),
            (Role::Uniform, "i32") => launch_args.push(Arg::uniform(name, 1i32)),
            (Role::Input | Role::Uniform, _) => {
                eprintln!("`{name}: {ty}`: this example only makes f32/i32 values");
                std::process::exit(2);
            }
            _ => {}
        }
    }
    let out = program.launch(&mut dev, &launch_args)?;
    for name in out.output_names() {
        if let Ok(s) = out.output::<f32>(name) {
            println!("{name}: {:?} ...", &s.as_slice()[..8]);
        } else if let Ok(s) = out.output::<[f32; 4]>(name) {
            println!("{name}: {:?} ...", &s.as_slice()[..2]);
        }
    }
    println!("{} cycles", out.stats.cycles);
    Ok(())
}
