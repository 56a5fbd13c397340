//! Reductions with `ctm_kernel!`: the sum and the per-lane maximum of a
//! stream, computed pass after pass on the simulated GPU.
//!
//! `cargo run --release --example reduce`

use ctm::prelude::*;

ctm_kernel! {
    reduce sum(a: f32, b: f32) -> f32 {
        a + b
    }

    reduce maxv(a: vec4, b: vec4) -> vec4 {
        max(a, b)
    }
}

fn main() -> Result<(), ctm::Error> {
    let (w, h) = (256, 256);
    let values: Vec<f32> = (0..w * h).map(|k| (k % 100) as f32 * 0.01).collect();
    let expected: f64 = values.iter().map(|&v| f64::from(v)).sum();
    let s = Stream::from_vec(w, h, values)?;
    let points: Vec<[f32; 4]> = (0..w * h)
        .map(|k| {
            let t = k as f32 / (w * h) as f32;
            [t.sin(), t.cos(), t * 3.0, -t]
        })
        .collect();
    let p = Stream::from_vec(w, h, points)?;
    for mut dev in [Device::x1k(), Device::r700()] {
        match sum::reduce_with_stats(&mut dev, &s) {
            Ok((total, stats)) => println!(
                "{}: sum = {total} (exact: {expected}), {} passes, {} cycles",
                dev.target(),
                stats.passes.unwrap_or(0),
                stats.cycles
            ),
            Err(e @ ctm::Error::Unavailable { .. }) => {
                println!("{}: {e}", dev.target());
                continue;
            }
            Err(e) => return Err(e),
        }
        let m = maxv::reduce(&mut dev, &p)?;
        println!("{}: per-lane maximum = {m:?}", dev.target());
    }
    Ok(())
}
