//! Proptest strategies generating every valid [`Inst`] with every field
//! value, shared by the X1K ISA property tests.

#![allow(dead_code)]

use ctm_backend_x1k::isa::*;
use proptest::prelude::*;
use proptest::sample::select;

pub fn of<T: Copy + std::fmt::Debug + 'static>(
    all: &'static [T],
) -> impl Strategy<Value = T> + Clone {
    select(all)
}

pub fn temp_addr() -> impl Strategy<Value = TempAddr> + Clone {
    (0u32..=127, any::<bool>()).prop_map(|(n, rel)| {
        if rel {
            TempAddr::relative(n).unwrap()
        } else {
            TempAddr::absolute(n).unwrap()
        }
    })
}

pub fn alu_source() -> impl Strategy<Value = AluSource> + Clone {
    prop_oneof![
        temp_addr().prop_map(AluSource::Temp),
        (0u32..=255, any::<bool>()).prop_map(|(n, rel)| AluSource::Const(ConstAddr {
            reg: ConstReg::new(n).unwrap(),
            addressing: if rel {
                Addressing::LoopRelative
            } else {
                Addressing::Absolute
            },
        })),
        (0u32..=127).prop_map(|k| AluSource::Inline(InlineConst::new(k).unwrap())),
    ]
}

pub fn predicate() -> impl Strategy<Value = Option<Predicate>> + Clone {
    proptest::option::of(
        (of(PredSel::ALL), any::<bool>()).prop_map(|(sel, invert)| Predicate { sel, invert }),
    )
}

pub fn rgb_input() -> impl Strategy<Value = RgbInput> + Clone {
    (
        of(InputSelect::ALL),
        [of(Swizzle::ALL), of(Swizzle::ALL), of(Swizzle::ALL)],
        of(InputModifier::ALL),
    )
        .prop_map(|(sel, swizzle, modifier)| RgbInput {
            sel,
            swizzle,
            modifier,
        })
}

pub fn alpha_input() -> impl Strategy<Value = AlphaInput> + Clone {
    (
        of(InputSelect::ALL),
        of(Swizzle::ALL),
        of(InputModifier::ALL),
    )
        .prop_map(|(sel, swizzle, modifier)| AlphaInput {
            sel,
            swizzle,
            modifier,
        })
}

pub fn rgb_half() -> impl Strategy<Value = RgbHalf> {
    (
        of(RgbOp::ALL),
        [rgb_input(), rgb_input(), rgb_input()],
        [alu_source(), alu_source(), alu_source()],
        of(PresubOp::ALL),
        temp_addr(),
        0u32..8,
        of(OutputModifier::ALL),
        any::<bool>(),
        predicate(),
    )
        .prop_map(
            |(op, inputs, sources, presub, dest, mask, omod, clamp, predicate)| RgbHalf {
                op,
                inputs,
                sources,
                presub,
                dest,
                write_mask: RgbMask::new(mask).unwrap(),
                omod,
                clamp,
                predicate,
            },
        )
}

pub fn alpha_mask() -> impl Strategy<Value = AlphaMask> + Clone {
    any::<bool>().prop_map(|b| if b { AlphaMask::On } else { AlphaMask::Off })
}

pub fn alpha_half() -> impl Strategy<Value = AlphaHalf> {
    (
        of(AlphaOp::ALL),
        [alpha_input(), alpha_input(), alpha_input()],
        [alu_source(), alu_source(), alu_source()],
        of(PresubOp::ALL),
        temp_addr(),
        alpha_mask(),
        of(OutputModifier::ALL),
        any::<bool>(),
        predicate(),
    )
        .prop_map(
            |(op, inputs, sources, presub, dest, write_mask, omod, clamp, predicate)| AlphaHalf {
                op,
                inputs,
                sources,
                presub,
                dest,
                write_mask,
                omod,
                clamp,
                predicate,
            },
        )
}

pub fn alu_writes() -> impl Strategy<Value = AluWrites> {
    prop_oneof![
        (
            0u32..8,
            of(CompareOp::ALL),
            alpha_mask(),
            of(CompareOp::ALL)
        )
            .prop_map(|(m, rgb_op, alpha_mask, alpha_op)| {
                AluWrites::Predicate(PredicateWrites {
                    rgb_mask: RgbMask::new(m).unwrap(),
                    rgb_op,
                    alpha_mask,
                    alpha_op,
                })
            }),
        (
            0u32..8,
            of(RenderTarget::ALL),
            alpha_mask(),
            of(RenderTarget::ALL),
            alpha_mask()
        )
            .prop_map(|(m, rgb_target, alpha_mask, alpha_target, w)| {
                AluWrites::Output(OutputWrites {
                    rgb_mask: RgbMask::new(m).unwrap(),
                    rgb_target,
                    alpha_mask,
                    alpha_target,
                    w,
                })
            }),
    ]
}

pub fn alu_inst() -> impl Strategy<Value = AluInst> {
    (
        rgb_half(),
        alpha_half(),
        alu_writes(),
        proptest::option::of(
            (of(AluResultSel::ALL), of(CompareOp::ALL)).prop_map(|(sel, op)| AluResult { sel, op }),
        ),
        [any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()],
    )
        .prop_map(
            |(rgb, alpha, writes, alu_result, [sem_wait, write_inactive, last, nop])| AluInst {
                rgb,
                alpha,
                writes,
                alu_result,
                sem_wait,
                write_inactive,
                last,
                nop,
            },
        )
}

