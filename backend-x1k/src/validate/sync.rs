//! Synchronisation between the ALU, texture and flow-control engines (CTM
//! §3.2.1, §3.3.10, §3.4.2, §3.7): a forward data-flow analysis over the
//! control-flow graph that [`super::flow`] found.
//!
//! The state at each slot, joined over all incoming paths:
//!
//! * ALU writes not yet covered by an `ALU_WAIT` — temporary channels,
//!   predicate bits and the ALU result (*may*: union). A TEX or FC
//!   instruction that uses one needs `ALU_WAIT` (the simulator's model:
//!   any `ALU_WAIT` completes every pending ALU instruction).
//! * Whether an ALU result was written since the last FC instruction
//!   (*must*: intersection).
//! * Texture results in flight (*may*): those not yet covered by an
//!   acquiring lookup, and those covered but not yet waited for. An acquire
//!   covers its own lookup and every earlier one; `TEX_SEM_WAIT` (which
//!   happens before the instruction's reads and its own acquire) lands the
//!   covered ones. Uncached (UMRT) writes are tracked the same way for
//!   uncached reads.
//! * Whether the semaphore may be held.

use crate::isa::{AluWrites, Inst, TexOp, UmrtTarget};

use super::flow::Flow;
use super::reads::{
    RegSet, alu_predicate_writes, alu_temp_reads, alu_temp_writes, channel_name, jump_inputs,
    tex_dest_mask, tex_predicate_reads, tex_temp_reads,
};
use super::rule::{Rule, Violation};

/// Bit of `pred_dirty` for the ALU result.
const ALU_RESULT_BIT: u8 = 0x10;

#[derive(Clone, PartialEq, Eq, Debug)]
struct Sync {
    alu_dirty: RegSet,
    pred_dirty: u8,
    alu_result: bool,
    tex_unacquired: RegSet,
    tex_acquired: RegSet,
    held: bool,
    umrt_unacquired: bool,
    umrt_acquired: bool,
}

impl Sync {
    const ENTRY: Sync = Sync {
        alu_dirty: RegSet::EMPTY,
        pred_dirty: 0,
        alu_result: false,
        tex_unacquired: RegSet::EMPTY,
        tex_acquired: RegSet::EMPTY,
        held: false,
        umrt_unacquired: false,
        umrt_acquired: false,
    };

    fn join(&self, o: &Sync) -> Sync {
        Sync {
            alu_dirty: self.alu_dirty.union(&o.alu_dirty),
            pred_dirty: self.pred_dirty | o.pred_dirty,
            alu_result: self.alu_result && o.alu_result,
            tex_unacquired: self.tex_unacquired.union(&o.tex_unacquired),
            tex_acquired: self.tex_acquired.union(&o.tex_acquired),
            held: self.held || o.held,
            umrt_unacquired: self.umrt_unacquired || o.umrt_unacquired,
            umrt_acquired: self.umrt_acquired || o.umrt_acquired,
        }
    }

    /// `TEX_SEM_WAIT`: covered lookups and uncached writes land.
    fn wait(&mut self) {
        self.tex_acquired = RegSet::EMPTY;
        self.umrt_acquired = false;
        self.held = false;
    }

    /// `ALU_WAIT`: every pending ALU instruction completes.
    fn alu_wait(&mut self) {
        self.alu_dirty = RegSet::EMPTY;
        self.pred_dirty = 0;
    }

    fn pending(&self) -> RegSet {
        self.tex_unacquired.union(&self.tex_acquired)
    }
}

/// Where violations go; `None` while iterating to the fixpoint.
type Sink<'a> = Option<&'a mut Vec<Violation>>;

fn report(sink: &mut Sink<'_>, rule: Rule, slot: usize, detail: String) {
    if let Some(out) = sink {
        out.push(Violation::at(rule, slot, detail));
    }
}

