//! Memory parameters of an MC client: the base-address and format command
//! parameters (CTM §2.2.2), and the conversion of one element between its
//! data format and four f32 channels.
//!
//! Conversions (`docs/ctm-device.md` §4; the guide defines only the formats'
//! names and sizes):
//!
//! | format | bytes | read as (c0, c1, c2, c3) | write |
//! |---|---|---|---|
//! | `UINT16_1` | 2 | (u, 0, 0, 1), u the integer value (not normalised) | c0 clamped to 0..=65535, rounded to nearest (ties away from 0), NaN → 0 |
//! | `UINT8_4` | 4 | (b0/255, b1/255, b2/255, b3/255), byte k at address + k | each channel clamped to 0..=1, × 255, rounded to nearest (ties away), NaN → 0 |
//! | `FLOAT32_1` | 4 | (f0, 0, 0, 1) | c0's bits |
//! | `FLOAT32_2` | 8 | (f0, f1, 0, 1) | c0, c1 bits |
//! | `FLOAT32_4` | 16 | (f0, f1, f2, f3) | all four |
//!
//! Missing channels read 0 and a missing alpha reads 1 (the `DppMemory`
//! contract in `interface.rs`). Multi-byte values are little-endian (CTM
//! §4.1.2's ELFDATA2LSB; the X1K is little-endian). Floats keep their bits,
//! NaN payloads included. Channels a format lacks are dropped on write.

use std::fmt;

/// `bits[hi:lo]` of `word`.
pub(crate) const fn bits(word: u32, hi: u32, lo: u32) -> u32 {
    let width = hi - lo + 1;
    if width >= 32 {
        word >> lo
    } else {
        (word >> lo) & ((1 << width) - 1)
    }
}

/// Bit `n` of `word`.
pub(crate) const fn bit(word: u32, n: u32) -> u32 {
    (word >> n) & 1
}

/// A 2 KiB-aligned base address (CTM §2.2.2: "The lower eleven bits are
/// ignored by CTM, and the address is treated as if all of the bits were
/// zero").
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct BaseAddress(u32);

impl BaseAddress {
    /// Bits the MC ignores (10:0).
    pub const IGNORED_MASK: u32 = 0x7FF;

    /// The base address a command parameter denotes: bits 10:0 cleared.
    pub const fn from_param(param: u32) -> Self {
        BaseAddress(param & !Self::IGNORED_MASK)
    }

    /// A base address that must already be 2 KiB-aligned.
    pub const fn new(address: u32) -> Option<Self> {
        if address & Self::IGNORED_MASK == 0 {
            Some(BaseAddress(address))
        } else {
            None
        }
    }

    /// The address.
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl fmt::Display for BaseAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#010x}", self.0)
    }
}

/// Tiling format (format parameter bits 17:16, CTM §2.2.2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Tiling {
    /// 0 - LINEAR (Table 1).
    #[default]
    Linear,
    /// 1 - TILED (Table 2).
    Tiled,
    /// 2 - LINEAR_INP_2X2: linear plus the 2x2 superfine tiling on input reads.
    LinearInp2x2,
    /// 3 - TILED_INP_2X2: tiled plus the 2x2 superfine tiling on input reads.
    TiledInp2x2,
}

impl Tiling {
    /// Every tiling, in code order.
    pub const ALL: [Tiling; 4] = [
        Tiling::Linear,
        Tiling::Tiled,
        Tiling::LinearInp2x2,
        Tiling::TiledInp2x2,
    ];

    /// The field code.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The tiling of a 2-bit code (every code is defined).
    pub const fn from_code(code: u32) -> Self {
        match code & 3 {
            0 => Tiling::Linear,
            1 => Tiling::Tiled,
            2 => Tiling::LinearInp2x2,
            _ => Tiling::TiledInp2x2,
        }
    }

    /// Whether addresses follow Table 2 (tiled) rather than Table 1.
    pub const fn is_tiled(self) -> bool {
        matches!(self, Tiling::Tiled | Tiling::TiledInp2x2)
    }

    /// Whether input reads use the 2x2 superfine tiling (CTM §2.1.4; ignored
    /// for every client but inputs).
    pub const fn is_superfine(self) -> bool {
        matches!(self, Tiling::LinearInp2x2 | Tiling::TiledInp2x2)
    }

