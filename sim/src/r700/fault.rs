//! Faults: what stops a wavefront (an illegal group naming the validator's
//! rule, an opcode the simulator does not model, stack overflow, a runaway
//! loop, ...) and where it happened.

use std::fmt;

use ctm_backend_r700::validate::Rule;

/// Where a fault happened.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FaultLoc {
    /// CF instruction `cf`.
    Cf {
        /// The CF address (qword).
        cf: u32,
    },
    /// An ALU instruction: CF instruction, clause address, group, slot.
    Alu {
        /// The CF instruction that started the clause.
        cf: u32,
        /// The clause's address (qword).
        clause: u32,
        /// The group's index in the clause.
        group: u32,
        /// The instruction's index in the group (`None`: the group).
        slot: Option<u32>,
    },
    /// A fetch instruction: CF instruction, clause address, index.
    Fetch {
        /// The CF instruction that started the clause.
        cf: u32,
        /// The clause's address (qword).
        clause: u32,
        /// The instruction's index.
        inst: u32,
    },
}

impl fmt::Display for FaultLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FaultLoc::Cf { cf } => write!(f, "cf {cf}"),
            FaultLoc::Alu {
                cf,
                clause,
                group,
                slot,
            } => {
                write!(f, "cf {cf}, alu clause @{clause} group {group}")?;
                if let Some(s) = slot {
                    write!(f, " slot {s}")?;
                }
                Ok(())
            }
            FaultLoc::Fetch { cf, clause, inst } => {
                write!(f, "cf {cf}, fetch clause @{clause} inst {inst}")
            }
        }
    }
}

/// Why a wavefront stopped.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FaultKind {
    /// An instruction group breaks a hardware rule (the hardware would
    /// compute garbage); the rule is the validator's.
    IllegalGroup {
        /// The rule.
        rule: Rule,
        /// The validator's explanation.
        detail: String,
    },
    /// An opcode or mode the simulator does not model
    /// (`docs/sim-r700.md` §2.6 lists them).
    Unimplemented {
        /// The opcode's mnemonic or the mode.
        what: String,
    },
    /// A push beyond STACK_SIZE (digest §5.2).
    StackOverflow {
        /// Entries needed.
        needed: u32,
        /// STACK_SIZE.
        size: u32,
    },
    /// A pop of an empty stack, a LOOP_END without its loop, a RETURN
    /// outside a subroutine, or a loop instruction outside a loop.
    StackUnderflow {
        /// What was attempted.
        what: String,
    },
    /// A lane took more backward jumps than the step limit (a runaway
    /// loop, `crate::r700::cf::run`).
    StepLimit {
        /// The limit.
        limit: u64,
    },
    /// Execution ran past the CF program without END_OF_PROGRAM.
    PastEnd,
    /// A fetch names a resource the launch does not bind.
    MissingResource {
        /// What is missing.
        what: String,
    },
    /// The CF instruction starts a clause the program does not contain
    /// (only for programs built by hand).
    MissingClause {
        /// Its address.
        addr: u32,
    },
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::IllegalGroup { rule, detail } => {
                write!(f, "illegal instruction group: rule {rule}: {detail}")
            }
            FaultKind::Unimplemented { what } => {
                write!(f, "{what} is not implemented by the R700 simulator")
            }
            FaultKind::StackOverflow { needed, size } => write!(
                f,
                "stack overflow: {needed} entries needed, STACK_SIZE is {size} (rule stack-overflow)"
            ),
            FaultKind::StackUnderflow { what } => write!(f, "stack underflow: {what}"),
            FaultKind::StepLimit { limit } => write!(
                f,
                "runaway loop: an element took more than {limit} backward jumps (loop iterations) (step limit)"
            ),
            FaultKind::PastEnd => {
                f.write_str("execution ran past the end of the CF program (no END_OF_PROGRAM)")
            }
            FaultKind::MissingResource { what } => write!(f, "{what} is not bound"),
            FaultKind::MissingClause { addr } => write!(f, "no clause at qword {addr}"),
        }
    }
}

/// A fault: which wavefront, where, why.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Fault {
    /// The wavefront (elements 64·w..64·w+63).
    pub wavefront: u64,
    /// Where.
    pub loc: FaultLoc,
    /// Why.
    pub kind: FaultKind,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "r700 fault in wavefront {} at {}: {}",
            self.wavefront, self.loc, self.kind
        )
    }
}

impl std::error::Error for Fault {}

impl Fault {
    /// The rule's kebab-case name for an illegal group (`gpr-read-port`),
    /// or a fixed name for the other kinds.
    pub fn rule_name(&self) -> String {
        match &self.kind {
            FaultKind::IllegalGroup { rule, .. } => rule.name(),
            FaultKind::Unimplemented { .. } => "unimplemented".into(),
            FaultKind::StackOverflow { .. } => "stack-overflow".into(),
            FaultKind::StackUnderflow { .. } => "stack-underflow".into(),
            FaultKind::StepLimit { .. } => "step-limit".into(),
            FaultKind::PastEnd => "missing-end-of-program".into(),
            FaultKind::MissingResource { .. } => "missing-resource".into(),
            FaultKind::MissingClause { .. } => "clause-reference".into(),
        }
    }
}
