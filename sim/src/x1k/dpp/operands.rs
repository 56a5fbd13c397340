//! Operands of the fast engine (CTM §3.3.1–§3.3.3).
//!
//! At preparation, [`FastAlu::new`] decides once per instruction what each
//! unit computes and, for every input channel the computation reads,
//! where it comes from (a source channel, a presubtract channel, or the
//! swizzle constants 0, ½, 1) with its modifier — the select and swizzle
//! logic never runs again. Before the groups run, [`BoundAlu::bind_static`]
//! binds the instructions whose sources are all absolute to the run's
//! constants; the others are bound when they execute ([`resolve_sources`]
//! resolves aL-relative addresses in the reference's order, so the same
//! fault wins). [`View::input`] then hands each kernel its lanes: an unmodified temporary in place, a constant as one value
//! ([`In::Splat`]) where the kernel takes one, anything else built into a
//! scratch buffer.
//!
//! The arithmetic kernels (MAD, the dot products) take flushed inputs: a
//! temporary whose denormal bit ([`super::state::Group::denormal`]) is
//! clear is flushed already; one whose bit is set is flushed while it is
//! copied; a constant is flushed once.

use ctm_backend_x1k::isa::{
    AlphaOp, AluInst, AluSource, InputModifier, InputSelect, RgbOp, Swizzle,
};

use super::alu::Lanes;
use super::fault::FaultKind;
use super::fp;
use super::lanes::{self, DotOp, In, SelectOp};
use super::prepare::AluPlan;
use super::sources::relative;
use super::state::Group;
use super::transcendental::Transcendental;

/// One channel of a source vector, resolved.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Operand {
    /// Temporary channel `reg * 4 + ch`.
    Reg(usize),
    /// The same value for every processor.
    Uniform(f32),
}

/// A resolved source address.
#[derive(Clone, Copy)]
enum Address {
    /// A temporary in the frame.
    Temp(usize),
    /// A float constant's four channels.
    Const([f32; 4]),
    /// An inline constant.
    Inline(f32),
}

impl Address {
    fn channel(self, ch: usize) -> Operand {
        match self {
            Address::Temp(reg) => Operand::Reg(reg * 4 + ch),
            Address::Const(v) => Operand::Uniform(v[ch]),
            Address::Inline(v) => Operand::Uniform(v),
        }
    }
}

fn resolve(group: &Group, src: AluSource, consts: &[[f32; 4]]) -> Result<Address, FaultKind> {
    match src {
        AluSource::Temp(t) => {
            let reg = relative(group, t.reg.get(), t.addressing, 127)?;
            Ok(Address::Temp(group.check_temp(reg)?))
        }
        AluSource::Const(c) => {
            let idx = relative(group, c.reg.get(), c.addressing, 255)?;
            Ok(Address::Const(
                consts.get(idx as usize).copied().unwrap_or_default(),
            ))
        }
        AluSource::Inline(k) => Ok(Address::Inline(k.value())),
    }
}

/// src0..src2 for the channels the instruction reads. Addresses are
/// resolved in the reference's order — per source, RGB before alpha — so
/// the first fault is the same.
pub(crate) fn resolve_sources(
    group: &Group,
    plan: &AluPlan,
    consts: &[[f32; 4]],
) -> Result<[[Operand; 4]; 3], FaultKind> {
    let mut refs = [[Operand::Uniform(0.0); 4]; 3];
    for (k, row) in refs.iter_mut().enumerate() {
        let need = plan.src_need[k];
        if need & 7 != 0 {
            let a = resolve(group, plan.inst.rgb.sources[k], consts)?;
            for (ch, slot) in row.iter_mut().enumerate().take(3) {
                if need & (1 << ch) != 0 {
                    *slot = a.channel(ch);
                }
            }
        }
        if need & 8 != 0 {
            row[3] = resolve(group, plan.inst.alpha.sources[k], consts)?.channel(3);
        }
    }
    Ok(refs)
}

