//! MC address translation (CTM §2.1.4 Tables 1 and 2) against
//! hand-computed values, and format conversions against hand-computed
//! bytes. Each expected value below was worked out by hand from the
//! guide's tables (the working is in the comments).

use ctm_sim::x1k::device::format::{
    BaseAddress, DataFormat, FormatError, SurfaceFormat, Tiling, to_uint16, to_unorm8,
};
use ctm_sim::x1k::device::tiling::{linear_address, row_alignment, tiled_address};

fn base(a: u32) -> BaseAddress {
    BaseAddress::new(a).expect("2K-aligned")
}

#[test]
fn linear_hand_computed() {
    // bpe 4, base 0x10000, pitch 64, (5, 3):
    // [31:5] = 3·pitch[13:3](8) + x[11:3](0) + 0x10000>>5(0x800) = 2072; [4:0] = x[2:0],00 = 20.
    assert_eq!(
        linear_address(base(0x10000), 64, 4, 5, 3),
        Some(2072 * 32 + 20)
    );
    assert_eq!(2072 * 32 + 20, 0x10314);
    // bpe 16, base 0x1000, pitch 12, (5, 2): [31:5] = 2·6 + 2 + 128 = 142; [4:0] = x[0],0000 = 16.
    assert_eq!(linear_address(base(0x1000), 12, 16, 5, 2), Some(0x11D0));
    // bpe 8, base 0, pitch 8, (3, 1): [31:5] = 1·2 + 0 + 0 = 2; [4:0] = x[1:0],000 = 24.
    assert_eq!(linear_address(base(0), 8, 8, 3, 1), Some(88));
    // bpe 2, base 0x800, pitch 32, (17, 2): [31:5] = 2·2 + 1 + 64 = 69; [4:0] = x[3:0],0 = 2.
    assert_eq!(linear_address(base(0x800), 32, 2, 17, 2), Some(69 * 32 + 2));
    // bpe 1, base 0, pitch 64, (40, 1): [31:5] = 1·2 + 1 = 3; [4:0] = x[4:0] = 8.
    assert_eq!(linear_address(base(0), 64, 1, 40, 1), Some(104));
}

#[test]
fn linear_follows_the_table_where_it_aliases() {
    // bpe 2 with pitch 4: pitch[13:4] = 0, so every row maps onto row 0.
    assert_eq!(linear_address(base(0), 4, 2, 1, 7), Some(2));
    // bpe 4 with pitch 12: pitch[13:3] = 1 block of 8, rows 32 bytes apart.
    assert_eq!(linear_address(base(0), 12, 4, 0, 1), Some(32));
    // Indices are 12 bits: x = 4096 + 3 is x = 3.
    assert_eq!(
        linear_address(base(0), 64, 4, 4099, 0),
        linear_address(base(0), 64, 4, 3, 0)
    );
    // The high sum wraps at 2^32: base 0xFFFFF800, bpe 4, pitch 8: row 64 lands on 0.
    assert_eq!(
        linear_address(base(0xFFFF_F800), 8, 4, 0, 1),
        Some(0xFFFF_F820)
    );
    assert_eq!(linear_address(base(0xFFFF_F800), 8, 4, 0, 64), Some(0));
}

#[test]
fn tiled_hand_computed_bpe4() {
    // base 0x20000, pitch 64 (pitch[13:5] = 2), x = 37 (100101b), y = 21 (10101b).
    // [31:11] = y[11:4](1)·2 + x[11:5](1) + 0x20000>>11(64) = 67
    // b10 = y3^x5 = 0^1 = 1, b9 = x4^y4 = 0^1 = 1, b8 = y2^x4 = 1^0 = 1, b7 = x3^y3 = 0
    // b6 = y1 = 0, b5 = x2 = 1, [4:0] = y0,x[1:0],00 = 1,01,00 = 20
    let expect = 67 * 2048 + 1024 + 512 + 256 + 32 + 20;
    assert_eq!(expect, 0x21F34);
    assert_eq!(tiled_address(base(0x20000), 64, 4, 37, 21), Some(expect));
}

