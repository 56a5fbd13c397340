//! Run-time faults and hazards of the processor array.
//!
//! Illegal encodings never reach the array: the ISA decoder rejects them
//! (`docs/isa-x1k.md` §3). What remains are rules that depend on the op, on
//! several instructions, or on the dynamic path: each is one [`FaultKind`]
//! variant whose [`FaultKind::rule`] names the CTM guide section. A
//! [`DppFault`] locates it by instruction slot and (when it concerns one
//! element) by index pair, so `ctmc` can print it and exit 1.
//!
//! *Hazards* are the synchronisation rules whose violation makes the
//! hardware read stale data rather than stop (texture semaphore, `ALU_WAIT`,
//! the presubtract `NOP`, CTM §3.2.1, §3.3.2, §3.4.2, §3.7). Under
//! [`HazardPolicy::Fault`] (the default) they are faults; under
//! [`HazardPolicy::Warn`] the run goes on — the model then reads the value
//! as if the program had synchronised — and each distinct (slot, hazard) is
//! reported once as a [`Warning`].

use ctm_backend_x1k::isa::{AlphaOp, FcOp, RgbOp};
use serde::Serialize;

/// What to do when a program breaks a synchronisation rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HazardPolicy {
    /// Stop with a [`DppFault`] (for checking compiler output).
    #[default]
    Fault,
    /// Record a [`Warning`] and go on.
    Warn,
}

/// A typed run-time error: the slot, the rule, and the element if one
/// element caused it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("slot {slot}: {kind} [CTM {rule}]{}", element_suffix(*.element))]
pub struct DppFault {
    /// The instruction slot that broke the rule.
    pub slot: u16,
    /// The element (i, j), when the fault is specific to one element.
    pub element: Option<(u32, u32)>,
    /// The rule.
    pub kind: FaultKind,
    /// The CTM guide section of the rule (same as `kind.rule()`).
    pub rule: &'static str,
}

impl DppFault {
    /// A fault at `slot`, not specific to one element.
    pub fn new(slot: u16, kind: FaultKind) -> Self {
        let rule = kind.rule();
        DppFault {
            slot,
            element: None,
            kind,
            rule,
        }
    }

    /// The same fault, attributed to element `(i, j)`.
    pub fn at_element(mut self, element: (u32, u32)) -> Self {
        self.element = Some(element);
        self
    }
}

fn element_suffix(element: Option<(u32, u32)>) -> String {
    match element {
        Some((i, j)) => format!(" at element ({i}, {j})"),
        None => String::new(),
    }
}

/// Which stack a stack fault concerns (CTM §3.5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StackKind {
    /// The loop stack (LOOP/REP frames).
    Loop,
    /// The address stack (CALL/RETURN).
    Address,
}

impl std::fmt::Display for StackKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StackKind::Loop => "loop",
            StackKind::Address => "address",
        })
    }
}

/// The kind of a loop-stack frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopFrameKind {
    /// Pushed by LOOP (carries aL).
    Loop,
    /// Pushed by REP.
    Rep,
}

/// An access to a register that a pending texture lookup will write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// The instruction reads the channel.
    Read,
    /// The instruction writes the channel (the lookup lands later).
    Write,
}

