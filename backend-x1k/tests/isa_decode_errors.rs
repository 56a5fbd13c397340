//! The decoder rejects stray bits, unknown codes and forbidden combinations,
//! each with a typed error naming the word and field.

use ctm_backend_x1k::isa::fields::{
    UsAluAlphaInst, UsAluRgbaInst, UsCmnInst, UsFcInst, UsTexAddrDxdy, UsTexInst,
};
use ctm_backend_x1k::isa::*;

/// A valid FC slot: `fc jump 5 func=always`.
const FC: [u32; 6] = [0x0000_0002, 0, 0x0000_FF00, 0x0005_0000, 0, 0];
/// A valid TEX slot (the worked example's slot 0).
const TEX: [u32; 6] = [0x0000_7807, 0x0240_0000, 0xE400_F400, 0, 0, 0];
/// A valid OUT slot (the worked example's slot 1).
const OUT: [u32; 6] = [
    0x0007_8005,
    0x0802_0000,
    0x0802_0000,
    0x0044_0220,
    0x0060_C003,
    0x0000_0005,
];
/// The same as an ALU (TYPE 0, no output masks).
const ALU: [u32; 6] = [
    0x0000_0004,
    0x0802_0000,
    0x0802_0000,
    0x0044_0220,
    0x0060_C003,
    0x0000_0005,
];

fn with(mut words: [u32; 6], word: usize, or: u32) -> [u32; 6] {
    words[word] |= or;
    words
}

#[test]
fn baselines_decode() {
    for w in [FC, TEX, OUT, ALU] {
        assert_eq!(encode(&decode(&w).unwrap()), w);
    }
}

#[test]
fn unused_words_must_be_zero() {
    for word in [1, 4, 5] {
        assert_eq!(
            decode(&with(FC, word, 0x10)),
            Err(DecodeError::UnusedWord {
                inst_type: InstType::Fc,
                word: word as u8,
                value: 0x10
            })
        );
    }
    for word in [4, 5] {
        assert_eq!(
            decode(&with(TEX, word, 1 << 31)),
            Err(DecodeError::UnusedWord {
                inst_type: InstType::Tex,
                word: word as u8,
                value: 1 << 31
            })
        );
    }
}

#[test]
fn reserved_bits_must_be_zero() {
    assert_eq!(
        decode(&with(FC, 2, 1 << 3)),
        Err(DecodeError::ReservedBits {
            word: 2,
            register: "US_FC_INST",
            bits: 1 << 3
        })
    );
    assert_eq!(
        decode(&with(FC, 3, 1 << 30)),
        Err(DecodeError::ReservedBits {
            word: 3,
            register: "US_FC_ADDR",
            bits: 1 << 30
        })
    );
    assert_eq!(
        decode(&with(TEX, 1, 1)),
        Err(DecodeError::ReservedBits {
            word: 1,
            register: "US_TEX_INST",
            bits: 1
        })
    );
}

#[test]
fn cmn_fields_not_used_by_the_type() {
    let err = decode(&with(FC, 0, 1 << 9)).unwrap_err();
    assert_eq!(
        err,
        DecodeError::FieldNotUsed {
            inst_type: InstType::Fc,
            field: UsCmnInst::NOP.info(),
            value: 1
        }
    );
    assert_eq!(
        err.to_string(),
        "word 0 US_CMN_INST.NOP (bit 9) = 0x1: not used by fc instructions, must be 0"
    );
    let err = decode(&with(FC, 0, 7 << 11)).unwrap_err();
    assert!(
        matches!(err, DecodeError::FieldNotUsed { field, .. } if field == UsCmnInst::RGB_WMASK.info())
    );
    let err = decode(&with(TEX, 0, 1 << 8)).unwrap_err();
    assert!(
        matches!(err, DecodeError::FieldNotUsed { field, .. } if field == UsCmnInst::LAST.info())
    );
    let err = decode(&with(ALU, 0, 1 << 10)).unwrap_err();
    assert!(
        matches!(err, DecodeError::FieldNotUsed { field, .. } if field == UsCmnInst::ALU_WAIT.info())
    );
    for w in [FC, TEX, OUT] {
        let err = decode(&with(w, 0, 1 << 28)).unwrap_err();
        assert!(
            matches!(err, DecodeError::FieldNotUsed { field, value: 1, .. } if field == UsCmnInst::STAT_WE.info())
        );
    }
}

