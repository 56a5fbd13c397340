//! Flow-control structure (CTM §3.5): an abstract interpretation of the
//! stacks along every path.
//!
//! The abstract state at a slot is the *nesting*: the number of open
//! conditional blocks (what the branch counters count, CTM §3.5.2), the
//! loop-stack frames (LOOP or REP, with the nesting depth at which each
//! loop started) and the address-stack frames (return slot, depth and loop
//! count at the CALL). Each FC instruction has a *stay* and a *jump* path
//! (either may be impossible), and each applies the instruction's stack
//! effects (CTM §3.5.3):
//!
//! * `B_OP0` on stay, `B_OP1` on jump: INCR opens a block (depth + 1), DECR
//!   closes `B_POP_CNT` blocks. `B_ELSE` needs an open block.
//! * LOOP/REP push a frame on stay and skip the loop on jump (count 0);
//!   ENDLOOP/ENDREP pop on stay (loop done) and jump back on jump;
//!   BREAKLOOP/BREAKREP pop on jump; CONTINUE jumps to the ENDLOOP.
//! * `A_OP` PUSH pushes the return slot (the next slot) on jump; POP jumps
//!   to the popped slot.
//!
//! A jump is possible unless `JUMP_FUNC` is 0x00, and a stay unless it is
//! 0xFF, except: LOOP/REP jump when the count is 0; ENDLOOP/ENDREP stay
//! when it is used up; BREAK/CONTINUE stay when branch-masked processors
//! inhibit them; and with no voting processor the group jumps iff
//! `JUMP_ANY` = 0 — which the analysis assumes can happen only after a
//! `B_ELSE` swap or with `IGNORE_UNCOVERED` (all voters killed) (CTM §3.5.3
//! "Special Cases"). `JUMP_ADDR` is taken as an absolute slot: CTM loads a
//! program at `US_CODE_RANGE.CODE_ADDR` 0, so relative and global jumps
//! agree.
//!
//! Every path must reach each slot with the same nesting (within one call
//! context), loops must close the blocks they opened, RETURN must restore
//! its CALL's nesting, and the program must end with everything closed.
//! The edges found are the control-flow graph the synchronisation analyses
//! (`sync.rs`) run on.

use std::collections::{BTreeSet, HashMap};

use crate::isa::program_regs::FcMode;
use crate::isa::{AddrStackOp, BranchOp, FcInst, FcOp, Inst};

use super::reads::{needs_full_mode, uses_relative};
use super::rule::{Rule, Violation};

