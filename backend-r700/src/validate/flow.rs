//! CF rules: per-instruction fields, clause references and layout, and a
//! path-sensitive walk of the CF program that tracks the stack (pushes,
//! loops, calls; §5.2) to check depth, balance, loops, RETURN and
//! END_OF_PROGRAM.

use std::collections::{BTreeSet, HashSet};

use super::{Config, Loc, Rule, Violation};
use crate::isa::program::clause_ref;
use crate::isa::{CfAddr, CfAluOp, CfCond, CfInst, CfOp, Clause, Program};

/// What the flow analysis learnt for the group rules.
#[derive(Default, Debug)]
pub(super) struct Facts {
    /// ALU clauses (by address) some path runs outside any loop.
    pub alu_outside_loop: BTreeSet<u32>,
}

/// One stack frame.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Frame {
    /// A push taking one subentry (PUSH with WQM=0, ALU_PUSH_BEFORE,
    /// ALU_ELSE_AFTER per PRED_SET*).
    Sub,
    /// A push taking a full entry (PUSH with WQM=1).
    Entry,
    /// A loop, started at this CF index (one entry).
    Loop(usize),
    /// A call returning to this CF index, taking this many subentries.
    Call(usize, usize),
}

type State = Vec<Frame>;

pub(super) fn check(p: &Program, config: &Config, out: &mut Vec<Violation>) -> Facts {
    check_fields(p, out);
    check_clauses(p, out);
    walk(p, config, out)
}

fn check_fields(p: &Program, out: &mut Vec<Violation>) {
    let len = p.cf.len();
    for (i, inst) in p.cf.iter().enumerate() {
        let at = Loc::Cf(i);
        let flags = match inst {
            CfInst::Cf(c) => Some(c.flags),
            CfInst::Export(e) => Some(e.io.flags),
            CfInst::Mem(m) => Some(m.io.flags),
            CfInst::Alu(_) => None,
        };
        if flags.is_some_and(|f| f.whole_quad_mode && f.valid_pixel_mode) {
            out.push(Violation::new(
                Rule::WqmWithVpm,
                at,
                "WHOLE_QUAD_MODE and VALID_PIXEL_MODE both set",
            ));
        }
        let CfInst::Cf(c) = inst else { continue };
        let branch = matches!(c.op.addr_meaning(), CfAddr::JumpTarget)
            || matches!(c.op, CfOp::Pop | CfOp::Return | CfOp::CallFs);
        if !branch && c.cond != CfCond::Active {
            out.push(Violation::new(
                Rule::CondNotActive,
                at,
                format!("{} with COND {}", c.op.mnemonic(), c.cond.mnemonic()),
            ));
        }
        if matches!(c.op, CfOp::Call | CfOp::CallFs) && c.pop_count.get() != 0 {
            out.push(Violation::new(
                Rule::CallPopCount,
                at,
                format!("{} with POP_COUNT {}", c.op.mnemonic(), c.pop_count.get()),
            ));
        }
        if c.op.addr_meaning() == CfAddr::JumpTarget {
            let target = c.addr as usize;
            if target >= len {
                out.push(Violation::new(
                    Rule::JumpTarget,
                    at,
                    format!("target {target} outside the CF program (length {len})"),
                ));
            } else if matches!(c.op, CfOp::LoopBreak | CfOp::LoopContinue)
                && !matches!(&p.cf[target], CfInst::Cf(t) if t.op == CfOp::LoopEnd)
            {
                out.push(Violation::new(
                    Rule::JumpTarget,
                    at,
                    format!("{} target {target} is not a LOOP_END", c.op.mnemonic()),
                ));
            }
        }
    }
}

fn check_clauses(p: &Program, out: &mut Vec<Violation>) {
    for (i, inst) in p.cf.iter().enumerate() {
        let Some((kind, addr, count)) = clause_ref(inst) else {
            continue;
        };
        let ok = p
            .clauses
            .get(&addr)
            .is_some_and(|c| c.kind() == kind && c.count() == count);
        if !ok {
            out.push(Violation::new(
                Rule::ClauseReference,
                Loc::Cf(i),
                format!("no {kind:?} clause of {count} at qword {addr}"),
            ));
        }
    }
    let mut end = p.cf.len() as u64;
    for (&addr, clause) in &p.clauses {
        let loc = match clause {
            Clause::Alu(_) => Loc::Alu {
                clause: addr,
                group: 0,
                slot: None,
            },
            Clause::Fetch(_) => Loc::Fetch {
                clause: addr,
                inst: None,
            },
        };
        if u64::from(addr) < end {
            out.push(Violation::new(
                Rule::ClauseLayout,
                loc,
                format!("clause at qword {addr} overlaps what precedes it (ends at {end})"),
            ));
        }
        if matches!(clause, Clause::Fetch(_)) && addr % 2 != 0 {
            out.push(Violation::new(
                Rule::ClauseLayout,
                loc,
                format!("fetch clause at odd qword {addr} (needs 128-bit alignment)"),
            ));
        }
        end = end.max(u64::from(addr) + clause.qwords());
    }
}

