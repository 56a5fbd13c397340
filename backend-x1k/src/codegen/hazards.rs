//! Synchronisation and hazards on the laid-out program (CTM §3.2.1,
//! §3.3.2, §3.4.2, §3.7; `x1k-encoding.md` §11 rules 1, 3, 4), channel by
//! channel:
//!
//! - the program ends with an `OUT` that waits (rule 1), reached by every
//!   path;
//! - `ALU_WAIT` on a texture instruction reading a channel an ALU
//!   instruction wrote since the last `ALU_WAIT` on some path (a forward
//!   data-flow over the control flow; flow control that reads the ALU
//!   result sets it when emitted);
//! - texture semaphore: fetches issued since the last wait are *pending*
//!   on their destination channels; the first instruction that reads a
//!   pending channel (ALU sources through their swizzles, TEX
//!   coordinates), overwrites one, or is flow control, waits, and the last
//!   fetch before it acquires (CTM §3.4.2: one acquire covers it and every
//!   earlier lookup). A fetch reading channels no pending fetch writes
//!   needs no synchronisation;
//! - CTM §3.7 errata: a flow-control instruction waits on the semaphore if
//!   any instruction it may pass control to waits;
//! - `NOP` on an ALU instruction whose successor presubtracts a channel it
//!   wrote (rule 3).

use crate::isa::{
    AlphaOp, AluInst, AluSource, AluWrites, Channel, FcOp, InputSelect, Inst, OutputWrites,
    PresubOp, RgbOp, Swizzle, TexInst, TexOp,
};
use smallvec::SmallVec;

/// (register, channel mask) pairs.
type Channels = SmallVec<[(u8, u8); 6]>;

/// Applies every rule; `insts` is the whole program.
pub fn apply(insts: &mut Vec<Inst>) {
    final_out(insts);
    alu_waits(insts);
    semaphore(insts);
    errata(insts);
    presub_nops(insts);
}

/// Rule 1: the last instruction is an `OUT` every path reaches.
fn final_out(insts: &mut Vec<Inst>) {
    if let Some(Inst::Alu(a)) = insts.last_mut()
        && a.alu_result.is_none()
        && let AluWrites::Predicate(p) = a.writes
        && p.rgb_mask.is_empty()
        && !p.alpha_mask.is_on()
    {
        a.writes = AluWrites::Output(OutputWrites::default());
    }
    // A jump past the end (a branch closing the program) needs a last
    // OUT that every path reaches.
    let n = insts.len();
    let jumps_to_end = insts
        .iter()
        .any(|i| matches!(i, Inst::Fc(f) if f.jump_addr.get() as usize >= n));
    if jumps_to_end
        || !matches!(insts.last(), Some(Inst::Alu(a)) if matches!(a.writes, AluWrites::Output(_)))
    {
        insts.push(Inst::Alu(AluInst {
            writes: AluWrites::Output(OutputWrites::default()),
            ..AluInst::default()
        }));
    }
}

/// Where control may go after instruction `i` of `insts` (per processor:
/// a branch's processors either run it or skip it, CTM §3.5.1). `JUMP_FUNC`
/// 0 never jumps and 0xFF always jumps on a plain JUMP, except that
/// processors an ELSE deactivates want to jump (CTM §3.5.3 special cases).
pub fn successors(insts: &[Inst], i: usize) -> SmallVec<[usize; 2]> {
    let n = insts.len();
    let mut s = SmallVec::new();
    let Inst::Fc(fc) = &insts[i] else {
        if i + 1 < n {
            s.push(i + 1);
        }
        return s;
    };
    let plain = fc.op == FcOp::Jump;
    let never = plain && fc.jump_func == 0x00 && !fc.b_else;
    let always = plain && fc.jump_func == 0xFF;
    if !always && i + 1 < n {
        s.push(i + 1);
    }
    let target = fc.jump_addr.get() as usize;
    if !never && target < n && !s.contains(&target) {
        s.push(target);
    }
    s
}

fn swizzle_channel(s: Swizzle) -> Option<u8> {
    match s {
        Swizzle::R => Some(0),
        Swizzle::G => Some(1),
        Swizzle::B => Some(2),
        Swizzle::A => Some(3),
        _ => None,
    }
}

fn channel_index(c: Channel) -> u8 {
    match c {
        Channel::R => 0,
        Channel::G => 1,
        Channel::B => 2,
        Channel::A => 3,
    }
}

fn add(out: &mut Channels, reg: u8, mask: u8) {
    if mask == 0 {
        return;
    }
    match out.iter_mut().find(|(r, _)| *r == reg) {
        Some((_, m)) => *m |= mask,
        None => out.push((reg, mask)),
    }
}