/// Loop and address stack size in full mode (CTM §3.5.2).
pub(crate) const STACK_SIZE: usize = 4;
/// Maximum branch nesting (CTM §3.5.2).
pub(crate) const fn max_depth(mode: FcMode) -> u32 {
    match mode {
        FcMode::Partial => 4,
        FcMode::Full => 32,
    }
}
/// How many (slot, state) pairs the analysis explores before giving up.
const STATE_LIMIT: usize = 200_000;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum LoopKind {
    Loop,
    Rep,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct LoopFrame {
    kind: LoopKind,
    /// Open conditional blocks when the loop started.
    entry_depth: u32,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct CallFrame {
    ret: usize,
    depth: u32,
    loops: usize,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
struct Nest {
    depth: u32,
    loops: Vec<LoopFrame>,
    calls: Vec<CallFrame>,
}

/// What the flow analysis found.
#[derive(Clone, Debug, Default)]
pub(crate) struct Flow {
    /// Successors of each slot; `len` stands for the end of the program.
    pub succs: Vec<BTreeSet<usize>>,
    /// Slots reachable from slot 0.
    pub reachable: Vec<bool>,
    /// Deepest conditional nesting seen.
    pub max_branch_depth: u32,
    /// Most loop frames seen.
    pub max_loop_depth: u32,
    /// Most address frames seen.
    pub max_call_depth: u32,
}

struct Explorer<'a> {
    insts: &'a [Inst],
    mode: FcMode,
    out: &'a mut Vec<Violation>,
    flow: Flow,
    work: Vec<(usize, usize, Nest)>,
}

/// Analyse the flow-control structure of `insts` in `mode`.
pub(crate) fn analyze(insts: &[Inst], mode: FcMode, out: &mut Vec<Violation>) -> Flow {
    let len = insts.len();
    let mut ex = Explorer {
        insts,
        mode,
        out,
        flow: Flow {
            succs: vec![BTreeSet::new(); len],
            reachable: vec![false; len],
            ..Flow::default()
        },
        work: Vec::new(),
    };
    if len == 0 {
        return ex.flow;
    }
    if mode == FcMode::Partial {
        for (slot, inst) in insts.iter().enumerate() {
            if let Inst::Fc(f) = inst
                && needs_full_mode(f)
            {
                ex.out.push(Violation::at(
                    Rule::FullModeRequired,
                    slot,
                    format!(
                        "{} / A_OP {} needs full flow-control mode (US_FC_CTRL bit 31)",
                        f.op, f.a_op
                    ),
                ));
            }
        }
    }
    ex.work.push((0, 0, Nest::default()));
    let mut seen: HashMap<(usize, Vec<CallFrame>), Nest> = HashMap::new();
    let mut states = 0usize;
    while let Some((from, slot, nest)) = ex.work.pop() {
        if slot >= len {
            ex.check_end(from, &nest);
            continue;
        }
        let key = (slot, nest.calls.clone());
        match seen.get(&key) {
            Some(existing) if *existing == nest => continue,
            Some(existing) => {
                let detail = format!(
                    "reached with {} open block(s) and {} loop(s), and also with {} and {}",
                    existing.depth,
                    existing.loops.len(),
                    nest.depth,
                    nest.loops.len()
                );
                ex.out
                    .push(Violation::at(Rule::NestingMismatch, slot, detail));
                continue;
            }
            None => {
                seen.insert(key, nest.clone());
            }
        }
        states += 1;
        if states > STATE_LIMIT {
            ex.out.push(Violation::program(
                Rule::AnalysisLimit,
                format!("more than {STATE_LIMIT} flow-control states"),
            ));
            break;
        }
        ex.visit(slot, nest);
    }
    ex.flow
}

impl Explorer<'_> {
    fn visit(&mut self, slot: usize, nest: Nest) {
        let f = &mut self.flow;
        f.reachable[slot] = true;
        f.max_branch_depth = f.max_branch_depth.max(nest.depth);
        f.max_loop_depth = f.max_loop_depth.max(nest.loops.len() as u32);
        f.max_call_depth = f.max_call_depth.max(nest.calls.len() as u32);
        let inst = self.insts[slot];
        if uses_relative(&inst) && !nest.loops.iter().any(|l| l.kind == LoopKind::Loop) {
            self.out.push(Violation::at(
                Rule::RelativeOutsideLoop,
                slot,
                "aL-relative addressing outside every LOOP block",
            ));
        }
        match inst {
            Inst::Fc(fc) => self.fc(slot, &fc, nest),
            _ => self.go(slot, slot + 1, nest),
        }
    }

    fn go(&mut self, from: usize, to: usize, nest: Nest) {
        self.flow.succs[from].insert(to.min(self.insts.len()));
        self.work.push((from, to, nest));
    }

    fn check_end(&mut self, from: usize, nest: &Nest) {
        if nest.depth != 0 || !nest.loops.is_empty() || !nest.calls.is_empty() {
            self.out.push(Violation::at(
                Rule::UnbalancedAtEnd,
                from,
                format!(
                    "the program ends with {} open block(s), {} loop(s), {} call(s)",
                    nest.depth,
                    nest.loops.len(),
                    nest.calls.len()
                ),
            ));
        }
    }

    fn fail(&mut self, rule: Rule, slot: usize, detail: String) -> Option<()> {
        self.out.push(Violation::at(rule, slot, detail));
        None
    }

    /// Apply a branch-counter op; `None` (path abandoned) on a violation.
    fn branch(&mut self, slot: usize, nest: &mut Nest, op: BranchOp, pop: u32) -> Option<()> {
        match op {
            BranchOp::None => Some(()),
            BranchOp::Incr => {
                nest.depth += 1;
                let max = max_depth(self.mode);
                if nest.depth > max {
                    return self.fail(
                        Rule::BranchDepth,
                        slot,
                        format!("{} nested conditional blocks; at most {max}", nest.depth),
                    );
                }
                Some(())
            }
            BranchOp::Decr => match nest.depth.checked_sub(pop) {
                Some(d) => {
                    nest.depth = d;
                    Some(())
                }
                None => self.fail(
                    Rule::BranchUnderflow,
                    slot,
                    format!("DECR by {pop} with {} open block(s)", nest.depth),
                ),
            },
        }
    }

    /// The innermost loop frame, checked against the kind the op needs.
    fn top_loop(&mut self, slot: usize, nest: &Nest, op: FcOp) -> Option<LoopFrame> {
        let want = match op {
            FcOp::EndLoop | FcOp::BreakLoop => Some(LoopKind::Loop),
            FcOp::EndRep | FcOp::BreakRep => Some(LoopKind::Rep),
            _ => None,
        };
        match nest.loops.last() {
            None => {
                self.fail(Rule::LoopMismatch, slot, format!("{op} outside every loop"));
                None
            }
            Some(frame) if want.is_some_and(|w| w != frame.kind) => {
                let detail = format!("{op} with a {:?} frame innermost", frame.kind);
                self.fail(Rule::LoopMismatch, slot, detail);
                None
            }
            Some(frame) => Some(*frame),
        }
    }

    /// Check that the blocks opened inside a loop are closed.
    fn loop_balanced(
        &mut self,
        slot: usize,
        nest: &Nest,
        frame: LoopFrame,
        op: FcOp,
    ) -> Option<()> {
        if nest.depth == frame.entry_depth {
            return Some(());
        }
        self.fail(
            Rule::LoopBodyUnbalanced,
            slot,
            format!(
                "{op} leaves {} open block(s) where the loop started with {}",
                nest.depth, frame.entry_depth
            ),
        )
    }

    fn fc(&mut self, slot: usize, f: &FcInst, nest: Nest) {
        if f.b_else && nest.depth == 0 {
            self.out.push(Violation::at(
                Rule::BranchUnderflow,
                slot,
                "B_ELSE outside every conditional block",
            ));
        }
        let no_voters = f.b_else || f.ignore_uncovered;
        let may_jump = f.jump_func != 0x00
            || matches!(f.op, FcOp::Loop | FcOp::Rep)
            || (!f.jump_any && no_voters);
        let may_stay = f.jump_func != 0xFF
            || matches!(
                f.op,
                FcOp::EndLoop | FcOp::EndRep | FcOp::BreakLoop | FcOp::BreakRep | FcOp::Continue
            )
            || (f.jump_any && no_voters);
        if may_stay && let Some(s) = self.stay(slot, f, nest.clone()) {
            self.go(slot, slot + 1, s);
        }
        if may_jump && let Some((target, s)) = self.jump(slot, f, nest) {
            self.go(slot, target, s);
        }
    }

    fn stay(&mut self, slot: usize, f: &FcInst, mut s: Nest) -> Option<Nest> {
        self.branch(slot, &mut s, f.b_op0, f.b_pop_cnt.get())?;
        match f.op {
            FcOp::Loop | FcOp::Rep => {
                if s.loops.len() >= STACK_SIZE {
                    self.fail(
                        Rule::LoopStackOverflow,
                        slot,
                        format!("a {}th loop frame; at most {STACK_SIZE}", s.loops.len() + 1),
                    )?;
                }
                let kind = if f.op == FcOp::Loop {
                    LoopKind::Loop
                } else {
                    LoopKind::Rep
                };
                s.loops.push(LoopFrame {
                    kind,
                    entry_depth: s.depth,
                });
            }
            FcOp::EndLoop | FcOp::EndRep => {
                let frame = self.top_loop(slot, &s, f.op)?;
                self.loop_balanced(slot, &s, frame, f.op)?;
                s.loops.pop();
            }
            FcOp::BreakLoop | FcOp::BreakRep | FcOp::Continue => {
                self.top_loop(slot, &s, f.op)?;
            }
            FcOp::Jump => {}
        }
        Some(s)
    }

    fn jump(&mut self, slot: usize, f: &FcInst, mut s: Nest) -> Option<(usize, Nest)> {
        let call = CallFrame {
            ret: slot + 1,
            depth: s.depth,
            loops: s.loops.len(),
        };
        self.branch(slot, &mut s, f.b_op1, f.b_pop_cnt.get())?;
        match f.op {
            FcOp::Loop | FcOp::Rep | FcOp::Jump => {}
            FcOp::EndLoop | FcOp::EndRep | FcOp::Continue => {
                let frame = self.top_loop(slot, &s, f.op)?;
                self.loop_balanced(slot, &s, frame, f.op)?;
            }
            FcOp::BreakLoop | FcOp::BreakRep => {
                let frame = self.top_loop(slot, &s, f.op)?;
                self.loop_balanced(slot, &s, frame, f.op)?;
                s.loops.pop();
            }
        }
        let target = match f.a_op {
            AddrStackOp::Pop => {
                let Some(frame) = s.calls.pop() else {
                    let detail = "RETURN (A_OP POP) outside every subroutine call".to_string();
                    self.fail(Rule::AddressStackUnderflow, slot, detail);
                    return None;
                };
                if s.depth != frame.depth || s.loops.len() != frame.loops {
                    self.fail(
                        Rule::ReturnUnbalanced,
                        slot,
                        format!(
                            "returns with {} open block(s) and {} loop(s); the call had {} and {}",
                            s.depth,
                            s.loops.len(),
                            frame.depth,
                            frame.loops
                        ),
                    )?;
                }
                return Some((frame.ret, s));
            }
            AddrStackOp::Push => {
                if s.calls.len() >= STACK_SIZE {
                    self.fail(
                        Rule::AddressStackOverflow,
                        slot,
                        format!("a {}th call frame; at most {STACK_SIZE}", s.calls.len() + 1),
                    )?;
                }
                s.calls.push(call);
                f.jump_addr.get() as usize
            }
            AddrStackOp::None => f.jump_addr.get() as usize,
        };
        if target >= self.insts.len() {
            self.fail(
                Rule::JumpOutOfRange,
                slot,
                format!(
                    "jumps to slot {target} of a {}-slot program",
                    self.insts.len()
                ),
            )?;
        }
        Some((target, s))
    }
}
