//! Clauses and the CF program: scheduled, allocated segments become ALU
//! clauses (with literals, bank swizzles found by the search, groups split
//! where no swizzle exists), fetches become TEX clauses, and structured
//! control flow becomes CF instructions (manual chapter 3):
//!
//! * `if`: the clause computing the mask is `ALU_PUSH_BEFORE` (its last
//!   group holds `PRED_SETNE_INT c, 0` with UPDATE_EXEC_MASK), then
//!   `JUMP` to the `ELSE` (or to the `POP` without an else part), the taken
//!   part, `ELSE` jumping to the `POP`, the other part, `POP pop:1`
//!   (Table 3.7, §3.6; the same shape as Mesa's r600 back end); no
//!   `JUMP` where the taken part is at most one small ALU clause (it runs
//!   with no element active instead of being jumped over); where the
//!   taken part ends in a plain `ALU` clause with no `PRED_SET*` and the
//!   other part is that cheap too, the clause becomes `ALU_ELSE_AFTER`
//!   and replaces the `ELSE` (`CfAluOp::pushes`: no push without a
//!   `PRED_SET*`, then ELSE; `docs/isa-r700.md` §6 #26);
//! * loops: `LOOP_START_DX10` (jumping past `LOOP_END`), the body, whose
//!   last clause is `ALU_BREAK` with `PRED_SETNE_INT continue, 0` (the
//!   elements it turns off leave: Table 3.7 L1116), `LOOP_END` back to
//!   the body; the trip count is a run-time value. (LLVM 14's shape,
//!   `ALU_PUSH_BEFORE` with `PRED_SETE_INT`, `JUMP pop:1`, `LOOP_BREAK`,
//!   `POP pop:1`, `LOOP_END`, is what the body is emitted as first;
//!   `exit_by_alu_break` rewrites it);
//! * exports last: `EXPORT` per output, `EXPORT_DONE` with
//!   `END_OF_PROGRAM` on the last one (§3.1 L711, L795-797), or a CF `NOP`
//!   with END_OF_PROGRAM when there is none; scatter writes are
//!   `MEM_EXPORT` (ABI §3.4);
//! * ALU clauses hold at most 128 slots, literals included (Table 3.2,
//!   L816), and are not split between a `MOVA_INT` and its relative reads
//!   (§4.6.1) nor between an in-clause `PRED_SET` and its predicated users
//!   (the predicate does not outlive the clause, §4.9.4 L2014); an
//!   in-clause `PRED_SET` never sits in an `ALU_PUSH_BEFORE` clause (which
//!   pushes before each `PRED_SET*`, L1185); TEX clauses hold at most 8
//!   fetches (Table 3.2 L817);
//! * the layout is the manual's: CF program, ALU clauses, TEX clauses
//!   (L502-508), each TEX clause at an even qword;
//! * every CF instruction has BARRIER set (results of one clause are read
//!   by the next);
//! * STACK_SIZE: the deepest nesting in entries, with subentries (one per
//!   `ALU_PUSH_BEFORE`, and one for a loop's `ALU_BREAK`, "PUSH, ALU,
//!   ELSE, …, POP", L1116) four to an entry at wavefront width 64 (§3.6.5
//!   L1060-1085).

use smallvec::SmallVec;

use super::CodegenError;
use super::mir::{AluOp, Item, Lane, Opc, Role, Src};
use super::regalloc::{Allocation, SItem};
use super::sched::{Channels, Slot, assign_bank_swizzles};
use crate::isa::{
    AluClause, AluClauseAddr, AluDst, AluForm, AluGroup, AluInst, AluSlotCount, AluSrc, AluSrcSel,
    ArrayBase, ArraySize, BurstCount, CfAllocIo, CfAlu, CfAluOp, CfExport, CfExportOp, CfFlags,
    CfGeneral, CfInst, CfMem, CfMemOp, CfOp, Chan, Clause, CompMask, CoordType, ExportType,
    FetchClause, FetchCount, Gpr, IndexMode, Kcache, LodBias, MemAccess, Op2, PopCount, PredSel,
    Program, SamplerId, Sel, TexInst, TexOffset, TexOp, TexSrcSel,
};

/// The rule of a predicate range longer than a clause (the predicate
/// does not outlive its clause, manual §4.9.4 L2014): `compile` then
/// branches instead of predicating.
pub const PREDICATE_CROSSES_CLAUSE: &str = "predicate-crosses-clause";

/// A group's ops and their slots.
type Members = SmallVec<[(usize, Slot); 5]>;

/// ALU clause size limit in slots (Table 3.2, L816).
pub const MAX_ALU_SLOTS: usize = 128;
/// TEX clause size limit (Table 3.2 L817-818; the manual's 8, digest R34).
pub const MAX_FETCHES: usize = 8;

enum Pending {
    Alu(AluClause),
    Tex(Vec<TexInst>),
}

struct Emitter<'a> {
    alloc: &'a Allocation,
    chans: &'a Channels,
    cf: Vec<CfInst>,
    clauses: Vec<(usize, Pending)>,
    depth_entries: u32,
    depth_subs: u32,
    stack: u32,
    tex_run: Option<usize>,
    /// Walk position of the last group or item emitted.
    pos: u32,
    /// ALU clauses emitted so far.
    alu_clauses: u32,
    map: ClauseMap,
}

