//! One wavefront's state: 64 lanes of GPRs, the valid and active masks and
//! the break/continue masks of the innermost loop (together the manual's
//! 2-bit pixel state, digest §1.2), the stack with its entry/sub-entry
//! accounting (digest §5.2), AR, aL, PV/PS and the predicate, plus what
//! the wavefront exported and the clause events the cycle model needs.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use ctm_backend_r700::isa::{CfCond, CfFlags};

use super::fault::{Fault, FaultKind, FaultLoc};
use super::prepare::Prepared;
use super::{Config, ExportKind, Launch, WAVE};

/// GPR addresses (0..=127).
pub const GPRS: usize = 128;

/// A stack entry (digest §5.2, manual §3.6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// PUSH / PUSH_ELSE / ALU_PUSH_BEFORE: the active mask before it.
    Push {
        /// Active mask saved.
        active: u64,
        /// Pushed with WHOLE_QUAD_MODE (a whole entry, not a sub-entry).
        wqm: bool,
    },
    /// LOOP_START*: the pixel state and the enclosing loop's state.
    Loop(LoopState),
    /// CALL: return address and the call depth before the call.
    Call {
        /// The CF address to return to.
        ret: u32,
        /// Call depth before.
        depth: u32,
    },
}

/// The per-loop state saved by LOOP_START* and restored by LOOP_END.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LoopState {
    /// Active mask (outer view).
    pub active: u64,
    /// Break mask of the (enclosing) loop.
    pub brk: u64,
    /// Continue mask of the (enclosing) loop.
    pub cont: u64,
    /// Pixels that entered the (enclosing) loop.
    pub entry: u64,
    /// Whether a loop encloses.
    pub in_loop: bool,
    /// aL.
    pub al: i32,
    /// Remaining trip count (`None`: DX10, no count).
    pub counter: Option<u32>,
    /// aL step.
    pub step: i32,
}

/// A clause or CF event for the cycle model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A CF instruction that starts no clause.
    Cf,
    /// An ALU clause of `groups` groups.
    Alu {
        /// Groups executed.
        groups: u32,
    },
    /// A TEX clause of `n` fetches.
    Tex {
        /// Instructions.
        n: u32,
    },
    /// A VTX / memory-read clause of `n` fetches.
    Vtx {
        /// Instructions.
        n: u32,
    },
    /// An export or memory write of `n` GPRs (burst).
    Export {
        /// Burst count.
        n: u32,
    },
}

/// Counters one wavefront accumulates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// CF instructions executed.
    pub cf: u64,
    /// ALU groups executed.
    pub alu_groups: u64,
    /// ALU instructions (slots) executed.
    pub alu_slots: u64,
    /// Groups by instruction count (index 0 = 1 slot).
    pub vliw: [u64; 5],
    /// ALU clauses.
    pub alu_clauses: u64,
    /// TEX clauses.
    pub tex_clauses: u64,
    /// VTX clauses.
    pub vtx_clauses: u64,
    /// Texture fetch instructions.
    pub tex_insts: u64,
    /// Vertex fetch and memory-read instructions.
    pub vtx_insts: u64,
    /// Export instructions (EXPORT, EXPORT_DONE).
    pub exports: u64,
    /// Memory-write instructions (MEM_*).
    pub mem_exports: u64,
    /// Bytes fetched (per lane that fetched).
    pub fetch_bytes: u64,
    /// Bytes exported to pixel/position/parameter targets.
    pub export_bytes: u64,
    /// Bytes written to memory.
    pub mem_write_bytes: u64,
    /// Lane-operations: ALU slots × active lanes.
    pub lane_ops: u64,
    /// Peak stack use in entries.
    pub stack_peak: u32,
    /// Lanes killed by the end of the program.
    pub killed: u32,
}

/// What a wavefront left behind.
#[derive(Clone, Debug, Default)]
pub struct WaveOutcome {
    /// Exports by (kind, index): per lane the last value.
    pub exports: BTreeMap<(ExportKind, u32), Vec<Option<[u32; 4]>>>,
    /// Memory writes (dword address, value) in program order.
    pub mem_writes: Vec<(u32, u32)>,
    /// The fault that stopped it.
    pub fault: Option<Fault>,
    /// Counters.
    pub counters: Counters,
    /// Clause events in order (compressed: loop iterations repeat).
    pub events: crate::repeat_log::RepeatLog<Event>,
    /// Lanes holding elements.
    pub lanes: u64,
}