    /// The manual's name.
    pub const fn name(self) -> &'static str {
        match self {
            Tiling::Linear => "LINEAR",
            Tiling::Tiled => "TILED",
            Tiling::LinearInp2x2 => "LINEAR_INP_2X2",
            Tiling::TiledInp2x2 => "TILED_INP_2X2",
        }
    }
}

/// Data format (format parameter bits 26:24, CTM §2.2.2; codes 5..7 are reserved).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum DataFormat {
    /// 0 - UINT16_1: one 16-bit unsigned integer.
    Uint16_1,
    /// 1 - UINT8_4: four 8-bit unsigned normalised channels.
    Uint8_4,
    /// 2 - FLOAT32_1.
    Float32_1,
    /// 3 - FLOAT32_2.
    Float32_2,
    /// 4 - FLOAT32_4.
    #[default]
    Float32_4,
}

impl DataFormat {
    /// Every format, in code order.
    pub const ALL: [DataFormat; 5] = [
        DataFormat::Uint16_1,
        DataFormat::Uint8_4,
        DataFormat::Float32_1,
        DataFormat::Float32_2,
        DataFormat::Float32_4,
    ];

    /// The field code.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The format of a code; `None` for the reserved codes 5..7.
    pub const fn from_code(code: u32) -> Option<Self> {
        match code {
            0 => Some(DataFormat::Uint16_1),
            1 => Some(DataFormat::Uint8_4),
            2 => Some(DataFormat::Float32_1),
            3 => Some(DataFormat::Float32_2),
            4 => Some(DataFormat::Float32_4),
            _ => None,
        }
    }

    /// Bytes per element ("bpe", CTM §2.1.4).
    pub const fn bytes_per_element(self) -> u32 {
        match self {
            DataFormat::Uint16_1 => 2,
            DataFormat::Uint8_4 | DataFormat::Float32_1 => 4,
            DataFormat::Float32_2 => 8,
            DataFormat::Float32_4 => 16,
        }
    }

    /// Channels stored per element.
    pub const fn channels(self) -> usize {
        match self {
            DataFormat::Uint16_1 | DataFormat::Float32_1 => 1,
            DataFormat::Float32_2 => 2,
            DataFormat::Uint8_4 | DataFormat::Float32_4 => 4,
        }
    }