/// Where one input channel comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum InputSrc {
    /// Channel `ch` of source `k` (its RGB address for R, G, B, its alpha
    /// address for A).
    Source {
        /// The source, 0..=2.
        k: u8,
        /// The channel, 0..=3.
        ch: u8,
    },
    /// A channel of the presubtract vector.
    Srcp(u8),
    /// A swizzle constant: 0, ½ or 1.
    Value(f32),
}

/// One input channel: where from, and the input modifier.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InputSpec {
    /// Where the value comes from.
    pub src: InputSrc,
    /// The input modifier.
    pub modifier: InputModifier,
}

impl InputSpec {
    fn new(sel: InputSelect, swizzle: Swizzle, modifier: InputModifier) -> Self {
        let ch = match swizzle {
            Swizzle::R => 0,
            Swizzle::G => 1,
            Swizzle::B => 2,
            Swizzle::A => 3,
            Swizzle::Zero => return Self::value(0.0, modifier),
            Swizzle::Half => return Self::value(0.5, modifier),
            // `Unused` (code 7) is rejected at preparation for read inputs.
            Swizzle::One | Swizzle::Unused => return Self::value(1.0, modifier),
        };
        let src = match sel {
            InputSelect::Src0 => InputSrc::Source { k: 0, ch },
            InputSelect::Src1 => InputSrc::Source { k: 1, ch },
            InputSelect::Src2 => InputSrc::Source { k: 2, ch },
            InputSelect::Srcp => InputSrc::Srcp(ch),
        };
        InputSpec { src, modifier }
    }

    fn value(v: f32, modifier: InputModifier) -> Self {
        InputSpec {
            src: InputSrc::Value(v),
            modifier,
        }
    }
}

/// What the RGB unit computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RgbKind {
    /// A·B + C (MDH/MDV never execute: they fault at preparation).
    Mad,
    /// A dot product, broadcast.
    Dot,
    /// MIN, MAX, CND, CMP.
    Select(SelectOp),
    /// FRC.
    Frc,
    /// The alpha unit's transcendental.
    Sop,
}

/// What the alpha unit computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AlphaKind {
    /// A·B + C.
    Mad,
    /// The RGB unit's dot product.
    Dp,
    /// MIN, MAX, CND, CMP.
    Select(SelectOp),
    /// FRC.
    Frc,
    /// A transcendental.
    Transcendental,
}

/// The fast engine's prepared facts of one ALU/OUT instruction.
#[derive(Clone, Debug)]
pub(crate) struct FastAlu {
    /// The RGB computation.
    pub rgb: RgbKind,
    /// The alpha computation.
    pub alpha: AlphaKind,
    /// The dot product, when the RGB op is one.
    pub dot: Option<DotOp>,
    /// The dot product is computed (something reads it).
    pub dot_needed: bool,
    /// The transcendental is computed.
    pub trans_needed: bool,
    /// RGB inputs A, B, C by channel, where read.
    pub rgb_inputs: [[Option<InputSpec>; 3]; 3],
    /// Alpha inputs A, B, C, where read.
    pub alpha_inputs: [Option<InputSpec>; 3],
}

fn select_of_rgb(op: RgbOp) -> Option<SelectOp> {
    match op {
        RgbOp::Min => Some(SelectOp::Min),
        RgbOp::Max => Some(SelectOp::Max),
        RgbOp::Cnd => Some(SelectOp::Cnd),
        RgbOp::Cmp => Some(SelectOp::Cmp),
        _ => None,
    }
}

fn select_of_alpha(op: AlphaOp) -> Option<SelectOp> {
    match op {
        AlphaOp::Min => Some(SelectOp::Min),
        AlphaOp::Max => Some(SelectOp::Max),
        AlphaOp::Cnd => Some(SelectOp::Cnd),
        AlphaOp::Cmp => Some(SelectOp::Cmp),
        _ => None,
    }
}

