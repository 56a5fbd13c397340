//! MC address translation: (x, y) → byte address, exactly per CTM §2.1.4
//! Table 1 (linear) and Table 2 (tiled).
//!
//! Notation follows the guide: `v[h:l]` is bits h..l of v, `^` is XOR, and
//! a comma concatenates bits, most significant first. Only `x[11:0]` and
//! `y[11:0]` take part (indices are 12-bit); the pitch enters as
//! `pitch[13:s]`, the number of 32-byte blocks (linear) or tiles (tiled) per
//! row. The sums in the high bits wrap modulo 2^32 like the hardware's
//! adders would. The guide's formulas are followed even where they alias:
//! with a linear pitch whose row is not a whole number of 32-byte blocks,
//! rows overlap (the host helpers choose pitches that avoid this,
//! [`row_alignment`]).
//!
//! Table 1 (linear), bits 31:5 and 4:0, for bpe = 2^k:
//!
//! | bytes | bits 31:5 | bits 4:0 |
//! |---|---|---|
//! | 1 | `y[11:0]·pitch[13:5] + x[11:5] + offset[31:5]` | `x[4:0]` |
//! | 2 | `y[11:0]·pitch[13:4] + x[11:4] + offset[31:5]` | `x[3:0],0` |
//! | 4 | `y[11:0]·pitch[13:3] + x[11:3] + offset[31:5]` | `x[2:0],00` |
//! | 8 | `y[11:0]·pitch[13:2] + x[11:2] + offset[31:5]` | `x[1:0],000` |
//! | 16 | `y[11:0]·pitch[13:1] + x[11:1] + offset[31:5]` | `x[0],0000` |
//!
//! Table 2 (tiled; a tile is 2 KiB): see [`TILED_ROWS`].

use super::format::{BaseAddress, bit, bits};

/// One row of Table 2: which bits of x and y form each address bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TiledRow {
    /// Bytes per element.
    pub bytes: u32,
    /// Bits 31:11 = `y[11:y_tile_lo] · pitch[13:tile_lo] + x[11:tile_lo] + offset[31:11]`.
    pub y_tile_lo: u32,
    /// Low bit of the pitch and x fields in bits 31:11 (log2 of the tile width).
    pub tile_lo: u32,
    /// Bit 10 = `y[.0] ^ x[.1]`.
    pub bit10: (u32, u32),
    /// Bit 9 = `x[.0] ^ y[.1]`.
    pub bit9: (u32, u32),
    /// Bit 8 = `y[.0] ^ x[.1]`.
    pub bit8: (u32, u32),
    /// Bit 7 = `x[.0] ^ y[.1]`.
    pub bit7: (u32, u32),
    /// Bit 6 = `y[.]`.
    pub bit6_y: u32,
    /// Bit 5 = `x[.]`.
    pub bit5_x: u32,
    /// Bits 4:0 = `y[low_y-1:0], x[low_x-1:0]`, then log2(bytes) zeros.
    pub low_y: u32,
    /// See `low_y`.
    pub low_x: u32,
}

/// Table 2 of CTM §2.1.4, one row per element size (1, 2, 4, 8, 16 bytes).
pub const TILED_ROWS: [TiledRow; 5] = [
    // 1 | y[11:5]*pitch[13:6]+x[11:6]+offset | y[4]^x[6],x[5]^y[5] | y[3]^x[5],x[4]^y[4] | y[2],x[3] | y[1:0],x[2:0]
    TiledRow {
        bytes: 1,
        y_tile_lo: 5,
        tile_lo: 6,
        bit10: (4, 6),
        bit9: (5, 5),
        bit8: (3, 5),
        bit7: (4, 4),
        bit6_y: 2,
        bit5_x: 3,
        low_y: 2,
        low_x: 3,
    },
    // 2 | y[11:5]*pitch[13:5]+x[11:5]+offset | y[4]^x[5],x[4]^y[5] | y[3]^x[4],x[3]^y[4] | y[2],x[2] | y[1:0],x[1:0],0
    TiledRow {
        bytes: 2,
        y_tile_lo: 5,
        tile_lo: 5,
        bit10: (4, 5),
        bit9: (4, 5),
        bit8: (3, 4),
        bit7: (3, 4),
        bit6_y: 2,
        bit5_x: 2,
        low_y: 2,
        low_x: 2,
    },
    // 4 | y[11:4]*pitch[13:5]+x[11:5]+offset | y[3]^x[5],x[4]^y[4] | y[2]^x[4],x[3]^y[3] | y[1],x[2] | y[0],x[1:0],00
    TiledRow {
        bytes: 4,
        y_tile_lo: 4,
        tile_lo: 5,
        bit10: (3, 5),
        bit9: (4, 4),
        bit8: (2, 4),
        bit7: (3, 3),
        bit6_y: 1,
        bit5_x: 2,
        low_y: 1,
        low_x: 2,
    },
    // 8 | y[11:4]*pitch[13:4]+x[11:4]+offset | y[3]^x[4],x[3]^y[4] | y[2]^x[3],x[2]^y[3] | y[1],x[1] | y[0],x[0],000
    TiledRow {
        bytes: 8,
        y_tile_lo: 4,
        tile_lo: 4,
        bit10: (3, 4),
        bit9: (3, 4),
        bit8: (2, 3),
        bit7: (2, 3),
        bit6_y: 1,
        bit5_x: 1,
        low_y: 1,
        low_x: 1,
    },
    // 16 | y[11:3]*pitch[13:4]+x[11:4]+offset | y[2]^x[4],x[3]^y[3] | y[1]^x[3],x[2]^y[2] | y[0],x[1] | x[0],0000
    TiledRow {
        bytes: 16,
        y_tile_lo: 3,
        tile_lo: 4,
        bit10: (2, 4),
        bit9: (3, 3),
        bit8: (1, 3),
        bit7: (2, 2),
        bit6_y: 0,
        bit5_x: 1,
        low_y: 0,
        low_x: 1,
    },
];

