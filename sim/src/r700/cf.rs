//! The CF program: the sequencer's loop over CF instructions with the
//! condition test, the stack (PUSH/POP/ELSE/JUMP with POP_COUNT), DX9,
//! DX10 and repeat loops with LOOP_BREAK/LOOP_CONTINUE, CALL/RETURN, the
//! ALU* clause variants, KILL, exports and END_OF_PROGRAM (manual §3.6-3.7,
//! Table 3.7 L1093-1117; digest §5.1-5.4). Interpretations where the
//! manual is ambiguous are in `docs/sim-r700.md` §2.2.

use ctm_backend_r700::isa::{CfAluOp, CfInst, CfOp, FetchClause};

use super::fault::{Fault, FaultKind, FaultLoc};
use super::prepare::Prepared;
use super::wavefront::{Entry, Event, Wave};

/// Maximum call depth (manual §3.7.6 L1165).
const MAX_CALL_DEPTH: u32 = 32;

/// Run the CF program of `w` until END_OF_PROGRAM or a fault.
pub fn run(w: &mut Wave<'_>, p: &Prepared) -> Result<(), Fault> {
    let mut pc: u32 = 0;
    let limit = w.config.step_limit;
    let mut steps: u64 = 0;
    loop {
        let Some(inst) = p.cf.get(pc as usize).copied() else {
            return Err(w.fault(FaultLoc::Cf { cf: pc }, FaultKind::PastEnd));
        };
        steps += 1;
        if steps > limit {
            return Err(w.fault(FaultLoc::Cf { cf: pc }, FaultKind::StepLimit { limit }));
        }
        w.out.counters.cf += 1;
        let at = FaultLoc::Cf { cf: pc };
        let next = step(w, p, pc, &inst).map_err(|e| match e {
            Stop::Fault(f) => f,
            Stop::Kind(k) => w.fault(at, k),
        })?;
        if inst.end_of_program() {
            return Ok(());
        }
        pc = next;
    }
}

/// Why an instruction stopped.
pub enum Stop {
    /// A fault with its own location.
    Fault(Fault),
    /// A fault at the CF instruction.
    Kind(FaultKind),
}

impl From<FaultKind> for Stop {
    fn from(k: FaultKind) -> Self {
        Stop::Kind(k)
    }
}

impl From<Fault> for Stop {
    fn from(f: Fault) -> Self {
        Stop::Fault(f)
    }
}

/// ELSE on the current state (after any pops): pixels active at the last
/// push that pass the condition swap active ↔ inactive-branch; broken or
/// continued pixels stay put (manual §3.7.2).
fn do_else(w: &mut Wave<'_>, pass_all: bool, vpm: bool) -> u64 {
    let top = w.top_active();
    let mut flip = if pass_all { top } else { 0 };
    if vpm {
        flip &= w.valid;
    }
    flip &= !(w.lp.brk | w.lp.cont);
    w.active ^= flip & (w.active | top);
    w.active &= top & !(w.lp.brk | w.lp.cont);
    w.active
}