/// The temporary channels an ALU instruction reads (CTM §3.3.1–§3.3.4):
/// per input the op uses, the channels its swizzle names, from the
/// select's source (the RGB address for r, g, b, the alpha address for
/// a; srcp reads sources 0 and 1, or 0 for BIAS/INV). With `presub_only`,
/// only the channels read through a presubtract.
pub fn alu_reads(a: &AluInst, presub_only: bool) -> Channels {
    let mut out = Channels::new();
    let rgb_arity = match a.rgb.op {
        RgbOp::Mad | RgbOp::Cnd | RgbOp::Cmp | RgbOp::D2a => 3,
        RgbOp::Dp3 | RgbOp::Dp4 | RgbOp::Min | RgbOp::Max => 2,
        RgbOp::Frc => 1,
        _ => 0,
    };
    let alpha_arity = match a.alpha.op {
        AlphaOp::Mad | AlphaOp::Cnd | AlphaOp::Cmp => 3,
        AlphaOp::Min | AlphaOp::Max => 2,
        AlphaOp::Dp if a.rgb.op == RgbOp::Dp4 => 2,
        AlphaOp::Dp => 0,
        _ => 1,
    };
    let mut read = |sel: InputSelect, swizzle: Swizzle, rgb_presub: PresubOp, alpha_presub| {
        let Some(ch) = swizzle_channel(swizzle) else {
            return;
        };
        let sources = |k: usize| {
            if ch == 3 {
                a.alpha.sources[k]
            } else {
                a.rgb.sources[k]
            }
        };
        let slots: SmallVec<[usize; 2]> = match sel {
            InputSelect::Src0 | InputSelect::Src1 | InputSelect::Src2 if presub_only => {
                SmallVec::new()
            }
            InputSelect::Src0 => SmallVec::from_slice(&[0]),
            InputSelect::Src1 => SmallVec::from_slice(&[1]),
            InputSelect::Src2 => SmallVec::from_slice(&[2]),
            InputSelect::Srcp => {
                let op = if ch == 3 { alpha_presub } else { rgb_presub };
                match op {
                    PresubOp::Bias | PresubOp::Inv => SmallVec::from_slice(&[0]),
                    _ => SmallVec::from_slice(&[0, 1]),
                }
            }
        };
        for k in slots {
            if let AluSource::Temp(t) = sources(k) {
                add(&mut out, t.reg.get() as u8, 1 << ch);
            }
        }
    };
    for (i, input) in a.rgb.inputs.iter().enumerate().take(rgb_arity) {
        for (c, &s) in input.swizzle.iter().enumerate() {
            // D2A reads A.rg, B.rg and C.b.
            if a.rgb.op == RgbOp::D2a && (if i == 2 { c != 2 } else { c == 2 }) {
                continue;
            }
            read(input.sel, s, a.rgb.presub, a.alpha.presub);
        }
    }
    for input in a.alpha.inputs.iter().take(alpha_arity) {
        read(input.sel, input.swizzle, a.rgb.presub, a.alpha.presub);
    }
    out
}

/// The temporary channels an ALU instruction writes.
pub fn alu_writes(a: &AluInst) -> Channels {
    let mut w = Channels::new();
    add(
        &mut w,
        a.rgb.dest.reg.get() as u8,
        a.rgb.write_mask.bits() as u8,
    );
    if a.alpha.write_mask.is_on() {
        add(&mut w, a.alpha.dest.reg.get() as u8, 0b1000);
    }
    w
}

/// The temporary channels a texture instruction reads: S and T of a
/// lookup, the write-mask channels a KILL examines (CTM §3.4.1).
fn tex_reads(t: &TexInst) -> Channels {
    let mut out = Channels::new();
    let reg = t.src.addr.reg.get() as u8;
    match t.op {
        TexOp::Nop => {}
        TexOp::TexKill => add(&mut out, reg, tex_mask(t)),
        _ => {
            let s = channel_index(t.src.swizzle[0]);
            let tt = channel_index(t.src.swizzle[1]);
            add(&mut out, reg, (1 << s) | (1 << tt));
        }
    }
    out
}

fn tex_mask(t: &TexInst) -> u8 {
    t.rgb_write_mask.bits() as u8 | (u8::from(t.alpha_write_mask.is_on()) << 3)
}

fn overlaps(a: &[(u8, u8)], b: &[(u8, u8)]) -> bool {
    b.iter()
        .any(|(r, m)| a.iter().any(|(pr, pm)| pr == r && pm & m != 0))
}

/// ALU-written channels not yet completed by an `ALU_WAIT`, as a set of
/// (register, channel) bits.
type Pending = [u128; 4];

fn mark(p: &mut Pending, chans: &[(u8, u8)]) {
    for &(reg, mask) in chans {
        for (c, bits) in p.iter_mut().enumerate() {
            if mask & (1 << c) != 0 {
                *bits |= 1u128 << (reg & 127);
            }
        }
    }
}