/// log2 of an element size in 1, 2, 4, 8, 16; `None` for any other size.
const fn log2_bytes(bytes: u32) -> Option<u32> {
    match bytes {
        1 => Some(0),
        2 => Some(1),
        4 => Some(2),
        8 => Some(3),
        16 => Some(4),
        _ => None,
    }
}

/// Table 1: the address of element (x, y) of linear memory.
///
/// Returns `None` only for an element size outside 1, 2, 4, 8, 16.
pub fn linear_address(base: BaseAddress, pitch: u32, bytes: u32, x: u32, y: u32) -> Option<u32> {
    let k = log2_bytes(bytes)?;
    let s = 5 - k; // x[11:s] selects the 32-byte block, pitch[13:s] counts blocks per row
    let x = bits(x, 11, 0);
    let y = bits(y, 11, 0);
    let high = y
        .wrapping_mul(bits(pitch, 13, s))
        .wrapping_add(bits(x, 11, s))
        .wrapping_add(bits(base.get(), 31, 5));
    let low = if s == 0 { 0 } else { bits(x, s - 1, 0) << k };
    Some((high << 5) | low)
}

/// Table 2: the address of element (x, y) of tiled memory.
///
/// Returns `None` only for an element size outside 1, 2, 4, 8, 16.
pub fn tiled_address(base: BaseAddress, pitch: u32, bytes: u32, x: u32, y: u32) -> Option<u32> {
    let k = log2_bytes(bytes)?;
    let row = &TILED_ROWS[k as usize];
    let x = bits(x, 11, 0);
    let y = bits(y, 11, 0);
    let high = bits(y, 11, row.y_tile_lo)
        .wrapping_mul(bits(pitch, 13, row.tile_lo))
        .wrapping_add(bits(x, 11, row.tile_lo))
        .wrapping_add(bits(base.get(), 31, 11));
    let b10 = bit(y, row.bit10.0) ^ bit(x, row.bit10.1);
    let b9 = bit(x, row.bit9.0) ^ bit(y, row.bit9.1);
    let b8 = bit(y, row.bit8.0) ^ bit(x, row.bit8.1);
    let b7 = bit(x, row.bit7.0) ^ bit(y, row.bit7.1);
    let b6 = bit(y, row.bit6_y);
    let b5 = bit(x, row.bit5_x);
    // Bits 4:0: y[low_y-1:0], x[low_x-1:0], then k zero bits (5 bits in all).
    let low_x = if row.low_x == 0 {
        0
    } else {
        bits(x, row.low_x - 1, 0)
    };
    let low_y = if row.low_y == 0 {
        0
    } else {
        bits(y, row.low_y - 1, 0)
    };
    let low = (((low_y << row.low_x) | low_x) << k) & 0x1F;
    Some(
        (high << 11)
            | (b10 << 10)
            | (b9 << 9)
            | (b8 << 8)
            | (b7 << 7)
            | (b6 << 6)
            | (b5 << 5)
            | low,
    )
}

/// The pitch granule that keeps rows from aliasing: a linear row must be a
/// whole number of 32-byte blocks and a tiled row a whole number of tiles
/// (`pitch[13:s]` drops the remainder). Always a multiple of 4, the
/// format parameter's own granule.
pub const fn row_alignment(tiled: bool, bytes: u32) -> u32 {
    if tiled {
        match bytes {
            1 => 64,
            2 | 4 => 32,
            _ => 16,
        }
    } else {
        match bytes {
            1 => 32,
            2 => 16,
            4 => 8,
            _ => 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_bits_fill_five_bits() {
        for row in TILED_ROWS {
            let k = log2_bytes(row.bytes).unwrap();
            assert_eq!(row.low_x + row.low_y + k, 5, "row {}", row.bytes);
        }
    }

    #[test]
    fn tile_is_bijective() {
        // Within one tile every element gets a distinct offset in 0..2048.
        for row in TILED_ROWS {
            let w = 1u32 << row.tile_lo;
            let h = 1u32 << row.y_tile_lo;
            assert_eq!(w * h * row.bytes, 2048);
            let mut seen = vec![false; 2048];
            for y in 0..h {
                for x in 0..w {
                    let a = tiled_address(BaseAddress::default(), w, row.bytes, x, y).unwrap();
                    let off = (a as usize) % 2048;
                    assert_eq!(off % row.bytes as usize, 0);
                    assert!(!seen[off], "bytes {} ({x},{y})", row.bytes);
                    seen[off] = true;
                }
            }
        }
    }

    #[test]
    fn bad_sizes() {
        assert_eq!(linear_address(BaseAddress::default(), 4, 3, 0, 0), None);
        assert_eq!(tiled_address(BaseAddress::default(), 4, 32, 0, 0), None);
    }
}
