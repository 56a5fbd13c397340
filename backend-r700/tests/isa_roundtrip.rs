//! Property tests of the R700 ISA round trips (style §7): for every valid
//! instruction and program `decode(encode(x)) == x`; for arbitrary words and
//! bytes the decoders never panic, and whatever they accept re-encodes to
//! the same words (checked on random words and on bit-flipped valid ones).

mod common;

use ctm_backend_r700::isa::*;
use proptest::prelude::*;

/// Flip bit `bit % (32 * N)` of `words`.
fn flip<const N: usize>(mut words: [u32; N], bit: usize) -> [u32; N] {
    let bit = bit % (32 * N);
    words[bit / 32] ^= 1 << (bit % 32);
    words
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn cf_round_trips(inst in common::cf_inst()) {
        prop_assert_eq!(decode_cf(encode_cf(&inst)), Ok(inst));
        let _ = format_cf(&inst);
    }

    #[test]
    fn alu_round_trips(inst in common::alu_inst(), last in any::<bool>()) {
        let end = if last { GroupEnd::Last } else { GroupEnd::More };
        prop_assert_eq!(decode_alu(encode_alu(&inst, end)), Ok((inst, end)));
        let _ = format_alu(&inst, None);
    }

    #[test]
    fn tex_round_trips(inst in common::tex_inst()) {
        prop_assert_eq!(decode_tex(encode_tex(&inst)), Ok(inst));
    }

    #[test]
    fn vtx_round_trips(inst in common::vtx_clause_inst()) {
        let words = match &inst {
            VtxClauseInst::Fetch(v) => encode_vtx(v),
            VtxClauseInst::MemRead(m) => encode_mem_rd(m),
        };
        prop_assert_eq!(decode_vtx_clause_inst(words), Ok(inst));
    }

    #[test]
    fn random_cf_words(words in any::<[u32; 2]>()) {
        if let Ok(inst) = decode_cf(words) {
            prop_assert_eq!(encode_cf(&inst), words);
        }
    }

    #[test]
    fn random_alu_words(words in any::<[u32; 2]>()) {
        if let Ok((inst, end)) = decode_alu(words) {
            prop_assert_eq!(encode_alu(&inst, end), words);
        }
    }

    #[test]
    fn random_fetch_words(words in any::<[u32; 3]>(), pad in prop_oneof![Just(0u32), any::<u32>()]) {
        let words = [words[0], words[1], words[2], pad];
        if let Ok(inst) = decode_tex(words) {
            prop_assert_eq!(encode_tex(&inst), words);
        }
        match decode_vtx_clause_inst(words) {
            Ok(VtxClauseInst::Fetch(v)) => prop_assert_eq!(encode_vtx(&v), words),
            Ok(VtxClauseInst::MemRead(m)) => prop_assert_eq!(encode_mem_rd(&m), words),
            Err(_) => {}
        }
    }

    #[test]
    fn flipped_cf_words(inst in common::cf_inst(), bit in any::<usize>()) {
        let words = flip(encode_cf(&inst), bit);
        if let Ok(decoded) = decode_cf(words) {
            prop_assert_eq!(encode_cf(&decoded), words);
        }
    }

    #[test]
    fn flipped_fetch_words(tex in common::tex_inst(), vtx in common::vtx_clause_inst(), bit in any::<usize>()) {
        let words = flip(encode_tex(&tex), bit);
        if let Ok(decoded) = decode_tex(words) {
            prop_assert_eq!(encode_tex(&decoded), words);
        }
        let words = flip(match &vtx {
            VtxClauseInst::Fetch(v) => encode_vtx(v),
            VtxClauseInst::MemRead(m) => encode_mem_rd(m),
        }, bit);
        match decode_vtx_clause_inst(words) {
            Ok(VtxClauseInst::Fetch(v)) => prop_assert_eq!(encode_vtx(&v), words),
            Ok(VtxClauseInst::MemRead(m)) => prop_assert_eq!(encode_mem_rd(&m), words),
            Err(_) => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn programs_round_trip(program in common::program()) {
        let bytes = encode_program(&program).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(decode_program(&bytes), Ok(program.clone()));
        let _ = format_program(&program);
    }

    #[test]
    fn flipped_programs(program in common::program(), bit in any::<usize>(), cut in any::<usize>()) {
        let mut bytes = encode_program(&program).unwrap();
        if !bytes.is_empty() {
            let bit = bit % (8 * bytes.len());
            bytes[bit / 8] ^= 1 << (bit % 8);
        }
        if let Ok(decoded) = decode_program(&bytes) {
            prop_assert_eq!(encode_program(&decoded), Ok(bytes.clone()));
        }
        // Truncation anywhere never panics either.
        let cut = cut % (bytes.len() + 1);
        if let Ok(decoded) = decode_program(&bytes[..cut]) {
            prop_assert_eq!(encode_program(&decoded), Ok(bytes[..cut].to_vec()));
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(program) = decode_program(&bytes) {
            prop_assert_eq!(encode_program(&program), Ok(bytes));
            let _ = format_program(&program);
        }
    }
}
