//! Image outputs as PNG (`--output NAME=PATH.png`, `docs/cli.md`,
//! "--output"): what an output stream looks like as 8-bit pixels.
//!
//! - 4 channels (`vec4`, `unorm8x4`): RGBA, each channel clamped to
//!   [0, 1] and scaled by 255 (rounded to nearest); NaN is 0.
//! - 1 channel (an `f32` field such as mandelbrot's escape count): 8-bit
//!   grey, scaled linearly from the smallest finite value (0) to the
//!   largest (255); a constant field is all 0; NaN and −∞ are 0, +∞ 255.
//! - anything else (`vec2`, a reduction's one value) is not an image.
//!
//! Encoding uses the `png` crate (pure Rust, no C dependency); nothing
//! here panics on any data.

use ctm_frontend::data::{StreamBuffer, StreamData};
use std::path::Path;

/// Why an output cannot be written as PNG.
#[derive(Debug, thiserror::Error)]
pub enum PngError {
    /// The output has no image form.
    #[error("a {0}-channel output is not an image: PNG needs an f32, vec4 or unorm8x4 stream")]
    NotAnImage(usize),
    /// A reduction's result: one value.
    #[error("a reduction's result is one value, not an image: write it as .npy")]
    OneValue,
    /// The domain is empty or beyond PNG's limits.
    #[error("a {0}x{1} output cannot be a PNG image")]
    Size(usize, usize),
    /// The encoder failed (or writing the file did).
    #[error("{0}")]
    Encode(String),
}

/// A channel in [0, 1] as a byte (NaN → 0).
fn unit_byte(x: f32) -> u8 {
    if x.is_nan() {
        0
    } else {
        (x.clamp(0.0, 1.0) * 255.0).round() as u8
    }
}

/// The pixels of `data`: (colour type, bytes, row-major).
///
/// # Errors
/// [`PngError::NotAnImage`] for 2 channels, [`PngError::Size`] for an
/// empty domain.
pub fn pixels(data: &StreamData) -> Result<(::png::ColorType, Vec<u8>), PngError> {
    if data.width == 0 || data.height == 0 || u32::try_from(data.width).is_err() {
        return Err(PngError::Size(data.width, data.height));
    }
    let values = |k: usize| -> Vec<f32> {
        match &data.buffer {
            StreamBuffer::F32(v) => v.clone(),
            _ => (0..data.height)
                .flat_map(|j| (0..data.width).map(move |i| (i, j)))
                .flat_map(|(i, j)| data.read(i as i64, j as i64)[..k].to_vec())
                .collect(),
        }
    };
    match data.channels {
        4 => {
            let bytes = match &data.buffer {
                StreamBuffer::U8(b) => b.clone(),
                _ => values(4).into_iter().map(unit_byte).collect(),
            };
            Ok((::png::ColorType::Rgba, bytes))
        }
        1 => {
            let v = values(1);
            let finite = v.iter().copied().filter(|x| x.is_finite());
            let (lo, hi) = finite.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            });
            let span = f64::from(hi) - f64::from(lo);
            let grey = |x: f32| -> u8 {
                if x.is_nan() || x == f32::NEG_INFINITY {
                    0
                } else if x == f32::INFINITY {
                    255
                } else if span > 0.0 {
                    let t = (f64::from(x) - f64::from(lo)) / span;
                    (t.clamp(0.0, 1.0) * 255.0).round() as u8
                } else {
                    0
                }
            };
            Ok((
                ::png::ColorType::Grayscale,
                v.into_iter().map(grey).collect(),
            ))
        }
        k => Err(PngError::NotAnImage(k)),
    }
}

/// `data` encoded as a PNG file's bytes.
///
/// # Errors
/// As [`pixels`], and [`PngError::Encode`].
pub fn encode_png(data: &StreamData) -> Result<Vec<u8>, PngError> {
    let (colour, bytes) = pixels(data)?;
    let (w, h) = (
        u32::try_from(data.width).map_err(|_| PngError::Size(data.width, data.height))?,
        u32::try_from(data.height).map_err(|_| PngError::Size(data.width, data.height))?,
    );
    let mut out = Vec::new();
    {
        let mut encoder = ::png::Encoder::new(&mut out, w, h);
        encoder.set_color(colour);
        encoder.set_depth(::png::BitDepth::Eight);
        let encode = |e: ::png::EncodingError| PngError::Encode(e.to_string());
        let mut writer = encoder.write_header().map_err(encode)?;
        writer.write_image_data(&bytes).map_err(encode)?;
        writer.finish().map_err(encode)?;
    }
    Ok(out)
}

/// Writes `data` to `path` as PNG.
///
/// # Errors
/// As [`encode_png`], and [`PngError::Encode`] if the file cannot be
/// written.
pub fn write_png_file(path: &Path, data: &StreamData) -> Result<(), PngError> {
    let bytes = encode_png(data)?;
    std::fs::write(path, bytes)
        .map_err(|e| PngError::Encode(format!("cannot write `{}`: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(width: usize, height: usize, channels: usize, v: Vec<f32>) -> StreamData {
        StreamData {
            width,
            height,
            channels,
            buffer: StreamBuffer::F32(v),
        }
    }

    fn decode(bytes: &[u8]) -> (::png::OutputInfo, Vec<u8>) {
        let decoder = ::png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (info, buf)
    }

    #[test]
    fn vec4_is_clamped_rgba() {
        let s = stream(2, 1, 4, vec![0.0, 0.5, 1.0, 2.0, -1.0, f32::NAN, 0.25, 1.0]);
        let (info, px) = decode(&encode_png(&s).unwrap());
        assert_eq!((info.width, info.height), (2, 1));
        assert_eq!(info.color_type, ::png::ColorType::Rgba);
        assert_eq!(px, [0, 128, 255, 255, 0, 0, 64, 255]);
    }

    #[test]
    fn f32_fields_are_scaled_from_min_to_max() {
        let s = stream(3, 2, 1, vec![2.0, 4.0, 6.0, f32::NAN, f32::INFINITY, 3.0]);
        let (info, px) = decode(&encode_png(&s).unwrap());
        assert_eq!((info.width, info.height), (3, 2));
        assert_eq!(info.color_type, ::png::ColorType::Grayscale);
        assert_eq!(px, [0, 128, 255, 0, 255, 64]);
        // A constant field is black.
        let flat = stream(2, 2, 1, vec![7.0; 4]);
        assert_eq!(decode(&encode_png(&flat).unwrap()).1, [0; 4]);
    }

    #[test]
    fn other_shapes_are_not_images() {
        assert!(matches!(
            encode_png(&stream(1, 1, 2, vec![0.0, 1.0])),
            Err(PngError::NotAnImage(2))
        ));
        assert!(matches!(
            encode_png(&stream(0, 3, 1, vec![])),
            Err(PngError::Size(0, 3))
        ));
    }
}
