//! What one group (batch) did, for the cycle model and the statistics: a
//! list of [`Segment`]s — runs of issue cycles separated by the points where
//! the batch must wait (an effective texture-semaphore wait, an `ALU_WAIT`
//! drain) — and summable [`Counters`].
//!
//! Recording is cheap (a few additions per instruction); the scheduling of
//! batches over dispatchers happens afterwards in [`super::cycle`].

use serde::Serialize;

/// Why a segment ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SegmentEnd {
    /// A `TEX_SEM_WAIT` with an acquire outstanding: the batch sleeps until
    /// its texture fetches return (CTM §3.4.2).
    Semaphore,
    /// An `ALU_WAIT` with ALU work pending: the batch sleeps for the ALU
    /// pipeline latency (CTM §3.2.1).
    AluDrain,
    /// The program ended.
    Finish,
}

/// A run of issue cycles of one batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    /// Dispatcher (ALU issue) cycles, NOP bubbles and FC included.
    pub issue_cycles: u64,
    /// Texture-unit cycles of the fetches issued in the segment.
    pub tex_cycles: u64,
    /// Issue cycles into the segment at which its last fetch was issued.
    pub tex_offset: u64,
    /// What ends it.
    pub end: SegmentEnd,
}

/// Per-instruction costs, fixed for a run (see [`super::cycle::CycleModel`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Costs {
    /// Dispatcher cycles to issue one instruction to a whole batch.
    pub issue: u64,
    /// Extra cycles for an FC instruction.
    pub fc: u64,
    /// Texture-unit cycles per fetching processor, numerator / denominator
    /// (one texel per TMU per clock).
    pub tmus: u64,
    /// Issue multiplier for per-processor-index UMRT writes (CTM §3.3.8: ¼ speed).
    pub umrt_per_processor: u64,
}

/// Summable event counts of a run (or of one group).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Counters {
    /// ALU instructions issued (per batch).
    pub alu: u64,
    /// OUTPUT instructions issued.
    pub out: u64,
    /// TEX instructions issued.
    pub tex: u64,
    /// FC instructions issued.
    pub fc: u64,
    /// ALU/OUT instructions using both the RGB and the alpha unit.
    pub coissued: u64,
    /// ALU/OUT instructions using only the RGB unit.
    pub rgb_only: u64,
    /// ALU/OUT instructions using only the alpha unit.
    pub alpha_only: u64,
    /// Sum over issued instructions of the processors in the batch.
    pub lane_slots: u64,
    /// Sum over issued instructions of the processors executing (active).
    pub lane_active: u64,
    /// Dispatcher cycles issuing ALU/OUT/TEX instructions.
    pub issue_cycles: u64,
    /// Dispatcher cycles lost to `NOP` bubbles (CTM §3.3.2).
    pub nop_cycles: u64,
    /// Dispatcher cycles spent on FC instructions.
    pub fc_cycles: u64,
    /// Texture-unit busy cycles.
    pub tex_unit_cycles: u64,
    /// Texels fetched (lookups × participating processors).
    pub texels_fetched: u64,
    /// Bytes of the texels fetched (by each input's data format).
    pub texel_bytes: u64,
    /// Processors killed by TEX KILL.
    pub killed: u64,
    /// Uncached (UMRT) writes.
    pub umrt_writes: u64,
    /// Effective semaphore waits (an acquire was outstanding).
    pub semaphore_waits: u64,
    /// Effective `ALU_WAIT` drains.
    pub alu_waits: u64,
    /// FC instructions that jumped.
    pub jumps_taken: u64,
    /// Deepest loop stack reached.
    pub max_loop_depth: u32,
    /// Deepest address stack reached.
    pub max_call_depth: u32,
    /// Largest branch counter reached.
    pub max_branch_counter: u32,
}

impl Counters {
    /// Add `other` (maxima are maxed).
    pub fn add(&mut self, other: &Counters) {
        self.alu += other.alu;
        self.out += other.out;
        self.tex += other.tex;
        self.fc += other.fc;
        self.coissued += other.coissued;
        self.rgb_only += other.rgb_only;
        self.alpha_only += other.alpha_only;
        self.lane_slots += other.lane_slots;
        self.lane_active += other.lane_active;
        self.issue_cycles += other.issue_cycles;
        self.nop_cycles += other.nop_cycles;
        self.fc_cycles += other.fc_cycles;
        self.tex_unit_cycles += other.tex_unit_cycles;
        self.texels_fetched += other.texels_fetched;
        self.texel_bytes += other.texel_bytes;
        self.killed += other.killed;
        self.umrt_writes += other.umrt_writes;
        self.semaphore_waits += other.semaphore_waits;
        self.alu_waits += other.alu_waits;
        self.jumps_taken += other.jumps_taken;
        self.max_loop_depth = self.max_loop_depth.max(other.max_loop_depth);
        self.max_call_depth = self.max_call_depth.max(other.max_call_depth);
        self.max_branch_counter = self.max_branch_counter.max(other.max_branch_counter);
    }

    /// All instructions issued.
    pub fn instructions(&self) -> u64 {
        self.alu + self.out + self.tex + self.fc
    }
}

/// The recording of one group.
#[derive(Clone, Debug, Default)]
pub(crate) struct Profile {
    /// Closed segments (a loop's iterations repeat theirs: stored once
    /// with a count, [`crate::repeat_log`]).
    pub segments: crate::repeat_log::RepeatLog<Segment>,
    /// The open segment's issue cycles.
    pub issue: u64,
    /// The open segment's texture cycles.
    pub tex: u64,
    /// The open segment's issue cycles at its last fetch.
    pub tex_offset: u64,
    /// Counters.
    pub counters: Counters,
}

impl Profile {
    /// Close the open segment.
    pub fn close(&mut self, end: SegmentEnd) {
        self.segments.push(Segment {
            issue_cycles: self.issue,
            tex_cycles: self.tex,
            tex_offset: self.tex_offset,
            end,
        });
        self.issue = 0;
        self.tex = 0;
        self.tex_offset = 0;
    }

    /// Record texture-unit work issued now.
    pub fn fetch(&mut self, tex_cycles: u64) {
        self.tex += tex_cycles;
        self.tex_offset = self.issue;
        self.counters.tex_unit_cycles += tex_cycles;
    }
}
