//! ALU and OUTPUT instructions over a whole group (CTM §3.3), the fast
//! engine: operand resolution, the RGB and alpha operations, output
//! modifiers and clamp, and the writes — temporaries (write masks,
//! predication, aL-relative destination), predicate bits, the ALU result,
//! cached render targets, UMRT writes and the `W_OMASK` conditional value.
//!
//! How it is fast without changing a result (the reference it must match
//! bit for bit is [`super::reference`]):
//!
//! * each source address is resolved once per instruction, in the
//!   reference's order (so the same fault wins), and the texture-hazard
//!   checks are skipped when no lookup is outstanding (none can fail);
//! * an unmodified temporary is read in place, not copied; constants and
//!   modified inputs are built once into scratch lanes;
//! * only the result channels something reads are computed
//!   (`AluPlan::rgb_out_need`), a dot product or transcendental once;
//! * the arithmetic runs in the vectorised kernels of [`super::lanes`];
//! * writes use lane masks computed once per channel, not per lane.

use ctm_backend_x1k::isa::{
    AlphaOp, AluResultSel, AluSource, AluWrites, InputModifier, InputSelect, PredSel, Predicate,
    RgbOp, Swizzle, UmrtTarget,
};

use super::Engine;
use super::fault::{Access, FaultKind};
use super::fp;
use super::lanes::{self, DotInputs, DotOp, SelectOp};
use super::prepare::AluPlan;
use super::sources::{check_tex_ready, relative};
use super::state::{Group, LaneMask, MAX_GROUP_SIZE};
use crate::x1k::interface::UmrtWrite;

/// One value per processor of a group.
pub(crate) type Lanes = [f32; MAX_GROUP_SIZE];

/// Zero lanes, for inputs an operation does not read.
static ZEROS: Lanes = [0.0; MAX_GROUP_SIZE];

/// Per-group scratch buffers of the ALU, reused by every instruction
/// (allocated once per group, never zeroed between instructions: every
/// buffer is written for the lanes read).
#[derive(Clone, Debug)]
pub(crate) struct Scratch {
    /// The presubtract vector.
    pub srcp: [Lanes; 4],
    /// RGB inputs A, B, C, channels R, G, B.
    pub rgb_in: [[Lanes; 3]; 3],
    /// Alpha inputs A, B, C.
    pub alpha_in: [Lanes; 3],
    /// The dot product.
    pub dot: [f64; MAX_GROUP_SIZE],
    /// The transcendental.
    pub trans: Lanes,
    /// RGB results.
    pub rgb_out: [Lanes; 3],
    /// Alpha results.
    pub alpha_out: Lanes,
}

impl Scratch {
    /// Zeroed buffers.
    pub fn new() -> Box<Self> {
        Box::new(Scratch {
            srcp: [[0.0; MAX_GROUP_SIZE]; 4],
            rgb_in: [[[0.0; MAX_GROUP_SIZE]; 3]; 3],
            alpha_in: [[0.0; MAX_GROUP_SIZE]; 3],
            dot: [0.0; MAX_GROUP_SIZE],
            trans: [0.0; MAX_GROUP_SIZE],
            rgb_out: [[0.0; MAX_GROUP_SIZE]; 3],
            alpha_out: [0.0; MAX_GROUP_SIZE],
        })
    }
}

/// The processors whose channel `ch` passes predicate `p` (CTM §3.3.6):
/// NONE passes all; RGBA uses bit `ch` (bit A for the alpha unit); the
/// replicate selects use one bit; INV inverts.
#[inline]
pub(crate) fn predicate_mask(group: &Group, p: Option<Predicate>, ch: usize) -> LaneMask {
    match p {
        None => LaneMask::MAX,
        Some(p) => {
            let bit = match p.sel {
                PredSel::Rgba => ch,
                PredSel::Rrrr => 0,
                PredSel::Gggg => 1,
                PredSel::Bbbb => 2,
                PredSel::Aaaa => 3,
            };
            let m = group.pred[bit];
            if p.invert { !m } else { m }
        }
    }
}