    /// The manual's name.
    pub const fn name(self) -> &'static str {
        match self {
            DataFormat::Uint16_1 => "UINT16_1",
            DataFormat::Uint8_4 => "UINT8_4",
            DataFormat::Float32_1 => "FLOAT32_1",
            DataFormat::Float32_2 => "FLOAT32_2",
            DataFormat::Float32_4 => "FLOAT32_4",
        }
    }

    /// Four channels of one stored element (module doc table). `bytes` must
    /// hold [`DataFormat::bytes_per_element`] bytes; missing bytes read as 0.
    pub fn decode(self, bytes: &[u8]) -> [f32; 4] {
        let byte = |k: usize| bytes.get(k).copied().unwrap_or(0);
        let word = |k: usize| {
            f32::from_bits(u32::from_le_bytes([
                byte(4 * k),
                byte(4 * k + 1),
                byte(4 * k + 2),
                byte(4 * k + 3),
            ]))
        };
        match self {
            DataFormat::Uint16_1 => [
                f32::from(u16::from_le_bytes([byte(0), byte(1)])),
                0.0,
                0.0,
                1.0,
            ],
            DataFormat::Uint8_4 => [0, 1, 2, 3].map(|k| f32::from(byte(k)) / 255.0),
            DataFormat::Float32_1 => [word(0), 0.0, 0.0, 1.0],
            DataFormat::Float32_2 => [word(0), word(1), 0.0, 1.0],
            DataFormat::Float32_4 => [word(0), word(1), word(2), word(3)],
        }
    }

    /// The stored bytes of `value` for the channels in `mask` (bit c =
    /// channel c), as `(byte offset within the element, bytes)` runs; a
    /// channel the format lacks is dropped (module doc table).
    pub fn encode(self, value: [f32; 4], mask: u8) -> Vec<(u32, Vec<u8>)> {
        let on = |c: usize| mask & (1 << c) != 0;
        match self {
            DataFormat::Uint16_1 => {
                if on(0) {
                    vec![(0, to_uint16(value[0]).to_le_bytes().to_vec())]
                } else {
                    Vec::new()
                }
            }
            DataFormat::Uint8_4 => (0..4)
                .filter(|&c| on(c))
                .map(|c| (c as u32, vec![to_unorm8(value[c])]))
                .collect(),
            DataFormat::Float32_1 | DataFormat::Float32_2 | DataFormat::Float32_4 => (0..self
                .channels())
                .filter(|&c| on(c))
                .map(|c| (4 * c as u32, value[c].to_bits().to_le_bytes().to_vec()))
                .collect(),
        }
    }

    /// All stored bytes of `value` (every channel written).
    pub fn encode_all(self, value: [f32; 4]) -> Vec<u8> {
        let (bytes, _) = self.encode_bytes(value, 0xF);
        bytes[..self.bytes_per_element() as usize].to_vec()
    }

    /// [`DataFormat::encode`] without allocating: the element's stored
    /// bytes (the first `bytes_per_element`; bytes of channels not written
    /// are 0) and which of them the channels in `mask` write (bit b = byte b).
    pub fn encode_bytes(self, value: [f32; 4], mask: u8) -> ([u8; 16], u16) {
        let on = |c: usize| mask & (1 << c) != 0;
        let mut out = [0u8; 16];
        let mut written = 0u16;
        match self {
            DataFormat::Uint16_1 => {
                if on(0) {
                    out[..2].copy_from_slice(&to_uint16(value[0]).to_le_bytes());
                    written = 0b11;
                }
            }
            DataFormat::Uint8_4 => {
                for c in (0..4).filter(|&c| on(c)) {
                    out[c] = to_unorm8(value[c]);
                    written |= 1 << c;
                }
            }
            DataFormat::Float32_1 | DataFormat::Float32_2 | DataFormat::Float32_4 => {
                for c in (0..self.channels()).filter(|&c| on(c)) {
                    out[4 * c..4 * c + 4].copy_from_slice(&value[c].to_bits().to_le_bytes());
                    written |= 0xF << (4 * c);
                }
            }
        }
        (out, written)
    }

    /// The raw little-endian value of an element's first `min(bpe, 4)`
    /// bytes: how integer and boolean constants are read (`docs/ctm-device.md` §4).
    pub fn raw_word(self, bytes: &[u8]) -> u32 {
        let n = (self.bytes_per_element() as usize).min(4);
        let mut b = [0u8; 4];
        for (k, slot) in b.iter_mut().enumerate().take(n) {
            *slot = bytes.get(k).copied().unwrap_or(0);
        }
        u32::from_le_bytes(b)
    }
}

impl fmt::Display for DataFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `UINT8_4` write conversion: clamp to 0..=1, scale by 255, round to
/// nearest (ties away from zero); NaN writes 0.
pub fn to_unorm8(v: f32) -> u8 {
    if v.is_nan() {
        0
    } else {
        (v.clamp(0.0, 1.0) * 255.0).round() as u8
    }
}

/// `UINT16_1` write conversion: clamp to 0..=65535, round to nearest (ties
/// away from zero); NaN writes 0.
pub fn to_uint16(v: f32) -> u16 {
    if v.is_nan() {
        0
    } else {
        v.clamp(0.0, 65535.0).round() as u16
    }
}

/// Why a format parameter is rejected.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum FormatError {
    /// Bits the guide marks reserved are set: 1:0 (the pitch's low bits,
    /// "must be zero"), 15:13, 23:18 or 31:27.
    #[error("reserved format bits {bits:#010x} are set")]
    ReservedBits {
        /// The offending bits.
        bits: u32,
    },
    /// Data format code 5..7 ("> 5 - Reserved").
    #[error("data format code {code} is reserved")]
    ReservedDataFormat {
        /// The code.
        code: u32,
    },
}