impl FastAlu {
    /// The facts of `inst`, given the result channels something reads.
    pub fn new(
        inst: &AluInst,
        rgb_need: u8,
        alpha_need: bool,
        transcendental: Option<Transcendental>,
    ) -> Self {
        let (rgb_op, alpha_op) = (inst.rgb.op, inst.alpha.op);
        let dot = match rgb_op {
            RgbOp::Dp3 => Some(DotOp::Dp3),
            RgbOp::Dp4 => Some(DotOp::Dp4),
            RgbOp::D2a => Some(DotOp::D2a),
            _ => None,
        };
        let rgb = match (rgb_op, dot, select_of_rgb(rgb_op)) {
            (_, Some(_), _) => RgbKind::Dot,
            (_, _, Some(s)) => RgbKind::Select(s),
            (RgbOp::Frc, _, _) => RgbKind::Frc,
            (RgbOp::Sop, _, _) => RgbKind::Sop,
            _ => RgbKind::Mad,
        };
        let alpha = match (alpha_op, select_of_alpha(alpha_op)) {
            (_, Some(s)) => AlphaKind::Select(s),
            (AlphaOp::Dp, _) => AlphaKind::Dp,
            (AlphaOp::Frc, _) => AlphaKind::Frc,
            (AlphaOp::Mad | AlphaOp::Mdh | AlphaOp::Mdv, _) => AlphaKind::Mad,
            _ => AlphaKind::Transcendental,
        };
        let dot_needed = dot.is_some() && (rgb_need != 0 || (alpha == AlphaKind::Dp && alpha_need));
        let trans_needed =
            transcendental.is_some() && (alpha_need || (rgb == RgbKind::Sop && rgb_need != 0));

        // RGB input channels read, per input (CTM §3.3.3, §3.3.4).
        let in_need: [u8; 3] = match (rgb, dot) {
            (RgbKind::Dot, Some(DotOp::D2a)) if dot_needed => [3, 3, 4],
            (RgbKind::Dot, _) if dot_needed => [7, 7, 0],
            (RgbKind::Dot | RgbKind::Sop, _) => [0, 0, 0],
            (RgbKind::Frc, _) => [rgb_need, 0, 0],
            (RgbKind::Select(SelectOp::Min | SelectOp::Max), _) => [rgb_need, rgb_need, 0],
            (RgbKind::Select(_) | RgbKind::Mad, _) => [rgb_need; 3],
        };
        let rgb_inputs = std::array::from_fn(|k| {
            let input = &inst.rgb.inputs[k];
            std::array::from_fn(|i| {
                (in_need[k] & (1 << i) != 0)
                    .then(|| InputSpec::new(input.sel, input.swizzle[i], input.modifier))
            })
        });
        // Alpha inputs read: the op's own, the transcendental's A, DP4's A and B.
        let own = match alpha {
            AlphaKind::Mad | AlphaKind::Select(SelectOp::Cnd | SelectOp::Cmp) => [true; 3],
            AlphaKind::Select(_) => [true, true, false],
            AlphaKind::Frc => [true, false, false],
            AlphaKind::Dp | AlphaKind::Transcendental => [false; 3],
        }
        .map(|b| b && alpha_need);
        let dp4 = dot == Some(DotOp::Dp4) && dot_needed;
        let al_need = [own[0] || trans_needed || dp4, own[1] || dp4, own[2]];
        let alpha_inputs = std::array::from_fn(|k| {
            let input = &inst.alpha.inputs[k];
            al_need[k].then(|| InputSpec::new(input.sel, input.swizzle, input.modifier))
        });
        FastAlu {
            rgb,
            alpha,
            dot,
            dot_needed,
            trans_needed,
            rgb_inputs,
            alpha_inputs,
        }
    }
}