#[test]
fn tiled_hand_computed_other_sizes() {
    // bpe 16: base 0, pitch 32 (pitch[13:4] = 2), x = 19 (10011b), y = 10 (1010b).
    // [31:11] = y[11:3](1)·2 + x[11:4](1) = 3; b10 = y2^x4 = 1, b9 = x3^y3 = 1,
    // b8 = y1^x3 = 1, b7 = x2^y2 = 0, b6 = y0 = 0, b5 = x1 = 1, [4:0] = x0,0000 = 16.
    assert_eq!(
        tiled_address(base(0), 32, 16, 19, 10),
        Some(3 * 2048 + 1840)
    );
    // bpe 2: base 0x800, pitch 64 (pitch[13:5] = 2), x = 45 (101101b), y = 50 (110010b).
    // [31:11] = y[11:5](1)·2 + x[11:5](1) + 1 = 4; b10 = y4^x5 = 0, b9 = x4^y5 = 1,
    // b8 = y3^x4 = 0, b7 = x3^y4 = 0, b6 = y2 = 0, b5 = x2 = 1, [4:0] = y[1:0],x[1:0],0 = 18.
    assert_eq!(
        tiled_address(base(0x800), 64, 2, 45, 50),
        Some(4 * 2048 + 562)
    );
    // bpe 8: base 0, pitch 16 (pitch[13:4] = 1), x = 7, y = 29 (11101b).
    // [31:11] = y[11:4](1) + x[11:4](0) = 1; b10 = y3^x4 = 1, b9 = x3^y4 = 1,
    // b8 = y2^x3 = 1, b7 = x2^y3 = 0, b6 = y1 = 0, b5 = x1 = 1, [4:0] = y0,x0,000 = 24.
    assert_eq!(tiled_address(base(0), 16, 8, 7, 29), Some(2048 + 1848));
    // bpe 1: base 0, pitch 128 (pitch[13:6] = 2), x = 100 (1100100b), y = 40 (101000b).
    // [31:11] = y[11:5](1)·2 + x[11:6](1) = 3; b10 = y4^x6 = 1, b9 = x5^y5 = 0,
    // b8 = y3^x5 = 0, b7 = x4^y4 = 0, b6 = y2 = 0, b5 = x3 = 0, [4:0] = y[1:0],x[2:0] = 4.
    assert_eq!(
        tiled_address(base(0), 128, 1, 100, 40),
        Some(3 * 2048 + 1028)
    );
}

/// Table 2 rewritten independently (one explicit expression per row) to
/// check many points.
fn table2(offset: u32, pitch: u32, bytes: u32, x: u32, y: u32) -> u32 {
    let b = |v: u32, n: u32| (v >> n) & 1;
    let r = |v: u32, hi: u32, lo: u32| (v >> lo) & ((1 << (hi - lo + 1)) - 1);
    let (x, y) = (x & 0xFFF, y & 0xFFF);
    let (high, swz, low) = match bytes {
        1 => (
            r(y, 11, 5) * r(pitch, 13, 6) + r(x, 11, 6),
            [
                b(y, 4) ^ b(x, 6),
                b(x, 5) ^ b(y, 5),
                b(y, 3) ^ b(x, 5),
                b(x, 4) ^ b(y, 4),
                b(y, 2),
                b(x, 3),
            ],
            (r(y, 1, 0) << 3) | r(x, 2, 0),
        ),
        2 => (
            r(y, 11, 5) * r(pitch, 13, 5) + r(x, 11, 5),
            [
                b(y, 4) ^ b(x, 5),
                b(x, 4) ^ b(y, 5),
                b(y, 3) ^ b(x, 4),
                b(x, 3) ^ b(y, 4),
                b(y, 2),
                b(x, 2),
            ],
            (r(y, 1, 0) << 3) | (r(x, 1, 0) << 1),
        ),
        4 => (
            r(y, 11, 4) * r(pitch, 13, 5) + r(x, 11, 5),
            [
                b(y, 3) ^ b(x, 5),
                b(x, 4) ^ b(y, 4),
                b(y, 2) ^ b(x, 4),
                b(x, 3) ^ b(y, 3),
                b(y, 1),
                b(x, 2),
            ],
            (b(y, 0) << 4) | (r(x, 1, 0) << 2),
        ),
        8 => (
            r(y, 11, 4) * r(pitch, 13, 4) + r(x, 11, 4),
            [
                b(y, 3) ^ b(x, 4),
                b(x, 3) ^ b(y, 4),
                b(y, 2) ^ b(x, 3),
                b(x, 2) ^ b(y, 3),
                b(y, 1),
                b(x, 1),
            ],
            (b(y, 0) << 4) | (b(x, 0) << 3),
        ),
        _ => (
            r(y, 11, 3) * r(pitch, 13, 4) + r(x, 11, 4),
            [
                b(y, 2) ^ b(x, 4),
                b(x, 3) ^ b(y, 3),
                b(y, 1) ^ b(x, 3),
                b(x, 2) ^ b(y, 2),
                b(y, 0),
                b(x, 1),
            ],
            b(x, 0) << 4,
        ),
    };
    let mid = swz.iter().fold(0, |acc, &bit| (acc << 1) | bit); // bits 10..5
    ((high + (offset >> 11)) << 11) | (mid << 5) | low
}

