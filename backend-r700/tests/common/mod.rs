//! Proptest strategies over valid R700 instructions and programs: every
//! field ranges over every value its type can hold.

#![allow(dead_code)]

use ctm_backend_r700::isa::*;
use proptest::prelude::*;

fn pick<T: Copy + std::fmt::Debug + 'static>(all: &'static [T]) -> impl Strategy<Value = T> {
    proptest::sample::select(all)
}

pub fn gpr() -> impl Strategy<Value = Gpr> {
    (0u32..=127).prop_map(|v| Gpr::new(v).unwrap())
}

fn sel4() -> impl Strategy<Value = [Sel; 4]> {
    [
        pick(Sel::ALL),
        pick(Sel::ALL),
        pick(Sel::ALL),
        pick(Sel::ALL),
    ]
}

fn bounded<T: std::fmt::Debug>(max: u32, f: fn(u32) -> Option<T>) -> impl Strategy<Value = T> {
    (0..=max).prop_map(move |v| f(v).unwrap())
}

fn count<T: std::fmt::Debug>(max: u32, f: fn(u32) -> Option<T>) -> impl Strategy<Value = T> {
    (1..=max).prop_map(move |v| f(v).unwrap())
}

fn cf_flags() -> impl Strategy<Value = CfFlags> {
    any::<[bool; 4]>().prop_map(|[e, v, w, b]| CfFlags {
        end_of_program: e,
        valid_pixel_mode: v,
        whole_quad_mode: w,
        barrier: b,
    })
}

pub fn cf_general() -> impl Strategy<Value = CfGeneral> {
    (
        pick(CfOp::ALL),
        any::<u32>(),
        count(16, FetchCount::new),
        bounded(7, PopCount::new),
        bounded(31, CfConst::new),
        pick(CfCond::ALL),
        bounded(63, CallCount::new),
        cf_flags(),
    )
        .prop_map(
            |(op, addr, count, pop_count, cf_const, cond, call_count, flags)| CfGeneral {
                op,
                addr,
                count,
                pop_count,
                cf_const,
                cond,
                call_count,
                flags,
            },
        )
}

fn kcache() -> impl Strategy<Value = Kcache> {
    (
        pick(KcacheMode::ALL),
        bounded(15, KcacheBank::new),
        any::<u8>(),
    )
        .prop_map(|(mode, bank, line)| Kcache { mode, bank, line })
}

pub fn cf_alu() -> impl Strategy<Value = CfAlu> {
    (
        pick(CfAluOp::ALL),
        bounded(0x3F_FFFF, AluClauseAddr::new),
        count(128, AluSlotCount::new),
        [kcache(), kcache()],
        any::<[bool; 3]>(),
    )
        .prop_map(|(op, addr, count, kcache, [alt, wqm, barrier])| CfAlu {
            op,
            addr,
            count,
            kcache,
            alt_const: alt,
            whole_quad_mode: wqm,
            barrier,
        })
}

fn alloc_io() -> impl Strategy<Value = CfAllocIo> {
    (
        bounded(8191, ArrayBase::new),
        gpr(),
        any::<bool>(),
        gpr(),
        bounded(3, ElemSize::new),
        count(16, BurstCount::new),
        cf_flags(),
    )
        .prop_map(
            |(array_base, rw_gpr, rw_rel, index_gpr, elem_size, burst_count, flags)| CfAllocIo {
                array_base,
                rw_gpr,
                rw_rel,
                index_gpr,
                elem_size,
                burst_count,
                flags,
            },
        )
}