/// Which ALU clause each scheduled group landed in, by `regalloc`'s walk
/// position (one per scheduled group or other item, in CF order, from 1):
/// what decides whether a clause-local value may live in a clause
/// temporary, which is "not preserved past the end of a clause" (manual
/// L1299, L1301). A group split by the bank-swizzle search whose halves
/// fall in two clauses is in none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClauseMap(Vec<u32>);

impl ClauseMap {
    /// No clause (not an ALU group, or a group cut in two).
    const NONE: u32 = 0;
    const STRADDLES: u32 = u32::MAX;

    fn note(&mut self, pos: u32, clause: u32) {
        let p = pos as usize;
        if self.0.len() <= p {
            self.0.resize(p + 1, Self::NONE);
        }
        self.0[p] = match self.0[p] {
            Self::NONE => clause,
            c if c == clause => clause,
            _ => Self::STRADDLES,
        };
    }

    /// Whether the groups at walk positions `from` and `to` (and so all
    /// between them, clauses being runs of consecutive groups) are in one
    /// ALU clause.
    pub fn same_clause(&self, from: u32, to: u32) -> bool {
        let at = |p: u32| self.0.get(p as usize).copied().unwrap_or(Self::NONE);
        let c = at(from);
        c != Self::NONE && c != Self::STRADDLES && at(to) == c
    }
}

fn chan(c: u8) -> Chan {
    match c & 3 {
        0 => Chan::X,
        1 => Chan::Y,
        2 => Chan::Z,
        _ => Chan::W,
    }
}

fn gpr(g: u8) -> Gpr {
    Gpr::new(u32::from(g)).unwrap_or_default()
}

fn flags() -> CfFlags {
    CfFlags {
        barrier: true,
        ..CfFlags::default()
    }
}

fn general(op: CfOp, addr: u32, pop: u32) -> CfInst {
    let mut g = CfGeneral::new(op);
    g.addr = addr;
    g.pop_count = PopCount::new(pop).unwrap_or_default();
    g.flags = flags();
    CfInst::Cf(g)
}

