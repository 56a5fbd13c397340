//! A crate outside the workspace that depends on `ctm` by path can use
//! `ctm_kernel!` and launch on both devices: the test writes one into a
//! temporary folder and builds and runs it with `cargo`, sharing this
//! workspace's target folder (and its `Cargo.lock` and release profile)
//! so that nothing is compiled twice.
//!
//! Ignored by default (a nested `cargo build` of the whole dependency
//! tree is slow on a cold target folder): run it with
//! `cargo test --release -p ctm --test external_crate -- --ignored`.

use std::path::Path;
use std::process::Command;

const MAIN: &str = r#"
use ctm::prelude::*;

ctm_kernel! {
    kernel saxpy(a: f32, x: In<f32>, y: In<f32>, r: Out<f32>) {
        r = a * x + y;
    }
}

fn main() {
    let x = Stream::from_vec(4, 1, vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    let y = Stream::from_vec(4, 1, vec![1.0; 4]).unwrap();
    for mut dev in [Device::x1k(), Device::r700()] {
        let mut r = Stream::zeros(4, 1);
        match saxpy::launch(&mut dev, 2.0, &x, &y, &mut r) {
            Ok(stats) => println!("{}: {:?} {}", dev.target(), r.to_vec(), stats.cycles),
            Err(e @ ctm::Error::Unavailable { .. }) => println!("{}: unavailable: {e}", dev.target()),
            Err(e) => panic!("{e}"),
        }
    }
}
"#;

#[test]
#[ignore = "builds a crate with a nested cargo; run with --ignored"]
fn a_crate_outside_the_workspace_uses_the_macro() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let manifest = format!(
        "[package]\nname = \"outside\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
         [dependencies]\nctm = {{ path = {:?} }}\n\n\
         [profile.release]\ndebug = \"line-tables-only\"\n\n[workspace]\n",
        root.display().to_string()
    );
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/main.rs"), MAIN).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), std::path::PathBuf::from);
    let out = Command::new(env!("CARGO"))
        .args(["run", "--release", "--quiet"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("x1k: [3.0, 5.0, 7.0, 9.0]"), "{stdout}");
    assert!(stdout.contains("r700: "), "{stdout}");
}