/// The predicate bits predicate `p` reads for channels `channels` (bit mask).
pub(crate) fn predicate_bits(p: Option<Predicate>, channels: u8) -> u8 {
    match p {
        None => 0,
        Some(p) => match p.sel {
            PredSel::Rgba => channels,
            PredSel::Rrrr => 1,
            PredSel::Gggg => 2,
            PredSel::Bbbb => 4,
            PredSel::Aaaa => 8,
        },
    }
}

/// Execute one ALU/OUT instruction for the group with `engine`.
pub(crate) fn execute(
    group: &mut Group,
    plan: &AluPlan,
    consts: &[[f32; 4]],
    zero_times_anything: bool,
    engine: Engine,
) -> Result<(), FaultKind> {
    let mut scratch = group.scratch.take().unwrap_or_else(Scratch::new);
    let result = match engine {
        Engine::Fast => execute_fast(group, plan, consts, zero_times_anything, &mut scratch),
        Engine::Reference => super::reference::execute(
            group,
            plan,
            consts,
            zero_times_anything,
            &mut scratch,
        ),
    };
    group.scratch = Some(scratch);
    result
}

/// One channel of a source vector, resolved.
#[derive(Clone, Copy, Debug)]
enum Operand {
    /// Temporary channel `reg * 4 + ch`.
    Reg(usize),
    /// The same value for every processor.
    Uniform(f32),
    /// Channel of the presubtract vector.
    Srcp(usize),
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
fn resolve_sources(
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

/// The operand input selection `sel` with swizzle `s` picks.
#[inline]
fn swizzled(refs: &[[Operand; 4]; 3], sel: InputSelect, s: Swizzle) -> Operand {
    let ch = match s {
        Swizzle::R => 0,
        Swizzle::G => 1,
        Swizzle::B => 2,
        Swizzle::A => 3,
        Swizzle::Zero => return Operand::Uniform(0.0),
        Swizzle::Half => return Operand::Uniform(0.5),
        // `Unused` (code 7) is rejected at preparation for read inputs.
        Swizzle::One | Swizzle::Unused => return Operand::Uniform(1.0),
    };
    match sel {
        InputSelect::Src0 => refs[0][ch],
        InputSelect::Src1 => refs[1][ch],
        InputSelect::Src2 => refs[2][ch],
        InputSelect::Srcp => Operand::Srcp(ch),
    }
}

/// What operands are read from: the registers, their denormal bits, the
/// presubtract vector, the group's size.
struct View<'a> {
    regs: &'a [f32],
    denormal: &'a [u64; 8],
    srcp: &'a [Lanes; 4],
    n: usize,
}

impl<'a> View<'a> {
    /// The lanes of operand `r` with modifier `m`, flushed if `flushed`
    /// (for the arithmetic kernels): an unmodified temporary or presubtract
    /// channel in place (a temporary only if it holds no denormal, or the
    /// lanes need not be flushed), anything else built in `buf`.
    fn lanes(
        &self,
        r: Operand,
        m: InputModifier,
        flushed: bool,
        buf: &'a mut Lanes,
    ) -> &'a [f32] {
        let n = self.n;
        let buf = &mut buf[..n];
        let src: &'a [f32] = match r {
            Operand::Reg(idx) => {
                let src = &self.regs[idx * n..idx * n + n];
                if flushed && self.denormal[idx / 64] & (1 << (idx % 64)) != 0 {
                    lanes::modify_flush(buf, src, m);
                    return buf;
                }
                src
            }
            // The presubtract vector is flushed.
            Operand::Srcp(c) => &self.srcp[c][..n],
            Operand::Uniform(v) => {
                let v = fp::modify(v, m);
                buf.fill(if flushed { lanes::flush(v) } else { v });
                return buf;
            }
        };
        if m == InputModifier::None {
            src
        } else {
            lanes::modify(buf, src, m);
            buf
        }
    }
}