impl Emitter<'_> {
    fn reg(&self, v: super::mir::VReg) -> (Gpr, Chan) {
        (
            gpr(self.alloc.gpr[v.0 as usize].unwrap_or(0)),
            chan(self.chans.chan[v.0 as usize].unwrap_or(0)),
        )
    }

    fn note_stack(&mut self) {
        let d = self.depth_entries + self.depth_subs.div_ceil(4);
        self.stack = self.stack.max(d);
    }

    fn inst(&self, op: &AluOp, slot: Slot, lits: &[u32]) -> AluInst {
        let mut srcs: SmallVec<[AluSrc; 3]> = SmallVec::new();
        let mut abs = [false; 2];
        let mut rel = false;
        // DOT4: unit k reads the k-th pair (manual §4.8).
        let operands: &[super::mir::Operand] = match (op.role, slot) {
            (Role::Dot4, Slot::Vec(k)) => &op.srcs[2 * k as usize..2 * k as usize + 2],
            _ => &op.srcs,
        };
        for (k, o) in operands.iter().enumerate() {
            let mut s = match o.src {
                Src::Reg(v) => {
                    let (g, c) = self.reg(v);
                    AluSrc::new(AluSrcSel::Gpr(g), c)
                }
                Src::Const { elem, chan: c } => AluSrc::new(AluSrcSel::Cfile(elem), chan(c)),
                Src::ConstRel { base, chan: c } => {
                    rel = true;
                    let mut s = AluSrc::new(AluSrcSel::Cfile(base), chan(c));
                    s.rel = true;
                    s
                }
                Src::Lit(x) => {
                    let i = lits.iter().position(|&l| l == x).unwrap_or(0);
                    AluSrc::new(AluSrcSel::Literal, chan(i as u8))
                }
                Src::Inline(c) => AluSrc::new(AluSrcSel::Inline(c), Chan::X),
            };
            s.neg = o.neg;
            if k < 2 {
                abs[k] = o.abs;
            }
            srcs.push(s);
        }
        let unused = AluSrc::new(AluSrcSel::Gpr(Gpr::default()), Chan::X);
        let (dg, dc, writes) = match (op.dst, op.role, slot) {
            (Some(d), Role::Dot4, Slot::Vec(k)) => {
                let (g, c) = self.reg(d);
                (g, chan(k), c == chan(k))
            }
            (Some(d), _, _) => {
                let (g, c) = self.reg(d);
                (g, c, true)
            }
            (None, _, _) => (
                Gpr::default(),
                match slot {
                    Slot::Vec(c) => chan(c),
                    Slot::Trans => Chan::X,
                },
                false,
            ),
        };
        let dst = AluDst {
            gpr: dg,
            rel: false,
            chan: dc,
        };
        let mut inst = match op.opc {
            Opc::Op2(o) => {
                let mut i = AluInst::op2(
                    o,
                    dst,
                    [
                        srcs.first().copied().unwrap_or(unused),
                        srcs.get(1).copied().unwrap_or(unused),
                    ],
                );
                if let AluForm::Op2(f) = &mut i.form {
                    f.abs = abs;
                    f.write_mask = writes;
                    if op.role == Role::Predicate {
                        f.update_exec_mask = true;
                        f.update_pred = true;
                    }
                    if op.role == Role::PredSet {
                        f.update_pred = true;
                    }
                }
                i
            }
            Opc::Op3(o) => AluInst::op3(
                o,
                dst,
                [
                    srcs.first().copied().unwrap_or(unused),
                    srcs.get(1).copied().unwrap_or(unused),
                    srcs.get(2).copied().unwrap_or(unused),
                ],
            ),
        };
        inst.clamp = op.clamp;
        inst.pred_sel = match op.role {
            Role::IfTrue => PredSel::One,
            Role::IfFalse => PredSel::Zero,
            _ => PredSel::Off,
        };
        if rel {
            inst.index_mode = IndexMode::ArX;
        }
        inst
    }

    /// The isa group of `members` of segment ops.
    fn group(&self, ops: &[AluOp], members: &[(usize, Slot)]) -> AluGroup {
        let mut lits: SmallVec<[u32; 4]> = SmallVec::new();
        for &(i, _) in members {
            for o in &ops[i].srcs {
                if let Src::Lit(x) = o.src
                    && !lits.contains(&x)
                {
                    lits.push(x);
                }
            }
        }
        let insts: Vec<AluInst> = members
            .iter()
            .map(|&(i, s)| self.inst(&ops[i], s, &lits))
            .collect();
        AluGroup::with_literals(&insts, &lits)
    }

    /// Physical (GPR, element) pairs an op reads and writes.
    fn phys_reads(&self, op: &AluOp) -> SmallVec<[(u8, u8); 3]> {
        op.srcs
            .iter()
            .filter_map(|s| s.vreg())
            .map(|v| {
                (
                    self.alloc.gpr[v.0 as usize].unwrap_or(0),
                    self.chans.chan[v.0 as usize].unwrap_or(0),
                )
            })
            .collect()
    }

    fn phys_write(&self, op: &AluOp) -> Option<(u8, u8)> {
        op.dst.map(|v| {
            (
                self.alloc.gpr[v.0 as usize].unwrap_or(0),
                self.chans.chan[v.0 as usize].unwrap_or(0),
            )
        })
    }

    /// The segment's groups with registers and swizzles; a group with no
    /// legal swizzle assignment is split (an op that reads nothing the
    /// rest of the group writes moves to a new group right after).
    fn groups(
        &self,
        ops: &[AluOp],
        groups: &[super::sched::Group],
    ) -> Result<Vec<(AluGroup, bool, bool, usize)>, CodegenError> {
        let mut out = Vec::new();
        // Each work item remembers the scheduled group it comes from.
        let mut work: Vec<(usize, Members)> = groups.iter().cloned().enumerate().rev().collect();
        while let Some((origin, mut members)) = work.pop() {
            // After a split a Trans op may find its element's vector unit
            // free; the hardware's unit assignment (§4.4, PREFER_VECTOR)
            // then moves it there, so list it there.
            for k in 0..members.len() {
                let (i, s) = members[k];
                if s == Slot::Trans && ops[i].opc.unit_class() == crate::isa::UnitClass::Any {
                    let c = ops[i]
                        .dst
                        .and_then(|d| self.chans.chan[d.0 as usize])
                        .unwrap_or(0);
                    if !members.iter().any(|&(_, t)| t == Slot::Vec(c)) {
                        members[k].1 = Slot::Vec(c);
                    }
                }
            }
            members.sort_by_key(|&(_, s)| s);
            let mut g = self.group(ops, &members);
            if assign_bank_swizzles(&mut g) {
                let mova = members.iter().any(|&(i, _)| ops[i].role == Role::Mova);
                let rel = members.iter().any(|&(i, _)| {
                    ops[i]
                        .srcs
                        .iter()
                        .any(|s| matches!(s.src, Src::ConstRel { .. }))
                });
                out.push((g, mova, rel, origin));
                continue;
            }
            let closing = members
                .iter()
                .position(|&(i, _)| matches!(ops[i].role, Role::Predicate | Role::Kill));
            let movable = |k: usize| {
                let (i, _) = members[k];
                let reads = self.phys_reads(&ops[i]);
                members.iter().all(|&(j, _)| {
                    j == i || self.phys_write(&ops[j]).is_none_or(|w| !reads.contains(&w))
                })
            };
            let hoistable = |k: usize| {
                let (i, _) = members[k];
                ops[i].role == Role::Plain
                    && self.phys_write(&ops[i]).is_none_or(|w| {
                        members
                            .iter()
                            .all(|&(j, _)| j == i || !self.phys_reads(&ops[j]).contains(&w))
                    })
            };
            let distinct = {
                let mut v: Vec<usize> = members.iter().map(|&(i, _)| i).collect();
                v.dedup();
                v.len()
            };
            let later = match closing {
                Some(k) => movable(k).then_some(k),
                None => (0..members.len()).rev().find(|&k| movable(k)),
            };
            let earlier = (0..members.len()).rev().find(|&k| hoistable(k));
            let split = |k: usize| {
                let i = members[k].0;
                let moved: SmallVec<[(usize, Slot); 5]> =
                    members.iter().copied().filter(|&(j, _)| j == i).collect();
                let rest: SmallVec<[(usize, Slot); 5]> =
                    members.iter().copied().filter(|&(j, _)| j != i).collect();
                (moved, rest)
            };
            if distinct > 1
                && let Some(k) = later
            {
                let (moved, rest) = split(k);
                work.push((origin, moved));
                work.push((origin, rest));
            } else if distinct > 1
                && let Some(k) = earlier
            {
                let (moved, rest) = split(k);
                work.push((origin, rest));
                work.push((origin, moved));
            } else {
                return Err(CodegenError::internal(
                    "gpr-read-port",
                    format!(
                        "no bank swizzle assignment for a group and no way to split it:\n{}",
                        g.insts
                            .iter()
                            .map(|i| crate::isa::format_alu(i, None))
                            .collect::<Vec<_>>()
                            .join("\n")
                    ),
                ));
            }
        }
        Ok(out)
    }

    fn items(&mut self, items: &[SItem]) -> Result<(), CodegenError> {
        for it in items {
            if let SItem::Other(_) = it {
                self.pos += 1;
            }
            match it {
                SItem::Seg(seg) => {
                    self.tex_run = None;
                    let push = seg.ops.last().is_some_and(|o| o.role == Role::Predicate);
                    let groups = self.groups(&seg.ops, &seg.groups)?;
                    // Walk positions of this segment's scheduled groups
                    // (`regalloc`'s numbering: one per group or item).
                    let base = self.pos;
                    self.pos += seg.groups.len() as u32;
                    // AR is live at boundary b when a relative read at or
                    // after b follows a MOVA before b.
                    let n = groups.len();
                    let mut live = vec![false; n + 1];
                    let mut pending = false;
                    for (b, (_, mova, rel, _)) in groups.iter().enumerate() {
                        if *mova {
                            pending = false;
                        }
                        live[b] = pending;
                        if *mova {
                            pending = true;
                        }
                        let _ = rel;
                    }
                    // pending only matters if a rel read follows: recompute
                    // exactly from the back.
                    let mut rel_after = false;
                    for b in (0..n).rev() {
                        if groups[b].2 {
                            rel_after = true;
                        }
                        if groups[b].1 {
                            // boundaries after this MOVA up to the last rel
                            // read are live; before it, not (for this MOVA).
                            rel_after = false;
                        }
                        live[b] = live[b] && rel_after;
                    }
                    // An in-clause predicate lives from the group after
                    // its PRED_SET to its last user: no clause ends there
                    // (it "does not persist past the end of an ALU
                    // clause", L2014). And no in-clause PRED_SET in an
                    // ALU_PUSH_BEFORE clause, which pushes "before each
                    // PRED_SET*" (L1185, L7757): the closing clause starts
                    // after the last predicated group (`tail`).
                    let mut tail = 0;
                    let mut set_at: Option<usize> = None;
                    let mut pred_live = vec![false; n + 1];
                    for (b, (g, _, _, _)) in groups.iter().enumerate() {
                        let uses = g.insts.iter().any(|i| i.pred_sel != PredSel::Off);
                        if uses {
                            if let Some(p) = set_at {
                                for x in p + 1..=b {
                                    live[x] = true;
                                    pred_live[x] = true;
                                }
                            }
                            tail = b + 1;
                        }
                        if g.insts.iter().any(in_clause_pred_set) {
                            set_at = Some(b);
                            tail = b + 1;
                        }
                    }
                    let mut start = 0;
                    while start < n {
                        let mut end = start;
                        let mut slots = 0;
                        while end < n && slots + groups[end].0.slots() <= MAX_ALU_SLOTS {
                            slots += groups[end].0.slots();
                            end += 1;
                        }
                        if end < n {
                            while end > start + 1 && live[end] {
                                end -= 1;
                            }
                            if pred_live[end] {
                                return Err(CodegenError::internal(
                                    PREDICATE_CROSSES_CLAUSE,
                                    format!("a predicate lives across groups {start}..{n}"),
                                ));
                            }
                        }
                        if push && end == n && start < tail && tail < n {
                            if live[tail] {
                                // AR loaded before the cut and read after
                                // it: branch instead.
                                return Err(CodegenError::internal(
                                    PREDICATE_CROSSES_CLAUSE,
                                    format!(
                                        "a MOVA lives across the predicated tail at group {tail}"
                                    ),
                                ));
                            }
                            end = tail;
                        }
                        let mut clause = AluClause {
                            groups: groups[start..end].iter().map(|g| g.0.clone()).collect(),
                        };
                        forward_previous_results(&mut clause);
                        let last = end == n;
                        let op = if last && push {
                            CfAluOp::AluPushBefore
                        } else {
                            CfAluOp::Alu
                        };
                        let idx = self.cf.len();
                        self.cf.push(CfInst::Alu(CfAlu {
                            op,
                            addr: AluClauseAddr::default(),
                            count: AluSlotCount::ONE,
                            kcache: [Kcache::default(); 2],
                            alt_const: false,
                            whole_quad_mode: false,
                            barrier: true,
                        }));
                        self.clauses.push((idx, Pending::Alu(clause)));
                        self.alu_clauses += 1;
                        let id = self.alu_clauses;
                        for g in &groups[start..end] {
                            self.map.note(base + 1 + g.3 as u32, id);
                        }
                        start = end;
                    }
                }
                SItem::Other(Item::Fetch(f)) => {
                    let (cg, _) = self.reg(f.coord[0]);
                    let (_, cx) = self.reg(f.coord[0]);
                    let (_, cy) = self.reg(f.coord[1]);
                    let mut dst_gpr = Gpr::default();
                    let mut dst_sel = [Sel::Mask; 4];
                    for (k, d) in f.dst.iter().enumerate() {
                        if let Some(v) = d {
                            let (g, c) = self.reg(*v);
                            dst_gpr = g;
                            dst_sel[c.index()] = [Sel::X, Sel::Y, Sel::Z, Sel::W][k];
                        }
                    }
                    let tsel = |c: Chan| match c {
                        Chan::X => TexSrcSel::X,
                        Chan::Y => TexSrcSel::Y,
                        Chan::Z => TexSrcSel::Z,
                        Chan::W => TexSrcSel::W,
                    };
                    let inst = TexInst {
                        op: TexOp::Sample,
                        bc_frac_mode: false,
                        fetch_whole_quad: false,
                        resource_id: f.resource,
                        src_gpr: cg,
                        src_rel: false,
                        alt_const: false,
                        dst_gpr,
                        dst_rel: false,
                        dst_sel,
                        lod_bias: LodBias::default(),
                        coord_type: [
                            CoordType::Unnormalized,
                            CoordType::Unnormalized,
                            CoordType::Normalized,
                            CoordType::Normalized,
                        ],
                        offset: [TexOffset::default(); 3],
                        sampler_id: SamplerId::new(u32::from(f.resource)).unwrap_or_default(),
                        src_sel: [tsel(cx), tsel(cy), TexSrcSel::Zero, TexSrcSel::Zero],
                    };
                    // Consecutive fetches share a clause, up to the limit —
                    // unless one reads what an earlier one of the run wrote
                    // (by element: DST_SEL masks the others, so coordinates
                    // in R.zw may sit beside a fetched R.x).
                    let writes =
                        |t: &TexInst, c: Chan| t.dst_gpr == cg && t.dst_sel[c.index()] != Sel::Mask;
                    let joined = match self.tex_run {
                        Some(ci) => {
                            if let Some((_, Pending::Tex(v))) = self.clauses.get_mut(ci)
                                && v.len() < MAX_FETCHES
                                && v.iter().all(|t| !writes(t, cx) && !writes(t, cy))
                            {
                                v.push(inst);
                                true
                            } else {
                                false
                            }
                        }
                        None => false,
                    };
                    if !joined {
                        let idx = self.cf.len();
                        self.cf.push(general(CfOp::Tex, 0, 0));
                        self.clauses.push((idx, Pending::Tex(vec![inst])));
                        self.tex_run = Some(self.clauses.len() - 1);
                    }
                }
                SItem::Other(Item::Export { base, lanes }) => {
                    self.tex_run = None;
                    let mut g = Gpr::default();
                    let mut swz = [Sel::Zero; 4];
                    for (k, l) in lanes.iter().enumerate() {
                        swz[k] = match l {
                            Lane::Reg(v) => {
                                let (rg, c) = self.reg(*v);
                                g = rg;
                                [Sel::X, Sel::Y, Sel::Z, Sel::W][c.index()]
                            }
                            Lane::Zero => Sel::Zero,
                            Lane::One => Sel::One,
                        };
                    }
                    self.cf.push(CfInst::Export(CfExport {
                        op: CfExportOp::Export,
                        export_type: ExportType::Pixel,
                        swizzle: swz,
                        io: CfAllocIo {
                            array_base: ArrayBase::new(*base).unwrap_or_default(),
                            rw_gpr: g,
                            burst_count: BurstCount::ONE,
                            flags: flags(),
                            ..CfAllocIo::default()
                        },
                    }));
                }
                SItem::Other(Item::MemExport { value, index }) => {
                    self.tex_run = None;
                    let (vg, _) = self.reg(*value);
                    let (ig, _) = self.reg(*index);
                    self.cf.push(CfInst::Mem(CfMem {
                        op: CfMemOp::MemExport,
                        access: MemAccess::WriteInd,
                        array_size: ArraySize::default(),
                        comp_mask: CompMask::new(1).unwrap_or_default(),
                        io: CfAllocIo {
                            array_base: ArrayBase::default(),
                            rw_gpr: vg,
                            index_gpr: ig,
                            burst_count: BurstCount::ONE,
                            flags: flags(),
                            ..CfAllocIo::default()
                        },
                    }));
                }
                SItem::Other(_) => {}
                SItem::If(then, els) => {
                    self.tex_run = None;
                    self.depth_subs += 1;
                    self.note_stack();
                    let at = self.cf.len();
                    self.cf.push(general(CfOp::Jump, 0, 0));
                    self.items(then)?;
                    self.tex_run = None;
                    // The JUMP only skips the taken part when no element
                    // takes it; a part that is at most one small ALU clause
                    // runs idle instead (no element writes: the clause's
                    // instructions honour the active mask, §3.6.1), one CF
                    // instruction fewer.
                    let jump = if self.idle_cheap(at + 1) {
                        self.remove_cf(at);
                        None
                    } else {
                        Some(at)
                    };
                    // The ELSE, or the taken part's last clause turned
                    // ALU_ELSE_AFTER: the other part starts after it.
                    let mut else_at = None;
                    if !els.is_empty() {
                        let e = self.cf.len();
                        self.cf.push(general(CfOp::Else, 0, 0));
                        self.items(els)?;
                        self.tex_run = None;
                        else_at = Some(e);
                        // Only where the other part is cheap to run idle
                        // (ALU_ELSE_AFTER cannot jump over it, L1187),
                        // and where a JUMP skipping the taken part would
                        // land on a clause small enough to run idle (the
                        // ALU_POP_AFTER trade-off; a taken part that is
                        // one such clause has no JUMP).
                        let first_taken = jump.map_or(at, |j| j + 1);
                        if self.idle_cheap(e + 1)
                            && let Some(k) = self.else_after(first_taken, e, jump.is_some())
                        {
                            self.remove_cf(e);
                            else_at = Some(k);
                        }
                    }
                    let first = else_at.map_or(jump.map_or(at, |j| j + 1), |e| e + 1);
                    let end = match self.pop_after(first) {
                        // The skip lands on the ALU_POP_AFTER, which runs
                        // with no element active and pops.
                        Some(last) => last,
                        None => {
                            let pop = self.cf.len();
                            self.cf.push(general(CfOp::Pop, pop as u32 + 1, 1));
                            pop
                        }
                    };
                    if let Some(j) = jump {
                        set_addr(&mut self.cf[j], else_at.unwrap_or(end) as u32);
                    }
                    if let Some(e) = else_at {
                        set_addr(&mut self.cf[e], end as u32);
                    }
                    self.depth_subs -= 1;
                }
                SItem::Loop(body) => {
                    self.tex_run = None;
                    self.depth_entries += 1;
                    let start = self.cf.len();
                    self.cf.push(general(CfOp::LoopStartDx10, 0, 0));
                    // The body's final ALU_PUSH_BEFORE pushes one subentry.
                    self.depth_subs += 1;
                    self.note_stack();
                    self.items(body)?;
                    self.depth_subs -= 1;
                    self.tex_run = None;
                    if self.exit_by_alu_break() {
                        let end = self.cf.len();
                        self.cf.push(general(CfOp::LoopEnd, start as u32 + 1, 0));
                        set_addr(&mut self.cf[start], end as u32 + 1);
                    } else {
                        let jump = self.cf.len();
                        self.cf.push(general(CfOp::Jump, 0, 1));
                        let brk = self.cf.len();
                        self.cf.push(general(CfOp::LoopBreak, 0, 0));
                        let pop = self.cf.len();
                        self.cf.push(general(CfOp::Pop, pop as u32 + 1, 1));
                        let end = self.cf.len();
                        self.cf.push(general(CfOp::LoopEnd, start as u32 + 1, 0));
                        set_addr(&mut self.cf[start], end as u32 + 1);
                        set_addr(&mut self.cf[jump], end as u32);
                        set_addr(&mut self.cf[brk], end as u32);
                    }
                    self.depth_entries -= 1;
                }
            }
        }
        Ok(())
    }
}

