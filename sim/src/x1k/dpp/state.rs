//! The state of one SIMD group (a batch of processors running in lock
//! step): temporaries as structure-of-arrays, per-processor flow-control
//! bits (CTM §3.5.2), predicate bits, the ALU result, the loop and address
//! stacks, cached outputs, and the synchronisation tracker used to detect
//! hazards (CTM §3.2.1, §3.4.2).

use smallvec::SmallVec;

use super::fault::{FaultKind, HazardPolicy, LoopFrameKind, StackKind};
use super::operands::RelativeCache;
use super::timing::Profile;
use crate::x1k::interface::UmrtWrite;

/// One bit per processor of a group.
pub(crate) type LaneMask = u64;

/// The largest SIMD group the model supports (lane masks are `u64`).
pub const MAX_GROUP_SIZE: usize = 64;

/// Stack sizes and branch-counter limits by flow-control mode (CTM §3.5.2).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FcLimits {
    /// Loop-stack size.
    pub loop_stack: u8,
    /// Address-stack size.
    pub address_stack: u8,
    /// Largest branch-counter value.
    pub branch_counter: u8,
    /// `partial` or `full`.
    pub mode: &'static str,
}

impl FcLimits {
    /// The limits of the mode (`US_FC_CTRL.FULL_FC_EN`).
    pub const fn of(full: bool) -> Self {
        if full {
            FcLimits {
                loop_stack: 4,
                address_stack: 4,
                branch_counter: 31,
                mode: "full",
            }
        } else {
            // Partial mode: no loops, no subroutines ("n/a"), counter 0..3.
            FcLimits {
                loop_stack: 0,
                address_stack: 0,
                branch_counter: 3,
                mode: "partial",
            }
        }
    }
}

/// One loop-stack frame (CTM §3.5.2: iteration count, aL, processor mask).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LoopFrame {
    /// LOOP or REP.
    pub kind: LoopFrameKind,
    /// Iterations left, counting the current one.
    pub remaining: u32,
    /// aL (LOOP frames).
    pub al: i32,
    /// aL increment.
    pub step: i32,
    /// Processors disabled by BREAKLOOP/BREAKREP until the loop ends.
    pub broken: LaneMask,
    /// Processors disabled by CONTINUE until the end of this iteration.
    pub continued: LaneMask,
}

/// Who holds the texture semaphore (CTM §3.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// A lookup (or TEX NOP/KILL) acquired it, covering lookups up to this sequence number.
    Tex {
        /// The lookup sequence number covered.
        seq: u32,
        /// The acquiring slot.
        slot: u16,
    },
    /// An uncached write acquired it, covering writes up to this number.
    Umrt {
        /// The write sequence number covered.
        seq: u32,
        /// The acquiring slot.
        slot: u16,
    },
}

impl Held {
    /// The acquiring slot.
    pub fn slot(self) -> u16 {
        match self {
            Held::Tex { slot, .. } | Held::Umrt { slot, .. } => slot,
        }
    }
}

/// Synchronisation bookkeeping for hazard detection.
#[derive(Clone, Debug)]
pub(crate) struct Sync {
    /// Per temporary channel (`reg * 4 + ch`): the sequence number and slot
    /// of the last lookup that wrote it (0 = none).
    pub tex_pending: Vec<(u32, u16)>,
    /// Lookups issued.
    pub tex_seq: u32,
    /// Lookups whose results are visible (released by a wait).
    pub tex_done: u32,
    /// The semaphore holder.
    pub held: Option<Held>,
    /// Uncached writes issued, and the last one's slot.
    pub umrt_seq: u32,
    /// The slot of the last uncached write.
    pub umrt_slot: u16,
    /// Uncached writes known complete.
    pub umrt_done: u32,
    /// Temporary channels written by ALU instructions not yet synchronised
    /// by `ALU_WAIT` (bit `reg * 4 + ch`).
    pub alu_dirty: [u64; 8],
    /// Predicate bits written by pending ALU instructions.
    pub pred_dirty: u8,
    /// Any ALU instruction pending (since the last `ALU_WAIT`).
    pub alu_pending: bool,
    /// The previous instruction was an FC instruction without `TEX_SEM_WAIT`.
    pub prev_fc_without_wait: bool,
    /// Temporary channels the previous instruction wrote, if it was an
    /// ALU/OUT without `NOP`: (register, channel mask) for RGB and alpha.
    pub prev_alu_writes: [(u32, u8); 2],
}

impl Sync {
    /// Nothing pending; `tex_pending` holds one zero entry per channel.
    fn new(tex_pending: Vec<(u32, u16)>) -> Self {
        Sync {
            tex_pending,
            tex_seq: 0,
            tex_done: 0,
            held: None,
            umrt_seq: 0,
            umrt_slot: 0,
            umrt_done: 0,
            alu_dirty: [0; 8],
            pred_dirty: 0,
            alu_pending: false,
            prev_fc_without_wait: false,
            prev_alu_writes: [(0, 0); 2],
        }
    }