fn step(w: &mut Wave<'_>, p: &Prepared, pc: u32, inst: &CfInst) -> Result<u32, Stop> {
    let next = pc + 1;
    match inst {
        CfInst::Alu(a) => {
            w.out.events.push(Event::Alu { groups: 0 });
            // The stack effect is `CfAluOp`'s, shared with the validator
            // (docs/sim-r700.md §2.2): pushes of the active mask at the
            // start of the clause, ALU_BREAK's / ALU_CONTINUE's transient
            // push (room checked, stack unchanged), the clause, an ELSE
            // with POP_COUNT 0 (ALU_ELSE_AFTER), pops.
            let pred_sets = p.alu.get(&a.addr.get()).map_or(0, |c| c.pred_sets);
            for _ in 0..a.op.pushes(pred_sets) {
                w.push(Entry::Push {
                    active: w.active,
                    wqm: false,
                })?;
            }
            for _ in 0..a.op.transient_pushes() {
                w.transient_push()?;
            }
            let before = w.active;
            let ran = super::group::run_clause(w, p, pc, a);
            w.poison_clause_temps();
            ran?;
            if a.op.else_after() {
                do_else(w, true, false);
            }
            w.pop(a.op.pops_after() as u32)?;
            match a.op {
                CfAluOp::AluBreak => {
                    let off = before & !w.active;
                    w.lp.brk |= off;
                }
                CfAluOp::AluContinue => {
                    let off = before & !w.active;
                    w.lp.cont |= off;
                }
                _ => {}
            }
            Ok(next)
        }
        CfInst::Export(e) => {
            super::export::export(w, e);
            Ok(next)
        }
        CfInst::Mem(m) => {
            super::export::mem_write(w, m)?;
            Ok(next)
        }
        CfInst::Cf(c) => {
            let cf_const = c.cf_const.get();
            let pop_count = c.pop_count.get();
            let flags = c.flags;
            match c.op {
                CfOp::Nop | CfOp::WaitAck => {
                    w.out.events.push(Event::Cf);
                    Ok(next)
                }
                CfOp::Tex | CfOp::Vtx | CfOp::VtxTc => {
                    let Some(clause) = p.fetch.get(&c.addr) else {
                        return Err(FaultKind::MissingClause { addr: c.addr }.into());
                    };
                    let mask = w.test(c.cond, cf_const, flags);
                    match clause {
                        FetchClause::Tex(insts) => {
                            w.out.counters.tex_clauses += 1;
                            w.out.events.push(Event::Tex {
                                n: insts.len() as u32,
                            });
                            super::fetch::tex_clause(w, pc, c.addr, insts, mask)?;
                        }
                        FetchClause::Vtx(insts) => {
                            w.out.counters.vtx_clauses += 1;
                            w.out.events.push(Event::Vtx {
                                n: insts.len() as u32,
                            });
                            super::fetch::vtx_clause(w, pc, c.addr, insts, mask)?;
                        }
                    }
                    Ok(next)
                }
                _ => {
                    w.out.events.push(Event::Cf);
                    flow(w, pc, c, cf_const, pop_count)
                }
            }
        }
    }
}