/// One input channel bound to a run's sources: a temporary channel, a
/// presubtract channel (each with its modifier), or a value (a constant
/// with its modifier applied).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Bound {
    /// Temporary channel `idx = reg * 4 + ch`.
    Reg {
        /// `reg * 4 + ch`.
        idx: usize,
        /// The input modifier.
        modifier: InputModifier,
    },
    /// A presubtract channel.
    Srcp {
        /// The channel.
        c: u8,
        /// The input modifier.
        modifier: InputModifier,
    },
    /// The same value for every processor, modifier applied.
    Value(f32),
}

/// An instruction's operands bound to resolved sources.
#[derive(Clone, Debug)]
pub(crate) struct BoundAlu {
    /// src0..src2 by channel (where read).
    pub refs: [[Operand; 4]; 3],
    /// RGB inputs A, B, C by channel (where read).
    pub rgb_inputs: [[Option<Bound>; 3]; 3],
    /// Alpha inputs A, B, C (where read).
    pub alpha_inputs: [Option<Bound>; 3],
}

fn bind_input(refs: &[[Operand; 4]; 3], spec: InputSpec) -> Bound {
    let modifier = spec.modifier;
    match spec.src {
        InputSrc::Value(v) => Bound::Value(fp::modify(v, modifier)),
        InputSrc::Srcp(c) => Bound::Srcp { c, modifier },
        InputSrc::Source { k, ch } => match refs[usize::from(k)][usize::from(ch)] {
            Operand::Reg(idx) => Bound::Reg { idx, modifier },
            Operand::Uniform(v) => Bound::Value(fp::modify(v, modifier)),
        },
    }
}

impl BoundAlu {
    /// Bind the inputs of `fast` to the sources `refs`.
    pub fn bind(refs: [[Operand; 4]; 3], fast: &FastAlu) -> Self {
        BoundAlu {
            refs,
            rgb_inputs: fast
                .rgb_inputs
                .map(|row| row.map(|s| s.map(|s| bind_input(&refs, s)))),
            alpha_inputs: fast.alpha_inputs.map(|s| s.map(|s| bind_input(&refs, s))),
        }
    }

    /// The binding of a whole run, made once before the groups run: only
    /// for an instruction whose sources are all absolute and valid (in the
    /// frame of `nregs` temporaries); the others are resolved — and fault —
    /// when they execute.
    pub fn bind_static(plan: &AluPlan, consts: &[[f32; 4]], nregs: usize) -> Option<Self> {
        use ctm_backend_x1k::isa::Addressing;
        let address = |src: AluSource| match src {
            AluSource::Temp(t) if t.addressing == Addressing::Absolute => {
                let reg = t.reg.get() as usize;
                (reg < nregs).then_some(Address::Temp(reg))
            }
            AluSource::Const(c) if c.addressing == Addressing::Absolute => Some(Address::Const(
                consts
                    .get(c.reg.get() as usize)
                    .copied()
                    .unwrap_or_default(),
            )),
            AluSource::Inline(k) => Some(Address::Inline(k.value())),
            _ => None,
        };
        let mut refs = [[Operand::Uniform(0.0); 4]; 3];
        for (k, row) in refs.iter_mut().enumerate() {
            let need = plan.src_need[k];
            if need & 7 != 0 {
                let a = address(plan.inst.rgb.sources[k])?;
                for (ch, slot) in row.iter_mut().enumerate().take(3) {
                    if need & (1 << ch) != 0 {
                        *slot = a.channel(ch);
                    }
                }
            }
            if need & 8 != 0 {
                row[3] = address(plan.inst.alpha.sources[k])?.channel(3);
            }
        }
        Some(Self::bind(refs, &plan.fast))
    }
}

/// Bindings of an instruction with aL-relative sources kept per aL value,
/// for this many aL values (the one modulo this count).
const AL_WAYS: usize = 64;