/// The format parameter: pitch, tiling and data format (CTM §2.2.2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct SurfaceFormat {
    /// Elements per row; a multiple of 4, at most [`SurfaceFormat::MAX_PITCH`].
    pitch: u32,
    /// Tiling.
    pub tiling: Tiling,
    /// Data format.
    pub format: DataFormat,
}

impl SurfaceFormat {
    /// The largest pitch the 11-bit field (12:2, in multiples of 4) holds.
    pub const MAX_PITCH: u32 = 0x1FFC;
    /// Bits 1:0, 15:13, 23:18 and 31:27.
    pub const RESERVED_MASK: u32 = 0x0000_0003 | 0x0000_E000 | 0x00FC_0000 | 0xF800_0000;

    /// A format; `None` unless `pitch` is a multiple of 4 and at most
    /// [`SurfaceFormat::MAX_PITCH`].
    pub const fn new(pitch: u32, tiling: Tiling, format: DataFormat) -> Option<Self> {
        if !pitch.is_multiple_of(4) || pitch > Self::MAX_PITCH {
            None
        } else {
            Some(SurfaceFormat {
                pitch,
                tiling,
                format,
            })
        }
    }

    /// Elements per row.
    pub const fn pitch(self) -> u32 {
        self.pitch
    }

    /// Decode a format parameter.
    ///
    /// # Errors
    /// [`FormatError`] for reserved bits or a reserved data format code.
    pub const fn decode(word: u32) -> Result<Self, FormatError> {
        let reserved = word & Self::RESERVED_MASK;
        if reserved != 0 {
            return Err(FormatError::ReservedBits { bits: reserved });
        }
        let code = bits(word, 26, 24);
        let Some(format) = DataFormat::from_code(code) else {
            return Err(FormatError::ReservedDataFormat { code });
        };
        Ok(SurfaceFormat {
            // Bits 12:2 hold the pitch in multiples of 4; bits 1:0 are 0.
            pitch: bits(word, 12, 0),
            tiling: Tiling::from_code(bits(word, 17, 16)),
            format,
        })
    }

    /// The format parameter word.
    pub const fn encode(self) -> u32 {
        self.pitch | (self.tiling.code() << 16) | (self.format.code() << 24)
    }
}

/// Everything the MC keeps for one client: base, format and (for inputs,
/// outputs and the conditional buffer) height.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Surface {
    /// Base address.
    pub base: BaseAddress,
    /// Pitch, tiling, data format.
    pub format: SurfaceFormat,
    /// Rows (13-bit height parameter); `None` for constants and instructions.
    pub height: Option<u32>,
}

impl Surface {
    /// The rectangle (width = pitch, height) an input is clamped to and an
    /// output is clipped to; `None` if either is 0 or no height is known.
    pub fn size(&self) -> Option<(u32, u32)> {
        match self.height {
            Some(h) if h > 0 && self.format.pitch() > 0 => Some((self.format.pitch(), h)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `encode_bytes` writes exactly `encode`'s runs, for every format,
    /// mask and a spread of values (special ones included).
    #[test]
    fn encode_bytes_matches_encode() {
        let values = [
            0.0f32,
            -0.0,
            0.5,
            1.0,
            -3.25,
            255.5,
            70000.0,
            f32::NAN,
            f32::INFINITY,
            f32::MIN_POSITIVE / 2.0,
        ];
        for format in [
            DataFormat::Uint16_1,
            DataFormat::Uint8_4,
            DataFormat::Float32_1,
            DataFormat::Float32_2,
            DataFormat::Float32_4,
        ] {
            for mask in 0..16u8 {
                for (k, &v) in values.iter().enumerate() {
                    let value = [v, values[(k + 3) % 10], values[(k + 5) % 10], -v];
                    let (bytes, written) = format.encode_bytes(value, mask);
                    let mut expect_written = 0u16;
                    for (offset, run) in format.encode(value, mask) {
                        for (b, &byte) in run.iter().enumerate() {
                            let at = offset as usize + b;
                            assert_eq!(bytes[at], byte, "{format} mask {mask:#x} byte {at}");
                            expect_written |= 1 << at;
                        }
                    }
                    assert_eq!(written, expect_written, "{format} mask {mask:#x}");
                }
            }
        }
    }
}