/// The lanes of a presubtract operand (a temporary or a uniform value).
fn presub_operand<'a>(regs: &'a [f32], n: usize, r: Operand, buf: &'a mut Lanes) -> &'a [f32] {
    match r {
        Operand::Reg(idx) => &regs[idx * n..idx * n + n],
        Operand::Uniform(v) => {
            buf[..n].fill(v);
            &buf[..n]
        }
        // The presubtract reads src0/src1 only.
        Operand::Srcp(_) => &ZEROS[..n],
    }
}

/// Which RGB input channels (per input A, B, C) the computation reads.
fn rgb_input_need(op: RgbOp, rgb_need: u8, dot_needed: bool) -> [u8; 3] {
    match op {
        RgbOp::Dp3 | RgbOp::Dp4 if dot_needed => [7, 7, 0],
        RgbOp::D2a if dot_needed => [3, 3, 4],
        RgbOp::Dp3 | RgbOp::Dp4 | RgbOp::D2a | RgbOp::Sop => [0, 0, 0],
        RgbOp::Frc => [rgb_need, 0, 0],
        RgbOp::Min | RgbOp::Max => [rgb_need, rgb_need, 0],
        RgbOp::Mad | RgbOp::Cnd | RgbOp::Cmp | RgbOp::Mdh | RgbOp::Mdv => [rgb_need; 3],
    }
}

/// Which alpha inputs the computation reads.
fn alpha_input_need(plan: &AluPlan, dot_needed: bool, trans_needed: bool) -> [bool; 3] {
    let own = match plan.inst.alpha.op {
        AlphaOp::Mad | AlphaOp::Cnd | AlphaOp::Cmp | AlphaOp::Mdh | AlphaOp::Mdv => {
            [true, true, true]
        }
        AlphaOp::Min | AlphaOp::Max => [true, true, false],
        AlphaOp::Frc => [true, false, false],
        _ => [false; 3],
    };
    let own = own.map(|b| b && plan.alpha_out_need);
    let dp4 = plan.inst.rgb.op == RgbOp::Dp4 && dot_needed;
    [own[0] || trans_needed || dp4, own[1] || dp4, own[2]]
}

fn select_op_rgb(op: RgbOp) -> Option<SelectOp> {
    match op {
        RgbOp::Min => Some(SelectOp::Min),
        RgbOp::Max => Some(SelectOp::Max),
        RgbOp::Cnd => Some(SelectOp::Cnd),
        RgbOp::Cmp => Some(SelectOp::Cmp),
        _ => None,
    }
}

fn select_op_alpha(op: AlphaOp) -> Option<SelectOp> {
    match op {
        AlphaOp::Min => Some(SelectOp::Min),
        AlphaOp::Max => Some(SelectOp::Max),
        AlphaOp::Cnd => Some(SelectOp::Cnd),
        AlphaOp::Cmp => Some(SelectOp::Cmp),
        _ => None,
    }
}

