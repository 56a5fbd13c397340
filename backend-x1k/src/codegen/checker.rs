//! The post-allocation symbolic checker (after regalloc2's `checker.rs`):
//! proves that every register read of the emitted program sees the
//! virtual register lane the MIR says it reads.
//!
//! The checker does not trust the allocator or the emitter. It decodes
//! each emitted instruction the way the hardware reads it (CTM §3.3.1–
//! §3.3.3: an input's select names a source slot or the presubtract, the
//! swizzle a channel, and the channel picks the slot's RGB address for r,
//! g, b or its alpha address for a; a TEX source swizzle names the
//! coordinate channels, CTM §3.4) and follows the write masks of both
//! units (CTM §3.3.6–§3.3.7) through the program's real control flow:
//! every flow-control instruction may fall through or jump (a processor
//! either runs a branch or skips it, CTM §3.5.1), except jumps whose
//! `JUMP_FUNC` never or always jumps. A forward data-flow analysis keeps,
//! for each of the 512 channels, which virtual register lane it holds on
//! every path reaching an instruction (or "conflict" where paths
//! disagree); a read must find exactly the lane its MIR operand names.
//!
//! What the MIR says, per op and unit half (independently of how the
//! emitter encoded it): which result lane each unit computes, which
//! operand lane each input component reads, and where each result lane is
//! defined to live (the allocation's channel for the destination lane —
//! the one fact taken from the allocator, as a definition). Channels an
//! instruction writes that no MIR op defines are clobbered.

use super::CodegenError;
use super::mir::{AluKind, Lane, Mir, MirOp, Operand, Special, Src, TexKind, Unit, VReg};
use super::regalloc::Allocation;
use super::sched::Bundle;
use crate::isa::{AluInst, AluSource, Channel, InputSelect, Inst, Swizzle, TempAddr};

use crate::isa::{Addressing, TexOp};
use smallvec::SmallVec;

/// What a channel holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Holds {
    /// The start state (0, or the ABI's `r0`).
    Initial,
    /// Lane `.1` of a virtual register.
    Lane(VReg, u8),
    /// Different values on different paths, or an unexpected write.
    Conflict,
}

/// Where an expected read happens.
#[derive(Clone, Copy, Debug)]
enum Port {
    /// RGB input `input` (A, B, C), component `component` (r, g, b).
    Rgb { input: u8, component: u8 },
    /// Alpha input `input`.
    Alpha { input: u8 },
    /// TEX coordinate component (s, t).
    TexCoord(u8),
    /// The channels a `KILL` examines (its write mask, CTM §3.4.1).
    Kill,
}

/// A read the MIR requires.
#[derive(Clone, Copy, Debug)]
struct Read {
    port: Port,
    /// The presubtract source slot (0 or 1) when the input reads srcp.
    presub_slot: Option<u8>,
    want: (VReg, u8),
}

/// What one instruction should read and write.
type Expectation = (SmallVec<[Read; 8]>, SmallVec<[Def; 4]>);

/// A channel an op defines: `alpha` unit or RGB `channel`, the value.
#[derive(Clone, Copy, Debug)]
struct Def {
    channel: u8,
    value: (VReg, u8),
}