/// The state after `inst` at `slot`.
fn step(inst: &Inst, slot: usize, umrt: bool, mut s: Sync, sink: &mut Sink<'_>) -> Sync {
    match inst {
        Inst::Alu(a) => {
            if a.sem_wait {
                s.wait();
            }
            let pending = s.pending();
            if let Some((r, c)) = alu_temp_reads(a, false).intersection(&pending).first() {
                let detail = format!(
                    "reads {} before a TEX_SEM_WAIT lands the lookup writing it",
                    channel_name(r, c)
                );
                report(sink, Rule::TexResultNotReady, slot, detail);
            }
            let writes = alu_temp_writes(a);
            if let Some((r, c)) = writes.intersection(&pending).first() {
                let detail = format!(
                    "writes {} while a texture lookup that writes it is in flight",
                    channel_name(r, c)
                );
                report(sink, Rule::TexResultOverwritten, slot, detail);
            }
            s.alu_dirty = s.alu_dirty.union(&writes);
            s.pred_dirty |= alu_predicate_writes(a);
            if a.alu_result.is_some() {
                s.alu_result = true;
                s.pred_dirty |= ALU_RESULT_BIT;
            }
            if let AluWrites::Output(o) = a.writes
                && umrt
                && (!o.rgb_mask.is_empty() || o.alpha_mask.is_on())
            {
                if UmrtTarget::from_target(o.rgb_target).acquires_semaphore() {
                    s.umrt_acquired = true;
                    s.umrt_unacquired = false;
                    s.held = true;
                } else {
                    s.umrt_unacquired = true;
                }
            }
        }
        Inst::Tex(t) => {
            if t.alu_wait {
                s.alu_wait();
            }
            if t.sem_wait {
                s.wait();
            }
            let reads = tex_temp_reads(t);
            if let Some((r, c)) = reads.intersection(&s.pending()).first() {
                let detail = format!(
                    "reads {} before a TEX_SEM_WAIT lands the lookup writing it",
                    channel_name(r, c)
                );
                report(sink, Rule::TexResultNotReady, slot, detail);
            }
            if let Some((r, c)) = reads.intersection(&s.alu_dirty).first() {
                let detail = format!(
                    "reads {}, written by an ALU instruction, without ALU_WAIT",
                    channel_name(r, c)
                );
                report(sink, Rule::MissingAluWait, slot, detail);
            }
            let preds = tex_predicate_reads(t) & s.pred_dirty;
            if preds != 0 {
                let detail = format!(
                    "is predicated on bit {}, written by an ALU instruction, without ALU_WAIT",
                    predicate_name(preds)
                );
                report(sink, Rule::MissingAluWait, slot, detail);
            }
            if t.op == TexOp::LdUncached && (s.umrt_unacquired || s.umrt_acquired) {
                let detail = "uncached read while an uncached write of this program is not \
                              synchronised by an acquiring write and a TEX_SEM_WAIT"
                    .to_string();
                report(sink, Rule::UncachedReadNotSynchronised, slot, detail);
            }
            let mut dest = RegSet::EMPTY;
            dest.add(t.dst, tex_dest_mask(t));
            s.tex_unacquired = s.tex_unacquired.union(&dest);
            if t.sem_acquire {
                s.tex_acquired = s.tex_acquired.union(&s.tex_unacquired);
                s.tex_unacquired = RegSet::EMPTY;
                s.held = true;
            }
        }
        Inst::Fc(f) => {
            if f.alu_wait {
                s.alu_wait();
            }
            if f.sem_wait {
                s.wait();
            }
            let inputs = jump_inputs(f);
            if inputs.alu_result {
                if !s.alu_result {
                    let detail = "JUMP_FUNC reads the ALU result, but not every path writes one \
                                  since the previous FC instruction"
                        .to_string();
                    report(sink, Rule::AluResultNotWritten, slot, detail);
                } else if s.pred_dirty & ALU_RESULT_BIT != 0 {
                    let detail = "reads the ALU result without ALU_WAIT".to_string();
                    report(sink, Rule::MissingAluWait, slot, detail);
                }
            }
            if inputs.predicate {
                match f.predicate {
                    None => report(
                        sink,
                        Rule::FcPredicateNotSelected,
                        slot,
                        "JUMP_FUNC reads the predicate but RGB_PRED_SEL is NONE".to_string(),
                    ),
                    Some(p) => {
                        let bit = 1u8 << p.channel.code();
                        if s.pred_dirty & bit != 0 {
                            let detail = format!(
                                "reads predicate bit {}, written by an ALU instruction, \
                                 without ALU_WAIT",
                                predicate_name(bit)
                            );
                            report(sink, Rule::MissingAluWait, slot, detail);
                        }
                    }
                }
            }
            // CTM §3.3.10: the ALU result does not survive an FC instruction.
            s.alu_result = false;
            s.pred_dirty &= !ALU_RESULT_BIT;
        }
    }
    s
}

fn predicate_name(bits: u8) -> char {
    ['r', 'g', 'b', 'a']
        .get(bits.trailing_zeros() as usize)
        .copied()
        .unwrap_or('?')
}

fn sem_wait(inst: &Inst) -> bool {
    match inst {
        Inst::Alu(a) => a.sem_wait,
        Inst::Fc(f) => f.sem_wait,
        Inst::Tex(t) => t.sem_wait,
    }
}

/// Run the synchronisation analysis and report its violations.
pub(crate) fn check(insts: &[Inst], flow: &Flow, umrt: bool, out: &mut Vec<Violation>) {
    let len = insts.len();
    if len == 0 {
        return;
    }
    let mut state: Vec<Option<Sync>> = vec![None; len];
    state[0] = Some(Sync::ENTRY);
    let mut work: Vec<usize> = vec![0];
    while let Some(slot) = work.pop() {
        let Some(input) = state[slot].clone() else {
            continue;
        };
        let after = step(&insts[slot], slot, umrt, input, &mut None);
        for &succ in &flow.succs[slot] {
            if succ >= len {
                continue;
            }
            let joined = match &state[succ] {
                None => after.clone(),
                Some(old) => old.join(&after),
            };
            if state[succ].as_ref() != Some(&joined) {
                state[succ] = Some(joined);
                work.push(succ);
            }
        }
    }
    for (slot, input) in state.iter().enumerate() {
        let Some(input) = input else {
            continue;
        };
        let after = step(&insts[slot], slot, umrt, input.clone(), &mut Some(out));
        if flow.succs[slot].contains(&len) && after.held {
            out.push(Violation::at(
                Rule::SemaphoreHeldAtEnd,
                slot,
                "the program may end holding the texture semaphore",
            ));
        }
        if let Inst::Fc(f) = &insts[slot]
            && !f.sem_wait
        {
            for &succ in &flow.succs[slot] {
                if succ < len && sem_wait(&insts[succ]) {
                    out.push(Violation::at(
                        Rule::ErrataFcSemWait,
                        slot,
                        format!("slot {succ} may follow and sets TEX_SEM_WAIT; set it here too"),
                    ));
                    break;
                }
            }
        }
    }
}