    /// Whether channel `idx` (`reg * 4 + ch`) was written by a pending ALU instruction.
    pub fn is_alu_dirty(&self, idx: usize) -> bool {
        self.alu_dirty[idx / 64] & (1 << (idx % 64)) != 0
    }

    /// Mark channel `idx` as written by an ALU instruction.
    pub fn mark_alu_dirty(&mut self, idx: usize) {
        self.alu_dirty[idx / 64] |= 1 << (idx % 64);
    }

    /// `ALU_WAIT`: every pending ALU instruction has completed.
    pub fn alu_sync(&mut self) {
        self.alu_dirty = [0; 8];
        self.pred_dirty = 0;
        self.alu_pending = false;
    }
}

/// The cached render-target writes of one processor (CTM §3.3.8).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LaneOutputs {
    /// Values of targets A..D.
    pub values: [[f32; 4]; 4],
    /// Channels written per target.
    pub masks: [u8; 4],
    /// The `W_OMASK` value.
    pub conditional: Option<f32>,
}

/// One SIMD group.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    /// Processors in the group (1..=64).
    pub n: usize,
    /// Temporaries in the frame.
    pub nregs: usize,
    /// Temporaries, `regs[(reg * 4 + ch) * n + lane]`.
    pub regs: Vec<f32>,
    /// Temporary channels (bit `reg * 4 + ch`) that may hold a denormal in
    /// some lane. Clear bits let the fast engine read a channel as already
    /// flushed; a set bit only costs a flush. Kept by the fast engine's
    /// writes and by lookups.
    pub denormal: [u64; 8],
    /// All processors of the group.
    pub present: LaneMask,
    /// Active bits (CTM §3.5.2).
    pub active: LaneMask,
    /// Branch counters (meaningful while the active bit is clear).
    pub counters: [u8; MAX_GROUP_SIZE],
    /// Processors disabled by a loop frame (union of the frames' masks).
    pub loop_inactive: LaneMask,
    /// Processors not killed (CTM §3.3.6 IGNORE_UNCOVERED "uncovered").
    pub covered: LaneMask,
    /// Predicate bits R, G, B, A.
    pub pred: [LaneMask; 4],
    /// The ALU-result bit per processor.
    pub alu_result: LaneMask,
    /// An ALU result was written since the last FC instruction (CTM §3.3.10).
    pub alu_result_valid: bool,
    /// The loop stack.
    pub loops: SmallVec<[LoopFrame; 4]>,
    /// The address stack.
    pub addresses: SmallVec<[u16; 4]>,
    /// Flow-control limits.
    pub limits: FcLimits,
    /// Cached outputs per processor.
    pub outputs: Vec<LaneOutputs>,
    /// Uncached writes per processor.
    pub umrt: Vec<SmallVec<[UmrtWrite; 2]>>,
    /// Hazard bookkeeping.
    pub sync: Sync,
    /// Timing profile and counters.
    pub profile: Profile,
    /// What to do on a hazard.
    pub policy: HazardPolicy,
    /// The slot executing (for warnings).
    pub slot: u16,
    /// Hazards seen under [`HazardPolicy::Warn`]: (slot, hazard, count).
    pub warnings: Vec<(u16, FaultKind, u64)>,
    /// The ALU's scratch buffers (taken while an instruction runs).
    pub scratch: Option<Box<super::alu::Scratch>>,
    /// The operands of ALU instructions with aL-relative sources, bound
    /// for the aL values met (fast engine).
    pub relative_bound: RelativeCache,
}

/// The allocations a finished group leaves for the next group of the same
/// worker, so that running a group allocates nothing but its results.
#[derive(Debug, Default)]
pub(crate) struct Spare {
    regs: Vec<f32>,
    outputs: Vec<LaneOutputs>,
    umrt: Vec<SmallVec<[UmrtWrite; 2]>>,
    tex_pending: Vec<(u32, u16)>,
    warnings: Vec<(u16, FaultKind, u64)>,
    scratch: Option<Box<super::alu::Scratch>>,
    relative_bound: RelativeCache,
}