pub fn cf_inst() -> impl Strategy<Value = CfInst> {
    prop_oneof![
        cf_general().prop_map(CfInst::Cf),
        cf_alu().prop_map(CfInst::Alu),
        (
            pick(CfExportOp::ALL),
            pick(ExportType::ALL),
            sel4(),
            alloc_io()
        )
            .prop_map(|(op, export_type, swizzle, io)| CfInst::Export(CfExport {
                op,
                export_type,
                swizzle,
                io
            })),
        (
            pick(CfMemOp::ALL),
            pick(MemAccess::ALL),
            bounded(4095, ArraySize::new),
            bounded(15, CompMask::new),
            alloc_io()
        )
            .prop_map(
                |(op, access, array_size, comp_mask, io)| CfInst::Mem(CfMem {
                    op,
                    access,
                    array_size,
                    comp_mask,
                    io
                })
            ),
    ]
}

pub fn alu_src_sel() -> impl Strategy<Value = AluSrcSel> {
    prop_oneof![
        gpr().prop_map(AluSrcSel::Gpr),
        bounded(31, KcacheIndex::new).prop_map(AluSrcSel::Kcache0),
        bounded(31, KcacheIndex::new).prop_map(AluSrcSel::Kcache1),
        pick(InlineConst::ALL).prop_map(AluSrcSel::Inline),
        Just(AluSrcSel::Literal),
        Just(AluSrcSel::Pv),
        Just(AluSrcSel::Ps),
        any::<u8>().prop_map(AluSrcSel::Cfile),
    ]
}

pub fn alu_src() -> impl Strategy<Value = AluSrc> {
    (alu_src_sel(), pick(Chan::ALL), any::<bool>(), any::<bool>()).prop_map(
        |(sel, chan, rel, neg)| AluSrc {
            sel,
            chan,
            rel,
            neg,
        },
    )
}

fn alu_form() -> impl Strategy<Value = AluForm> {
    prop_oneof![
        (
            pick(Op2::ALL),
            [alu_src(), alu_src()],
            any::<[bool; 5]>(),
            pick(Omod::ALL)
        )
            .prop_map(
                |(op, src, [a0, a1, wm, up, uem], omod)| AluForm::Op2(Op2Form {
                    op,
                    src,
                    abs: [a0, a1],
                    write_mask: wm,
                    update_pred: up,
                    update_exec_mask: uem,
                    omod,
                })
            ),
        (pick(Op3::ALL), [alu_src(), alu_src(), alu_src()])
            .prop_map(|(op, src)| AluForm::Op3(Op3Form { op, src })),
    ]
}

pub fn alu_inst() -> impl Strategy<Value = AluInst> {
    (
        alu_form(),
        gpr(),
        any::<[bool; 2]>(),
        pick(Chan::ALL),
        pick(BankSwizzle::ALL),
        pick(IndexMode::ALL),
        pick(PredSel::ALL),
    )
        .prop_map(
            |(form, gpr, [rel, clamp], chan, bank_swizzle, index_mode, pred_sel)| AluInst {
                form,
                dst: AluDst { gpr, rel, chan },
                clamp,
                bank_swizzle,
                index_mode,
                pred_sel,
            },
        )
}

pub fn alu_group() -> impl Strategy<Value = AluGroup> {
    (
        proptest::collection::vec(alu_inst(), 1..=5),
        any::<[u32; 4]>(),
    )
        .prop_map(|(insts, literals)| AluGroup::with_literals(&insts, &literals))
}

pub fn tex_inst() -> impl Strategy<Value = TexInst> {
    (
        (
            pick(TexOp::ALL),
            any::<[bool; 3]>(),
            any::<u8>(),
            gpr(),
            any::<bool>(),
        ),
        (gpr(), any::<bool>(), sel4(), -64i32..=63),
        [
            pick(CoordType::ALL),
            pick(CoordType::ALL),
            pick(CoordType::ALL),
            pick(CoordType::ALL),
        ],
        [-16i32..=15, -16i32..=15, -16i32..=15],
        bounded(31, SamplerId::new),
        [
            pick(TexSrcSel::ALL),
            pick(TexSrcSel::ALL),
            pick(TexSrcSel::ALL),
            pick(TexSrcSel::ALL),
        ],
    )
        .prop_map(
            |(
                (op, [bc, fwq, alt], resource_id, src_gpr, src_rel),
                (dst_gpr, dst_rel, dst_sel, lod),
                coord_type,
                offset,
                sampler_id,
                src_sel,
            )| TexInst {
                op,
                bc_frac_mode: bc,
                fetch_whole_quad: fwq,
                resource_id,
                src_gpr,
                src_rel,
                alt_const: alt,
                dst_gpr,
                dst_rel,
                dst_sel,
                lod_bias: LodBias::new(lod).unwrap(),
                coord_type,
                offset: offset.map(|o| TexOffset::new(o).unwrap()),
                sampler_id,
                src_sel,
            },
        )
}

