//! The Mandelbrot set at 1024×768 on the simulated X1K, written as a
//! grayscale PNG (the `png` crate).
//!
//! `cargo run --release --example mandelbrot [-- OUT.png]`

use ctm::prelude::*;

ctm_kernel! {
    // The escape time of z -> z^2 + c, scaled to [0, 1].
    const MAX_ITER: i32 = 64;

    kernel mandelbrot(center: vec2, scale: f32, r: Out<f32>) {
        let c = (index() - 0.5 * domain()) * scale + center;
        let mut z = vec2(0.0);
        let mut n = 0;
        for _k in 0..MAX_ITER {
            if dot(z, z) > 4.0 {
                break;
            }
            z = vec2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
            n += 1;
        }
        r = n as f32 / MAX_ITER as f32;
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        std::env::temp_dir()
            .join("ctm-mandelbrot.png")
            .display()
            .to_string()
    });
    let (w, h) = (1024, 768);
    let mut dev = Device::x1k();
    let mut escape = Stream::zeros(w, h);
    let stats = mandelbrot::launch(&mut dev, [-0.6, 0.0], 3.0 / w as f32, &mut escape)?;
    let pixels: Vec<u8> = escape
        .as_slice()
        .iter()
        .map(|&v| (255.0 * (1.0 - v).clamp(0.0, 1.0)) as u8)
        .collect();
    let file = std::io::BufWriter::new(std::fs::File::create(&path)?);
    let mut encoder = png::Encoder::new(file, w as u32, h as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&pixels)?;
    println!(
        "{}: {}x{} elements, {} cycles ({:.1} per element)",
        dev.target(),
        w,
        h,
        stats.cycles,
        stats.cycles_per_element()
    );
    println!("picture: {path}");
    Ok(())
}
