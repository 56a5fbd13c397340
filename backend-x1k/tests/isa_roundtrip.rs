//! Property tests of the X1K ISA round trips (style §7): for every valid
//! instruction `decode(encode(x)) == x` and `parse(format(x)) == x`; for any
//! six words, `decode` never panics and whatever it accepts re-encodes to
//! the same words.

mod common;

use ctm_backend_x1k::isa::{
    decode, decode_program, decode_program_bytes, encode, encode_program, encode_program_bytes,
    format_inst, format_program, parse_inst, parse_program,
};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn decode_inverts_encode(inst in common::inst()) {
        let words = encode(&inst);
        prop_assert_eq!(decode(&words), Ok(inst));
    }

    #[test]
    fn parse_inverts_format(inst in common::inst()) {
        let text = format_inst(&inst);
        match parse_inst(&text) {
            Ok(parsed) => prop_assert_eq!(parsed, inst, "text: {}", text),
            Err(e) => prop_assert!(false, "{} does not parse: {}", text, e),
        }
    }

    #[test]
    fn sparse_instructions_round_trip(inst in common::sparse_inst()) {
        let text = format_inst(&inst);
        prop_assert_eq!(parse_inst(&text), Ok(inst), "text: {}", text);
        prop_assert_eq!(decode(&encode(&inst)), Ok(inst));
    }

    #[test]
    fn accepted_words_re_encode(words in common::words()) {
        if let Ok(inst) = decode(&words) {
            prop_assert_eq!(encode(&inst), words);
        }
    }

    #[test]
    fn programs_round_trip(program in proptest::collection::vec(common::inst(), 0..12)) {
        let words = encode_program(&program);
        prop_assert_eq!(words.len(), 6 * program.len());
        prop_assert_eq!(decode_program(&words), Ok(program.clone()));
        prop_assert_eq!(decode_program_bytes(&encode_program_bytes(&program)), Ok(program.clone()));
        prop_assert_eq!(parse_program(&format_program(&program)), Ok(program));
    }
}

#[test]
#[ignore = "prints sample disassembly for eyeballing"]
fn print_samples() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    for _ in 0..12 {
        let inst = common::inst().new_tree(&mut runner).unwrap().current();
        println!("{}", format_inst(&inst));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// The assembler never panics: on arbitrary text, and on valid lines with
    /// a character deleted, replaced or inserted.
    #[test]
    fn parser_never_panics(
        text in "\\PC{0,80}",
        inst in common::inst(),
        edit in any::<(usize, char, u8)>(),
    ) {
        let _ = parse_inst(&text);
        let _ = parse_program(&text);
        let line = format_inst(&inst);
        let mut chars: Vec<char> = line.chars().collect();
        let at = edit.0 % (chars.len() + 1);
        match edit.2 % 3 {
            0 if at < chars.len() => { chars.remove(at); }
            1 if at < chars.len() => chars[at] = edit.1,
            _ => chars.insert(at, edit.1),
        }
        let edited: String = chars.into_iter().collect();
        if let Ok(parsed) = parse_inst(&edited) {
            // Whatever parses must format back to something that parses to it.
            prop_assert_eq!(parse_inst(&format_inst(&parsed)), Ok(parsed));
        }
    }
}