/// The state of one wavefront.
pub struct Wave<'a> {
    /// Wavefront number.
    pub id: u64,
    /// The launch.
    pub launch: &'a Launch,
    /// The machine config.
    pub config: &'a Config,
    /// Lanes that hold an element.
    pub lanes: u64,
    /// GPRs: `regs[(gpr * 4 + chan) * 64 + lane]`.
    pub regs: Vec<u32>,
    /// Active mask.
    pub active: u64,
    /// Valid mask (cleared by kills).
    pub valid: u64,
    /// Innermost loop state (break/continue masks, aL, counter).
    pub lp: LoopState,
    /// The stack.
    pub stack: Vec<Entry>,
    /// Full entries in use (loops, WQM pushes).
    pub stack_entries: u32,
    /// Sub-entries in use (pushes, calls).
    pub stack_subentries: u32,
    /// STACK_SIZE.
    pub stack_size: u32,
    /// Call depth (CALL_COUNT accounting).
    pub call_depth: u32,
    /// AR.x..w per lane (clause-local).
    pub ar: [[i32; WAVE]; 4],
    /// PV.x..w.
    pub pv: [[u32; WAVE]; 4],
    /// PS.
    pub ps: [u32; WAVE],
    /// The predicate bits.
    pub pred: u64,
    /// What is written out.
    pub out: WaveOutcome,
    /// ALU scratch buffers, reused by every clause.
    pub scratch: Option<Box<super::group::Scratch>>,
}

/// What a clause temporary holds after its clause (a quiet NaN with a
/// recognisable payload).
pub const CLAUSE_TEMP_POISON: u32 = 0x7FC0_7E39;

/// Sub-entries per stack entry at wavefront width 64 (digest §5.2).
const SUBENTRIES_PER_ENTRY: u32 = 4;

