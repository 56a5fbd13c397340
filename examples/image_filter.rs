//! A 3×3 convolution (sharpen) of a PNG on both simulated devices, with
//! their cycles side by side. Without an input file it makes a test
//! picture first.
//!
//! `cargo run --release --example image_filter [-- IN.png [OUT.png]]`

use ctm::prelude::*;
use std::path::PathBuf;

ctm_kernel! {
    // Each output pixel is the weighted sum of the 3x3 neighbourhood of
    // its input pixel (gathers clamp at the edges).
    kernel convolve(w: [f32; 9], img: In<unorm8x4>, r: Out<vec4>) {
        let p = index();
        let mut acc = vec4(0.0);
        for dy in 0..3 {
            for dx in 0..3 {
                let offset = vec2((dx - 1) as f32, (dy - 1) as f32);
                acc += w[dy * 3 + dx] * img[p + offset];
            }
        }
        r = vec4(saturate(acc.xyz), 1.0);
    }
}

/// Reads a PNG as RGBA8 pixels.
fn read_png(path: &PathBuf) -> Result<(usize, usize, Vec<Unorm8x4>), Box<dyn std::error::Error>> {
    let mut decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path)?));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info()?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("picture too large")?];
    let info = reader.next_frame(&mut buf)?;
    let (w, h) = (info.width as usize, info.height as usize);
    let bytes = &buf[..info.buffer_size()];
    let channels = bytes.len() / (w * h);
    let pixels = bytes
        .chunks_exact(channels)
        .map(|c| match channels {
            1 => Unorm8x4([c[0], c[0], c[0], 255]),
            2 => Unorm8x4([c[0], c[0], c[0], c[1]]),
            3 => Unorm8x4([c[0], c[1], c[2], 255]),
            _ => Unorm8x4([c[0], c[1], c[2], c[3]]),
        })
        .collect();
    Ok((w, h, pixels))
}

fn write_png(
    path: &PathBuf,
    w: usize,
    h: usize,
    rgba: &[u8],
) -> Result<(), Box<dyn std::error::Error>> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, w as u32, h as u32);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(rgba)?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let tmp = std::env::temp_dir();
    let input = match args.next() {
        Some(p) => PathBuf::from(p),
        None => {
            // A test picture: colour gradients and a checkerboard.
            let (w, h) = (256, 192);
            let rgba: Vec<u8> = (0..w * h)
                .flat_map(|k| {
                    let (i, j) = (k % w, k / w);
                    let check = if (i / 16 + j / 16) % 2 == 0 { 200 } else { 40 };
                    [i as u8, (j * 255 / h) as u8, check, 255]
                })
                .collect();
            let p = tmp.join("ctm-filter-input.png");
            write_png(&p, w, h, &rgba)?;
            p
        }
    };
    let output = args
        .next()
        .map_or_else(|| tmp.join("ctm-filter-output.png"), PathBuf::from);
    let (w, h, pixels) = read_png(&input)?;
    let img = Stream::from_vec(w, h, pixels)?;
    let sharpen = [0.0, -1.0, 0.0, -1.0, 5.0, -1.0, 0.0, -1.0, 0.0];
    println!("{}: {w}x{h}", input.display());
    println!("{:<6} {:>12} {:>10}", "device", "cycles", "per pixel");
    let mut written = false;
    for mut dev in [Device::x1k(), Device::r700()] {
        let mut out = Stream::zeros(w, h);
        match convolve::launch(&mut dev, sharpen, &img, &mut out) {
            Ok(stats) => {
                println!(
                    "{:<6} {:>12} {:>10.2}",
                    dev.target().to_string(),
                    stats.cycles,
                    stats.cycles_per_element()
                );
                if !written {
                    let rgba: Vec<u8> = out
                        .as_slice()
                        .iter()
                        .flatten()
                        .map(|&v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
                        .collect();
                    write_png(&output, w, h, &rgba)?;
                    written = true;
                }
            }
            Err(ctm::Error::Unavailable { reason, .. }) => {
                println!(
                    "{:<6} {:>12}   not available: {reason}",
                    dev.target().to_string(),
                    "-"
                );
            }
            Err(e) => return Err(e.into()),
        }
    }
    if written {
        println!("result: {}", output.display());
    }
    Ok(())
}