fn execute_fast(
    group: &mut Group,
    plan: &AluPlan,
    consts: &[[f32; 4]],
    zta: bool,
    scratch: &mut Scratch,
) -> Result<(), FaultKind> {
    let Scratch {
        srcp,
        rgb_in,
        alpha_in,
        dot,
        trans,
        rgb_out,
        alpha_out,
    } = scratch;
    let n = group.n;
    let inst = &plan.inst;

    // Operands and the hazards on reading them, in the reference's order.
    let refs = resolve_sources(group, plan, consts)?;
    if group.sync.tex_seq > group.sync.tex_done {
        for (k, row) in refs.iter().enumerate() {
            for (ch, r) in row.iter().enumerate() {
                if plan.src_need[k] & (1 << ch) != 0
                    && let Operand::Reg(idx) = *r
                {
                    let r = check_tex_ready(group, idx, Access::Read);
                    group.hazard(r)?;
                }
            }
        }
    }
    let r = check_presub_hazard(group, plan);
    group.hazard(r)?;

    let regs = &group.regs[..];
    let denormal = &group.denormal;
    // The presubtract vector (from src0/src1, never srcp itself).
    for (ch, out) in srcp.iter_mut().enumerate() {
        if plan.srcp_need & (1 << ch) == 0 {
            continue;
        }
        let op = if ch < 3 {
            inst.rgb.presub
        } else {
            inst.alpha.presub
        };
        let [b0, b1, _] = &mut rgb_in[0];
        let s0 = presub_operand(regs, n, refs[0][ch], b0);
        let s1 = presub_operand(regs, n, refs[1][ch], b1);
        lanes::presub(&mut out[..n], op, s0, s1);
    }
    let view = View {
        regs,
        denormal,
        srcp: &*srcp,
        n,
    };

    // What is computed.
    let rgb_need = plan.rgb_out_need;
    let alpha_need = plan.alpha_out_need;
    let is_dot = matches!(inst.rgb.op, RgbOp::Dp3 | RgbOp::Dp4 | RgbOp::D2a);
    let dot_needed = is_dot && (rgb_need != 0 || (inst.alpha.op == AlphaOp::Dp && alpha_need));
    let trans_needed = plan.transcendental.is_some()
        && (alpha_need || (inst.rgb.op == RgbOp::Sop && rgb_need != 0));

    // Inputs (CTM §3.3.3), flushed for the kernels that flush them.
    let rgb_flushed = matches!(
        inst.rgb.op,
        RgbOp::Mad | RgbOp::Mdh | RgbOp::Mdv | RgbOp::Dp3 | RgbOp::Dp4 | RgbOp::D2a
    );
    let alpha_flushed = matches!(inst.alpha.op, AlphaOp::Mad | AlphaOp::Mdh | AlphaOp::Mdv);
    let mut a_in: [[&[f32]; 3]; 3] = [[&ZEROS[..n]; 3]; 3];
    let in_need = rgb_input_need(inst.rgb.op, rgb_need, dot_needed);
    for (k, (row, bufs)) in a_in.iter_mut().zip(rgb_in.iter_mut()).enumerate() {
        let input = &inst.rgb.inputs[k];
        for (i, (slot, buf)) in row.iter_mut().zip(bufs.iter_mut()).enumerate() {
            if in_need[k] & (1 << i) != 0 {
                let r = swizzled(&refs, input.sel, input.swizzle[i]);
                *slot = view.lanes(r, input.modifier, rgb_flushed, buf);
            }
        }
    }
    let mut al_in: [&[f32]; 3] = [&ZEROS[..n]; 3];
    let al_need = alpha_input_need(plan, dot_needed, trans_needed);
    for (k, (slot, buf)) in al_in.iter_mut().zip(alpha_in.iter_mut()).enumerate() {
        if al_need[k] {
            let input = &inst.alpha.inputs[k];
            let r = swizzled(&refs, input.sel, input.swizzle);
            *slot = view.lanes(r, input.modifier, alpha_flushed, buf);
        }
    }

    // Shared between the units: the dot product and the transcendental.
    let dot = &mut dot[..n];
    if dot_needed {
        let op = match inst.rgb.op {
            RgbOp::Dp3 => DotOp::Dp3,
            RgbOp::Dp4 => DotOp::Dp4,
            _ => DotOp::D2a,
        };
        let inputs = DotInputs {
            a: a_in[0],
            b: a_in[1],
            alpha: [al_in[0], al_in[1]],
            c: a_in[2][2],
        };
        lanes::dot(dot, op, &inputs, zta);
    }
    let trans = &mut trans[..n];
    if let (Some(t), true) = (plan.transcendental, trans_needed) {
        lanes::transcendental(trans, t, al_in[0]);
    }

    // RGB operation + output modifier + clamp, needed channels only.
    let rgb_s = plan.rgb_scale.unwrap_or(1.0);
    let clamp = inst.rgb.clamp;
    let mut first: Option<usize> = None;
    for c in 0..3 {
        if rgb_need & (1 << c) == 0 {
            continue;
        }
        let (out, done) = split_channel(rgb_out, c, first);
        let out = &mut out[..n];
        match (inst.rgb.op, done) {
            (RgbOp::Dp3 | RgbOp::Dp4 | RgbOp::D2a | RgbOp::Sop, Some(done)) => {
                out.copy_from_slice(&done[..n]);
            }
            (RgbOp::Dp3 | RgbOp::Dp4 | RgbOp::D2a, None) => {
                lanes::finish_f64(out, dot, rgb_s, clamp);
            }
            (RgbOp::Sop, None) => lanes::finish_f32(out, trans, rgb_s, clamp),
            (RgbOp::Mad | RgbOp::Mdh | RgbOp::Mdv, _) => {
                lanes::mad(out, a_in[0][c], a_in[1][c], a_in[2][c], rgb_s, clamp, zta);
            }
            (RgbOp::Frc, _) => lanes::frc(out, a_in[0][c], rgb_s, clamp),
            (RgbOp::Min | RgbOp::Max | RgbOp::Cnd | RgbOp::Cmp, _) => {
                let op = select_op_rgb(inst.rgb.op).unwrap_or(SelectOp::Min);
                lanes::select(
                    out,
                    op,
                    a_in[0][c],
                    a_in[1][c],
                    a_in[2][c],
                    plan.rgb_scale,
                    clamp,
                );
            }
        }
        first = first.or(Some(c));
    }

    // Alpha operation.
    if alpha_need {
        let s = plan.alpha_scale.unwrap_or(1.0);
        let clamp = inst.alpha.clamp;
        let out = &mut alpha_out[..n];
        let [a, b, c] = al_in;
        match inst.alpha.op {
            AlphaOp::Mad | AlphaOp::Mdh | AlphaOp::Mdv => lanes::mad(out, a, b, c, s, clamp, zta),
            AlphaOp::Dp => lanes::finish_f64(out, dot, s, clamp),
            AlphaOp::Min | AlphaOp::Max | AlphaOp::Cnd | AlphaOp::Cmp => {
                let op = select_op_alpha(inst.alpha.op).unwrap_or(SelectOp::Min);
                lanes::select(out, op, a, b, c, plan.alpha_scale, clamp);
            }
            AlphaOp::Frc => lanes::frc(out, a, s, clamp),
            AlphaOp::Ex2
            | AlphaOp::Ln2
            | AlphaOp::Rcp
            | AlphaOp::Rsq
            | AlphaOp::Sin
            | AlphaOp::Cos => lanes::finish_f32(out, trans, s, clamp),
        }
    }

    write_results(group, plan, rgb_out, alpha_out)
}

