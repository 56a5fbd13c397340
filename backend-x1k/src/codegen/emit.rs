//! Emission: scheduled bundles and the control tree to typed
//! [`isa::Inst`](crate::isa::Inst)s, with flow control laid out per CTM
//! §3.5.4 (the statement constructors of `isa::fc_statements`).
//!
//! Each ALU slot's sources are placed again with physical registers (the
//! same [`fit`] the scheduler used, which only gets easier when two
//! virtual registers share a physical one); lanes become swizzles through
//! the allocation's channels. Synchronisation is added afterwards by
//! [`super::hazards`].

use super::CodegenError;
use super::mir::{
    AluKind, Cond, Lane, LoopCount, Mir, MirOp, Node, OpId, Special, Src, TexKind, Transcendental,
};
use super::regalloc::Allocation;
use super::sched::{Bundle, Key, Need, fit, half_reads};
use crate::isa::{Addressing, BoolConstId};
use crate::isa::{
    AlphaHalf, AlphaInput, AlphaMask, AlphaOp, AluInst, AluResult, AluResultSel, AluSource,
    Channel, ConstAddr, ConstReg, DynamicCondition, ElseBranch, FcInst, FcStatement, InlineConst,
    InputSelect, Inst, LoopKind, OutputModifier, OutputWrites, RenderTarget, RgbHalf, RgbInput,
    RgbMask, RgbOp, Swizzle, TempAddr, TexInst, TexOp, TexOperand, UmrtTarget,
};
use crate::isa::{AluWrites, BranchPopCount, IntConstId, SlotIndex};

/// A jump target, resolved after layout.
#[derive(Clone, Copy)]
enum Target {
    /// Slot index known.
    Slot(usize),
    /// The slot after label n.
    AfterLabel(usize),
}

/// The emitter's state.
struct Emitter<'a> {
    mir: &'a Mir,
    alloc: &'a Allocation,
    blocks: &'a [Vec<Bundle>],
    block: usize,
    insts: Vec<Inst>,
    fixups: Vec<(usize, Target)>,
    labels: Vec<usize>,
    /// If-frames inside the innermost loop (BREAK pop counts).
    frames: u32,
    loop_kind: Vec<LoopKind>,
    loop_end_labels: Vec<usize>,
    /// The bundle each ALU/TEX instruction was emitted from.
    origin: Vec<Option<Bundle>>,
}

/// Emits the program; returns the instructions and, for each, the bundle
/// it was emitted from (`None` for flow control).
pub fn emit(
    mir: &Mir,
    alloc: &Allocation,
    blocks: &[Vec<Bundle>],
) -> Result<(Vec<Inst>, Vec<Option<Bundle>>), CodegenError> {
    let mut e = Emitter {
        mir,
        alloc,
        blocks,
        block: 0,
        insts: Vec::new(),
        fixups: Vec::new(),
        labels: Vec::new(),
        frames: 0,
        loop_kind: Vec::new(),
        loop_end_labels: Vec::new(),
        origin: Vec::new(),
    };
    e.nodes(&mir.body)?;
    for (i, t) in std::mem::take(&mut e.fixups) {
        let slot = match t {
            Target::Slot(s) => s,
            Target::AfterLabel(l) => e.labels[l] + 1,
        };
        if let Inst::Fc(fc) = &mut e.insts[i] {
            fc.jump_addr = SlotIndex::new(slot as u32).unwrap_or_default();
        }
    }
    let mut origin = e.origin;
    origin.resize(e.insts.len(), None);
    Ok((e.insts, origin))
}

/// The blocks in `nodes` and the nodes nested in them.
fn blocks_in(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::Block(_) => 1,
            Node::If { then, else_, .. } => blocks_in(then) + blocks_in(else_),
            Node::Loop { body, .. } => blocks_in(body),
            Node::Break { .. } => 0,
        })
        .sum()
}

fn internal(rule: &'static str, detail: impl Into<String>) -> CodegenError {
    CodegenError::internal(rule, detail)
}