fn hits(p: &Pending, chans: &[(u8, u8)]) -> bool {
    chans.iter().any(|&(reg, mask)| {
        (0..4).any(|c| mask & (1 << c) != 0 && p[c] & (1u128 << (reg & 127)) != 0)
    })
}

/// Rule 4 (CTM §3.2.1): `ALU_WAIT` on a TEX reading a channel an ALU
/// instruction may have written since the last `ALU_WAIT` on some path.
fn alu_waits(insts: &mut [Inst]) {
    let n = insts.len();
    let mut entry: Vec<Option<Pending>> = vec![None; n];
    if n == 0 {
        return;
    }
    entry[0] = Some([0; 4]);
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        let Some(mut p) = entry[i] else { continue };
        match &mut insts[i] {
            Inst::Alu(a) => mark(&mut p, &alu_writes(a)),
            Inst::Tex(t) => {
                if hits(&p, &tex_reads(t)) {
                    t.alu_wait = true;
                }
                if t.alu_wait {
                    p = [0; 4];
                }
            }
            Inst::Fc(f) => {
                if f.alu_wait {
                    p = [0; 4];
                }
            }
        }
        for s in successors(insts, i) {
            let merged = match entry[s] {
                None => p,
                Some(e) => [e[0] | p[0], e[1] | p[1], e[2] | p[2], e[3] | p[3]],
            };
            if entry[s] != Some(merged) {
                entry[s] = Some(merged);
                work.push(s);
            }
        }
    }
}

/// The texture semaphore (CTM §3.4.2), channel by channel. No pending
/// fetch crosses a flow-control instruction, so a linear pass suffices.
fn semaphore(insts: &mut [Inst]) {
    let n = insts.len();
    let mut pending: Channels = Channels::new();
    let mut last_fetch: Option<usize> = None;
    for i in 0..n {
        let sync = i + 1 == n
            || match &insts[i] {
                Inst::Alu(a) => {
                    overlaps(&pending, &alu_reads(a, false)) || overlaps(&pending, &alu_writes(a))
                }
                Inst::Tex(t) => {
                    let dst: &[(u8, u8)] = &[(t.dst.reg.get() as u8, tex_mask(t))];
                    overlaps(&pending, &tex_reads(t))
                        || (t.op == TexOp::Ld && overlaps(&pending, dst))
                }
                Inst::Fc(_) => !pending.is_empty(),
            };
        if sync && let Some(f) = last_fetch.take() {
            if let Inst::Tex(t) = &mut insts[f] {
                t.sem_acquire = true;
                t.sem_wait = true;
            }
            set_wait(&mut insts[i]);
            pending.clear();
        }
        if i + 1 == n {
            set_wait(&mut insts[i]);
        }
        if let Inst::Tex(t) = &insts[i]
            && t.op == TexOp::Ld
        {
            add(&mut pending, t.dst.reg.get() as u8, tex_mask(t));
            last_fetch = Some(i);
        }
    }
}

/// CTM §3.7 errata: an FC instruction waits if any possible successor
/// waits; a successor may be another FC instruction that only now waits,
/// so repeat until nothing changes.
fn errata(insts: &mut [Inst]) {
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..insts.len() {
            let Inst::Fc(fc) = &insts[i] else { continue };
            if fc.sem_wait {
                continue;
            }
            let waits = successors(insts, i).iter().any(|&s| match &insts[s] {
                Inst::Alu(a) => a.sem_wait,
                Inst::Tex(t) => t.sem_wait,
                Inst::Fc(f) => f.sem_wait,
            });
            if waits && let Inst::Fc(fc) = &mut insts[i] {
                fc.sem_wait = true;
                changed = true;
            }
        }
    }
}

/// Rule 3 (CTM §3.3.2): `NOP` on an ALU instruction whose successor reads
/// through a presubtract a channel it wrote. Only a TEX or FC instruction
/// separates two ALU instructions dynamically, so the static neighbour is
/// the dynamic one.
fn presub_nops(insts: &mut [Inst]) {
    for i in 1..insts.len() {
        let Inst::Alu(a) = &insts[i] else { continue };
        let reads = alu_reads(a, true);
        if reads.is_empty() {
            continue;
        }
        if let Inst::Alu(prev) = &mut insts[i - 1]
            && overlaps(&alu_writes(prev), &reads)
        {
            prev.nop = true;
        }
    }
}

fn set_wait(inst: &mut Inst) {
    match inst {
        Inst::Alu(a) => a.sem_wait = true,
        Inst::Tex(t) => t.sem_wait = true,
        Inst::Fc(f) => f.sem_wait = true,
    }
}