fn fetch_format() -> impl Strategy<Value = FetchFormat> {
    (
        pick(DataFormat::ALL),
        pick(NumFormat::ALL),
        pick(FormatComp::ALL),
        pick(SrfMode::ALL),
    )
        .prop_map(
            |(data_format, num_format, format_comp, srf_mode)| FetchFormat {
                data_format,
                num_format,
                format_comp,
                srf_mode,
            },
        )
}

pub fn vtx_inst() -> impl Strategy<Value = VtxInst> {
    let dst = prop_oneof![
        (gpr(), any::<bool>()).prop_map(|(gpr, rel)| VtxDst::Gpr { gpr, rel }),
        any::<u8>().prop_map(|id| VtxDst::Semantic { id }),
    ];
    (
        (
            dst,
            pick(FetchType::ALL),
            any::<u8>(),
            gpr(),
            pick(Chan::ALL),
        ),
        (bounded(63, MegaFetchCount::new), sel4(), fetch_format()),
        (any::<u16>(), pick(EndianSwap::ALL), any::<[bool; 6]>()),
    )
        .prop_map(
            |(
                (dst, fetch_type, buffer_id, src_gpr, src_sel_x),
                (mega_fetch_count, dst_sel, format),
                (offset, endian_swap, [fwq, rel, ucf, nostride, mega, alt]),
            )| VtxInst {
                dst,
                fetch_type,
                fetch_whole_quad: fwq,
                buffer_id,
                src_gpr,
                src_rel: rel,
                src_sel_x,
                mega_fetch_count,
                dst_sel,
                use_const_fields: ucf,
                format,
                offset,
                endian_swap,
                const_buf_no_stride: nostride,
                mega_fetch: mega,
                alt_const: alt,
            },
        )
}

pub fn mem_rd_inst() -> impl Strategy<Value = MemRdInst> {
    (
        (
            pick(MemRdOp::ALL),
            bounded(3, ElemSize::new),
            any::<[bool; 6]>(),
            gpr(),
            pick(Chan::ALL),
            count(16, BurstCount::new),
        ),
        (gpr(), sel4(), fetch_format()),
        (
            bounded(8191, ArrayBase::new),
            pick(EndianSwap::ALL),
            bounded(4095, ArraySize::new),
        ),
    )
        .prop_map(
            |(
                (op, elem_size, [fwq, unc, idx, srel, drel, mega], src_gpr, src_sel_x, burst_count),
                (dst_gpr, dst_sel, format),
                (array_base, endian_swap, array_size),
            )| MemRdInst {
                op,
                elem_size,
                fetch_whole_quad: fwq,
                uncached: unc,
                indexed: idx,
                src_gpr,
                src_rel: srel,
                src_sel_x,
                burst_count,
                dst_gpr,
                dst_rel: drel,
                dst_sel,
                format,
                array_base,
                endian_swap,
                mega_fetch: mega,
                array_size,
            },
        )
}

pub fn vtx_clause_inst() -> impl Strategy<Value = VtxClauseInst> {
    prop_oneof![
        vtx_inst().prop_map(VtxClauseInst::Fetch),
        mem_rd_inst().prop_map(VtxClauseInst::MemRead),
    ]
}