impl Emitter<'_> {
    fn new_label(&mut self) -> usize {
        self.labels.push(usize::MAX);
        self.labels.len() - 1
    }

    fn fc(&mut self, inst: FcInst, target: Target) {
        self.fixups.push((self.insts.len(), target));
        self.insts.push(Inst::Fc(inst));
    }

    fn nodes(&mut self, nodes: &[Node]) -> Result<(), CodegenError> {
        for n in nodes {
            match n {
                Node::Block(_) => {
                    let bundles = self.blocks.get(self.block).cloned().unwrap_or_default();
                    self.block += 1;
                    for b in bundles {
                        let inst = self.bundle(&b)?;
                        self.origin.resize(self.insts.len(), None);
                        self.origin.push(Some(b));
                        self.insts.push(inst);
                    }
                }
                Node::If {
                    cond,
                    invert,
                    then,
                    else_,
                } => self.if_node(*cond, *invert, then, else_)?,
                Node::Loop { count, body } => {
                    let (start, end, kind, int) = match *count {
                        LoopCount::Rep(i) => (
                            FcStatement::Rep as fn(IntConstId) -> FcStatement,
                            FcStatement::EndRep as fn(IntConstId) -> FcStatement,
                            LoopKind::Rep,
                            i,
                        ),
                        LoopCount::Loop(i) => (
                            FcStatement::Loop as fn(IntConstId) -> FcStatement,
                            FcStatement::EndLoop as fn(IntConstId) -> FcStatement,
                            LoopKind::Loop,
                            i,
                        ),
                    };
                    let id = IntConstId::new(int as u32)
                        .ok_or_else(|| internal("int-const", "index"))?;
                    let end_label = self.new_label();
                    let head = self.insts.len();
                    self.fc(
                        start(id).inst(SlotIndex::default()),
                        Target::AfterLabel(end_label),
                    );
                    let saved = std::mem::replace(&mut self.frames, 0);
                    self.loop_kind.push(kind);
                    self.loop_end_labels.push(end_label);
                    self.nodes(body)?;
                    self.loop_end_labels.pop();
                    self.loop_kind.pop();
                    self.frames = saved;
                    self.labels[end_label] = self.insts.len();
                    self.fc(end(id).inst(SlotIndex::default()), Target::Slot(head + 1));
                }
                Node::Break { cond, invert } => {
                    let Some(&end_label) = self.loop_end_labels.last() else {
                        return Err(internal("break-in-loop", "BREAK outside a loop"));
                    };
                    let innermost = *self.loop_kind.last().unwrap_or(&LoopKind::Rep);
                    let frames = BranchPopCount::new(self.frames)
                        .ok_or_else(|| internal("branch-depth", "pop count"))?;
                    let (condition, func) = match (cond, invert) {
                        (Cond::Always, true) => continue,
                        (Cond::Always, false) => (None, None),
                        (Cond::AluResult { .. } | Cond::Func { .. }, inv) => {
                            let t = self.true_func(cond);
                            (
                                Some(crate::isa::FcCondition::AluResult),
                                Some(if *inv { !t } else { t }),
                            )
                        }
                        (Cond::Bool(b), inv) => (
                            Some(crate::isa::FcCondition::Bool(
                                BoolConstId::new(*b as u32).unwrap_or_default(),
                            )),
                            Some(if *inv { 0x55 } else { 0xAA }),
                        ),
                    };
                    let mut inst = FcStatement::Break {
                        condition,
                        innermost,
                        frames,
                    }
                    .inst(SlotIndex::default());
                    if let Some(f) = func {
                        inst.jump_func = f;
                    }
                    self.func_inputs(*cond, &mut inst);
                    inst.alu_wait = matches!(cond, Cond::AluResult { .. } | Cond::Func { .. });
                    self.fc(inst, Target::AfterLabel(end_label));
                }
            }
        }
        Ok(())
    }

    fn if_node(
        &mut self,
        cond: Cond,
        invert: bool,
        then: &[Node],
        else_: &[Node],
    ) -> Result<(), CodegenError> {
        match cond {
            Cond::Always => {
                // Blocks are numbered in tree order (scheduling and
                // allocation saw both branches): step over the other one.
                let (taken, skipped, first) = if invert {
                    (else_, then, false)
                } else {
                    (then, else_, true)
                };
                if first {
                    self.nodes(taken)?;
                    self.block += blocks_in(skipped);
                } else {
                    self.block += blocks_in(skipped);
                    self.nodes(taken)?;
                }
                Ok(())
            }
            Cond::Bool(b) => {
                // Static branch (CTM §3.5.4 "IF b"): no branch counters.
                let b = BoolConstId::new(b as u32).unwrap_or_default();
                let mut ifb = FcStatement::IfStatic(b).inst(SlotIndex::default());
                if invert {
                    ifb.jump_func = 0xAA;
                }
                let else_label = self.new_label();
                let end_label = self.new_label();
                let if_at = self.insts.len();
                self.insts.push(Inst::Fc(ifb));
                self.nodes(then)?;
                if else_.is_empty() {
                    self.fixups.push((if_at, Target::Slot(self.insts.len())));
                } else {
                    self.labels[else_label] = self.insts.len();
                    self.fc(
                        FcStatement::ElseStatic.inst(SlotIndex::default()),
                        Target::AfterLabel(end_label),
                    );
                    self.fixups.push((if_at, Target::AfterLabel(else_label)));
                    self.nodes(else_)?;
                    self.labels[end_label] = self.insts.len() - 1;
                }
                Ok(())
            }
            Cond::AluResult { .. } | Cond::Func { .. } if else_.is_empty() => {
                self.if_chain(cond, invert, then)
            }
            Cond::AluResult { .. } | Cond::Func { .. } => {
                let else_branch = if else_.is_empty() {
                    ElseBranch::Absent
                } else {
                    ElseBranch::Present
                };
                let mut inst = FcStatement::If {
                    condition: DynamicCondition::AluResult,
                    else_branch,
                }
                .inst(SlotIndex::default());
                let t = self.true_func(&cond);
                inst.jump_func = if invert { t } else { !t };
                self.func_inputs(cond, &mut inst);
                inst.alu_wait = true;
                let else_label = self.new_label();
                let end_label = self.new_label();
                let if_at = self.insts.len();
                self.insts.push(Inst::Fc(inst));
                self.frames += 1;
                self.nodes(then)?;
                if !else_.is_empty() {
                    self.labels[else_label] = self.insts.len();
                    self.fc(
                        FcStatement::Else.inst(SlotIndex::default()),
                        Target::AfterLabel(end_label),
                    );
                    self.fixups.push((if_at, Target::AfterLabel(else_label)));
                    self.nodes(else_)?;
                } else {
                    self.fixups.push((if_at, Target::AfterLabel(end_label)));
                }
                self.frames -= 1;
                self.labels[end_label] = self.insts.len();
                let one = BranchPopCount::new(1).unwrap_or_default();
                self.insts.push(Inst::Fc(
                    FcStatement::EndIf { frames: one }.inst(SlotIndex::default()),
                ));
                Ok(())
            }
        }
    }

    /// A dynamic IF without ELSE, and the IFs without ELSE that end its
    /// body (each the last node of the one before): one ENDIF closes them
    /// all (CTM §3.5.5). The k-th nested IF jumps to that ENDIF's
    /// successor popping the k blocks around it (`B_OP1` = DECR,
    /// `B_POP_CNT` = k); the ENDIF pops every block of the chain.
    fn if_chain(&mut self, cond: Cond, invert: bool, then: &[Node]) -> Result<(), CodegenError> {
        let mut chain: Vec<(Cond, bool, &[Node])> = vec![(cond, invert, then)];
        loop {
            let (_, _, body) = chain[chain.len() - 1];
            match body.last() {
                Some(Node::If {
                    cond: c @ (Cond::AluResult { .. } | Cond::Func { .. }),
                    invert,
                    then,
                    else_,
                }) if else_.is_empty() => chain.push((*c, *invert, then)),
                _ => break,
            }
        }
        let end_label = self.new_label();
        let n = chain.len();
        for (k, &(cond, invert, body)) in chain.iter().enumerate() {
            let mut inst = FcStatement::If {
                condition: DynamicCondition::AluResult,
                else_branch: ElseBranch::Absent,
            }
            .inst(SlotIndex::default());
            let t = self.true_func(&cond);
            inst.jump_func = if invert { t } else { !t };
            self.func_inputs(cond, &mut inst);
            inst.alu_wait = true;
            if k > 0 {
                inst.b_op1 = crate::isa::BranchOp::Decr;
                inst.b_pop_cnt = BranchPopCount::new(k as u32)
                    .ok_or_else(|| internal("branch-depth", "merged IF pop count"))?;
            }
            self.fc(inst, Target::AfterLabel(end_label));
            self.frames += 1;
            let own = if k + 1 < n {
                &body[..body.len() - 1]
            } else {
                body
            };
            self.nodes(own)?;
        }
        self.frames -= n as u32;
        self.labels[end_label] = self.insts.len();
        let frames = BranchPopCount::new(n as u32)
            .ok_or_else(|| internal("branch-depth", "merged ENDIF pop count"))?;
        self.insts.push(Inst::Fc(
            FcStatement::EndIf { frames }.inst(SlotIndex::default()),
        ));
        Ok(())
    }

    /// `JUMP_FUNC` for "jump when the condition holds" (CTM §3.5.3).
    fn true_func(&self, cond: &Cond) -> u8 {
        match cond {
            Cond::Func { table, .. } => *table,
            Cond::Bool(_) => 0xAA,
            Cond::Always => 0xFF,
            Cond::AluResult { .. } => 0xF0,
        }
    }

    /// The predicate bit and boolean constant a combined condition reads:
    /// the bit of the unit its comparison ran on (r or a), replicated as
    /// flow control requires (CTM §3.5.1).
    fn func_inputs(&self, cond: Cond, inst: &mut FcInst) {
        if let Cond::Func { pred, boolean, .. } = cond {
            if let Some(p) = pred {
                let channel = match self.mir.op(p).unit {
                    crate::codegen::mir::Unit::Alpha => Channel::A,
                    _ => Channel::R,
                };
                inst.predicate = Some(crate::isa::FcPredicate {
                    channel,
                    invert: false,
                });
            }
            if let Some(b) = boolean {
                inst.bool_addr = BoolConstId::new(b as u32).unwrap_or_default();
            }
        }
    }

    /// The channel of lane `l` of a source.
    fn channel(
        &self,
        src: Src,
        l: u8,
        presub: Option<&(
            crate::isa::PresubOp,
            crate::codegen::mir::Operand,
            crate::codegen::mir::Operand,
        )>,
    ) -> Result<u8, CodegenError> {
        match src {
            Src::Reg(v) => self
                .alloc
                .of(v)
                .map(|(_, c)| c[l as usize & 3])
                .ok_or_else(|| internal("allocated", format!("{v:?} has no register"))),
            Src::Const { .. } => Ok(l & 3),
            Src::Inline(_) | Src::None => Ok(0),
            Src::Presub => {
                let reg = presub.and_then(|(_, a, b)| {
                    [b.src, a.src]
                        .into_iter()
                        .find(|s| matches!(s, Src::Reg(_)))
                });
                match reg {
                    Some(r) => self.channel(r, l, None),
                    None => Ok(l & 3),
                }
            }
        }
    }

    fn swizzle(
        &self,
        lane: Lane,
        src: Src,
        half_alpha: bool,
        presub: Option<&(
            crate::isa::PresubOp,
            crate::codegen::mir::Operand,
            crate::codegen::mir::Operand,
        )>,
    ) -> Result<Swizzle, CodegenError> {
        Ok(match lane {
            Lane::Zero => Swizzle::Zero,
            Lane::Half => Swizzle::Half,
            Lane::One => Swizzle::One,
            Lane::Of(l) => match src {
                Src::Inline(_) => {
                    if half_alpha {
                        Swizzle::A
                    } else {
                        Swizzle::R
                    }
                }
                Src::None => Swizzle::Zero,
                _ => match self.channel(src, l, presub)? {
                    0 => Swizzle::R,
                    1 => Swizzle::G,
                    2 => Swizzle::B,
                    _ => Swizzle::A,
                },
            },
        })
    }

    fn key(&self, src: Src) -> Result<Option<Key<u8>>, CodegenError> {
        Ok(match src {
            Src::Reg(v) => Some(Key::Temp(
                self.alloc
                    .of(v)
                    .map(|(r, _)| r)
                    .ok_or_else(|| internal("allocated", format!("{v:?}")))?,
            )),
            Src::Const { index, relative } => Some(Key::Const(index, relative)),
            Src::Inline(c) => Some(Key::Inline(c)),
            _ => None,
        })
    }

    /// Result lanes of a half, in order.
    fn half_lanes(op: &MirOp, half_alpha: bool) -> Vec<usize> {
        match (op.alu, half_alpha) {
            (Some(AluKind::Trans(_)), false) => vec![0],
            (Some(AluKind::Dp2 | AluKind::Dp3 | AluKind::Dp4), false) => vec![0],
            (_, true) if op.width == 4 => vec![3],
            (_, true) => vec![0],
            (_, false) => (0..op.width.min(3) as usize).collect(),
        }
    }

    /// The register channels a half's result lanes are defined in:
    /// (lane, channel), from the allocation.
    fn temp_channels(
        &self,
        op: &MirOp,
        half_alpha: bool,
    ) -> Result<Vec<(usize, u8)>, CodegenError> {
        let Some((v, dl)) = op.dest else {
            return Ok(Vec::new());
        };
        let (_, chans) = self
            .alloc
            .of(v)
            .ok_or_else(|| internal("allocated", format!("{v:?}")))?;
        Ok(Self::half_lanes(op, half_alpha)
            .iter()
            .map(|&l| (l, chans[(dl as usize + l) & 3]))
            .collect())
    }

    /// The render-target channels a half's result lanes go to: lane l to
    /// the target's channel `first + l` (RGB channels only on the RGB
    /// unit, CTM §3.3.8); empty for an op writing no output.
    fn output_channels(op: &MirOp, half_alpha: bool) -> Vec<(usize, u8)> {
        let Special::Output(_, first) = op.special else {
            return Vec::new();
        };
        Self::half_lanes(op, half_alpha)
            .iter()
            .map(|&l| {
                (
                    l,
                    if half_alpha {
                        3
                    } else {
                        (first as usize + l) as u8
                    },
                )
            })
            .filter(|&(_, c)| half_alpha || c < 3)
            .collect()
    }

    /// The channels the RGB half computes, each with its result lane: the
    /// register's and the target's. One instruction computes one value per
    /// channel (CTM §3.3.3), so a channel both want must hold one lane;
    /// `out_reg` pins the register's channels so that they agree.
    /// An op writing neither (a compare setting the ALU result or a
    /// predicate) computes lane l in channel l.
    fn computed_channels(
        op: &MirOp,
        temp: &[(usize, u8)],
        out: &[(usize, u8)],
    ) -> Result<Vec<(usize, u8)>, CodegenError> {
        if temp.is_empty() && out.is_empty() {
            return Ok(Self::half_lanes(op, false)
                .into_iter()
                .map(|l| (l, l as u8))
                .filter(|&(_, c)| c < 3)
                .collect());
        }
        let mut all: Vec<(usize, u8)> = temp.to_vec();
        for &(l, c) in out {
            match all.iter().find(|&&(_, d)| d == c) {
                Some(&(k, _)) if k != l => {
                    return Err(internal(
                        "output-channels",
                        format!(
                            "channel {c} holds lane {k} of the register and lane {l} of the output"
                        ),
                    ));
                }
                Some(_) => {}
                None => all.push((l, c)),
            }
        }
        Ok(all)
    }

    fn bundle(&mut self, b: &Bundle) -> Result<Inst, CodegenError> {
        if let Some(t) = b.tex {
            return self.tex(self.mir.op(t));
        }
        // Source needs with physical keys.
        let mut needs: Vec<Need<u8>> = Vec::new();
        let mut where_: Vec<(bool, usize, usize)> = Vec::new(); // (alpha half, arg, need idx)
        let mut presub_pins: Vec<bool> = Vec::new();
        for (half_alpha, id) in [(false, b.rgb), (true, b.alpha)] {
            let Some(id) = id else { continue };
            let op = self.mir.op(id);
            for (i, lanes) in half_reads(op, half_alpha) {
                let arg = op.args[i];
                let mut nd = Need {
                    rgb: None,
                    alpha: None,
                    pinned: None,
                };
                for l in lanes {
                    let Lane::Of(l) = l else { continue };
                    let Some(key) = self.key(arg.src)? else {
                        continue;
                    };
                    let ch = match arg.src {
                        Src::Inline(_) => {
                            if half_alpha {
                                3
                            } else {
                                0
                            }
                        }
                        s => self.channel(s, l, None)?,
                    };
                    if ch == 3 {
                        nd.alpha = Some(key)
                    } else {
                        nd.rgb = Some(key)
                    }
                }
                if nd.rgb.is_some() || nd.alpha.is_some() {
                    where_.push((half_alpha, i, needs.len()));
                    needs.push(nd);
                }
            }
            if let Some((_, s0, s1)) = &op.presub {
                for (pin, s) in [(0u8, s0), (1u8, s1)] {
                    if let Some(key) = self.key(s.src)? {
                        needs.push(Need {
                            rgb: (!half_alpha).then_some(key),
                            alpha: half_alpha.then_some(key),
                            pinned: Some(pin),
                        });
                        presub_pins.push(half_alpha);
                    }
                }
            }
        }
        let (assign, slots) = fit(&needs)
            .ok_or_else(|| internal("source-slots", "sources do not fit after allocation"))?;
        let sel_of = |half_alpha: bool, arg: usize| -> InputSelect {
            where_
                .iter()
                .find(|(h, a, _)| *h == half_alpha && *a == arg)
                .map(|&(_, _, n)| match assign[n] {
                    0 => InputSelect::Src0,
                    1 => InputSelect::Src1,
                    _ => InputSelect::Src2,
                })
                .unwrap_or(InputSelect::Src0)
        };
        let source = |k: Option<Key<u8>>| -> AluSource {
            match k {
                Some(Key::Temp(r)) => {
                    AluSource::Temp(TempAddr::absolute(r as u32).unwrap_or_default())
                }
                Some(Key::Const(i, rel)) => AluSource::Const(ConstAddr {
                    reg: ConstReg::new(i as u32).unwrap_or_default(),
                    addressing: if rel {
                        Addressing::LoopRelative
                    } else {
                        Addressing::Absolute
                    },
                }),
                Some(Key::Inline(c)) => {
                    AluSource::Inline(InlineConst::new(c as u32).unwrap_or(InlineConst::CODE_0))
                }
                None => AluSource::UNUSED,
            }
        };
        let mut inst = AluInst::default();
        inst.rgb.sources = [source(slots[0].0), source(slots[1].0), source(slots[2].0)];
        inst.alpha.sources = [source(slots[0].1), source(slots[1].1), source(slots[2].1)];
        let mut out = OutputWrites::default();
        let mut is_out = false;
        let mut preds = crate::isa::PredicateWrites::default();
        // RGB half.
        if let Some(id) = b.rgb {
            let op = self.mir.op(id);
            let temp_chans = self.temp_channels(op, false)?;
            let out_chans = Self::output_channels(op, false);
            let chans = Self::computed_channels(op, &temp_chans, &out_chans)?;
            let kind = op
                .alu
                .ok_or_else(|| internal("alu-op", "texture op in an ALU slot"))?;
            inst.rgb.op = match kind {
                AluKind::Mad => RgbOp::Mad,
                AluKind::Min => RgbOp::Min,
                AluKind::Max => RgbOp::Max,
                AluKind::Cmp => RgbOp::Cmp,
                AluKind::Cnd => RgbOp::Cnd,
                AluKind::Frc => RgbOp::Frc,
                AluKind::Dp2 => RgbOp::D2a,
                AluKind::Dp3 => RgbOp::Dp3,
                AluKind::Dp4 => RgbOp::Dp4,
                AluKind::Trans(_) => RgbOp::Sop,
            };
            if !matches!(kind, AluKind::Trans(_)) {
                for (i, arg) in op.args.iter().enumerate().take(3) {
                    let mut swz = [Swizzle::Zero; 3];
                    let lanes_read: Vec<(usize, u8)> = match kind {
                        AluKind::Dp2 => vec![(0, 0), (1, 1)],
                        AluKind::Dp3 | AluKind::Dp4 => vec![(0, 0), (1, 1), (2, 2)],
                        _ => chans.clone(),
                    };
                    for (lane, ch) in lanes_read {
                        swz[ch as usize & 3] =
                            self.swizzle(arg.lanes[lane], arg.src, false, op.presub.as_ref())?;
                    }
                    inst.rgb.inputs[i] = RgbInput {
                        sel: if arg.src == Src::Presub {
                            InputSelect::Srcp
                        } else {
                            sel_of(false, i)
                        },
                        swizzle: swz,
                        modifier: arg.modifier,
                    };
                }
            }
            if kind == AluKind::Dp2 {
                // D2A adds C.b: read 0 there.
                inst.rgb.inputs[2].swizzle = [Swizzle::Zero; 3];
            }
            if let Some((p, _, _)) = op.presub {
                inst.rgb.presub = p;
            }
            // A DP4 (or a transcendental) computed into an alpha channel
            // writes it by the alpha unit only.
            let mask_of = |chans: &[(usize, u8)]| -> u32 {
                chans
                    .iter()
                    .filter(|&&(_, c)| c < 3)
                    .fold(0, |m, &(_, c)| m | (1 << c))
            };
            let mask = mask_of(&temp_chans);
            match op.special {
                Special::Output(k, _) => {
                    is_out = true;
                    out.rgb_mask = RgbMask::new(mask_of(&out_chans)).unwrap_or(RgbMask::NONE);
                    out.rgb_target = target(k);
                }
                Special::Umrt => {
                    is_out = true;
                    out.rgb_mask = RgbMask::RGB;
                    out.rgb_target = UmrtTarget::PerProcessorIdx.target();
                    out.alpha_mask = AlphaMask::On;
                }
                Special::AluResult(c) => {
                    inst.alu_result = Some(AluResult {
                        sel: AluResultSel::Red,
                        op: c,
                    });
                }
                Special::Predicate(c) => {
                    preds.rgb_mask = RgbMask::new(1).unwrap_or(RgbMask::NONE);
                    preds.rgb_op = c;
                }
                Special::None => {}
            }
            if let Some((v, _)) = op.dest {
                let (reg, _) = self
                    .alloc
                    .of(v)
                    .ok_or_else(|| internal("allocated", format!("{v:?}")))?;
                inst.rgb.dest = TempAddr::absolute(reg as u32).unwrap_or_default();
                inst.rgb.write_mask = RgbMask::new(mask).unwrap_or(RgbMask::NONE);
            }
            inst.rgb.omod = output_modifier(op);
            inst.rgb.clamp = op.clamp;
        }
        // Alpha half.
        if let Some(id) = b.alpha {
            let op = self.mir.op(id);
            let kind = op
                .alu
                .ok_or_else(|| internal("alu-op", "texture op in an ALU slot"))?;
            inst.alpha.op = match kind {
                AluKind::Mad => AlphaOp::Mad,
                AluKind::Min => AlphaOp::Min,
                AluKind::Max => AlphaOp::Max,
                AluKind::Cmp => AlphaOp::Cmp,
                AluKind::Cnd => AlphaOp::Cnd,
                AluKind::Frc => AlphaOp::Frc,
                AluKind::Dp2 | AluKind::Dp3 | AluKind::Dp4 => AlphaOp::Dp,
                AluKind::Trans(t) => match t {
                    Transcendental::Ex2 => AlphaOp::Ex2,
                    Transcendental::Ln2 => AlphaOp::Ln2,
                    Transcendental::Rcp => AlphaOp::Rcp,
                    Transcendental::Rsq => AlphaOp::Rsq,
                    Transcendental::Sin => AlphaOp::Sin,
                    Transcendental::Cos => AlphaOp::Cos,
                },
            };
            let lane = if op.width == 4 || kind == AluKind::Dp4 {
                3
            } else {
                0
            };
            if op.special == Special::Umrt {
                inst.alpha.op = AlphaOp::Max;
                inst.alpha.inputs = [AlphaInput {
                    sel: InputSelect::Src0,
                    swizzle: Swizzle::Zero,
                    modifier: crate::isa::InputModifier::None,
                }; 3];
            } else {
                let arity = match kind {
                    AluKind::Frc | AluKind::Trans(_) => 1,
                    AluKind::Min | AluKind::Max | AluKind::Dp2 | AluKind::Dp3 | AluKind::Dp4 => 2,
                    _ => 3,
                };
                for (i, arg) in op.args.iter().enumerate().take(arity) {
                    if matches!(kind, AluKind::Dp2 | AluKind::Dp3) {
                        break;
                    }
                    inst.alpha.inputs[i] = AlphaInput {
                        sel: if arg.src == Src::Presub {
                            InputSelect::Srcp
                        } else {
                            sel_of(true, i)
                        },
                        swizzle: self.swizzle(
                            arg.lanes[lane],
                            arg.src,
                            true,
                            op.presub.as_ref(),
                        )?,
                        modifier: arg.modifier,
                    };
                }
            }
            if let Some((p, _, _)) = op.presub
                && (b.rgb != b.alpha || presub_pins.contains(&true))
            {
                inst.alpha.presub = p;
            }
            // The alpha half writes a destination in channel a (below):
            // a transcendental's, whether or not `SOP` also copies it to an
            // RGB target channel, and DP4's.
            let alpha_writes_dest = !matches!(kind, AluKind::Dp2 | AluKind::Dp3);
            match op.special {
                Special::Output(k, first) if op.width == 4 || first == 3 => {
                    is_out = true;
                    out.alpha_mask = AlphaMask::On;
                    out.alpha_target = target(k);
                }
                Special::AluResult(c) if b.rgb != b.alpha => {
                    inst.alu_result = Some(AluResult {
                        sel: AluResultSel::Alpha,
                        op: c,
                    });
                }
                Special::Predicate(c) if b.rgb != b.alpha => {
                    preds.alpha_mask = AlphaMask::On;
                    preds.alpha_op = c;
                }
                _ => {}
            }
            if alpha_writes_dest && let Some((v, dl)) = op.dest {
                let (reg, chans) = self
                    .alloc
                    .of(v)
                    .ok_or_else(|| internal("allocated", format!("{v:?}")))?;
                let lane_here = if op.width == 4 { 3 } else { 0 };
                if chans[(dl as usize + lane_here) & 3] == 3 {
                    inst.alpha.dest = TempAddr::absolute(reg as u32).unwrap_or_default();
                    inst.alpha.write_mask = AlphaMask::On;
                }
            }
            inst.alpha.omod = output_modifier(op);
            inst.alpha.clamp = op.clamp;
        }
        if is_out {
            if !preds.rgb_mask.is_empty() || preds.alpha_mask.is_on() {
                return Err(internal(
                    "output-predicate",
                    "an OUT instruction cannot set predicate bits (CTM §3.1)",
                ));
            }
            inst.writes = AluWrites::Output(out);
        } else {
            inst.writes = AluWrites::Predicate(preds);
        }
        Ok(Inst::Alu(inst))
    }

    fn tex(&self, op: &MirOp) -> Result<Inst, CodegenError> {
        let arg = op
            .args
            .first()
            .ok_or_else(|| internal("tex-operand", "no coordinates"))?;
        let Src::Reg(src) = arg.src else {
            return Err(internal("tex-operand", "coordinates not in a temporary"));
        };
        let (sreg, schans) = self
            .alloc
            .of(src)
            .ok_or_else(|| internal("allocated", format!("{src:?}")))?;
        let ch = |l: Lane| match l {
            Lane::Of(l) => channel(schans[l as usize & 3]),
            _ => Channel::R,
        };
        let mut inst = TexInst {
            src: TexOperand {
                addr: TempAddr::absolute(sreg as u32).unwrap_or_default(),
                swizzle: [
                    ch(arg.lanes[0]),
                    ch(arg.lanes[1]),
                    ch(arg.lanes[1]),
                    ch(arg.lanes[1]),
                ],
            },
            unscaled: true,
            ..TexInst::default()
        };
        match op.tex {
            Some(TexKind::Load { tex, fetched }) => {
                inst.op = TexOp::Ld;
                inst.tex_id = tex;
                let (v, _) = op
                    .dest
                    .ok_or_else(|| internal("tex-dest", "fetch without a destination"))?;
                let (reg, chans) = self
                    .alloc
                    .of(v)
                    .ok_or_else(|| internal("allocated", format!("{v:?}")))?;
                inst.dst = TempAddr::absolute(reg as u32).unwrap_or_default();
                let mut mask = 0u32;
                let mut dsw = [Channel::R, Channel::G, Channel::B, Channel::A];
                for (lane, &c) in chans.iter().enumerate().take(fetched as usize) {
                    let c = c as usize;
                    dsw[c] = channel(lane as u8);
                    if c == 3 {
                        inst.alpha_write_mask = AlphaMask::On;
                    } else {
                        mask |= 1 << c;
                    }
                }
                inst.dst_swizzle = dsw;
                inst.rgb_write_mask = RgbMask::new(mask).unwrap_or(RgbMask::NONE);
            }
            Some(TexKind::Kill) => {
                // KILL_LT_0 examines the written channels (CTM §3.4.1).
                inst.op = TexOp::TexKill;
                inst.alu_wait = true;
                let c = schans[match arg.lanes[0] {
                    Lane::Of(l) => l as usize & 3,
                    _ => 0,
                }];
                if c == 3 {
                    inst.alpha_write_mask = AlphaMask::On;
                } else {
                    inst.rgb_write_mask = RgbMask::new(1 << c).unwrap_or(RgbMask::NONE);
                }
                inst.dst = inst.src.addr;
            }
            None => return Err(internal("tex-op", "ALU op in a texture slot")),
        }
        Ok(Inst::Tex(inst))
    }
}

fn channel(c: u8) -> Channel {
    match c & 3 {
        0 => Channel::R,
        1 => Channel::G,
        2 => Channel::B,
        _ => Channel::A,
    }
}

fn target(k: u8) -> RenderTarget {
    match k {
        0 => RenderTarget::A,
        1 => RenderTarget::B,
        2 => RenderTarget::C,
        _ => RenderTarget::D,
    }
}

#[allow(dead_code)]
fn unused(_: OpId, _: RgbHalf, _: AlphaHalf) {}

/// The output modifier of `op` (CTM §3.3.5): disabled for bit-exact
/// moves, else the scale [`super::omod`] folded into it.
fn output_modifier(op: &MirOp) -> OutputModifier {
    match (op.omod_off, op.scale) {
        (true, _) => OutputModifier::Disabled,
        (false, 1) => OutputModifier::Mul2,
        (false, 2) => OutputModifier::Mul4,
        (false, 3) => OutputModifier::Mul8,
        (false, -1) => OutputModifier::Div2,
        (false, -2) => OutputModifier::Div4,
        (false, -3) => OutputModifier::Div8,
        (false, _) => OutputModifier::Mul1,
    }
}
