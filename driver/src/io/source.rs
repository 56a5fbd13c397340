//! Input sources (`--input NAME=SRC`, spec §9): files, and the generated
//! streams `random`, `seq` and `const:V`.
//!
//! Generated streams are deterministic: `random` is seeded from the
//! parameter's name (64-bit FNV-1a of its UTF-8 bytes, then one splitmix64
//! draw per value in row-major, channel-minor order), so a kernel's inputs
//! are the same on every run, every target and every machine, and two
//! inputs of one kernel differ.

use ctm_frontend::data::{StreamBuffer, StreamData};
use ctm_frontend::types::StreamType;
use std::path::PathBuf;

/// Where an input stream's data comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum InputSource {
    /// A `.npy` file (shape and dtype rules in [`super::stream`]).
    Npy(PathBuf),
    /// A raw little-endian `.f32` file of the domain's shape.
    RawF32(PathBuf),
    /// Seeded uniform random values (see the module doc).
    Random,
    /// Element k (row-major, `k = j * W + i`) is k in every channel.
    Seq,
    /// The same value(s) everywhere: one for all channels, or one per
    /// channel. Kept as written, converted for the stream type.
    Const(Vec<String>),
}

impl InputSource {
    /// The file the source reads, if any.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            InputSource::Npy(p) | InputSource::RawF32(p) => Some(p),
            _ => None,
        }
    }
}

/// A malformed `SRC` of `--input NAME=SRC`, or a `const:` that does not
/// fit the stream.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SourceError {
    /// Not one of the source forms.
    #[error(
        "unknown input source `{0}`: expected a .npy or .f32 file, `random`, `seq` or `const:V`"
    )]
    Unknown(String),
    /// `const:` without values, or a value that is not a number.
    #[error("`const:{text}`: `{value}` is not a number")]
    ConstNotANumber {
        /// Everything after `const:`.
        text: String,
        /// The offending value.
        value: String,
    },
    /// A `const:` list whose length is neither 1 nor the channel count.
    #[error("`const:` for an `In<{}>` stream takes 1 or {} value(s), found {found}", stream.name(), stream.channels())]
    ConstCount {
        /// The stream type.
        stream: StreamType,
        /// Number of values given.
        found: usize,
    },
    /// A value the stream's storage cannot hold.
    #[error("`const:` value `{value}` does not fit an `In<{}>` stream: {}", stream.name(), const_range(*stream))]
    ConstRange {
        /// The value as written.
        value: String,
        /// The stream type.
        stream: StreamType,
    },
}

fn const_range(stream: StreamType) -> &'static str {
    match stream {
        StreamType::U16 => "expected an integer in 0..=65535",
        StreamType::Unorm8x4 => "expected a number in [0, 1] (stored as round(V * 255))",
        _ => "expected an f32",
    }
}

/// Parses the `SRC` of `--input NAME=SRC`.
///
/// Keywords come first (`random`, `seq`, `const:V`); anything else must
/// name a file ending in `.npy` or `.f32` (any letter case), so that a
/// mistyped keyword is not read as a file name. A file literally named
/// `random` is spelled `./random.npy`.
///
/// # Errors
/// [`SourceError::Unknown`] or [`SourceError::ConstNotANumber`].
pub fn parse_input_source(text: &str) -> Result<InputSource, SourceError> {
    match text {
        "random" => return Ok(InputSource::Random),
        "seq" => return Ok(InputSource::Seq),
        _ => {}
    }
    if let Some(values) = text.strip_prefix("const:") {
        let parts: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        for p in &parts {
            if p.parse::<f64>().is_err() {
                return Err(SourceError::ConstNotANumber {
                    text: values.to_string(),
                    value: p.clone(),
                });
            }
        }
        return Ok(InputSource::Const(parts));
    }
    let lower = text.to_ascii_lowercase();
    if lower.ends_with(".npy") && lower.len() > 4 {
        Ok(InputSource::Npy(PathBuf::from(text)))
    } else if lower.ends_with(".f32") && lower.len() > 4 {
        Ok(InputSource::RawF32(PathBuf::from(text)))
    } else {
        Err(SourceError::Unknown(text.to_string()))
    }
}