impl Emitter<'_> {
    /// Whether the CF instructions from `first` on are none, or one plain
    /// `ALU` clause of at most [`POP_AFTER_GROUPS`] groups: cheap to run
    /// with no element active, so not worth a `JUMP` around them.
    fn idle_cheap(&self, first: usize) -> bool {
        match self.cf.len().checked_sub(first) {
            Some(0) => true,
            Some(1) => {
                matches!(&self.cf[first], CfInst::Alu(a) if a.op == CfAluOp::Alu)
                    && self.clauses.iter().any(|(idx, p)| {
                        *idx == first
                            && matches!(p, Pending::Alu(c) if c.groups.len() <= POP_AFTER_GROUPS)
                    })
            }
            _ => false,
        }
    }

    /// The `ELSE` at `else_at` merged into the taken part's last CF
    /// instruction (just before it) when that is a plain `ALU` clause at
    /// or after `first` with no `PRED_SET*`: it becomes `ALU_ELSE_AFTER`,
    /// which then pushes nothing and inverts the branch's pixels after
    /// the clause (`CfAluOp::pushes`, `docs/isa-r700.md` §6 #26), one CF
    /// instruction fewer. Unlike the `ELSE` it replaces it cannot jump
    /// (L1187): where no element takes the other part, that part runs
    /// idle, so the caller merges only before a part that is cheap to
    /// run idle; and a `JUMP` skipping the taken part lands on it, so with
    /// `small` only a clause of at most [`POP_AFTER_GROUPS`] groups.
    /// Returns its index; the caller removes the `ELSE`.
    fn else_after(&mut self, first: usize, else_at: usize, small: bool) -> Option<usize> {
        let last = else_at.checked_sub(1)?;
        if last < first {
            return None;
        }
        let plain = self.clauses.iter().any(|(idx, p)| {
            *idx == last
                && matches!(p, Pending::Alu(c) if c.pred_set_count() == 0
                    && (!small || c.groups.len() <= POP_AFTER_GROUPS))
        });
        match &mut self.cf[last] {
            CfInst::Alu(a) if a.op == CfAluOp::Alu && plain => {
                a.op = CfAluOp::AluElseAfter;
                Some(last)
            }
            _ => None,
        }
    }

    /// The loop body's exit test — its last CF instruction, an
    /// `ALU_PUSH_BEFORE` clause ending in `PRED_SETE_INT continue, 0`,
    /// which `JUMP pop:1`, `LOOP_BREAK`, `POP pop:1` follow — turned into
    /// an `ALU_BREAK` clause ending in `PRED_SETNE_INT continue, 0`: the
    /// active elements the `PRED_SET` turns off (those leaving) become
    /// inactive-break (Table 3.7 L1116 "Change active pixels masked by ALU
    /// to inactive-break", L2272, L7760), and `LOOP_END` follows directly:
    /// three CF instructions fewer per loop. `LOOP_END` then exits when no
    /// element is left (Table 3.7 L1100), as the skipped `LOOP_BREAK`'s
    /// jump did. ALU_BREAK is "PUSH, ALU, ELSE, BREAK, POP" (L1116): its
    /// transient push keeps the subentry the `ALU_PUSH_BEFORE` had in the
    /// STACK_SIZE count. The same reading as the decaf Wii U emulator's
    /// (`spirv_cf.cpp`: elements the clause made inactive become
    /// inactive-break) and as the simulator's (`docs/sim-r700.md` §2.2).
    fn exit_by_alu_break(&mut self) -> bool {
        let Some(last) = self.cf.len().checked_sub(1) else {
            return false;
        };
        if !matches!(&self.cf[last], CfInst::Alu(a) if a.op == CfAluOp::AluPushBefore) {
            return false;
        }
        let Some(clause) = self.clauses.iter_mut().find_map(|(idx, p)| match p {
            Pending::Alu(c) if *idx == last => Some(c),
            _ => None,
        }) else {
            return false;
        };
        let Some(group) = clause.groups.last_mut() else {
            return false;
        };
        let mut flipped = false;
        for inst in &mut group.insts {
            if let AluForm::Op2(f) = &mut inst.form
                && f.update_exec_mask
                && f.op == Op2::PredSeteInt
            {
                f.op = Op2::PredSetneInt;
                flipped = true;
            }
        }
        if flipped && let CfInst::Alu(a) = &mut self.cf[last] {
            a.op = CfAluOp::AluBreak;
        }
        flipped
    }

    /// Removes CF instruction `at`, whose address nothing refers to yet
    /// (the instructions after it are a part just emitted, with no jump
    /// of their own), renumbering the clauses after it.
    fn remove_cf(&mut self, at: usize) {
        self.cf.remove(at);
        for (idx, _) in &mut self.clauses {
            if *idx > at {
                *idx -= 1;
            }
        }
    }

    /// The `POP` closing an `if` merged into the region's last CF
    /// instruction when that is a plain `ALU` clause of at most
    /// [`POP_AFTER_GROUPS`] groups at or after `first`: it becomes
    /// `ALU_POP_AFTER` ("Equivalent to ALU, POP", manual Table 3.7; opcode
    /// 10, L7756), one CF instruction fewer. Returns its index.
    fn pop_after(&mut self, first: usize) -> Option<usize> {
        let last = self.cf.len().checked_sub(1)?;
        if last < first {
            return None;
        }
        let small = self.clauses.iter().any(|(idx, p)| {
            *idx == last && matches!(p, Pending::Alu(c) if c.groups.len() <= POP_AFTER_GROUPS)
        });
        match &mut self.cf[last] {
            CfInst::Alu(a) if a.op == CfAluOp::Alu && small => {
                a.op = CfAluOp::AluPopAfter;
                Some(last)
            }
            _ => None,
        }
    }
}