/// The bindings of instructions with aL-relative sources, by slot and aL
/// (fast engine): a binding depends only on aL and the run's constants, so
/// one made for a loop iteration serves the same iteration of every later
/// group of the run (each worker keeps its own).
#[derive(Clone, Debug, Default)]
pub(crate) struct RelativeCache {
    /// Per slot, the bindings kept, if any.
    slots: Vec<Option<Box<AlWays>>>,
}

/// The bindings of one slot, per aL modulo [`AL_WAYS`]: (aL, binding).
type AlWays = [Option<(i32, Box<BoundAlu>)>; AL_WAYS];

impl RelativeCache {
    fn way(al: i32) -> usize {
        al.rem_euclid(AL_WAYS as i32) as usize
    }

    /// Take the binding of `slot` for `al`, if kept.
    pub fn take(&mut self, slot: usize, al: i32) -> Option<Box<BoundAlu>> {
        let way = self.slots.get_mut(slot)?.as_mut()?.get_mut(Self::way(al))?;
        match way.take() {
            Some((kept, b)) if kept == al => Some(b),
            other => {
                *way = other;
                None
            }
        }
    }

    /// Keep `b` as the binding of `slot` for `al`.
    pub fn put(&mut self, slot: usize, al: i32, b: Box<BoundAlu>) {
        if self.slots.len() <= slot {
            self.slots.resize_with(slot + 1, || None);
        }
        if let Some(entry) = self.slots.get_mut(slot) {
            let ways = entry.get_or_insert_with(|| Box::new(std::array::from_fn(|_| None)));
            ways[Self::way(al)] = Some((al, b));
        }
    }
}

/// What operands are read from: the registers and their denormal bits,
/// the presubtract vector, the group's size.
pub(crate) struct View<'a> {
    /// The group's temporaries.
    pub regs: &'a [f32],
    /// Their denormal bits.
    pub denormal: &'a [u64; 8],
    /// The presubtract vector.
    pub srcp: &'a [Lanes; 4],
    /// Processors in the group.
    pub n: usize,
}

impl<'a> View<'a> {
    /// The lanes of input `b`, flushed if `flushed` (for the arithmetic
    /// kernels), a value as [`In::Splat`] unless `materialize`: an
    /// unmodified temporary or presubtract channel in place (a temporary
    /// only if it holds no denormal or need not be flushed), anything else
    /// built in `buf`.
    #[inline(always)]
    pub fn input(&self, b: Bound, flushed: bool, materialize: bool, buf: &'a mut Lanes) -> In<'a> {
        let n = self.n;
        let buf = &mut buf[..n];
        let (src, m): (&'a [f32], InputModifier) = match b {
            Bound::Value(v) => {
                let v = if flushed { lanes::flush(v) } else { v };
                return if materialize {
                    buf.fill(v);
                    In::Lanes(buf)
                } else {
                    In::Splat(v)
                };
            }
            Bound::Reg { idx, modifier } => {
                let src = &self.regs[idx * n..idx * n + n];
                if flushed && self.denormal[idx / 64] & (1 << (idx % 64)) != 0 {
                    lanes::modify_flush(buf, src, modifier);
                    return In::Lanes(buf);
                }
                (src, modifier)
            }
            // The presubtract vector is flushed.
            Bound::Srcp { c, modifier } => (&self.srcp[usize::from(c)][..n], modifier),
        };
        if m == InputModifier::None {
            In::Lanes(src)
        } else {
            lanes::modify(buf, src, m);
            In::Lanes(buf)
        }
    }
}

/// The lanes of a presubtract operand (a temporary or a uniform value).
pub(crate) fn presub_operand<'a>(
    regs: &'a [f32],
    n: usize,
    r: Operand,
    buf: &'a mut Lanes,
) -> &'a [f32] {
    match r {
        Operand::Reg(idx) => &regs[idx * n..idx * n + n],
        Operand::Uniform(v) => {
            buf[..n].fill(v);
            &buf[..n]
        }
    }
}