/// 64-bit FNV-1a.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The splitmix64 generator (Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", 2014).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The `random` stream of parameter `name`: floats uniform in [0, 1) (24
/// random bits each, so every value is exact), `u16` uniform in
/// 0..=65535, `unorm8x4` uniform bytes.
pub fn random_stream(name: &str, ty: StreamType, (width, height): (usize, usize)) -> StreamData {
    let n = width * height * ty.channels();
    let mut rng = SplitMix64(fnv1a(name.as_bytes()));
    let buffer = match ty {
        StreamType::F32 | StreamType::Vec2 | StreamType::Vec4 => StreamBuffer::F32(
            (0..n)
                .map(|_| (rng.next() >> 40) as f32 * (1.0 / 16_777_216.0))
                .collect(),
        ),
        StreamType::U16 => StreamBuffer::U16((0..n).map(|_| (rng.next() >> 48) as u16).collect()),
        StreamType::Unorm8x4 => {
            StreamBuffer::U8((0..n).map(|_| (rng.next() >> 56) as u8).collect())
        }
    };
    StreamData {
        width,
        height,
        channels: ty.channels(),
        buffer,
    }
}

/// The `seq` stream: element `k = j * W + i` is k in every channel (as the
/// nearest `f32` past 2^24; `u16`: k mod 65536; `unorm8x4`: bytes k mod 256).
pub fn seq_stream(ty: StreamType, (width, height): (usize, usize)) -> StreamData {
    let c = ty.channels();
    let n = width * height * c;
    let buffer = match ty {
        StreamType::F32 | StreamType::Vec2 | StreamType::Vec4 => {
            StreamBuffer::F32((0..n).map(|x| (x / c) as f32).collect())
        }
        StreamType::U16 => StreamBuffer::U16((0..n).map(|x| ((x / c) % 65536) as u16).collect()),
        StreamType::Unorm8x4 => StreamBuffer::U8((0..n).map(|x| ((x / c) % 256) as u8).collect()),
    };
    StreamData {
        width,
        height,
        channels: c,
        buffer,
    }
}

