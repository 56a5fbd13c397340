//! The denormal flush both chips apply to float operands and results
//! (CTM §3.6.1 for the X1K; spec §7 and `docs/sim-r700.md` §2.5 for the
//! R700): a denormal becomes a zero of the same sign. One definition for
//! both simulators.

/// Flush a denormal to a zero of the same sign; every other value
/// (zeros, normals, infinities, NaN) is returned unchanged. Branch-free: a
/// zero exponent field keeps only the sign bit.
#[inline(always)]
pub fn flush(x: f32) -> f32 {
    let b = x.to_bits();
    let zero_exponent = u32::from(b & 0x7F80_0000 == 0);
    f32::from_bits(b & !(zero_exponent.wrapping_neg() & 0x7FFF_FFFF))
}

#[cfg(test)]
mod tests {
    use super::flush;

    #[test]
    fn flushes_denormals_to_signed_zero_only() {
        let cases = [
            (f32::from_bits(1), 0.0f32.to_bits()),
            (f32::from_bits(0x8000_0001), 0x8000_0000),
            (f32::from_bits(0x007F_FFFF), 0),
            (f32::MIN_POSITIVE, f32::MIN_POSITIVE.to_bits()),
            (-0.0, 0x8000_0000),
            (f32::INFINITY, f32::INFINITY.to_bits()),
            (1.5, 1.5f32.to_bits()),
        ];
        for (x, bits) in cases {
            assert_eq!(flush(x).to_bits(), bits, "{x:e}");
        }
        let nan = f32::from_bits(0x7FC0_1234);
        assert_eq!(flush(nan).to_bits(), 0x7FC0_1234);
    }
}