impl Group {
    /// A group for the index pairs `elements`, with the initial registers
    /// of the ABI: r0 = (i, j, 0, 0), everything else 0 (`docs/sim-x1k.md`
    /// §1), reusing the allocations of `spare` (every field is initialised
    /// afresh; only capacity carries over).
    pub fn with_spare(
        elements: &[(u32, u32)],
        nregs: usize,
        limits: FcLimits,
        policy: HazardPolicy,
        spare: Spare,
    ) -> Self {
        let n = elements.len();
        let Spare {
            mut regs,
            mut outputs,
            mut umrt,
            mut tex_pending,
            mut warnings,
            scratch,
            relative_bound,
        } = spare;
        regs.clear();
        regs.resize(nregs * 4 * n, 0.0);
        for (lane, &(i, j)) in elements.iter().enumerate() {
            regs[lane] = i as f32;
            regs[n + lane] = j as f32;
        }
        outputs.truncate(n);
        outputs.fill(LaneOutputs::default());
        outputs.resize(n, LaneOutputs::default());
        // The previous group took every lane's writes (`run_group`), so the
        // lists kept are empty.
        umrt.truncate(n);
        umrt.resize_with(n, SmallVec::new);
        tex_pending.clear();
        tex_pending.resize(nregs * 4, (0, 0));
        warnings.clear();
        let present = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        Group {
            n,
            nregs,
            regs,
            // r0 = (i, j, 0, 0) holds integers, the rest zeros.
            denormal: [0; 8],
            present,
            active: present,
            counters: [0; MAX_GROUP_SIZE],
            loop_inactive: 0,
            covered: present,
            pred: [0; 4],
            alu_result: 0,
            alu_result_valid: false,
            loops: SmallVec::new(),
            addresses: SmallVec::new(),
            limits,
            outputs,
            umrt,
            sync: Sync::new(tex_pending),
            profile: Profile::default(),
            policy,
            slot: 0,
            warnings,
            scratch: Some(scratch.unwrap_or_else(super::alu::Scratch::new)),
            relative_bound,
        }
    }

    /// The allocations to reuse for the next group.
    pub fn into_spare(self) -> Spare {
        Spare {
            regs: self.regs,
            outputs: self.outputs,
            umrt: self.umrt,
            tex_pending: self.sync.tex_pending,
            warnings: self.warnings,
            scratch: self.scratch,
            relative_bound: self.relative_bound,
        }
    }

    /// Apply the hazard policy to a check's result: under
    /// [`HazardPolicy::Warn`] a hazard is recorded (once per slot and kind,
    /// with a count) and execution goes on as if synchronised.
    #[inline]
    pub fn hazard(&mut self, result: Result<(), FaultKind>) -> Result<(), FaultKind> {
        if result.is_ok() {
            return Ok(());
        }
        self.record_hazard(result)
    }

    #[cold]
    fn record_hazard(&mut self, result: Result<(), FaultKind>) -> Result<(), FaultKind> {
        match result {
            Err(kind) if kind.is_hazard() && self.policy == HazardPolicy::Warn => {
                let slot = self.slot;
                match self
                    .warnings
                    .iter_mut()
                    .find(|(s, k, _)| *s == slot && *k == kind)
                {
                    Some(entry) => entry.2 += 1,
                    None => self.warnings.push((slot, kind, 1)),
                }
                Ok(())
            }
            other => other,
        }
    }

    /// Processors that execute: active and not disabled by a loop frame.
    #[inline]
    pub fn exec(&self) -> LaneMask {
        self.active & !self.loop_inactive & self.present
    }

    /// Recompute `loop_inactive` from the frames.
    pub fn refresh_loop_mask(&mut self) {
        self.loop_inactive = self.loops.iter().fold(0, |m, f| m | f.broken | f.continued);
    }

    /// aL: the innermost LOOP frame's (REP frames are transparent, CTM §3.5.2).
    pub fn al(&self) -> Result<i32, FaultKind> {
        self.loops
            .iter()
            .rev()
            .find(|f| f.kind == LoopFrameKind::Loop)
            .map(|f| f.al)
            .ok_or(FaultKind::AlOutsideLoop)
    }

    /// Whether channel `idx` (`reg * 4 + ch`) may hold a denormal.
    #[inline]
    pub fn may_be_denormal(&self, idx: usize) -> bool {
        self.denormal[idx / 64] & (1 << (idx % 64)) != 0
    }

    /// Record whether channel `idx` may hold a denormal.
    #[inline]
    pub fn set_denormal(&mut self, idx: usize, may: bool) {
        let bit = 1u64 << (idx % 64);
        if may {
            self.denormal[idx / 64] |= bit;
        } else {
            self.denormal[idx / 64] &= !bit;
        }
    }

    /// Offset of channel `ch` of temporary `reg` in `regs`.
    #[inline]
    pub fn offset(&self, reg: usize, ch: usize) -> usize {
        (reg * 4 + ch) * self.n
    }

    /// Check that temporary `reg` is in the frame (`US_PIXSIZE`).
    #[inline]
    pub fn check_temp(&self, reg: u32) -> Result<usize, FaultKind> {
        if (reg as usize) < self.nregs {
            Ok(reg as usize)
        } else {
            Err(FaultKind::TempOutOfFrame {
                reg,
                pixsize: self.nregs as u32 - 1,
            })
        }
    }

    /// Push a loop frame, or fail with a stack overflow.
    pub fn push_loop(&mut self, frame: LoopFrame) -> Result<(), FaultKind> {
        if self.loops.len() >= usize::from(self.limits.loop_stack) {
            return Err(FaultKind::StackOverflow {
                stack: StackKind::Loop,
                limit: self.limits.loop_stack,
                mode: self.limits.mode,
            });
        }
        self.loops.push(frame);
        self.profile.counters.max_loop_depth = self
            .profile
            .counters
            .max_loop_depth
            .max(self.loops.len() as u32);
        Ok(())
    }
}