/// The largest clause that closes an `if` as `ALU_POP_AFTER`: where no
/// element takes the branch it runs idle instead of being jumped over.
pub const POP_AFTER_GROUPS: usize = 8;

/// PV/PS forwarding (manual §4.4 L1284, §4.7.4): a source reading the
/// GPR element the previous group of the clause wrote reads that group's
/// result from PV.e (vector unit e) or PS (Trans) instead, which takes no
/// GPR read port. Only real writes (WRITE_MASK, not MOVA) are forwarded; a
/// group whose swizzles no longer fit keeps its GPR reads.
fn forward_previous_results(clause: &mut AluClause) {
    use crate::isa::{PreferVector, Unit, assign_units};
    for g in 1..clause.groups.len() {
        let prev = &clause.groups[g - 1];
        let units = assign_units(&prev.insts, PreferVector::Yes);
        let mut written: Vec<((u32, Chan), AluSrcSel, Chan)> = Vec::new();
        for (inst, unit) in prev.insts.iter().zip(&units) {
            // A write disabled by the predicate leaves PV/PS as they were
            // (§4.9.4, L2022): a predicated write is never forwarded.
            if !inst.writes_gpr() || inst.dst.rel || inst.pred_sel != PredSel::Off {
                continue;
            }
            let key = (inst.dst.gpr.get(), inst.dst.chan);
            match unit {
                Some(Unit::Vector(e)) => written.push((key, AluSrcSel::Pv, *e)),
                Some(Unit::Trans) => written.push((key, AluSrcSel::Ps, Chan::X)),
                None => {}
            }
        }
        if written.is_empty() {
            continue;
        }
        let before = clause.groups[g].clone();
        let group = &mut clause.groups[g];
        for inst in group.insts.iter_mut() {
            let n = inst.src_count();
            let fields: &mut [AluSrc] = match &mut inst.form {
                crate::isa::AluForm::Op2(f) => &mut f.src,
                crate::isa::AluForm::Op3(f) => &mut f.src,
            };
            for s in fields.iter_mut().take(n) {
                if let AluSrcSel::Gpr(r) = s.sel
                    && !s.rel
                    && let Some(&(_, sel, chan)) =
                        written.iter().find(|(k, _, _)| *k == (r.get(), s.chan))
                {
                    s.sel = sel;
                    s.chan = chan;
                }
            }
        }
        if !assign_bank_swizzles(group) {
            clause.groups[g] = before;
        }
    }
}

