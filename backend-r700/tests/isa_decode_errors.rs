//! The decoder's rejections, one test per error: malformed instructions
//! (undefined codes, reserved bits, padding) and malformed layouts
//! (truncation, clauses out of range, misaligned, overlapping, conflicting,
//! gaps, trailing data, bad jumps, unterminated groups).

use ctm_backend_r700::isa::fields::{AluWord0, AluWord1Op2, CfWord1, TexWord0};
use ctm_backend_r700::isa::*;

/// Qwords → bytes (dword 0 first, little-endian).
fn bytes(qwords: &[[u32; 2]]) -> Vec<u8> {
    qwords
        .iter()
        .flatten()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

/// A CF instruction word pair: `op` at `addr`, `count` (1-based), with EOP.
fn cf(op: CfOp, addr: u32, count: u32) -> [u32; 2] {
    encode_cf(&CfInst::Cf(CfGeneral {
        addr,
        count: FetchCount::new(count).unwrap(),
        ..CfGeneral::new(op)
    }))
}

fn cf_alu(addr: u32, slots: u32) -> [u32; 2] {
    encode_cf(&CfInst::Alu(CfAlu {
        op: CfAluOp::Alu,
        addr: AluClauseAddr::new(addr).unwrap(),
        count: AluSlotCount::new(slots).unwrap(),
        kcache: [Kcache::default(); 2],
        alt_const: false,
        whole_quad_mode: false,
        barrier: true,
    }))
}

fn end() -> [u32; 2] {
    let mut nop = CfGeneral::new(CfOp::Nop);
    nop.flags.end_of_program = true;
    encode_cf(&CfInst::Cf(nop))
}

fn mov(last: GroupEnd) -> [u32; 2] {
    let dst = AluDst::default();
    encode_alu(&AluInst::op2(Op2::Mov, dst, [AluSrc::default(); 2]), last)
}

fn mov_literal_z() -> [u32; 2] {
    let dst = AluDst::default();
    let src = [AluSrc::literal(Chan::Z), AluSrc::default()];
    encode_alu(&AluInst::op2(Op2::Mov, dst, src), GroupEnd::Last)
}

fn sample() -> [[u32; 2]; 2] {
    let tex = TexInst {
        op: TexOp::Sample,
        bc_frac_mode: false,
        fetch_whole_quad: false,
        resource_id: 0,
        src_gpr: Gpr::R0,
        src_rel: false,
        alt_const: false,
        dst_gpr: Gpr::R0,
        dst_rel: false,
        dst_sel: [Sel::X, Sel::Y, Sel::Z, Sel::W],
        lod_bias: LodBias::default(),
        coord_type: [CoordType::Normalized; 4],
        offset: [TexOffset::default(); 3],
        sampler_id: SamplerId::default(),
        src_sel: [TexSrcSel::X, TexSrcSel::Y, TexSrcSel::Z, TexSrcSel::W],
    };
    let [a, b, c, d] = encode_tex(&tex);
    [[a, b], [c, d]]
}

#[test]
fn a_valid_base_program_decodes() {
    let [t0, t1] = sample();
    let program = bytes(&[
        cf_alu(4, 1),
        cf(CfOp::Tex, 6, 1),
        end(),
        [0, 0],
        mov(GroupEnd::Last),
        [0, 0],
        t0,
        t1,
    ]);
    // The zero qword at 5 aligns the TEX clause.
    let decoded = decode_program(&program).unwrap();
    assert_eq!(decoded.cf.len(), 4);
    assert_eq!(decoded.clauses.len(), 2);
    assert_eq!(encode_program(&decoded), Ok(program));
}

#[test]
fn truncated_images() {
    let program = bytes(&[cf_alu(2, 1), end(), mov(GroupEnd::Last)]);
    for cut in [1, 7, 9, 23] {
        assert_eq!(
            decode_program(&program[..cut]),
            Err(ProgramDecodeError::Truncated { len: cut })
        );
    }
    // Cutting the clause away leaves a clause out of range.
    assert!(matches!(
        decode_program(&program[..16]),
        Err(ProgramDecodeError::ClauseOutOfRange {
            cf_index: 0,
            addr: 2,
            qwords: 1,
            len: 2
        })
    ));
}

#[test]
fn undefined_opcodes() {
    // CF_INST 25 is reserved.
    let mut w = end();
    w[1] = CfWord1(w[1]).with(CfWord1::CF_INST, 25).0;
    let err = decode_program(&bytes(&[w])).unwrap_err();
    assert_eq!(
        err,
        ProgramDecodeError::Cf {
            index: 0,
            error: DecodeError::UndefinedValue {
                field: CfWord1::CF_INST.info(),
                value: 25
            }
        }
    );
    // CF ALU opcode 12 is reserved.
    let mut w = cf_alu(2, 1);
    w[1] = (w[1] & !(0xF << 26)) | (12 << 26);
    assert!(matches!(
        decode_cf(w),
        Err(DecodeError::UndefinedValue { value: 12, .. })
    ));
    // OP2 opcode 90 and source select 200 are undefined.
    let mut alu = mov(GroupEnd::Last);
    alu[1] = AluWord1Op2(alu[1]).with(AluWord1Op2::ALU_INST, 90).0;
    assert!(matches!(
        decode_alu(alu),
        Err(DecodeError::UndefinedValue { value: 90, .. })
    ));
    let mut alu = mov(GroupEnd::Last);
    alu[0] = AluWord0(alu[0]).with(AluWord0::SRC0_SEL, 200).0;
    assert!(matches!(
        decode_alu(alu),
        Err(DecodeError::UndefinedValue { value: 200, .. })
    ));
    // PRED_SEL 1 is reserved.
    let mut alu = mov(GroupEnd::Last);
    alu[0] = AluWord0(alu[0]).with(AluWord0::PRED_SEL, 1).0;
    assert!(matches!(
        decode_alu(alu),
        Err(DecodeError::UndefinedValue { value: 1, .. })
    ));
}

#[test]
fn reserved_bits_and_padding() {
    let mut w = end();
    w[1] |= 1 << 20;
    assert_eq!(
        decode_cf(w),
        Err(DecodeError::ReservedBits {
            word: "CF_WORD1",
            bits: 1 << 20
        })
    );
    let [[a, b], [c, _]] = sample();
    assert_eq!(
        decode_tex([a, b, c, 5]),
        Err(DecodeError::NonZeroPadding { value: 5 })
    );
    assert!(matches!(
        decode_tex([a | 1 << 6, b, c, 0]),
        Err(DecodeError::ReservedBits {
            word: "TEX_WORD0",
            ..
        })
    ));
    // TEX_INST 0 (vertex fetch) in a TEX clause is not modelled.
    let a0 = TexWord0(a).with(TexWord0::TEX_INST, 0).0;
    assert!(matches!(
        decode_tex([a0, b, c, 0]),
        Err(DecodeError::Unmodelled {
            reason: Unmodelled::NotATextureFormat,
            ..
        })
    ));
}

#[test]
fn clause_layout_errors() {
    // A clause starting inside the CF program.
    let program = bytes(&[cf_alu(0, 1), end()]);
    assert_eq!(
        decode_program(&program),
        Err(ProgramDecodeError::ClauseInsideCf {
            cf_index: 0,
            addr: 0
        })
    );
    // A fetch clause at an odd qword.
    let [t0, t1] = sample();
    let program = bytes(&[cf(CfOp::Tex, 3, 1), end(), [0, 0], t0, t1]);
    assert_eq!(
        decode_program(&program),
        Err(ProgramDecodeError::ClauseMisaligned {
            cf_index: 0,
            addr: 3
        })
    );
    // Two CF instructions disagreeing about one clause.
    let program = bytes(&[
        cf_alu(3, 1),
        cf_alu(3, 2),
        end(),
        mov(GroupEnd::More),
        mov(GroupEnd::Last),
    ]);
    assert_eq!(
        decode_program(&program),
        Err(ProgramDecodeError::ClauseConflict {
            first: 0,
            second: 1,
            addr: 3
        })
    );
    // Overlapping clauses.
    let program = bytes(&[
        cf_alu(3, 2),
        cf_alu(4, 1),
        end(),
        mov(GroupEnd::More),
        mov(GroupEnd::Last),
    ]);
    assert!(matches!(
        decode_program(&program),
        Err(ProgramDecodeError::ClausesOverlap {
            first: 3,
            second: 4
        }) | Err(ProgramDecodeError::GroupPastClauseEnd { .. })
    ));
    // A gap that aligns nothing, and a non-zero alignment qword.
    let program = bytes(&[
        cf_alu(3, 1),
        cf_alu(5, 1),
        end(),
        mov(GroupEnd::Last),
        [0, 0],
        mov(GroupEnd::Last),
    ]);
    assert_eq!(
        decode_program(&program),
        Err(ProgramDecodeError::Gap { addr: 4, qwords: 1 })
    );
    let program = bytes(&[
        cf_alu(3, 1),
        cf(CfOp::Tex, 6, 1),
        end(),
        mov(GroupEnd::Last),
        [1, 0],
        [0, 0],
        t0,
        t1,
    ]);
    assert!(matches!(
        decode_program(&program),
        Err(ProgramDecodeError::Gap { .. })
    ));
    let program = bytes(&[
        cf_alu(3, 1),
        cf(CfOp::Tex, 5, 1),
        end(),
        mov(GroupEnd::Last),
        [1, 0],
        t0,
        t1,
    ]);
    assert!(matches!(
        decode_program(&program),
        Err(ProgramDecodeError::ClauseMisaligned { .. })
    ));
    let program = bytes(&[
        cf_alu(4, 1),
        cf(CfOp::Tex, 6, 1),
        end(),
        [0, 0],
        mov(GroupEnd::Last),
        [9, 0],
        t0,
        t1,
    ]);
    assert_eq!(
        decode_program(&program),
        Err(ProgramDecodeError::NonZeroGap { addr: 5 })
    );
    // Data after the last clause.
    let program = bytes(&[cf_alu(2, 1), end(), mov(GroupEnd::Last), [0, 0]]);
    assert_eq!(
        decode_program(&program),
        Err(ProgramDecodeError::TrailingData { end: 3, qwords: 1 })
    );
}

#[test]
fn group_errors() {
    // No LAST bit within five instructions.
    let more = mov(GroupEnd::More);
    let program = bytes(&[
        cf_alu(2, 6),
        end(),
        more,
        more,
        more,
        more,
        more,
        mov(GroupEnd::Last),
    ]);
    assert_eq!(
        decode_program(&program),
        Err(ProgramDecodeError::GroupTooLong { addr: 2 })
    );
    // A group cut by the clause end, and literals cut by it.
    let program = bytes(&[cf_alu(2, 1), end(), more, mov(GroupEnd::Last)]);
    assert!(matches!(
        decode_program(&program),
        Err(ProgramDecodeError::GroupPastClauseEnd {
            addr: 2,
            clause_end: 3
        })
    ));
    let program = bytes(&[cf_alu(2, 2), end(), mov_literal_z(), [1, 2], [3, 4]]);
    assert!(matches!(
        decode_program(&program),
        Err(ProgramDecodeError::GroupPastClauseEnd {
            addr: 2,
            clause_end: 4
        })
    ));
    // With the right size the Z literal takes two slots.
    let program = bytes(&[cf_alu(2, 3), end(), mov_literal_z(), [1, 2], [3, 4]]);
    let decoded = decode_program(&program).unwrap();
    let Some(Clause::Alu(alu)) = decoded.clauses.get(&2) else {
        panic!("no ALU clause");
    };
    assert_eq!(alu.groups[0].literals.as_slice(), &[1, 2, 3, 4]);
}

#[test]
fn jumps_out_of_range() {
    let program = bytes(&[cf(CfOp::Jump, 2, 1), end()]);
    assert_eq!(
        decode_program(&program),
        Err(ProgramDecodeError::JumpOutOfRange {
            cf_index: 0,
            target: 2,
            cf_len: 2
        })
    );
    // POP's ADDR is not a jump target (it never jumps).
    let program = bytes(&[cf(CfOp::Pop, 9, 1), end()]);
    assert!(decode_program(&program).is_ok());
}

#[test]
fn encode_rejects_inconsistent_programs() {
    let [t0, t1] = sample();
    let good = decode_program(&bytes(&[
        cf_alu(4, 1),
        cf(CfOp::Tex, 6, 1),
        end(),
        [0, 0],
        mov(GroupEnd::Last),
        [0, 0],
        t0,
        t1,
    ]))
    .unwrap();

    let mut p = good.clone();
    p.cf.pop();
    assert!(matches!(
        encode_program(&p),
        Err(ProgramEncodeError::CfNotAdjacent { .. })
    ));

    let mut p = good.clone();
    let clause = p.clauses.remove(&6).unwrap();
    p.clauses.insert(8, clause);
    assert!(matches!(
        encode_program(&p),
        Err(ProgramEncodeError::UnreferencedClause { addr: 8 })
    ));

    let mut p = good.clone();
    if let Some(Clause::Alu(alu)) = p.clauses.get_mut(&4) {
        alu.groups[0].literals.push(7);
    }
    assert!(matches!(
        encode_program(&p),
        Err(ProgramEncodeError::LiteralCount { .. })
    ));

    let mut p = good.clone();
    if let Some(Clause::Alu(alu)) = p.clauses.get_mut(&4) {
        alu.groups[0].insts.clear();
    }
    assert!(matches!(
        encode_program(&p),
        Err(ProgramEncodeError::GroupSize { len: 0, .. })
    ));

    let mut p = good;
    if let Some(Clause::Fetch(FetchClause::Tex(insts))) = p.clauses.get_mut(&6) {
        let extra = insts[0];
        insts.push(extra);
    }
    assert!(matches!(
        encode_program(&p),
        Err(ProgramEncodeError::Invalid(_))
    ));
}
