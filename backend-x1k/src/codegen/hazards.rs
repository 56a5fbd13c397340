//! Synchronisation and hazards on the laid-out program (CTM §3.2.1,
//! §3.3.2, §3.4.2, §3.7; `x1k-encoding.md` §11 rules 1, 3, 4):
//!
//! - texture semaphore: the last fetch of a group acquires (with its
//!   mandatory wait), and the first instruction that reads or overwrites a
//!   fetched register, any flow-control instruction, and the last
//!   instruction wait;
//! - `ALU_WAIT` on a texture instruction whose coordinates an ALU wrote
//!   (flow control that reads the ALU result sets it when emitted);
//! - CTM §3.7 errata: a flow-control instruction waits on the semaphore if
//!   any instruction it may pass control to waits;
//! - `NOP` on an ALU instruction whose successor presubtracts a register
//!   it wrote (rule 3);
//! - the program ends with an `OUT` that waits (rule 1).

use crate::isa::{AluInst, AluSource, AluWrites, FcOp, InputSelect, Inst, OutputWrites, PresubOp};

/// (register, channel mask) pairs an ALU instruction reads: the RGB
/// address of a slot supplies r, g, b and the alpha address a.
fn slot_regs(a: &AluInst) -> Vec<(u8, u8)> {
    let mut regs = Vec::new();
    for s in a.rgb.sources.iter() {
        if let AluSource::Temp(t) = s {
            regs.push((t.reg.get() as u8, 0b0111));
        }
    }
    for s in a.alpha.sources.iter() {
        if let AluSource::Temp(t) = s {
            regs.push((t.reg.get() as u8, 0b1000));
        }
    }
    regs
}

/// (register, channel mask) pairs an ALU instruction writes.
fn alu_write_masks(a: &AluInst) -> Vec<(u8, u8)> {
    let mut w = Vec::new();
    if !a.rgb.write_mask.is_empty() {
        w.push((a.rgb.dest.reg.get() as u8, a.rgb.write_mask.bits() as u8));
    }
    if a.alpha.write_mask.is_on() {
        w.push((a.alpha.dest.reg.get() as u8, 0b1000));
    }
    w
}

fn overlaps(pending: &[(u8, u8)], x: &[(u8, u8)]) -> bool {
    x.iter()
        .any(|(r, m)| pending.iter().any(|(pr, pm)| pr == r && pm & m != 0))
}

/// Registers an ALU instruction writes.
fn alu_writes(a: &AluInst) -> Vec<u8> {
    let mut w = Vec::new();
    if !a.rgb.write_mask.is_empty() {
        w.push(a.rgb.dest.reg.get() as u8);
    }
    if a.alpha.write_mask.is_on() {
        w.push(a.alpha.dest.reg.get() as u8);
    }
    w
}

/// Applies every rule; `insts` is the whole program.
pub fn apply(insts: &mut Vec<Inst>) {
    // The last instruction: an OUT that waits (rule 1).
    match insts.last_mut() {
        Some(Inst::Alu(a)) if a.alu_result.is_none() => {
            if let AluWrites::Predicate(p) = a.writes
                && p.rgb_mask.is_empty()
                && !p.alpha_mask.is_on()
            {
                a.writes = AluWrites::Output(OutputWrites::default());
            }
        }
        _ => {}
    }
    // A jump past the end (a branch closing the program) needs a last
    // OUT that every path reaches.
    let jumps_to_end = insts
        .iter()
        .any(|i| matches!(i, Inst::Fc(f) if f.jump_addr.get() as usize >= insts.len()));
    if jumps_to_end
        || !matches!(insts.last(), Some(Inst::Alu(a)) if matches!(a.writes, AluWrites::Output(_)))
    {
        insts.push(Inst::Alu(AluInst {
            writes: AluWrites::Output(OutputWrites::default()),
            ..AluInst::default()
        }));
    }
    // ALU_WAIT on fetches from ALU-written registers.
    let mut alu_written: Vec<u8> = Vec::new();
    for inst in insts.iter_mut() {
        match inst {
            Inst::Alu(a) => alu_written.extend(alu_writes(a)),
            Inst::Tex(t) => {
                if alu_written.contains(&(t.src.addr.reg.get() as u8)) {
                    t.alu_wait = true;
                }
            }
            Inst::Fc(_) => {}
        }
    }
    // Texture semaphore.
    let n = insts.len();
    let mut pending: Vec<(u8, u8)> = Vec::new();
    let mut last_fetch: Option<usize> = None;
    for i in 0..n {
        let sync = i + 1 == n
            || match &insts[i] {
                Inst::Alu(a) => {
                    overlaps(&pending, &slot_regs(a)) || overlaps(&pending, &alu_write_masks(a))
                }
                Inst::Tex(t) => {
                    let dst =
                        t.rgb_write_mask.bits() as u8 | ((t.alpha_write_mask.is_on() as u8) << 3);
                    overlaps(&pending, &[(t.src.addr.reg.get() as u8, 0b1111)])
                        || overlaps(&pending, &[(t.dst.reg.get() as u8, dst)])
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
            && t.op == crate::isa::TexOp::Ld
        {
            let dst = t.rgb_write_mask.bits() as u8 | ((t.alpha_write_mask.is_on() as u8) << 3);
            pending.push((t.dst.reg.get() as u8, dst));
            last_fetch = Some(i);
        }
    }
    // CTM §3.7 errata: an FC instruction waits if any possible successor
    // waits; a successor may be another FC instruction that only now
    // waits, so repeat until nothing changes.
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            let Inst::Fc(fc) = &insts[i] else { continue };
            if fc.sem_wait {
                continue;
            }
            // JUMP_FUNC 0 never jumps, except that processors an ELSE
            // deactivates "want to jump" (CTM §3.5.3 special cases).
            let never_jumps = fc.op == FcOp::Jump && fc.jump_func == 0 && !fc.b_else;
            let mut succ = vec![i + 1];
            if !never_jumps {
                succ.push(fc.jump_addr.get() as usize);
            }
            let waits = succ.iter().any(|&s| match insts.get(s) {
                Some(Inst::Alu(a)) => a.sem_wait,
                Some(Inst::Tex(t)) => t.sem_wait,
                Some(Inst::Fc(f)) => f.sem_wait,
                None => false,
            });
            if waits && let Inst::Fc(fc) = &mut insts[i] {
                fc.sem_wait = true;
                changed = true;
            }
        }
    }
    // NOP before a presubtract of a just-written register (rule 3).
    for i in 1..n {
        let Inst::Alu(a) = &insts[i] else { continue };
        let mut pre: Vec<u8> = Vec::new();
        let uses = |inputs: &[InputSelect]| inputs.contains(&InputSelect::Srcp);
        let rgb_sels: Vec<InputSelect> = a.rgb.inputs.iter().map(|x| x.sel).collect();
        let alpha_sels: Vec<InputSelect> = a.alpha.inputs.iter().map(|x| x.sel).collect();
        if uses(&rgb_sels) || uses(&alpha_sels) {
            for s in a.rgb.sources[..2].iter().chain(a.alpha.sources[..2].iter()) {
                if let AluSource::Temp(t) = s {
                    pre.push(t.reg.get() as u8);
                }
            }
        }
        let _ = PresubOp::Sub;
        if pre.is_empty() {
            continue;
        }
        if let Inst::Alu(prev) = &mut insts[i - 1]
            && alu_writes(prev).iter().any(|r| pre.contains(r))
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