/// An in-clause `PRED_SET*`: it updates the predicate, not the active mask.
fn in_clause_pred_set(i: &AluInst) -> bool {
    matches!(&i.form, AluForm::Op2(f) if f.update_pred && !f.update_exec_mask)
}

fn set_addr(inst: &mut CfInst, addr: u32) {
    if let CfInst::Cf(g) = inst {
        g.addr = addr;
    }
}

/// Builds the program of the scheduled, allocated items. Returns the
/// program and its STACK_SIZE.
///
/// # Errors
/// An internal error when a group can be neither swizzled nor split.
pub fn emit(
    items: &[SItem],
    alloc: &Allocation,
    chans: &Channels,
) -> Result<(Program, u32), CodegenError> {
    emit_mapped(items, alloc, chans).map(|(p, _)| p)
}

/// [`emit`], with the ALU clause each scheduled group landed in.
pub fn emit_mapped(
    items: &[SItem],
    alloc: &Allocation,
    chans: &Channels,
) -> Result<((Program, u32), ClauseMap), CodegenError> {
    let mut e = Emitter {
        alloc,
        chans,
        cf: Vec::new(),
        clauses: Vec::new(),
        depth_entries: 0,
        depth_subs: 0,
        stack: 0,
        tex_run: None,
        pos: 0,
        alu_clauses: 0,
        map: ClauseMap::default(),
    };
    e.items(items)?;
    // The last export is EXPORT_DONE and ends the program.
    let last_export = e.cf.iter().rposition(|c| matches!(c, CfInst::Export(_)));
    if let Some(i) = last_export
        && let CfInst::Export(x) = &mut e.cf[i]
    {
        x.op = CfExportOp::ExportDone;
    }
    let ends_here = match e.cf.last_mut() {
        Some(CfInst::Export(x)) => {
            x.io.flags.end_of_program = true;
            true
        }
        Some(CfInst::Mem(m)) => {
            m.io.flags.end_of_program = true;
            true
        }
        _ => false,
    };
    if !ends_here {
        let mut nop = CfGeneral::new(CfOp::Nop);
        nop.flags = CfFlags {
            end_of_program: true,
            barrier: true,
            ..CfFlags::default()
        };
        e.cf.push(CfInst::Cf(nop));
    }
    // Layout: CF program, ALU clauses, then TEX clauses at even qwords.
    let mut program = Program {
        cf: e.cf,
        ..Program::default()
    };
    let mut at = program.cf.len() as u32;
    let (alus, texs): (Vec<_>, Vec<_>) = e
        .clauses
        .into_iter()
        .partition(|(_, p)| matches!(p, Pending::Alu(_)));
    for (idx, p) in alus.into_iter().chain(texs) {
        match p {
            Pending::Alu(c) => {
                let slots = c.slots() as u32;
                if let CfInst::Alu(a) = &mut program.cf[idx] {
                    a.addr = AluClauseAddr::new(at).unwrap_or_default();
                    a.count = AluSlotCount::new(slots).unwrap_or(AluSlotCount::ONE);
                }
                program.clauses.insert(at, Clause::Alu(c));
                at += slots;
            }
            Pending::Tex(v) => {
                at += at % 2;
                let n = v.len() as u32;
                if let CfInst::Cf(g) = &mut program.cf[idx] {
                    g.addr = at;
                    g.count = FetchCount::new(n).unwrap_or(FetchCount::ONE);
                }
                program
                    .clauses
                    .insert(at, Clause::Fetch(FetchClause::Tex(v)));
                at += 2 * n;
            }
        }
    }
    Ok(((program, e.stack), e.map))
}