/// Every rule the array checks at run time.
#[derive(Clone, Debug, PartialEq, thiserror::Error, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// `US_CODE_ADDR` names slots outside the program (or start > end).
    #[error("US_CODE_ADDR start {start} / end {end} outside the {len}-slot program")]
    ProgramRange {
        /// `START_ADDR`.
        start: u32,
        /// `END_ADDR`.
        end: u32,
        /// Number of slots in the program.
        len: usize,
    },
    /// Execution continues (by a jump, a return, or past the last slot)
    /// to a slot outside the program.
    #[error("execution continues at slot {target}, outside the program (END_ADDR {end})")]
    JumpOutOfProgram {
        /// The jump target.
        target: u32,
        /// `END_ADDR`.
        end: u32,
    },
    /// The instruction at `END_ADDR` (the last one executed) is not OUT.
    #[error("the last instruction is not an OUTPUT instruction")]
    LastNotOutput,
    /// The program ends while holding the texture semaphore.
    #[error("the program ends holding the texture semaphore (acquired at slot {acquired_at})")]
    SemaphoreHeldAtEnd {
        /// The slot that acquired it.
        acquired_at: u16,
    },
    /// `TEX_SEM_ACQUIRE` (or a `*_TEX_SEM_ACQUIRE` UMRT write) without `TEX_SEM_WAIT`.
    #[error("the texture semaphore is acquired without TEX_SEM_WAIT on the same instruction")]
    AcquireWithoutWait,
    /// A register channel is read (or overwritten) before the lookup that
    /// writes it has been synchronised with the semaphore (hazard).
    #[error("r{reg}.{} {} before the semaphore wait for the lookup at slot {lookup_slot}", channel_name(*.channel), access_name(*.access))]
    TexResultNotReady {
        /// The register.
        reg: u8,
        /// The channel (0 = R .. 3 = A).
        channel: u8,
        /// The pending lookup.
        lookup_slot: u16,
        /// Read or write.
        access: Access,
    },
    /// A `TEX_SEM_WAIT` right after an FC instruction that did not wait
    /// itself, while an acquire was outstanding (hazard; errata).
    #[error("TEX_SEM_WAIT directly after an FC instruction without TEX_SEM_WAIT (errata)")]
    WaitAfterFc,
    /// An uncached read while an earlier uncached write of this program has
    /// not been synchronised by an acquiring write and a wait (hazard).
    #[error("uncached read not synchronised with the uncached write at slot {write_slot}")]
    UncachedReadNotSynchronised {
        /// The unsynchronised write.
        write_slot: u16,
    },
    /// A presubtract reads a channel written by the immediately preceding
    /// ALU/OUT instruction, which lacks the `NOP` flag (hazard).
    #[error("presubtract reads r{reg}.{} written by the previous instruction without NOP", channel_name(*.channel))]
    MissingNop {
        /// The register.
        reg: u8,
        /// The channel.
        channel: u8,
    },
    /// A TEX or FC instruction uses a temporary, predicate or ALU result
    /// computed by an ALU instruction still pending, without `ALU_WAIT` (hazard).
    #[error("{what} computed by a pending ALU instruction is used without ALU_WAIT")]
    MissingAluWait {
        /// What was used.
        what: AluDependency,
    },
    /// An FC instruction's `JUMP_FUNC` depends on the ALU result but no ALU
    /// instruction wrote one since the previous FC instruction.
    #[error("JUMP_FUNC reads the ALU result, but none was written since the last FC instruction")]
    AluResultNotWritten,
    /// An FC instruction's `JUMP_FUNC` depends on the predicate but no
    /// predicate bit is selected.
    #[error("JUMP_FUNC reads the predicate, but RGB_PRED_SEL is NONE")]
    FcPredicateNotSelected,
    /// A push beyond the stack's size in the current flow-control mode.
    #[error("{stack} stack overflow (size {limit} in {mode} mode)")]
    StackOverflow {
        /// Which stack.
        stack: StackKind,
        /// Its size.
        limit: u8,
        /// `partial` or `full`.
        mode: &'static str,
    },
    /// A pop (or a loop op needing a frame) with the stack empty.
    #[error("{stack} stack underflow")]
    StackUnderflow {
        /// Which stack.
        stack: StackKind,
    },
    /// A loop op whose kind does not match the innermost frame
    /// (ENDLOOP/BREAKLOOP need a LOOP frame, ENDREP/BREAKREP a REP frame).
    #[error("{op} with a {found:?} frame innermost")]
    LoopKindMismatch {
        /// The FC op.
        #[serde(serialize_with = "display")]
        op: FcOp,
        /// The innermost frame's kind.
        found: LoopFrameKind,
    },
    /// A branch counter incremented past its maximum.
    #[error("branch counter overflow (maximum {limit} in {mode} mode)")]
    BranchCounterOverflow {
        /// The maximum counter value.
        limit: u8,
        /// `partial` or `full`.
        mode: &'static str,
    },
    /// aL-relative addressing outside every LOOP block.
    #[error("aL used outside a LOOP block")]
    AlOutsideLoop,
    /// aL-relative addressing leaves the register file.
    #[error("relative address {base} + aL ({al}) outside 0..={max}")]
    RelativeAddressOutOfRange {
        /// The base address.
        base: u32,
        /// aL.
        al: i32,
        /// The largest valid address.
        max: u32,
    },
    /// A temporary beyond `US_PIXSIZE` (the program's register frame).
    #[error("r{reg} is outside the program's register frame (US_PIXSIZE {pixsize})")]
    TempOutOfFrame {
        /// The register.
        reg: u32,
        /// `US_PIXSIZE`.
        pixsize: u32,
    },
    /// The step limit was reached: a runaway loop.
    #[error("runaway loop: an element took more than {limit} backward jumps (loop iterations)")]
    RunawayLoop {
        /// The limit.
        limit: u64,
    },
    /// `OMOD_DISABLED` on an RGB op other than MIN/MAX/CND/CMP.
    #[error("OMOD_DISABLED is not valid with RGB {0}")]
    OmodDisabledRgb(#[serde(serialize_with = "display")] RgbOp),
    /// `OMOD_DISABLED` on an alpha op other than MIN/MAX/CND/CMP.
    #[error("OMOD_DISABLED is not valid with alpha {0}")]
    OmodDisabledAlpha(#[serde(serialize_with = "display")] AlphaOp),
    /// RGB SOP without a transcendental alpha op.
    #[error("RGB SOP with alpha {0}: the alpha op must be EX2/LN2/RCP/RSQ/SIN/COS")]
    SopWithoutTranscendental(#[serde(serialize_with = "display")] AlphaOp),
    /// Alpha DP without a dot-product RGB op.
    #[error("alpha DP with RGB {0}: the RGB op must be DP3/DP4/D2A")]
    DpWithoutDotProduct(#[serde(serialize_with = "display")] RgbOp),
    /// An input the op reads uses the undefined swizzle code 7.
    #[error("an input the op reads uses the undefined swizzle code 7")]
    UndefinedSwizzle,
    /// An operation the CTM guide does not define (MDH/MDV).
    #[error("{0} is not defined by the CTM guide")]
    UnsupportedOp(&'static str),
    /// A UMRT output writes some but not all channels.
    #[error("UMRT output must write all channels or none (RGB mask {rgb_mask:#x}, alpha {alpha})")]
    UmrtPartialMask {
        /// `RGB_OMASK`.
        rgb_mask: u8,
        /// `ALPHA_OMASK`.
        alpha: bool,
    },
    /// A UMRT output's alpha channel is not zero.
    #[error("UMRT output alpha must be zero, found {value}")]
    UmrtAlphaNotZero {
        /// The alpha value written.
        value: f32,
    },
}

/// What a TEX/FC instruction took from a pending ALU instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AluDependency {
    /// A temporary channel (TEX coordinates).
    Temp {
        /// The register.
        reg: u8,
        /// The channel.
        channel: u8,
    },
    /// A predicate bit (TEX predication or an FC condition).
    Predicate {
        /// The bit (0 = R .. 3 = A).
        channel: u8,
    },
    /// The ALU result (FC condition).
    AluResult,
}

impl std::fmt::Display for AluDependency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            AluDependency::Temp { reg, channel } => write!(f, "r{reg}.{}", channel_name(channel)),
            AluDependency::Predicate { channel } => {
                write!(f, "predicate bit {}", channel_name(channel))
            }
            AluDependency::AluResult => f.write_str("the ALU result"),
        }
    }
}