fn depth(state: &State, config: &Config) -> usize {
    let mut entries = 0;
    let mut subs = 0;
    for f in state {
        match f {
            Frame::Sub => subs += 1,
            Frame::Call(_, n) => subs += n,
            Frame::Entry | Frame::Loop(_) => entries += 1,
        }
    }
    entries + subs.div_ceil(config.subentries_per_entry())
}

/// The innermost loop of the current subroutine level.
fn innermost_loop(state: &State) -> Option<usize> {
    for f in state.iter().rev() {
        match f {
            Frame::Loop(start) => return Some(*start),
            Frame::Call(..) => return None,
            _ => {}
        }
    }
    None
}

fn pop(state: &mut State, n: usize) -> Result<(), String> {
    for _ in 0..n {
        match state.last() {
            Some(Frame::Sub | Frame::Entry) => {
                state.pop();
            }
            Some(Frame::Loop(_)) => return Err("pop crosses an open loop".into()),
            Some(Frame::Call(..)) => return Err("pop crosses the subroutine's call".into()),
            None => return Err("pop of an empty stack".into()),
        }
    }
    Ok(())
}

fn walk(p: &Program, config: &Config, out: &mut Vec<Violation>) -> Facts {
    let len = p.cf.len();
    let mut facts = Facts::default();
    let mut seen: HashSet<(usize, State)> = HashSet::new();
    let mut work: Vec<(usize, State)> = vec![(0, Vec::new())];
    let mut reported: HashSet<(usize, Rule)> = HashSet::new();
    let mut report = |out: &mut Vec<Violation>, pc: usize, rule: Rule, detail: String| {
        if reported.insert((pc, rule)) {
            let loc = if pc < len { Loc::Cf(pc) } else { Loc::Program };
            out.push(Violation::new(rule, loc, detail));
        }
    };
    if len == 0 {
        out.push(Violation::new(
            Rule::MissingEndOfProgram,
            Loc::Program,
            "empty CF program",
        ));
        return facts;
    }
    while let Some((pc, state)) = work.pop() {
        if !seen.insert((pc, state.clone())) {
            continue;
        }
        if seen.len() > config.max_flow_states {
            report(
                out,
                pc,
                Rule::FlowAnalysisLimit,
                format!("more than {} CF states", config.max_flow_states),
            );
            break;
        }
        if pc >= len {
            report(
                out,
                len - 1,
                Rule::MissingEndOfProgram,
                "execution runs past the last CF instruction".into(),
            );
            continue;
        }
        let inst = &p.cf[pc];
        let mut next: Vec<(usize, State)> = Vec::new();
        let mut fall = state.clone();
        let mut fail = |out: &mut Vec<Violation>, rule, detail: String| {
            report(out, pc, rule, detail);
        };
        match inst {
            CfInst::Export(_) | CfInst::Mem(_) => next.push((pc + 1, fall)),
            CfInst::Alu(a) => {
                let addr = a.addr.get();
                if innermost_loop(&state).is_none() {
                    facts.alu_outside_loop.insert(addr);
                }
                // The stack effect is `CfAluOp`'s (shared with the
                // simulator): pushes before, ELSE (POP_COUNT 0: no stack
                // change) and pops after.
                let pred_sets = match p.clauses.get(&addr) {
                    Some(Clause::Alu(c)) => c.pred_set_count(),
                    _ => 0,
                };
                for _ in 0..a.op.pushes(pred_sets) {
                    fall.push(Frame::Sub);
                }
                if matches!(a.op, CfAluOp::AluContinue | CfAluOp::AluBreak)
                    && innermost_loop(&state).is_none()
                {
                    fail(
                        out,
                        Rule::LoopMismatch,
                        format!("{} outside a loop", a.op.mnemonic()),
                    );
                }
                let mut during = fall.clone();
                during.extend((0..a.op.transient_pushes()).map(|_| Frame::Sub));
                let d = depth(&during, config);
                if d > config.stack_size {
                    fail(
                        out,
                        Rule::StackOverflow,
                        format!(
                            "{}'s push: stack depth {d} entries (STACK_SIZE {})",
                            a.op.mnemonic(),
                            config.stack_size
                        ),
                    );
                }
                let r = pop(&mut fall, a.op.pops_after());
                match r {
                    Ok(()) => next.push((pc + 1, fall)),
                    Err(e) => fail(out, Rule::StackUnderflow, e),
                }
            }
            CfInst::Cf(c) => {
                let target = c.addr as usize;
                let pops = c.pop_count.get() as usize;
                let push = if c.flags.whole_quad_mode {
                    Frame::Entry
                } else {
                    Frame::Sub
                };
                match c.op {
                    CfOp::Nop
                    | CfOp::Tex
                    | CfOp::Vtx
                    | CfOp::VtxTc
                    | CfOp::EmitVertex
                    | CfOp::EmitCutVertex
                    | CfOp::CutVertex
                    | CfOp::Kill
                    | CfOp::WaitAck
                    | CfOp::CallFs => next.push((pc + 1, fall)),
                    CfOp::LoopStart | CfOp::LoopStartDx10 | CfOp::LoopStartNoAl => {
                        let mut skip = state.clone();
                        match pop(&mut skip, pops) {
                            Ok(()) => next.push((target, skip)),
                            Err(e) => fail(out, Rule::StackUnderflow, e),
                        }
                        fall.push(Frame::Loop(pc));
                        next.push((pc + 1, fall));
                    }
                    CfOp::LoopEnd => {
                        if let Some(Frame::Loop(_)) = state.last() {
                            next.push((target, state.clone()));
                            fall.pop();
                            next.push((pc + 1, fall));
                        } else {
                            fail(
                                out,
                                Rule::LoopMismatch,
                                "LOOP_END without an open loop on top of the stack".into(),
                            );
                        }
                    }
                    CfOp::LoopBreak | CfOp::LoopContinue => {
                        if innermost_loop(&state).is_none() {
                            fail(
                                out,
                                Rule::LoopMismatch,
                                format!("{} outside a loop", c.op.mnemonic()),
                            );
                        }
                        next.push((pc + 1, fall));
                    }
                    CfOp::Jump => {
                        // Table 3.7 (L1103): JUMP pops only when it jumps
                        // (L1137 says always; LLVM relies on the table).
                        if let Some(start) = innermost_loop(&state) {
                            let end = match &p.cf[start] {
                                CfInst::Cf(s) => (s.addr as usize).saturating_sub(1),
                                _ => len,
                            };
                            if target <= start || target > end {
                                fail(
                                    out,
                                    Rule::JumpOutOfLoop,
                                    format!("JUMP to {target} leaves the loop {start}..={end}"),
                                );
                            }
                        }
                        let mut taken = state.clone();
                        match pop(&mut taken, pops) {
                            Ok(()) => next.push((target, taken)),
                            Err(e) => fail(out, Rule::StackUnderflow, e),
                        }
                        next.push((pc + 1, fall));
                    }
                    CfOp::Else | CfOp::PopJump => match pop(&mut fall, pops) {
                        Ok(()) => {
                            next.push((target, fall.clone()));
                            next.push((pc + 1, fall));
                        }
                        Err(e) => fail(out, Rule::StackUnderflow, e),
                    },
                    CfOp::Pop => match pop(&mut fall, pops) {
                        Ok(()) => next.push((pc + 1, fall)),
                        Err(e) => fail(out, Rule::StackUnderflow, e),
                    },
                    CfOp::Push | CfOp::PopPush => {
                        let (skip_pops, pre) = if c.op == CfOp::Push {
                            (pops, 0)
                        } else {
                            (0, pops)
                        };
                        match pop(&mut fall, pre) {
                            Ok(()) => {
                                let mut skip = fall.clone();
                                match pop(&mut skip, skip_pops) {
                                    Ok(()) => next.push((target, skip)),
                                    Err(e) => fail(out, Rule::StackUnderflow, e),
                                }
                                fall.push(push);
                                next.push((pc + 1, fall));
                            }
                            Err(e) => fail(out, Rule::StackUnderflow, e),
                        }
                    }
                    CfOp::PushElse | CfOp::PopPushElse => {
                        let pre = if c.op == CfOp::PopPushElse { pops } else { 0 };
                        match pop(&mut fall, pre) {
                            Ok(()) => {
                                fall.push(push);
                                next.push((target, fall.clone()));
                                next.push((pc + 1, fall));
                            }
                            Err(e) => fail(out, Rule::StackUnderflow, e),
                        }
                    }
                    CfOp::Call => {
                        next.push((pc + 1, state.clone()));
                        let subs = if config.wavefront_width <= 16 { 2 } else { 1 };
                        fall.push(Frame::Call(pc + 1, subs));
                        next.push((target, fall));
                    }
                    CfOp::Return => match state.last() {
                        Some(Frame::Call(ret, _)) => {
                            fall.pop();
                            next.push((*ret, fall));
                        }
                        Some(_) if state.iter().any(|f| matches!(f, Frame::Call(..))) => fail(
                            out,
                            Rule::ReturnOutsideSubroutine,
                            "RETURN with pushes or loops of the subroutine still open".into(),
                        ),
                        _ => fail(
                            out,
                            Rule::ReturnOutsideSubroutine,
                            "RETURN outside a subroutine".into(),
                        ),
                    },
                }
            }
        }
        if inst.end_of_program() {
            let pending = next
                .iter()
                .find(|(n, _)| *n == pc + 1)
                .map_or(state.clone(), |(_, s)| s.clone());
            if !pending.is_empty() {
                fail(
                    out,
                    Rule::EndOfProgramNested,
                    format!("END_OF_PROGRAM with {} stack frames open", pending.len()),
                );
            }
            continue;
        }
        for (n, s) in next {
            let d = depth(&s, config);
            if d > config.stack_size {
                report(
                    out,
                    pc,
                    Rule::StackOverflow,
                    format!("stack depth {d} entries (STACK_SIZE {})", config.stack_size),
                );
                continue;
            }
            work.push((n, s));
        }
    }
    facts
}