impl<'a> Wave<'a> {
    /// A fresh wavefront `id` of `launch`, registers initialised.
    pub fn new(id: u64, launch: &'a Launch, config: &'a Config) -> Wave<'a> {
        let elements = launch.elements();
        let first = id * WAVE as u64;
        let n = elements.saturating_sub(first).min(WAVE as u64);
        let lanes = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut w = Wave {
            id,
            launch,
            config,
            lanes,
            regs: vec![0; GPRS * 4 * WAVE],
            active: lanes,
            valid: lanes,
            lp: LoopState::default(),
            stack: Vec::new(),
            stack_entries: 0,
            stack_subentries: 0,
            stack_size: launch.stack_size.unwrap_or(config.default_stack_size),
            call_depth: 0,
            ar: [[0; WAVE]; 4],
            pv: [[0; WAVE]; 4],
            ps: [0; WAVE],
            pred: 0,
            out: WaveOutcome {
                lanes,
                ..WaveOutcome::default()
            },
            scratch: None,
        };
        let width = u64::from(launch.width.max(1));
        if let Some(g) = launch.position {
            for lane in 0..WAVE {
                let e = first + lane as u64;
                let (i, j) = ((e % width) as f32, (e / width) as f32);
                w.set(g.get() as usize, 0, lane, i.to_bits());
                w.set(g.get() as usize, 1, lane, j.to_bits());
                w.set(g.get() as usize, 2, lane, 0);
                w.set(g.get() as usize, 3, lane, 0);
            }
        }
        for (g, init) in &launch.regs {
            for lane in 0..WAVE {
                let v = init.value(first + lane as u64);
                for (c, x) in v.iter().enumerate() {
                    w.set(g.get() as usize, c, lane, *x);
                }
            }
        }
        w
    }

    /// GPR `g` element `c` of `lane`.
    #[inline]
    pub fn get(&self, g: usize, c: usize, lane: usize) -> u32 {
        self.regs[((g & 127) * 4 + (c & 3)) * WAVE + lane]
    }

    /// Set GPR `g` element `c` of `lane`.
    #[inline]
    pub fn set(&mut self, g: usize, c: usize, lane: usize, v: u32) {
        self.regs[((g & 127) * 4 + (c & 3)) * WAVE + lane] = v;
    }

    /// The 64 lanes of GPR `g` element `c`.
    #[inline]
    pub fn lanes_of(&self, g: usize, c: usize) -> &[u32] {
        let at = ((g & 127) * 4 + (c & 3)) * WAVE;
        &self.regs[at..at + WAVE]
    }

    /// Whether a GPR address may be written (NUM_GPRS and clause temps,
    /// digest §5.5 step 5).
    pub fn writable(&self, g: i64) -> bool {
        if !(0..128).contains(&g) {
            return false;
        }
        match self.launch.num_gprs {
            Some(n) => g < i64::from(n) || g >= 128 - i64::from(self.clause_temps()),
            None => true,
        }
    }

    /// Clause temporaries N (GPR 128 − N..127): the launch's, else the
    /// config's.
    pub fn clause_temps(&self) -> u32 {
        self.launch
            .clause_temps
            .unwrap_or(self.config.clause_temps)
            .min(128)
    }

    /// Clause temporaries do not outlive their ALU clause (manual Table 2.6
    /// L541, §4.6 L1299): at a clause's end they are poisoned with a NaN
    /// pattern, so a program reading one in a later clause computes NaN.
    pub fn poison_clause_temps(&mut self) {
        let n = self.clause_temps() as usize;
        for g in 128 - n..128 {
            for c in 0..4 {
                let at = (g * 4 + c) * WAVE;
                self.regs[at..at + WAVE].fill(CLAUSE_TEMP_POISON);
            }
        }
    }

    /// Lanes in quads (groups of 4) with at least one lane of `m`.
    pub fn quads(m: u64) -> u64 {
        let mut out = 0u64;
        for q in 0..16 {
            if (m >> (4 * q)) & 0xF != 0 {
                out |= 0xF << (4 * q);
            }
        }
        out
    }

    /// The boolean part of a condition (digest §5.1): all lanes or none.
    pub fn cond_bool(&self, cond: CfCond, cf_const: u32) -> bool {
        let b = (self.launch.bool_consts >> (cf_const & 31)) & 1 == 1;
        match cond {
            CfCond::Active => true,
            CfCond::False => false,
            CfCond::Bool => b,
            CfCond::NotBool => !b,
        }
    }

    /// The condition test of a CF instruction on the current state
    /// (digest §5.1, Table 3.4).
    pub fn test(&self, cond: CfCond, cf_const: u32, flags: CfFlags) -> u64 {
        let mut base = self.active;
        if flags.whole_quad_mode {
            base = Self::quads(base) & self.lanes;
        }
        if flags.valid_pixel_mode {
            base &= self.valid;
        }
        if self.cond_bool(cond, cf_const) {
            base
        } else {
            0
        }
    }

    /// The stack in entries: A + ⌈B / sub-entries per entry⌉ (digest §5.2).
    pub fn stack_use(&self) -> u32 {
        self.stack_entries + self.stack_subentries.div_ceil(SUBENTRIES_PER_ENTRY)
    }

    /// A subentry pushed and popped within one instruction (ALU_BREAK,
    /// ALU_CONTINUE: `CfAluOp::transient_pushes`): counted in the peak,
    /// faulting on overflow, the stack unchanged.
    pub fn transient_push(&mut self) -> Result<(), FaultKind> {
        let used = self.stack_entries + (self.stack_subentries + 1).div_ceil(SUBENTRIES_PER_ENTRY);
        self.out.counters.stack_peak = self.out.counters.stack_peak.max(used);
        if used > self.stack_size {
            return Err(FaultKind::StackOverflow {
                needed: used,
                size: self.stack_size,
            });
        }
        Ok(())
    }

    /// Push `e`, faulting on overflow.
    pub fn push(&mut self, e: Entry) -> Result<(), FaultKind> {
        match e {
            Entry::Push { wqm: true, .. } | Entry::Loop(_) => self.stack_entries += 1,
            Entry::Push { wqm: false, .. } | Entry::Call { .. } => self.stack_subentries += 1,
        }
        self.stack.push(e);
        let used = self.stack_use();
        self.out.counters.stack_peak = self.out.counters.stack_peak.max(used);
        if used > self.stack_size {
            return Err(FaultKind::StackOverflow {
                needed: used,
                size: self.stack_size,
            });
        }
        Ok(())
    }

    fn account_pop(&mut self, e: &Entry) {
        match e {
            Entry::Push { wqm: true, .. } | Entry::Loop(_) => {
                self.stack_entries = self.stack_entries.saturating_sub(1)
            }
            Entry::Push { wqm: false, .. } | Entry::Call { .. } => {
                self.stack_subentries = self.stack_subentries.saturating_sub(1)
            }
        }
    }

    /// Pop `n` push entries (POP_COUNT), restoring the active mask of the
    /// last one popped, minus pixels broken or continued in the current
    /// loop (they stay inactive until the loop ends / iterates, §3.7.3).
    pub fn pop(&mut self, n: u32) -> Result<(), FaultKind> {
        for _ in 0..n {
            match self.stack.last().copied() {
                Some(e @ Entry::Push { active, .. }) => {
                    self.stack.pop();
                    self.account_pop(&e);
                    self.active = active & !(self.lp.brk | self.lp.cont);
                }
                Some(Entry::Loop(_)) => {
                    return Err(FaultKind::StackUnderflow {
                        what: "a pop would remove a loop's entry (use LOOP_END)".into(),
                    });
                }
                Some(Entry::Call { .. }) => {
                    return Err(FaultKind::StackUnderflow {
                        what: "a pop would remove a call's return address (use RETURN)".into(),
                    });
                }
                None => {
                    return Err(FaultKind::StackUnderflow {
                        what: "pop of an empty stack".into(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Pop every push entry above the innermost loop's entry (LOOP_BREAK /
    /// LOOP_CONTINUE when they jump), without restoring masks.
    pub fn unwind_to_loop(&mut self) {
        while let Some(e @ Entry::Push { .. }) = self.stack.last().copied() {
            self.stack.pop();
            self.account_pop(&e);
        }
    }

    /// The active mask saved by the innermost push (what ELSE inverts
    /// against), or the loop's entry / all lanes.
    pub fn top_active(&self) -> u64 {
        match self.stack.last() {
            Some(Entry::Push { active, .. }) => *active,
            Some(Entry::Loop(_)) => self.lp.entry,
            Some(Entry::Call { .. }) | None => {
                if self.lp.in_loop {
                    self.lp.entry
                } else {
                    self.lanes
                }
            }
        }
    }

    /// Enter a loop (LOOP_START*): push, set the new loop state.
    pub fn enter_loop(
        &mut self,
        pass: u64,
        al: Option<i32>,
        counter: Option<u32>,
        step: i32,
    ) -> Result<(), FaultKind> {
        let saved = LoopState {
            active: self.active,
            ..self.lp
        };
        self.push(Entry::Loop(saved))?;
        self.lp = LoopState {
            active: 0,
            brk: self.active & !pass,
            cont: 0,
            entry: self.active,
            in_loop: true,
            al: al.unwrap_or(self.lp.al),
            counter,
            step,
        };
        self.active = pass;
        Ok(())
    }

    /// Leave the innermost loop (LOOP_END exit): pop the loop entry.
    pub fn exit_loop(&mut self) -> Result<(), FaultKind> {
        match self.stack.last().copied() {
            Some(e @ Entry::Loop(saved)) => {
                self.stack.pop();
                self.account_pop(&e);
                self.lp = LoopState { active: 0, ..saved };
                self.active = saved.active & !(self.lp.brk | self.lp.cont);
                Ok(())
            }
            _ => Err(FaultKind::StackUnderflow {
                what: "LOOP_END without its LOOP_START on top of the stack".into(),
            }),
        }
    }

    /// A fault at `loc`.
    pub fn fault(&self, loc: FaultLoc, kind: FaultKind) -> Fault {
        Fault {
            wavefront: self.id,
            loc,
            kind,
        }
    }
}

/// Run wavefront `id` of `launch` to its end or first fault; `first_fault`
/// is the lowest wavefront that faulted so far (`u64::MAX`: none), which
/// this one lowers if it faults; a higher wavefront stops early
/// ([`super::cf::run`]).
pub fn run_wave(
    prepared: &Prepared,
    launch: &Launch,
    config: &Config,
    id: u64,
    first_fault: &AtomicU64,
) -> WaveOutcome {
    let mut w = Wave::new(id, launch, config);
    if first_fault.load(Ordering::Relaxed) < id {
        return w.out;
    }
    if let Err(f) = super::cf::run(&mut w, prepared, first_fault) {
        first_fault.fetch_min(id, Ordering::Relaxed);
        w.out.fault = Some(f);
    }
    // Pixels killed by the end of the program write nothing.
    let keep = w.valid;
    w.out.counters.killed = (w.lanes & !keep).count_ones();
    for lanes in w.out.exports.values_mut() {
        for (lane, v) in lanes.iter_mut().enumerate() {
            if keep >> lane & 1 == 0 {
                *v = None;
            }
        }
    }
    w.out
}