#[test]
fn unknown_opcodes() {
    for code in [6u32, 13, 14, 15] {
        let w = [
            OUT[0],
            OUT[1],
            OUT[2],
            OUT[3],
            OUT[4],
            (OUT[5] & !0xF) | code,
        ];
        assert_eq!(
            decode(&w),
            Err(DecodeError::UndefinedValue {
                field: UsAluRgbaInst::RGB_OP.info(),
                value: code
            })
        );
    }
    let w = [OUT[0], OUT[1], OUT[2], OUT[3], (OUT[4] & !0xF) | 4, OUT[5]];
    assert_eq!(
        decode(&w),
        Err(DecodeError::UndefinedValue {
            field: UsAluAlphaInst::ALPHA_OP.info(),
            value: 4
        })
    );
    // A_OP 3 and B_OP0/B_OP1 3 are undefined (§8.1).
    assert_eq!(
        decode(&with(FC, 2, 3 << 6)),
        Err(DecodeError::UndefinedValue {
            field: UsFcInst::A_OP.info(),
            value: 3
        })
    );
    assert_eq!(
        decode(&with(FC, 2, 3 << 24)),
        Err(DecodeError::UndefinedValue {
            field: UsFcInst::B_OP0.info(),
            value: 3
        })
    );
    assert_eq!(
        decode(&with(FC, 2, 3 << 26)),
        Err(DecodeError::UndefinedValue {
            field: UsFcInst::B_OP1.info(),
            value: 3
        })
    );
}

#[test]
fn undefined_predicate_selects() {
    for code in [6u32, 7] {
        assert_eq!(
            decode(&with(ALU, 0, code << 3)),
            Err(DecodeError::UndefinedValue {
                field: UsCmnInst::RGB_PRED_SEL.info(),
                value: code
            })
        );
        assert_eq!(
            decode(&with(TEX, 0, code << 25)),
            Err(DecodeError::UndefinedValue {
                field: UsCmnInst::ALPHA_PRED_SEL.info(),
                value: code
            })
        );
        assert_eq!(
            decode(&with(FC, 0, code << 3)),
            Err(DecodeError::UndefinedValue {
                field: UsCmnInst::RGB_PRED_SEL.info(),
                value: code
            })
        );
    }
    // Invert without a select.
    assert_eq!(
        decode(&with(ALU, 0, 1 << 22)),
        Err(DecodeError::FieldMustBeZero {
            field: UsCmnInst::ALPHA_PRED_INV.info(),
            value: 1,
            reason: ZeroReason::PredicateSelectNone
        })
    );
    // Flow control cannot use the per-channel select (CTM §3.5.1).
    assert_eq!(
        decode(&with(FC, 0, 1 << 3)),
        Err(DecodeError::FcPerChannelPredicate {
            field: UsCmnInst::RGB_PRED_SEL.info()
        })
    );
    assert!(decode(&with(FC, 0, 5 << 3 | 1 << 6)).is_ok());
}

#[test]
fn meaningless_combinations() {
    // ALU_RESULT_OP without ALU_WMASK.
    assert_eq!(
        decode(&with(ALU, 0, 2 << 23)),
        Err(DecodeError::FieldMustBeZero {
            field: UsCmnInst::ALU_RESULT_OP.info(),
            value: 2,
            reason: ZeroReason::AluResultNotWritten
        })
    );
    assert!(decode(&with(with(ALU, 0, 2 << 23), 3, 1 << 31)).is_ok());
    // W_OMASK on an ALU instruction; fine on OUT.
    assert_eq!(
        decode(&with(ALU, 4, 1 << 31)),
        Err(DecodeError::FieldMustBeZero {
            field: UsAluAlphaInst::W_OMASK.info(),
            value: 1,
            reason: ZeroReason::NotAnOutputInstruction
        })
    );
    assert!(decode(&with(OUT, 4, 1 << 31)).is_ok());
    // Gradients on a non-DXDY lookup.
    assert_eq!(
        decode(&with(TEX, 3, 5 << 16)),
        Err(DecodeError::FieldMustBeZero {
            field: UsTexAddrDxdy::DY_ADDR.info(),
            value: 5,
            reason: ZeroReason::NotDxdy
        })
    );
    let dxdy = [
        TEX[0],
        (TEX[1] & !UsTexInst::INST.mask()) | 6 << 22,
        TEX[2],
        5 << 16,
        0,
        0,
    ];
    assert!(decode(&dxdy).is_ok());
    // An aL-relative inline constant (ADDR1 = 0x80 | k with REL).
    let err = decode(&with(ALU, 1, 1 << 19)).unwrap_err();
    assert!(
        matches!(err, DecodeError::RelativeInlineConstant { field } if field.name == "ADDR1_REL")
    );
}

#[test]
fn program_errors() {
    assert_eq!(
        decode_program(&[0; 7]),
        Err(ProgramDecodeError::PartialSlot {
            len: 7,
            unit: "words",
            per_slot: 6
        })
    );
    let mut words = OUT.to_vec();
    words.extend(with(FC, 5, 1));
    assert!(matches!(
        decode_program(&words),
        Err(ProgramDecodeError::Slot { slot: 1, .. })
    ));
    assert!(matches!(
        decode_program_bytes(&[0; 25]),
        Err(ProgramDecodeError::PartialSlot { unit: "bytes", .. })
    ));
}

#[test]
fn all_zero_slot_is_an_alu_nop() {
    // Six zero words: an ALU MAD of inline code 0 with no writes at all.
    let Inst::Alu(a) = decode(&[0; 6]).unwrap() else {
        panic!()
    };
    assert_eq!(a.rgb.write_mask, RgbMask::NONE);
    assert_eq!(a.rgb.sources, [AluSource::Temp(TempAddr::default()); 3]);
}