#[test]
fn tiled_matches_independent_table_everywhere_sampled() {
    for bytes in [1, 2, 4, 8, 16] {
        for pitch in [64, 128, 192, 4096] {
            for y in (0..300).step_by(7) {
                for x in (0..300).step_by(5) {
                    assert_eq!(
                        tiled_address(base(0x4_0800), pitch, bytes, x, y),
                        Some(table2(0x4_0800, pitch, bytes, x, y)),
                        "bpe {bytes} pitch {pitch} ({x}, {y})"
                    );
                }
            }
        }
    }
}

#[test]
fn non_aliasing_pitches_give_distinct_addresses() {
    // With the row alignment the host helpers use, no two elements share bytes.
    for bytes in [2u32, 4, 8, 16] {
        for tiled in [false, true] {
            let pitch = row_alignment(tiled, bytes) * 3;
            let mut seen = std::collections::BTreeSet::new();
            for y in 0..40 {
                for x in 0..pitch {
                    let a = if tiled {
                        tiled_address(base(0), pitch, bytes, x, y)
                    } else {
                        linear_address(base(0), pitch, bytes, x, y)
                    }
                    .unwrap();
                    assert_eq!(a % bytes, 0);
                    assert!(seen.insert(a), "bpe {bytes} tiled {tiled} ({x}, {y})");
                }
            }
        }
    }
}

#[test]
fn base_address_ignores_low_bits() {
    assert_eq!(BaseAddress::from_param(0x1234_5FFF).get(), 0x1234_5800);
    assert_eq!(BaseAddress::new(0x800).map(BaseAddress::get), Some(0x800));
    assert_eq!(BaseAddress::new(0x801), None);
}

#[test]
fn format_word() {
    // pitch 256, TILED (1 << 16), FLOAT32_2 (3 << 24).
    let word = 256 | (1 << 16) | (3 << 24);
    let f = SurfaceFormat::decode(word).unwrap();
    assert_eq!(f.pitch(), 256);
    assert_eq!(f.tiling, Tiling::Tiled);
    assert_eq!(f.format, DataFormat::Float32_2);
    assert_eq!(f.encode(), word);
    // Every tiling and format round-trips; the maximum pitch fits.
    for t in Tiling::ALL {
        for d in DataFormat::ALL {
            let f = SurfaceFormat::new(SurfaceFormat::MAX_PITCH, t, d).unwrap();
            assert_eq!(SurfaceFormat::decode(f.encode()), Ok(f));
        }
    }
    assert_eq!(
        SurfaceFormat::new(6, Tiling::Linear, DataFormat::Uint8_4),
        None
    );
    assert_eq!(
        SurfaceFormat::new(0x2000, Tiling::Linear, DataFormat::Uint8_4),
        None
    );
    assert_eq!(
        SurfaceFormat::decode(word | 2),
        Err(FormatError::ReservedBits { bits: 2 })
    );
    for bad in [1 << 13, 1 << 18, 1 << 23, 1 << 27, 1 << 31] {
        assert_eq!(
            SurfaceFormat::decode(bad),
            Err(FormatError::ReservedBits { bits: bad })
        );
    }
    for code in 5..8 {
        assert_eq!(
            SurfaceFormat::decode(code << 24),
            Err(FormatError::ReservedDataFormat { code })
        );
    }
}