fn flow(
    w: &mut Wave<'_>,
    pc: u32,
    c: &ctm_backend_r700::isa::CfGeneral,
    cf_const: u32,
    pop_count: u32,
) -> Result<u32, Stop> {
    let next = pc + 1;
    let flags = c.flags;
    let push_else = |w: &mut Wave<'_>| -> Result<u32, Stop> {
        w.push(Entry::Push {
            active: w.active,
            wqm: flags.whole_quad_mode,
        })?;
        let pass = w.cond_bool(c.cond, cf_const);
        let below = match w.stack.iter().rev().nth(1) {
            Some(Entry::Push { active, .. }) => *active,
            _ => {
                if w.lp.in_loop {
                    w.lp.entry
                } else {
                    w.lanes
                }
            }
        };
        let mut a = if pass { below & !w.active } else { 0 };
        if flags.valid_pixel_mode {
            a &= w.valid;
        }
        w.active = a & !(w.lp.brk | w.lp.cont);
        Ok(if w.active == 0 { c.addr } else { next })
    };
    let push = |w: &mut Wave<'_>, pops: u32| -> Result<u32, Stop> {
        let t = w.test(c.cond, cf_const, flags);
        if t == 0 {
            w.pop(pops)?;
            return Ok(c.addr);
        }
        w.push(Entry::Push {
            active: w.active,
            wqm: flags.whole_quad_mode,
        })?;
        w.active = t;
        Ok(next)
    };
    let jump = |w: &mut Wave<'_>, pops: u32| -> Result<u32, Stop> {
        // Table 3.7: JUMP pops only when it jumps (LLVM's JUMP POP:1
        // relies on this; §3.7.2's "first pops" would underflow).
        let t = w.test(c.cond, cf_const, flags);
        if t == 0 {
            w.pop(pops)?;
            Ok(c.addr)
        } else {
            Ok(next)
        }
    };
    match c.op {
        CfOp::Push => push(w, pop_count),
        CfOp::PushElse => push_else(w),
        CfOp::Pop => {
            w.pop(pop_count)?;
            w.active = w.test(c.cond, cf_const, flags);
            Ok(next)
        }
        CfOp::Else => {
            w.pop(pop_count)?;
            let a = do_else(w, w.cond_bool(c.cond, cf_const), flags.valid_pixel_mode);
            Ok(if a == 0 { c.addr } else { next })
        }
        CfOp::Jump => jump(w, pop_count),
        CfOp::PopJump => {
            w.pop(pop_count)?;
            jump(w, 0)
        }
        CfOp::PopPush => {
            w.pop(pop_count)?;
            push(w, 0)
        }
        CfOp::PopPushElse => {
            w.pop(pop_count)?;
            push_else(w)
        }
        CfOp::LoopStart | CfOp::LoopStartNoAl | CfOp::LoopStartDx10 => {
            let k = w
                .launch
                .loop_consts
                .get(cf_const as usize)
                .copied()
                .unwrap_or([0; 3]);
            let (count, al, step) = match c.op {
                CfOp::LoopStartDx10 => (None, None, 0),
                CfOp::LoopStartNoAl => (Some(k[0]), None, 0),
                _ => (Some(k[0]), Some(k[1] as i32), k[2] as i32),
            };
            let mut t = w.test(c.cond, cf_const, flags);
            if count == Some(0) {
                t = 0;
            }
            if t == 0 {
                w.pop(pop_count)?;
                return Ok(c.addr);
            }
            w.enter_loop(t, al, count, step)?;
            Ok(next)
        }
        CfOp::LoopEnd => {
            if !w.lp.in_loop || !matches!(w.stack.last(), Some(Entry::Loop(_))) {
                return Err(FaultKind::StackUnderflow {
                    what: "LOOP_END outside a loop or with pushes outstanding".into(),
                }
                .into());
            }
            // Continued pixels return; broken ones stay out (§3.7.3).
            w.lp.cont = 0;
            w.active = w.lp.entry & !w.lp.brk & w.lanes;
            let t = w.test(c.cond, cf_const, flags);
            if let Some(n) = w.lp.counter.as_mut() {
                *n = n.saturating_sub(1);
            }
            let again = t != 0 && w.lp.counter != Some(0);
            if again {
                w.lp.al = w.lp.al.wrapping_add(w.lp.step);
                Ok(c.addr)
            } else {
                w.exit_loop()?;
                Ok(next)
            }
        }
        CfOp::LoopBreak | CfOp::LoopContinue => {
            if !w.lp.in_loop {
                return Err(FaultKind::StackUnderflow {
                    what: format!("{} outside a loop", c.op.mnemonic()),
                }
                .into());
            }
            let t = w.test(c.cond, cf_const, flags);
            if c.op == CfOp::LoopBreak {
                w.lp.brk |= t;
            } else {
                w.lp.cont |= t;
            }
            w.active &= !t;
            let remaining = w.lp.entry & !(w.lp.brk | w.lp.cont);
            if remaining == 0 {
                w.unwind_to_loop();
                Ok(c.addr)
            } else {
                Ok(next)
            }
        }
        CfOp::Call => {
            w.pop(pop_count)?;
            let t = w.test(c.cond, cf_const, flags);
            let depth = w.call_depth + c.call_count.get();
            if t != 0 && depth <= MAX_CALL_DEPTH {
                w.push(Entry::Call {
                    ret: next,
                    depth: w.call_depth,
                })?;
                w.call_depth = depth;
                Ok(c.addr)
            } else {
                Ok(next)
            }
        }
        CfOp::Return => match w.stack.last().copied() {
            Some(Entry::Call { ret, depth }) => {
                w.stack.pop();
                w.stack_subentries = w.stack_subentries.saturating_sub(1);
                w.call_depth = depth;
                Ok(ret)
            }
            _ => Err(FaultKind::StackUnderflow {
                what: "RETURN outside a subroutine (or with pushes outstanding)".into(),
            }
            .into()),
        },
        CfOp::Kill => {
            let t = w.test(c.cond, cf_const, flags);
            w.valid &= !t;
            Ok(if w.valid == 0 { c.addr } else { next })
        }
        CfOp::EmitVertex | CfOp::EmitCutVertex | CfOp::CutVertex => Ok(next),
        CfOp::CallFs => Err(FaultKind::Unimplemented {
            what: "CALL_FS (fetch subroutines are vertex-shader only)".into(),
        }
        .into()),
        CfOp::Nop | CfOp::WaitAck | CfOp::Tex | CfOp::Vtx | CfOp::VtxTc => Ok(next),
    }
}