pub fn fc_inst() -> impl Strategy<Value = FcInst> {
    (
        (
            of(FcOp::ALL),
            any::<u8>(),
            any::<bool>(),
            any::<bool>(),
            of(AddrStackOp::ALL),
            of(BranchOp::ALL),
            of(BranchOp::ALL),
        ),
        (
            0u32..32,
            any::<bool>(),
            0u32..32,
            0u32..32,
            0u32..512,
            any::<bool>(),
        ),
        (
            proptest::option::of(
                (of(Channel::ALL), any::<bool>())
                    .prop_map(|(channel, invert)| FcPredicate { channel, invert }),
            ),
            any::<bool>(),
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (op, jump_func, jump_any, b_else, a_op, b_op0, b_op1),
                (pop, ignore_uncovered, bool_addr, int_addr, jump_addr, global),
                (predicate, sem_wait, alu_wait),
            )| FcInst {
                op,
                jump_func,
                jump_any,
                b_else,
                a_op,
                b_op0,
                b_op1,
                b_pop_cnt: BranchPopCount::new(pop).unwrap(),
                ignore_uncovered,
                bool_addr: BoolConstId::new(bool_addr).unwrap(),
                int_addr: IntConstId::new(int_addr).unwrap(),
                jump_addr: SlotIndex::new(jump_addr).unwrap(),
                jump_addressing: if global {
                    JumpAddressing::Global
                } else {
                    JumpAddressing::Relative
                },
                predicate,
                sem_wait,
                alu_wait,
            },
        )
}

pub fn channels4() -> impl Strategy<Value = [Channel; 4]> + Clone {
    [
        of(Channel::ALL),
        of(Channel::ALL),
        of(Channel::ALL),
        of(Channel::ALL),
    ]
}

pub fn tex_operand() -> impl Strategy<Value = TexOperand> + Clone {
    (temp_addr(), channels4()).prop_map(|(addr, swizzle)| TexOperand { addr, swizzle })
}

pub fn tex_op() -> impl Strategy<Value = TexOp> {
    prop_oneof![
        Just(TexOp::Nop),
        Just(TexOp::Ld),
        Just(TexOp::TexKill),
        Just(TexOp::Proj),
        Just(TexOp::LodBias),
        Just(TexOp::Lod),
        Just(TexOp::LdUncached),
        (tex_operand(), tex_operand()).prop_map(|(dx, dy)| TexOp::Dxdy { dx, dy }),
    ]
}

pub fn tex_inst() -> impl Strategy<Value = TexInst> {
    (
        (
            tex_op(),
            0u32..16,
            tex_operand(),
            temp_addr(),
            channels4(),
            0u32..8,
            alpha_mask(),
        ),
        (predicate(), predicate()),
        [
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ],
    )
        .prop_map(
            |(
                (op, tex_id, src, dst, dst_swizzle, rgb_mask, alpha_write_mask),
                (rgb_predicate, alpha_predicate),
                [
                    sem_acquire,
                    sem_wait,
                    alu_wait,
                    write_inactive,
                    ignore_uncovered,
                    unscaled,
                ],
            )| TexInst {
                op,
                tex_id: TexId::new(tex_id).unwrap(),
                src,
                dst,
                dst_swizzle,
                rgb_write_mask: RgbMask::new(rgb_mask).unwrap(),
                alpha_write_mask,
                rgb_predicate,
                alpha_predicate,
                sem_acquire,
                sem_wait,
                alu_wait,
                write_inactive,
                ignore_uncovered,
                unscaled,
            },
        )
}

pub fn inst() -> impl Strategy<Value = Inst> {
    prop_oneof![
        2 => alu_inst().prop_map(Inst::Alu),
        1 => fc_inst().prop_map(Inst::Fc),
        1 => tex_inst().prop_map(Inst::Tex),
    ]
}

/// Random words biased towards decodable ones: an encoded instruction with
/// a few bits flipped, or fully random words.
pub fn words() -> impl Strategy<Value = [u32; 6]> {
    prop_oneof![
        any::<[u32; 6]>(),
        (inst(), any::<(usize, u32)>()).prop_map(|(i, (w, bit))| {
            let mut words = encode(&i);
            words[w % 6] ^= 1 << (bit % 32);
            words
        }),
        inst().prop_map(|i| encode(&i)),
    ]
}

/// Instructions close to the defaults (whole halves, writes and flags left
/// at their defaults), which exercise the printer's "omit defaults" rules.
pub fn sparse_inst() -> impl Strategy<Value = Inst> {
    let rgb = prop_oneof![Just(RgbHalf::default()), rgb_half()];
    let alpha = prop_oneof![Just(AlphaHalf::default()), alpha_half()];
    let writes = prop_oneof![
        Just(AluWrites::default()),
        Just(AluWrites::Output(OutputWrites::default())),
        alu_writes()
    ];
    let alu = (rgb, alpha, writes, any::<u8>()).prop_map(|(mut rgb, mut alpha, writes, bits)| {
        if bits & 1 != 0 {
            rgb.sources = [AluSource::UNUSED; 3];
        }
        if bits & 2 != 0 {
            alpha.sources = rgb.sources;
        }
        Inst::Alu(AluInst {
            rgb,
            alpha,
            writes,
            sem_wait: bits & 4 != 0,
            ..AluInst::default()
        })
    });
    let tex = (tex_op(), any::<bool>()).prop_map(|(op, wait)| {
        Inst::Tex(TexInst {
            op,
            sem_wait: wait,
            ..TexInst::default()
        })
    });
    prop_oneof![alu, tex, Just(Inst::Fc(FcInst::default()))]
}