#[test]
fn element_conversions() {
    // UINT16_1 reads the integer, not a normalised value; alpha reads 1.
    assert_eq!(
        DataFormat::Uint16_1.decode(&[0x34, 0x12]),
        [4660.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(
        DataFormat::Uint16_1.encode_all([4660.4, 9.0, 9.0, 9.0]),
        [0x34, 0x12]
    );
    assert_eq!(
        DataFormat::Uint16_1.encode_all([70000.0, 0.0, 0.0, 0.0]),
        [0xFF, 0xFF]
    );
    // UINT8_4: byte k is channel k, b/255.
    assert_eq!(
        DataFormat::Uint8_4.decode(&[0, 51, 255, 102]),
        [0.0, 0.2, 1.0, 0.4]
    );
    assert_eq!(
        DataFormat::Uint8_4.encode_all([0.2, -3.0, 2.0, 0.5]),
        [51, 0, 255, 128]
    );
    // FLOAT32_n keep bits; missing channels 0, alpha 1.
    let f = 1.5f32.to_le_bytes();
    let g = (-2.0f32).to_le_bytes();
    assert_eq!(DataFormat::Float32_1.decode(&f), [1.5, 0.0, 0.0, 1.0]);
    let two: Vec<u8> = f.iter().chain(&g).copied().collect();
    assert_eq!(DataFormat::Float32_2.decode(&two), [1.5, -2.0, 0.0, 1.0]);
    let nan = f32::from_bits(0x7FC0_1234);
    let bytes = DataFormat::Float32_4.encode_all([nan, 1.0, 2.0, 3.0]);
    assert_eq!(
        DataFormat::Float32_4.decode(&bytes)[0].to_bits(),
        0x7FC0_1234
    );
    // Masked encodes touch only the enabled channels.
    assert_eq!(
        DataFormat::Float32_4.encode([1.0, 2.0, 3.0, 4.0], 0b0100),
        vec![(8, 3.0f32.to_le_bytes().to_vec())]
    );
    assert_eq!(DataFormat::Float32_1.encode([1.0; 4], 0b1110), vec![]);
    // Raw words for integer/boolean constants.
    assert_eq!(DataFormat::Uint8_4.raw_word(&[4, 0, 0xFE, 0]), 0x00FE_0004);
    assert_eq!(DataFormat::Uint16_1.raw_word(&[0xCD, 0xAB]), 0xABCD);
}

#[test]
fn write_conversions_round_and_clamp() {
    assert_eq!(to_unorm8(f32::NAN), 0);
    assert_eq!(to_unorm8(0.5 / 255.0), 1); // 0.5 rounds away from zero
    assert_eq!(to_unorm8(0.49 / 255.0), 0);
    assert_eq!(to_unorm8(f32::INFINITY), 255);
    assert_eq!(to_uint16(f32::NAN), 0);
    assert_eq!(to_uint16(-1.0), 0);
    assert_eq!(to_uint16(2.5), 3);
    assert_eq!(to_uint16(f32::INFINITY), 65535);
    // Every byte value survives UINT8_4 write → read → write.
    for b in 0..=255u8 {
        let v = DataFormat::Uint8_4.decode(&[b, b, b, b]);
        assert_eq!(DataFormat::Uint8_4.encode_all(v), [b, b, b, b]);
    }
}