/// A clause with its kind, before layout.
#[derive(Clone, Debug)]
pub enum ClauseSpec {
    Alu(CfAlu, AluClause),
    Tex(CfGeneral, Vec<TexInst>),
    Vtx(CfGeneral, Vec<VtxClauseInst>),
}

fn clause_spec() -> impl Strategy<Value = ClauseSpec> {
    prop_oneof![
        (cf_alu(), proptest::collection::vec(alu_group(), 1..6))
            .prop_map(|(cf, groups)| ClauseSpec::Alu(cf, AluClause { groups }))
            .prop_filter("at most 128 slots", |c| match c {
                ClauseSpec::Alu(_, a) => a.slots() <= 128,
                _ => true,
            }),
        (cf_general(), proptest::collection::vec(tex_inst(), 1..=16))
            .prop_map(|(cf, insts)| ClauseSpec::Tex(cf, insts)),
        (
            cf_general(),
            any::<bool>(),
            proptest::collection::vec(vtx_clause_inst(), 1..=16)
        )
            .prop_map(|(cf, tc, insts)| {
                let op = if tc { CfOp::VtxTc } else { CfOp::Vtx };
                ClauseSpec::Vtx(CfGeneral { op, ..cf }, insts)
            }),
    ]
}

/// A CF instruction that starts no clause; jump targets are fixed up later.
fn other_cf() -> impl Strategy<Value = CfInst> {
    cf_inst().prop_filter("no clause", |i| {
        !matches!(i, CfInst::Alu(_))
            && !matches!(i, CfInst::Cf(c) if matches!(c.op.addr_meaning(), CfAddr::Clause(_)))
    })
}

/// Lay out clauses after a CF program, as `program`'s module doc requires.
pub fn layout(clauses: Vec<ClauseSpec>, mut others: Vec<CfInst>) -> Program {
    let mut cf_len = clauses.len() + others.len();
    let first_is_fetch = matches!(
        clauses.first(),
        Some(ClauseSpec::Tex(..) | ClauseSpec::Vtx(..))
    );
    if first_is_fetch && cf_len % 2 == 1 {
        others.push(CfInst::nop());
        cf_len += 1;
    }
    for inst in &mut others {
        if let CfInst::Cf(c) = inst
            && c.op.addr_meaning() == CfAddr::JumpTarget
        {
            c.addr %= cf_len as u32;
        }
    }
    let mut program = Program::default();
    let mut at = cf_len as u32;
    for spec in clauses {
        match spec {
            ClauseSpec::Alu(mut cf, clause) => {
                cf.addr = AluClauseAddr::new(at).unwrap();
                cf.count = AluSlotCount::new(clause.slots() as u32).unwrap();
                program.cf.push(CfInst::Alu(cf));
                at += clause.slots() as u32;
                program.clauses.insert(cf.addr.get(), Clause::Alu(clause));
            }
            ClauseSpec::Tex(mut cf, insts) => {
                at += at % 2;
                cf.op = CfOp::Tex;
                cf.addr = at;
                cf.count = FetchCount::new(insts.len() as u32).unwrap();
                program.cf.push(CfInst::Cf(cf));
                at += 2 * insts.len() as u32;
                program
                    .clauses
                    .insert(cf.addr, Clause::Fetch(FetchClause::Tex(insts)));
            }
            ClauseSpec::Vtx(mut cf, insts) => {
                at += at % 2;
                cf.addr = at;
                cf.count = FetchCount::new(insts.len() as u32).unwrap();
                program.cf.push(CfInst::Cf(cf));
                at += 2 * insts.len() as u32;
                program
                    .clauses
                    .insert(cf.addr, Clause::Fetch(FetchClause::Vtx(insts)));
            }
        }
    }
    program.cf.extend(others);
    program
}

pub fn program() -> impl Strategy<Value = Program> {
    (
        proptest::collection::vec(clause_spec(), 0..4),
        proptest::collection::vec(other_cf(), 0..5),
    )
        .prop_map(|(clauses, others)| layout(clauses, others))
}