/// Serialise an ISA enum by its mnemonic.
fn display<T: std::fmt::Display, S: serde::Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

fn channel_name(channel: u8) -> char {
    ['r', 'g', 'b', 'a']
        .get(usize::from(channel))
        .copied()
        .unwrap_or('?')
}

fn access_name(access: Access) -> &'static str {
    match access {
        Access::Read => "read",
        Access::Write => "written",
    }
}

impl FaultKind {
    /// The CTM guide section (or other source) of the rule.
    pub fn rule(&self) -> &'static str {
        match self {
            FaultKind::ProgramRange { .. } => "§2.1.1, §4.1.4 US_CODE_ADDR",
            FaultKind::JumpOutOfProgram { .. } => "§3.5.3 JUMP_ADDR, §2.1.1",
            FaultKind::LastNotOutput => "§3.1",
            FaultKind::SemaphoreHeldAtEnd { .. } => "§3.4.2",
            FaultKind::AcquireWithoutWait => "§3.4.2",
            FaultKind::TexResultNotReady { .. } => "§3.2.1, §3.4.2",
            FaultKind::WaitAfterFc => "§3.7",
            FaultKind::UncachedReadNotSynchronised { .. } => "§3.3.8, §3.4.2",
            FaultKind::MissingNop { .. } => "§3.3.2",
            FaultKind::MissingAluWait { .. } => "§3.2.1",
            FaultKind::AluResultNotWritten => "§3.3.10",
            FaultKind::FcPredicateNotSelected => "§3.5.1",
            FaultKind::StackOverflow { .. } | FaultKind::StackUnderflow { .. } => "§3.5.2",
            FaultKind::LoopKindMismatch { .. } => "§3.5.3",
            FaultKind::BranchCounterOverflow { .. } => "§3.5.2",
            FaultKind::AlOutsideLoop => "§3.5.2, §3.3.1",
            FaultKind::RelativeAddressOutOfRange { .. } => "§3.3.1",
            FaultKind::TempOutOfFrame { .. } => "§4.1.4 US_PIXSIZE",
            FaultKind::RunawayLoop { .. } => "step limit (ctm)",
            FaultKind::OmodDisabledRgb(_) | FaultKind::OmodDisabledAlpha(_) => "§3.3.5",
            FaultKind::SopWithoutTranscendental(_) | FaultKind::DpWithoutDotProduct(_) => "§3.3.4",
            FaultKind::UndefinedSwizzle => "§3.3.3 (x1k-encoding §7.2 code 7)",
            FaultKind::UnsupportedOp(_) => "§3.3.4",
            FaultKind::UmrtPartialMask { .. } | FaultKind::UmrtAlphaNotZero { .. } => "§3.3.8",
        }
    }

    /// Whether this is a synchronisation hazard (subject to [`HazardPolicy`]).
    pub fn is_hazard(&self) -> bool {
        matches!(
            self,
            FaultKind::TexResultNotReady { .. }
                | FaultKind::WaitAfterFc
                | FaultKind::UncachedReadNotSynchronised { .. }
                | FaultKind::MissingNop { .. }
                | FaultKind::MissingAluWait { .. }
        )
    }
}

/// A hazard recorded under [`HazardPolicy::Warn`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Warning {
    /// The slot.
    pub slot: u16,
    /// The hazard.
    pub kind: FaultKind,
    /// The CTM section.
    pub rule: &'static str,
    /// How many times it happened (summed over groups).
    pub count: u64,
}