/// Channel `c` of `out` to write, and channel `first` (already computed)
/// to read, if any.
fn split_channel(
    out: &mut [Lanes; 3],
    c: usize,
    first: Option<usize>,
) -> (&mut Lanes, Option<&Lanes>) {
    match first {
        Some(f) if f < c => {
            let (lo, hi) = out.split_at_mut(c);
            (&mut hi[0], Some(&lo[f]))
        }
        _ => (&mut out[c], None),
    }
}

/// The NOP rule of CTM §3.3.2: a presubtract operand written by the
/// immediately preceding ALU/OUT instruction needs `NOP` on that instruction.
pub(crate) fn check_presub_hazard(group: &Group, plan: &AluPlan) -> Result<(), FaultKind> {
    if plan.srcp_need == 0 {
        return Ok(());
    }
    for (k, &need) in plan.presub_need.iter().enumerate() {
        for ch in 0..4 {
            if need & (1 << ch) == 0 {
                continue;
            }
            let src = if ch < 3 {
                plan.inst.rgb.sources[k]
            } else {
                plan.inst.alpha.sources[k]
            };
            if let AluSource::Temp(t) = src {
                let reg = relative(group, t.reg.get(), t.addressing, 127)?;
                for &(wreg, wmask) in &group.sync.prev_alu_writes {
                    if wmask & (1 << ch) != 0 && wreg == reg {
                        return Err(FaultKind::MissingNop {
                            reg: reg as u8,
                            channel: ch as u8,
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Write the results: temporaries, predicates or outputs, the ALU result.
fn write_results(
    group: &mut Group,
    plan: &AluPlan,
    rgb_out: &[Lanes; 3],
    alpha_out: &Lanes,
) -> Result<(), FaultKind> {
    let n = group.n;
    let inst = &plan.inst;
    // CTM §3.3.6 WRITE_INACTIVE: ignore the flow-control mask when writing.
    let writers = if inst.write_inactive {
        group.present
    } else {
        group.exec()
    };
    let mut prev_writes = [(0u32, 0u8); 2];
    // Only a select op with OMOD_DISABLED returns unflushed bits.
    let rgb_raw = plan.rgb_scale.is_none();
    let alpha_raw = plan.alpha_scale.is_none();

    // Temporaries (CTM §3.3.7): predicated by the *old* predicate bits
    // (CTM §3.3.9), so before any predicate update.
    if !inst.rgb.write_mask.is_empty() {
        let reg = relative(
            group,
            inst.rgb.dest.reg.get(),
            inst.rgb.dest.addressing,
            127,
        )?;
        let reg = group.check_temp(reg)?;
        for (c, lanes) in rgb_out.iter().enumerate() {
            if inst.rgb.write_mask.has(c) {
                let mask = writers & predicate_mask(group, inst.rgb.predicate, c);
                store(group, reg, c, mask, &lanes[..n], rgb_raw)?;
            }
        }
        prev_writes[0] = (reg as u32, inst.rgb.write_mask.bits() as u8);
    }
    if inst.alpha.write_mask.is_on() {
        let reg = relative(
            group,
            inst.alpha.dest.reg.get(),
            inst.alpha.dest.addressing,
            127,
        )?;
        let reg = group.check_temp(reg)?;
        let mask = writers & predicate_mask(group, inst.alpha.predicate, 3);
        store(group, reg, 3, mask, &alpha_out[..n], alpha_raw)?;
        prev_writes[1] = (reg as u32, 8);
    }
    group.sync.prev_alu_writes = if inst.nop { [(0, 0); 2] } else { prev_writes };

    match &inst.writes {
        AluWrites::Predicate(p) => {
            // CTM §3.3.9: predicate writes are not predicated; compared after clamp.
            for (c, lanes) in rgb_out.iter().enumerate() {
                if p.rgb_mask.has(c) {
                    let bits = compare_mask(&lanes[..n], p.rgb_op);
                    group.pred[c] = (group.pred[c] & !writers) | (bits & writers);
                    group.sync.pred_dirty |= 1 << c;
                }
            }
            if p.alpha_mask.is_on() {
                let bits = compare_mask(&alpha_out[..n], p.alpha_op);
                group.pred[3] = (group.pred[3] & !writers) | (bits & writers);
                group.sync.pred_dirty |= 8;
            }
        }
        AluWrites::Output(o) => {
            if let Some(kind) = plan.umrt {
                write_umrt(group, plan, kind, writers, rgb_out, alpha_out)?;
            }
            // A UMRT program has no cached targets (CTM §3.3.8).
            let cached = !plan.uncached;
            let alpha_pass = writers & predicate_mask(group, inst.alpha.predicate, 3);
            if cached {
                let t = o.rgb_target.code() as usize & 3;
                for (c, lanes) in rgb_out.iter().enumerate() {
                    if o.rgb_mask.has(c) {
                        let mask = writers & predicate_mask(group, inst.rgb.predicate, c);
                        for lane in set_lanes(mask, n) {
                            let out = &mut group.outputs[lane];
                            out.values[t][c] = lanes[lane];
                            out.masks[t] |= 1 << c;
                        }
                    }
                }
                if o.alpha_mask.is_on() {
                    let t = o.alpha_target.code() as usize & 3;
                    for lane in set_lanes(alpha_pass, n) {
                        let out = &mut group.outputs[lane];
                        out.values[t][3] = alpha_out[lane];
                        out.masks[t] |= 8;
                    }
                }
            }
            if o.w.is_on() {
                for lane in set_lanes(alpha_pass, n) {
                    group.outputs[lane].conditional = Some(alpha_out[lane]);
                }
            }
        }
    }

    // The ALU result (CTM §3.3.10).
    if let Some(r) = inst.alu_result {
        let lanes = match r.sel {
            AluResultSel::Red => &rgb_out[0][..n],
            AluResultSel::Alpha => &alpha_out[..n],
        };
        let bits = compare_mask(lanes, r.op);
        group.alu_result = (group.alu_result & !writers) | (bits & writers);
        group.alu_result_valid = true;
        // Bit 4 of `pred_dirty` tracks the ALU result for `ALU_WAIT`.
        group.sync.pred_dirty |= 0x10;
    }
    Ok(())
}

/// The lanes below `n` whose bit is set in `mask`, in order.
fn set_lanes(mask: LaneMask, n: usize) -> impl Iterator<Item = usize> {
    let mut m = if n >= 64 { mask } else { mask & ((1 << n) - 1) };
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

/// UMRT writes (CTM §3.3.8): R = value, G = x, B = y, A must be 0.
fn write_umrt(
    group: &mut Group,
    plan: &AluPlan,
    kind: UmrtTarget,
    writers: LaneMask,
    rgb_out: &[Lanes; 3],
    alpha_out: &Lanes,
) -> Result<(), FaultKind> {
    let inst = &plan.inst;
    let mask = writers & group.covered & predicate_mask(group, inst.rgb.predicate, 0);
    for lane in set_lanes(mask, group.n) {
        if fp::flush(alpha_out[lane]) != 0.0 {
            return Err(FaultKind::UmrtAlphaNotZero {
                value: alpha_out[lane],
            });
        }
        group.umrt[lane].push(UmrtWrite {
            target: kind.target().code() as u8,
            x: rgb_out[1][lane],
            y: rgb_out[2][lane],
            value: rgb_out[0][lane],
        });
        group.profile.counters.umrt_writes += 1;
    }
    Ok(())
}

/// One bit per lane: `compare(x, op)` (CTM §3.6.1 table).
#[inline]
pub(crate) fn compare_mask(lanes: &[f32], op: ctm_backend_x1k::isa::CompareOp) -> LaneMask {
    lanes.iter().enumerate().fold(
        0,
        |m, (l, x)| if fp::compare(*x, op) { m | (1 << l) } else { m },
    )
}

/// Store `values` into channel `ch` of `reg` for the processors in `mask`,
/// keeping the channel's denormal bit: `raw` values (a select op's
/// unflushed bits) may be denormal, any other result is flushed.
#[inline]
fn store(
    group: &mut Group,
    reg: usize,
    ch: usize,
    mask: LaneMask,
    values: &[f32],
    raw: bool,
) -> Result<(), FaultKind> {
    let idx = reg * 4 + ch;
    if group.sync.tex_seq > group.sync.tex_done {
        let r = check_tex_ready(group, idx, Access::Write);
        group.hazard(r)?;
    }
    group.sync.mark_alu_dirty(idx);
    let off = group.offset(reg, ch);
    let full = mask & group.present == group.present;
    let was_denormal = group.may_be_denormal(idx);
    let dst = &mut group.regs[off..off + values.len()];
    if full {
        dst.copy_from_slice(values);
    } else {
        lanes::masked_store(dst, values, mask);
    }
    let denormal = if raw && lanes::any_denormal(values) {
        true
    } else if full {
        false
    } else {
        was_denormal && lanes::any_denormal(dst)
    };
    group.set_denormal(idx, denormal);
    Ok(())
}