/// Checks `insts` (emitted from `mir` with `alloc`; `origin[i]` is the
/// bundle instruction `i` came from).
///
/// # Errors
/// [`CodegenError::Internal`] with rule `allocation-checker` naming the
/// slot, the read and what the register held instead.
pub fn check(
    mir: &Mir,
    alloc: &Allocation,
    origin: &[Option<Bundle>],
    insts: &[Inst],
) -> Result<(), CodegenError> {
    let n = insts.len();
    let mut expect: Vec<Expectation> = Vec::with_capacity(n);
    for i in 0..n {
        expect.push(match origin.get(i).copied().flatten() {
            Some(b) => bundle_expectations(mir, alloc, &b)?,
            None => Default::default(),
        });
    }
    // Entry states, by a worklist over the control flow. A state covers
    // the registers some instruction writes or some fixed register
    // occupies; the others hold their initial value throughout.
    let mut regs = 0usize;
    for info in &mir.vregs {
        if let Some((reg, _)) = info.fixed {
            regs = regs.max(reg as usize + 1);
        }
    }
    for inst in insts {
        if let Some(r) = written_reg(inst) {
            regs = regs.max(r as usize + 1);
        }
    }
    let size = 4 * regs.min(128);
    let mut entry: Vec<Option<Box<[Holds]>>> = vec![None; n];
    let mut start: Box<[Holds]> = vec![Holds::Initial; size].into_boxed_slice();
    for (v, info) in mir.vregs.iter().enumerate() {
        if let Some((reg, chans)) = info.fixed {
            for lane in 0..info.width {
                start[loc(reg, chans[lane as usize])] = Holds::Lane(VReg(v as u32), lane);
            }
        }
    }
    if n == 0 {
        return Ok(());
    }
    entry[0] = Some(start);
    let mut work = vec![0usize];
    let mut queued = vec![false; n];
    queued[0] = true;
    while let Some(i) = work.pop() {
        queued[i] = false;
        let Some(state) = entry[i].as_deref() else {
            continue;
        };
        let mut out: Box<[Holds]> = state.into();
        apply_writes(&insts[i], &expect[i].1, &mut out, i)?;
        for s in super::hazards::successors(insts, i) {
            let changed = match &mut entry[s] {
                None => {
                    entry[s] = Some(out.clone());
                    true
                }
                Some(e) => meet(e, &out),
            };
            if changed && !queued[s] {
                queued[s] = true;
                work.push(s);
            }
        }
    }
    for i in 0..n {
        let Some(state) = entry[i].as_deref() else {
            continue;
        };
        for r in &expect[i].0 {
            let (reg, ch) = locate(&insts[i], r, i)?;
            let have = state.get(loc(reg, ch)).copied().unwrap_or(Holds::Initial);
            if have != Holds::Lane(r.want.0, r.want.1) {
                return Err(CodegenError::internal(
                    "allocation-checker",
                    format!(
                        "slot {i}: {:?} reads r{reg}.{} holding {have:?}, expected {:?} lane {}",
                        r.port,
                        channel_name(ch),
                        r.want.0,
                        r.want.1
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn loc(reg: u8, channel: u8) -> usize {
    (reg as usize & 127) * 4 + (channel as usize & 3)
}

fn channel_index(c: Channel) -> u8 {
    match c {
        Channel::R => 0,
        Channel::G => 1,
        Channel::B => 2,
        Channel::A => 3,
    }
}

fn channel_name(c: u8) -> char {
    ['r', 'g', 'b', 'a'][c as usize & 3]
}

/// Meets `into` with `other`; `true` if `into` changed.
fn meet(into: &mut [Holds], other: &[Holds]) -> bool {
    let mut changed = false;
    for (a, b) in into.iter_mut().zip(other.iter()) {
        if *a != *b && *a != Holds::Conflict {
            *a = Holds::Conflict;
            changed = true;
        }
    }
    changed
}

/// The (register, channel) the read `r` of instruction `inst` sees.
fn locate(inst: &Inst, r: &Read, slot: usize) -> Result<(u8, u8), CodegenError> {
    let bad =
        |what: String| CodegenError::internal("allocation-checker", format!("slot {slot}: {what}"));
    match (inst, r.port) {
        (Inst::Alu(a), Port::Rgb { input, component }) => {
            let inp = a.rgb.inputs[input as usize % 3];
            alu_location(a, inp.sel, inp.swizzle[component as usize % 3], r, slot)
        }
        (Inst::Alu(a), Port::Alpha { input }) => {
            let inp = a.alpha.inputs[input as usize % 3];
            alu_location(a, inp.sel, inp.swizzle, r, slot)
        }
        (Inst::Tex(t), Port::TexCoord(k)) => {
            let reg = absolute(t.src.addr).ok_or_else(|| bad("relative TEX source".into()))?;
            Ok((reg, channel_index(t.src.swizzle[k as usize & 3])))
        }
        (Inst::Tex(t), Port::Kill) => {
            let reg = absolute(t.src.addr).ok_or_else(|| bad("relative KILL source".into()))?;
            let mut chans = (0..3u8).filter(|c| t.rgb_write_mask.bits() & (1 << c) != 0);
            let ch = match (chans.next(), chans.next(), t.alpha_write_mask.is_on()) {
                (Some(c), None, false) => c,
                (None, None, true) => 3,
                _ => return Err(bad("KILL examines more or less than one channel".into())),
            };
            Ok((reg, ch))
        }
        _ => Err(bad(format!("{:?} expected in a {inst:?}", r.port))),
    }
}

fn absolute(t: TempAddr) -> Option<u8> {
    (t.addressing == Addressing::Absolute).then_some(t.reg.get() as u8)
}

/// An ALU input's source location: the select's slot (or the presubtract
/// slot), the swizzle's channel, the slot's RGB or alpha address.
fn alu_location(
    a: &AluInst,
    sel: InputSelect,
    swizzle: Swizzle,
    r: &Read,
    slot: usize,
) -> Result<(u8, u8), CodegenError> {
    let bad = |what: &str| {
        CodegenError::internal(
            "allocation-checker",
            format!("slot {slot}: {:?} expecting {:?}: {what}", r.port, r.want),
        )
    };
    let src_slot = match (sel, r.presub_slot) {
        (InputSelect::Srcp, Some(s)) => s,
        (InputSelect::Src0, None) => 0,
        (InputSelect::Src1, None) => 1,
        (InputSelect::Src2, None) => 2,
        _ => return Err(bad("the input selects another source")),
    };
    let ch = match swizzle {
        Swizzle::R => 0,
        Swizzle::G => 1,
        Swizzle::B => 2,
        Swizzle::A => 3,
        _ => return Err(bad("the swizzle is a constant")),
    };
    let source = if ch == 3 {
        a.alpha.sources[src_slot as usize]
    } else {
        a.rgb.sources[src_slot as usize]
    };
    match source {
        AluSource::Temp(t) => absolute(t)
            .map(|reg| (reg, ch))
            .ok_or_else(|| bad("the source is aL-relative")),
        _ => Err(bad("the source is not a temporary")),
    }
}

/// Applies the writes of `inst` to `state`: the channels `defs` define get
/// their values, every other channel the instruction writes is clobbered.
fn apply_writes(
    inst: &Inst,
    defs: &[Def],
    state: &mut [Holds],
    slot: usize,
) -> Result<(), CodegenError> {
    let mut written: SmallVec<[(u8, u8); 4]> = SmallVec::new();
    match inst {
        Inst::Alu(a) => {
            for c in 0..3u8 {
                if a.rgb.write_mask.bits() & (1 << c) != 0 {
                    written.push((dest_reg(a.rgb.dest, slot)?, c));
                }
            }
            if a.alpha.write_mask.is_on() {
                written.push((dest_reg(a.alpha.dest, slot)?, 3));
            }
        }
        Inst::Tex(t) if t.op != TexOp::TexKill && t.op != TexOp::Nop => {
            for c in 0..3u8 {
                if t.rgb_write_mask.bits() & (1 << c) != 0 {
                    written.push((dest_reg(t.dst, slot)?, c));
                }
            }
            if t.alpha_write_mask.is_on() {
                written.push((dest_reg(t.dst, slot)?, 3));
            }
        }
        _ => {}
    }
    for d in defs {
        if !written.iter().any(|&(_, c)| c == d.channel) {
            return Err(CodegenError::internal(
                "allocation-checker",
                format!(
                    "slot {slot}: {:?} lane {} is defined in channel {} but the instruction does not write it",
                    d.value.0,
                    d.value.1,
                    channel_name(d.channel)
                ),
            ));
        }
    }
    for (reg, c) in written {
        state[loc(reg, c)] = match defs.iter().find(|d| d.channel == c) {
            Some(d) => Holds::Lane(d.value.0, d.value.1),
            None => Holds::Conflict,
        };
    }
    Ok(())
}

/// The highest absolute register `inst` writes, if it writes one.
fn written_reg(inst: &Inst) -> Option<u8> {
    match inst {
        Inst::Alu(a) => {
            let rgb = (a.rgb.write_mask.bits() & 7 != 0)
                .then(|| absolute(a.rgb.dest))
                .flatten();
            let alpha = a
                .alpha
                .write_mask
                .is_on()
                .then(|| absolute(a.alpha.dest))
                .flatten();
            rgb.max(alpha)
        }
        Inst::Tex(t) if t.op != TexOp::TexKill && t.op != TexOp::Nop => {
            let any = t.rgb_write_mask.bits() & 7 != 0 || t.alpha_write_mask.is_on();
            any.then(|| absolute(t.dst)).flatten()
        }
        _ => None,
    }
}

fn dest_reg(t: TempAddr, slot: usize) -> Result<u8, CodegenError> {
    absolute(t).ok_or_else(|| {
        CodegenError::internal(
            "allocation-checker",
            format!("slot {slot}: aL-relative destination"),
        )
    })
}

/// The reads and definitions the MIR requires of one bundle.
#[allow(clippy::type_complexity)]
fn bundle_expectations(
    mir: &Mir,
    alloc: &Allocation,
    b: &Bundle,
) -> Result<(SmallVec<[Read; 8]>, SmallVec<[Def; 4]>), CodegenError> {
    let mut reads = SmallVec::new();
    let mut defs = SmallVec::new();
    if let Some(t) = b.tex {
        let op = mir.op(t);
        let arg = op
            .args
            .first()
            .copied()
            .unwrap_or(Operand::splat_lane(Lane::Zero));
        match op.tex {
            Some(TexKind::Load { fetched, .. }) => {
                for k in 0..2u8 {
                    read(&mut reads, Port::TexCoord(k), arg, k as usize, None);
                }
                if let Some((v, dl)) = op.dest {
                    for lane in 0..fetched {
                        defs.push(Def {
                            channel: channel_of(alloc, v, dl + lane)?,
                            value: (v, dl + lane),
                        });
                    }
                }
            }
            Some(TexKind::Kill) => read(&mut reads, Port::Kill, arg, 0, None),
            None => {}
        }
        return Ok((reads, defs));
    }
    if let Some(id) = b.rgb {
        rgb_half(mir, alloc, mir.op(id), &mut reads, &mut defs)?;
    }
    if let Some(id) = b.alpha {
        alpha_half(alloc, mir.op(id), &mut reads, &mut defs)?;
    }
    Ok((reads, defs))
}

fn channel_of(alloc: &Allocation, v: VReg, lane: u8) -> Result<u8, CodegenError> {
    alloc
        .of(v)
        .map(|(_, chans)| chans[lane as usize & 3])
        .ok_or_else(|| CodegenError::internal("allocation-checker", format!("{v:?} unallocated")))
}

/// Operand `arg`'s lane for result lane `i`, read at `port`.
fn read(
    reads: &mut SmallVec<[Read; 8]>,
    port: Port,
    arg: Operand,
    i: usize,
    presub: Option<&MirOp>,
) {
    let Lane::Of(j) = arg.lanes[i & 3] else {
        return;
    };
    match arg.src {
        Src::Reg(v) => reads.push(Read {
            port,
            presub_slot: None,
            want: (v, j),
        }),
        Src::Presub => {
            if let Some((_, s0, s1)) = presub.and_then(|op| op.presub.as_ref()) {
                for (slot, s) in [(0u8, s0), (1u8, s1)] {
                    if let Src::Reg(v) = s.src {
                        reads.push(Read {
                            port,
                            presub_slot: Some(slot),
                            want: (v, j),
                        });
                    }
                }
            }
        }
        _ => {}
    }
}

fn arity(kind: AluKind) -> usize {
    match kind {
        AluKind::Frc | AluKind::Trans(_) => 1,
        AluKind::Min | AluKind::Max | AluKind::Dp2 | AluKind::Dp3 | AluKind::Dp4 => 2,
        AluKind::Mad | AluKind::Cmp | AluKind::Cnd => 3,
    }
}

/// The RGB unit's part of `op` (CTM §3.3.3–§3.3.4).
fn rgb_half(
    _mir: &Mir,
    alloc: &Allocation,
    op: &MirOp,
    reads: &mut SmallVec<[Read; 8]>,
    defs: &mut SmallVec<[Def; 4]>,
) -> Result<(), CodegenError> {
    let Some(kind) = op.alu else { return Ok(()) };
    let dest_def = |defs: &mut SmallVec<[Def; 4]>, lane: u8| -> Result<Option<u8>, CodegenError> {
        match op.dest {
            Some((v, dl)) => {
                let c = channel_of(alloc, v, dl + lane)?;
                // A DP4 or a transcendental into channel a is written by
                // the alpha unit (the RGB unit may still write the
                // transcendental to a target through `SOP`).
                if c == 3 && matches!(kind, AluKind::Dp4 | AluKind::Trans(_)) {
                    return Ok(None);
                }
                if c == 3 {
                    return Err(CodegenError::internal(
                        "allocation-checker",
                        format!(
                            "{v:?} lane {} is an RGB result allocated to channel a",
                            dl + lane
                        ),
                    ));
                }
                defs.push(Def {
                    channel: c,
                    value: (v, dl + lane),
                });
                Ok(Some(c))
            }
            None => Ok(None),
        }
    };
    match kind {
        // SOP: the alpha unit's transcendental, copied (CTM §3.3.4).
        AluKind::Trans(_) => {
            dest_def(defs, 0)?;
        }
        AluKind::Dp2 | AluKind::Dp3 | AluKind::Dp4 => {
            let n = if kind == AluKind::Dp2 { 2 } else { 3 };
            for input in 0..2u8 {
                for c in 0..n {
                    let port = Port::Rgb {
                        input,
                        component: c as u8,
                    };
                    read(reads, port, op.args[input as usize], c, Some(op));
                }
            }
            dest_def(defs, 0)?;
        }
        _ => {
            // An output op's lane i is the target's channel first + i; an
            // op writing a register and a target computes lane i in both
            // channels.
            let first = match op.special {
                Special::Output(_, first) => Some(first),
                _ => None,
            };
            for i in 0..op.width.min(3) {
                let mut chans: SmallVec<[u8; 2]> = SmallVec::new();
                chans.extend(dest_def(defs, i)?);
                if let Some(f) = first
                    && f + i < 3
                    && !chans.contains(&(f + i))
                {
                    chans.push(f + i);
                }
                if chans.is_empty() {
                    chans.push(first.unwrap_or(0) + i);
                }
                for c in chans {
                    for (input, arg) in op.args.iter().enumerate().take(arity(kind)) {
                        let port = Port::Rgb {
                            input: input as u8,
                            component: c,
                        };
                        read(reads, port, *arg, i as usize, Some(op));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The alpha unit's part of `op`.
fn alpha_half(
    alloc: &Allocation,
    op: &MirOp,
    reads: &mut SmallVec<[Read; 8]>,
    defs: &mut SmallVec<[Def; 4]>,
) -> Result<(), CodegenError> {
    let Some(kind) = op.alu else { return Ok(()) };
    if op.special == Special::Umrt {
        return Ok(());
    }
    let lane: u8 = match kind {
        AluKind::Dp2 | AluKind::Dp3 => return Ok(()),
        AluKind::Dp4 => 3,
        _ if op.width == 4 => 3,
        _ => 0,
    };
    for (input, arg) in op.args.iter().enumerate().take(arity(kind)) {
        read(
            reads,
            Port::Alpha { input: input as u8 },
            *arg,
            lane as usize,
            Some(op),
        );
    }
    let writes = match kind {
        // Into channel a (with `SOP` writing a target: CTM §3.3.4).
        AluKind::Trans(_) => match op.dest {
            Some((v, dl)) => op.unit != Unit::Both || channel_of(alloc, v, dl)? == 3,
            None => false,
        },
        // DP4 writes through the alpha unit only into channel a.
        AluKind::Dp4 => match op.dest {
            Some((v, dl)) => channel_of(alloc, v, dl)? == 3,
            None => false,
        },
        _ => true,
    };
    if writes && let Some((v, dl)) = op.dest {
        let value = (v, dl + if op.width == 4 { 3 } else { 0 });
        let c = channel_of(alloc, v, value.1)?;
        if c != 3 {
            return Err(CodegenError::internal(
                "allocation-checker",
                format!(
                    "{v:?} lane {} is an alpha result allocated to channel {}",
                    value.1,
                    channel_name(c)
                ),
            ));
        }
        defs.push(Def { channel: c, value });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::{emit, hazards, isel, regalloc, sched};
    use crate::isa::{AluSource, TempAddr};

    /// The stages of `compile` up to the checker's inputs.
    fn stages(src: &str) -> (Mir, Allocation, Vec<Option<Bundle>>, Vec<Inst>) {
        let program = ctm_frontend::compile(
            src,
            &ctm_frontend::CheckOptions {
                target: ctm_frontend::Target::X1k,
            },
        )
        .program
        .expect("checks");
        let m = ctm_ir::lower::lower_kernel(&program, &program.kernels[0]);
        let v = ctm_ir::passes::pipeline(
            m,
            ctm_ir::passes::OptLevel::O2,
            &crate::codegen::cost::X1kCost,
        )
        .expect("passes");
        let (mut mir, _, _) = isel::Selector::new(v.module())
            .and_then(|s| s.run())
            .expect("selects");
        let blocks = sched::schedule(&mut mir).expect("schedules");
        let alloc = regalloc::allocate(&mir, &blocks, "k").expect("allocates");
        let (mut insts, origin) = emit::emit(&mir, &alloc, &blocks).expect("emits");
        hazards::apply(&mut insts);
        (mir, alloc, origin, insts)
    }

    const SRC: &str = "kernel k(x: In<f32>, y: In<f32>, r: Out<f32>) {
        let mut a = x * y + x;
        if a > 0.5 { a = a * a - y; } else { a = a + y * 3.0; }
        r = a * x - y;
    }";

    #[test]
    fn accepts_the_program_as_emitted() {
        let (mir, alloc, origin, insts) = stages(SRC);
        check(&mir, &alloc, &origin, &insts).expect("checks");
    }

    /// Every temporary source moved to another register, one at a time
    /// (including registers no instruction writes), is caught.
    #[test]
    fn rejects_a_read_of_the_wrong_register() {
        let (mir, alloc, origin, insts) = stages(SRC);
        let mut caught = 0;
        for i in 0..insts.len() {
            let Inst::Alu(a) = &insts[i] else { continue };
            for unit in 0..2 {
                let sources = if unit == 0 {
                    &a.rgb.sources
                } else {
                    &a.alpha.sources
                };
                for k in 0..sources.len() {
                    let AluSource::Temp(t) = sources[k] else {
                        continue;
                    };
                    for shift in [1u32, 40] {
                        let reg = (t.reg.get() + shift) % 128;
                        let mut bad = insts.clone();
                        let Inst::Alu(b) = &mut bad[i] else { continue };
                        let s = if unit == 0 {
                            &mut b.rgb.sources
                        } else {
                            &mut b.alpha.sources
                        };
                        s[k] = AluSource::Temp(TempAddr::absolute(reg).expect("reg"));
                        // Sources no input reads may change freely.
                        if check(&mir, &alloc, &origin, &bad).is_err() {
                            caught += 1;
                        }
                    }
                }
            }
        }
        assert!(caught >= 4, "{caught} mutations caught");
    }

    /// A write moved to another register leaves its readers without the
    /// value.
    #[test]
    fn rejects_a_write_to_the_wrong_register() {
        let (mir, alloc, origin, insts) = stages(SRC);
        let mut caught = 0;
        for i in 0..insts.len() {
            let Inst::Alu(a) = &insts[i] else { continue };
            if a.rgb.write_mask.bits() & 7 == 0 {
                continue;
            }
            let Some(reg) = absolute(a.rgb.dest) else {
                continue;
            };
            let mut bad = insts.clone();
            let Inst::Alu(b) = &mut bad[i] else { continue };
            b.rgb.dest = TempAddr::absolute((u32::from(reg) + 50) % 128).expect("reg");
            if check(&mir, &alloc, &origin, &bad).is_err() {
                caught += 1;
            }
        }
        assert!(caught >= 2, "{caught}");
    }
}
