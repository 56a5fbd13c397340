//! SAXPY with `ctm_kernel!`: the kernel is compiled when this example is
//! built; running it launches the embedded ELF on each simulated device.
//!
//! `cargo run --release --example saxpy_macro`

use ctm::prelude::*;

ctm_kernel! {
    kernel saxpy(a: f32, x: In<f32>, y: In<f32>, r: Out<f32>) {
        r = a * x + y;
    }
}

fn main() -> Result<(), ctm::Error> {
    let n = 1024;
    let x = Stream::from_vec(n, 1, (0..n).map(|i| i as f32).collect())?;
    let y = Stream::from_vec(n, 1, vec![2.0; n])?;
    for mut dev in [Device::x1k(), Device::r700()] {
        let mut r = Stream::zeros(n, 1);
        match saxpy::launch(&mut dev, 0.5, &x, &y, &mut r) {
            Ok(stats) => {
                let v = r.as_slice();
                println!(
                    "{}: r[0] = {}, r[1023] = {}, {} cycles",
                    dev.target(),
                    v[0],
                    v[n - 1],
                    stats.cycles
                );
            }
            Err(e @ ctm::Error::Unavailable { .. }) => println!("{}: {e}", dev.target()),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