/// The `const:V` stream: `values` (one for every channel, or one per
/// channel) in every element.
///
/// # Errors
/// [`SourceError::ConstCount`], [`SourceError::ConstNotANumber`] or
/// [`SourceError::ConstRange`].
pub fn const_stream(
    values: &[String],
    ty: StreamType,
    (width, height): (usize, usize),
) -> Result<StreamData, SourceError> {
    let c = ty.channels();
    if values.len() != 1 && values.len() != c {
        return Err(SourceError::ConstCount {
            stream: ty,
            found: values.len(),
        });
    }
    let lane = |k: usize| &values[if values.len() == 1 { 0 } else { k }];
    let range = |v: &String| SourceError::ConstRange {
        value: v.clone(),
        stream: ty,
    };
    let number = |v: &String| -> Result<f64, SourceError> {
        v.parse::<f64>().map_err(|_| SourceError::ConstNotANumber {
            text: values.join(","),
            value: v.clone(),
        })
    };
    let n = width * height;
    let buffer = match ty {
        StreamType::F32 | StreamType::Vec2 | StreamType::Vec4 => {
            let mut element = Vec::with_capacity(c);
            for k in 0..c {
                let v = lane(k);
                let x: f32 = v.parse().map_err(|_| range(v))?;
                if x.is_infinite() && !super::uniform::spells_infinity(v) {
                    return Err(range(v));
                }
                element.push(x);
            }
            StreamBuffer::F32(element.repeat(n))
        }
        StreamType::U16 => {
            let v = lane(0);
            let x = number(v)?;
            if x.fract() != 0.0 || !(0.0..=65535.0).contains(&x) {
                return Err(range(v));
            }
            StreamBuffer::U16(vec![x as u16; n])
        }
        StreamType::Unorm8x4 => {
            let mut element = Vec::with_capacity(c);
            for k in 0..c {
                let v = lane(k);
                let x = number(v)?;
                if !(0.0..=1.0).contains(&x) {
                    return Err(range(v));
                }
                element.push((x * 255.0).round() as u8);
            }
            StreamBuffer::U8(element.repeat(n))
        }
    };
    Ok(StreamData {
        width,
        height,
        channels: c,
        buffer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        assert_eq!(parse_input_source("random"), Ok(InputSource::Random));
        assert_eq!(parse_input_source("seq"), Ok(InputSource::Seq));
        assert_eq!(
            parse_input_source("const:1, 2.5,3,-4"),
            Ok(InputSource::Const(vec![
                "1".into(),
                "2.5".into(),
                "3".into(),
                "-4".into()
            ]))
        );
        assert_eq!(
            parse_input_source("dir/x.NPY"),
            Ok(InputSource::Npy("dir/x.NPY".into()))
        );
        assert_eq!(
            parse_input_source("x.f32"),
            Ok(InputSource::RawF32("x.f32".into()))
        );
        for bad in ["", "rand", "x.txt", ".npy", "Random", "const"] {
            assert!(
                matches!(parse_input_source(bad), Err(SourceError::Unknown(_))),
                "{bad}"
            );
        }
        for bad in ["const:", "const:a", "const:1,,2"] {
            assert!(
                matches!(
                    parse_input_source(bad),
                    Err(SourceError::ConstNotANumber { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn random_is_deterministic_per_name_and_in_range() {
        let a = random_stream("x", StreamType::F32, (16, 16));
        assert_eq!(a, random_stream("x", StreamType::F32, (16, 16)));
        assert_ne!(a, random_stream("y", StreamType::F32, (16, 16)));
        let v = a.as_f32().unwrap();
        assert!(v.iter().all(|&x| (0.0..1.0).contains(&x)));
        let mean = v.iter().sum::<f32>() / v.len() as f32;
        assert!((mean - 0.5).abs() < 0.1, "{mean}");
        let u = random_stream("x", StreamType::U16, (64, 64));
        let StreamBuffer::U16(u) = u.buffer else {
            panic!()
        };
        assert!(u.iter().any(|&x| x > 60000) && u.iter().any(|&x| x < 5000));
        let b = random_stream("img", StreamType::Unorm8x4, (8, 8));
        assert_eq!(b.channels, 4);
        let StreamBuffer::U8(b) = b.buffer else {
            panic!()
        };
        assert_eq!(b.len(), 256);
        // Pinned, so that a change of the generator is noticed.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(SplitMix64(0).next(), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn seq_counts_elements() {
        let s = seq_stream(StreamType::Vec2, (3, 2));
        assert_eq!(s.read(2, 1)[..2], [5.0, 5.0]);
        let s = seq_stream(StreamType::U16, (300, 300));
        assert_eq!(s.read(160, 218)[0], ((218 * 300 + 160) % 65536) as f32);
        let s = seq_stream(StreamType::Unorm8x4, (300, 1));
        assert_eq!(s.read(257, 0), [1.0 / 255.0; 4]);
    }

    #[test]
    fn const_fills() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let s = const_stream(&v(&["2.5"]), StreamType::Vec4, (2, 2)).unwrap();
        assert_eq!(s.read(1, 1), [2.5; 4]);
        let s = const_stream(&v(&["1", "2"]), StreamType::Vec2, (2, 1)).unwrap();
        assert_eq!(s.read(1, 0)[..2], [1.0, 2.0]);
        let s = const_stream(&v(&["7"]), StreamType::U16, (2, 1)).unwrap();
        assert_eq!(s.buffer, StreamBuffer::U16(vec![7, 7]));
        let s = const_stream(&v(&["0", "0.5", "1", "0.2"]), StreamType::Unorm8x4, (1, 1)).unwrap();
        assert_eq!(s.buffer, StreamBuffer::U8(vec![0, 128, 255, 51]));
        let s = const_stream(&v(&["nan"]), StreamType::F32, (1, 1)).unwrap();
        assert!(s.read(0, 0)[0].is_nan());
        for (vals, ty) in [
            (v(&["1", "2"]), StreamType::Vec4),
            (v(&["1", "2"]), StreamType::F32),
        ] {
            assert!(matches!(
                const_stream(&vals, ty, (1, 1)),
                Err(SourceError::ConstCount { .. })
            ));
        }
        for (vals, ty) in [
            (v(&["1.5"]), StreamType::U16),
            (v(&["65536"]), StreamType::U16),
            (v(&["-1"]), StreamType::U16),
            (v(&["2"]), StreamType::Unorm8x4),
            (v(&["1e39"]), StreamType::F32),
            (v(&["1e99999"]), StreamType::F32),
            (v(&["-1e99999"]), StreamType::Vec2),
        ] {
            assert!(
                matches!(
                    const_stream(&vals, ty, (1, 1)),
                    Err(SourceError::ConstRange { .. })
                ),
                "{vals:?}"
            );
        }
    }
}
