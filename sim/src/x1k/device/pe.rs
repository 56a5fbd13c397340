//! The device and its Processor Execution Unit (CTM §2.1.2, §2.2): command
//! buffers, the execution of every command, `start_program`.
//!
//! Execution is synchronous: `start_program` runs the whole domain before
//! the next command is read. The pipelining rules still hold as checks: a
//! command the guide marks non-pipelined is an error between a
//! `start_program` and the next `wait_for_idle` (§2.2: such a command "must
//! follow a wait_for_idle command ... to be predictable").
//!
//! Reset state (the guide gives none; `docs/ctm-device.md` §3): no client
//! configured, no domain, no program; conditional test `Always` at the DPP,
//! conditional value 0, conditional writes disabled; output mask all
//! channels; counters disabled; caches empty.

use ctm_backend_x1k::isa::program_regs::OutputMode;
use ctm_backend_x1k::isa::{ProgramDecodeError, decode_program_bytes};

use super::array::{ArrayCycles, ArrayError, ProcessorArray, StreamFailure};
use super::command::{Command, CommandDecodeError, ConstKind, Opcode, Pipelined};
use super::cond::{CondLocation, CondWrite, ConditionalUnit};
use super::format::Surface;
use super::mc::{Caches, Client, McError, MemoryController, WriteOutcome};
use super::memory::{GpuMemory, MemoryError, MemoryMap};
use super::params::{Domain, OutputId};
use super::perf::{CLOCKS_PER_COMMAND, PerfCounters};
use super::program::{ProgramImage, ProgramInfo, ProgramNotes};
use crate::x1k::interface::{ElementResult, Elements};

/// Why one command failed.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// A non-pipelined command while a program may be running.
    #[error("non-pipelined command issued after start_program without wait_for_idle")]
    NotIdle,
    /// `start_program` before any `set_domain`.
    #[error("start_program before set_domain")]
    DomainNotSet,
    /// `start_program` before the host loaded a program.
    #[error("start_program before a program was loaded")]
    NoProgram,
    /// A client the program needs has no parameters.
    #[error("{client:?} is used by the program but not configured")]
    NotConfigured {
        /// The client.
        client: Client,
    },
    /// An MC access failed (fetch, processor read, output or CO access).
    #[error(transparent)]
    Memory(#[from] McError),
    /// The fetched instructions do not decode.
    #[error("fetched program: {0}")]
    ProgramDecode(ProgramDecodeError),
    /// The array failed.
    #[error("processor array: {0}")]
    Array(ArrayError),
    /// The array returned a result list that does not match the pairs.
    #[error(
        "processor array returned {found} results for {expected} pairs (or out of order at {first_mismatch:?})"
    )]
    ArrayContract {
        /// Pairs run.
        expected: usize,
        /// Results returned.
        found: usize,
        /// First position whose (i, j) differs.
        first_mismatch: Option<usize>,
    },
    /// `read_perf_counters` could not write.
    #[error("read_perf_counters: {0}")]
    PerfWrite(MemoryError),
    /// A flush could not write back.
    #[error("flush: {0}")]
    Flush(MemoryError),
}

/// Why a submitted command buffer stopped. Commands before the failing one
/// have taken effect. Offsets are in words from the buffer's start.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// The buffer's words could not be read.
    #[error("command buffer word {offset_words}: {source}")]
    CommandBuffer {
        /// Word offset.
        offset_words: u32,
        /// Why.
        source: MemoryError,
    },
    /// A command does not decode.
    #[error("command buffer word {offset_words}: {source}")]
    Decode {
        /// Word offset of the command.
        offset_words: u32,
        /// Why.
        source: CommandDecodeError,
    },
    /// A command failed.
    #[error("command buffer word {offset_words}: {opcode}: {source}")]
    Execute {
        /// Word offset of the command.
        offset_words: u32,
        /// The command.
        opcode: Opcode,
        /// Why.
        source: ExecError,
    },
}

/// Counts of what the device did.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct DeviceStats {
    /// Command buffers submitted.
    pub submissions: u64,
    /// Commands executed.
    pub commands: u64,
    /// `start_program` commands run.
    pub programs_started: u64,
    /// Index pairs in the domains of those runs.
    pub domain_pairs: u64,
    /// Pairs the PE's conditional test skipped.
    pub pairs_skipped: u64,
    /// Elements the array ran.
    pub elements_run: u64,
    /// Elements that were killed.
    pub elements_killed: u64,
    /// Elements whose outputs the DPP conditional test suppressed.
    pub outputs_suppressed: u64,
    /// Output element writes (cached mode).
    pub output_writes: u64,
    /// UMRT writes.
    pub umrt_writes: u64,
    /// Writes dropped outside their buffer's rectangle.
    pub clipped_writes: u64,
    /// Conditional-buffer reads by the CO.
    pub cond_reads: u64,
    /// Conditional-buffer writes by the CO.
    pub cond_writes: u64,
    /// Clocks of the array over all runs.
    pub array_cycles: ArrayCyclesTotal,
}

/// Summed [`ArrayCycles`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ArrayCyclesTotal {
    /// Sum of `total_cycles`.
    pub total_cycles: u64,
    /// Sum of `active_cycles`.
    pub active_cycles: u64,
}

/// The id `submit` returns (like `amSubmitCommandBuffer`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct SubmissionId(pub u32);

/// The program the host loaded: registers and notes (`docs/ctm-device.md` §7).
#[derive(Clone, PartialEq, Eq, Debug)]
struct LoadedProgram {
    info: ProgramInfo,
    notes: ProgramNotes,
}

/// A CTM device: memory, MC, CO, PE state, counters, and a processor array.
#[derive(Debug)]
pub struct Device<A> {
    memory: GpuMemory,
    mc: MemoryController,
    co: ConditionalUnit,
    perf: PerfCounters,
    domain: Option<Domain>,
    program: Option<LoadedProgram>,
    busy: bool,
    array: A,
    stats: DeviceStats,
}

impl<A: ProcessorArray> Device<A> {
    /// A reset device with the default memory map.
    pub fn new(array: A) -> Self {
        Self::with_memory_map(MemoryMap::ctm_default(), array)
    }

    /// A reset device with a custom memory map.
    pub fn with_memory_map(map: MemoryMap, array: A) -> Self {
        Device {
            memory: GpuMemory::new(map),
            mc: MemoryController::default(),
            co: ConditionalUnit::default(),
            perf: PerfCounters::default(),
            domain: None,
            program: None,
            busy: false,
            array,
            stats: DeviceStats::default(),
        }
    }

    /// Host view of memory (bypasses the MC's caches).
    pub fn memory(&self) -> &GpuMemory {
        &self.memory
    }

    /// Host access to memory (bypasses the MC's caches).
    pub fn memory_mut(&mut self) -> &mut GpuMemory {
        &mut self.memory
    }

    /// The memory controller's state.
    pub fn mc(&self) -> &MemoryController {
        &self.mc
    }

    /// The caches.
    pub fn caches(&self) -> &Caches {
        self.mc.caches()
    }

    /// The conditional unit's state.
    pub fn co(&self) -> &ConditionalUnit {
        &self.co
    }

    /// The performance counters.
    pub fn perf(&self) -> &PerfCounters {
        &self.perf
    }

    /// The current domain.
    pub fn domain(&self) -> Option<Domain> {
        self.domain
    }

    /// Whether a `start_program` has not yet been followed by `wait_for_idle`.
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// Statistics so far.
    pub fn stats(&self) -> &DeviceStats {
        &self.stats
    }

    /// The processor array.
    pub fn array(&self) -> &A {
        &self.array
    }

    /// The processor array, mutably.
    pub fn array_mut(&mut self) -> &mut A {
        &mut self.array
    }

    /// Host call: make `image` the current program. Its registers and notes
    /// are kept; its instructions are fetched from memory (the instruction
    /// client's base) at each `start_program`, so the host must also write
    /// `image.text()` there (the host helpers do).
    pub fn load_program(&mut self, image: &ProgramImage) {
        self.program = Some(LoadedProgram {
            info: image.info,
            notes: image.notes.clone(),
        });
    }

    /// Execute the command buffer of `size_words` words at `address`
    /// (`amSubmitCommandBuffer`). Like the PE (§2.1.2: it "reads commands
    /// sequentially"), each command's words are read just before it runs;
    /// the buffer is consumed when this returns.
    ///
    /// # Errors
    /// [`DeviceError`] at the first word that cannot be read, decoded or
    /// executed; earlier commands have taken effect.
    pub fn submit(&mut self, address: u32, size_words: u32) -> Result<SubmissionId, DeviceError> {
        self.stats.submissions += 1;
        let id = SubmissionId(self.stats.submissions as u32);
        let read = |memory: &GpuMemory, k: u32| {
            memory
                .read_u32(address.wrapping_add(k.wrapping_mul(4)))
                .map_err(|source| DeviceError::CommandBuffer {
                    offset_words: k,
                    source,
                })
        };
        let mut at = 0u32;
        while at < size_words {
            let mut words = vec![read(&self.memory, at)?];
            if let Some(opcode) = Opcode::from_word(words[0]) {
                // Read the parameters that exist; decoding reports truncation.
                let available = (size_words - at - 1).min(opcode.param_count());
                for p in 1..=available {
                    words.push(read(&self.memory, at + p)?);
                }
            }
            let (command, used) =
                Command::decode(&words).map_err(|source| DeviceError::Decode {
                    offset_words: at,
                    source,
                })?;
            self.execute(&command)
                .map_err(|source| DeviceError::Execute {
                    offset_words: at,
                    opcode: command.opcode(),
                    source,
                })?;
            at += used as u32;
        }
        Ok(id)
    }

    /// Whether submission `id` has been consumed (`amCommandBufferConsumed`;
    /// always true once `submit` returned, as execution is synchronous).
    pub fn consumed(&self, id: SubmissionId) -> bool {
        u64::from(id.0) <= self.stats.submissions
    }

    /// Execute one command.
    ///
    /// # Errors
    /// [`ExecError`]. A failed command has no effect, except a
    /// `start_program` that fails after scheduling: the conditional-buffer
    /// writes of the PE's test, and the output writes applied before the
    /// failure, remain (in the caches). Results are applied while the
    /// array runs, so when the array faults, the writes of the waves it
    /// finished before the faulting one have been applied.
    pub fn execute(&mut self, command: &Command) -> Result<(), ExecError> {
        let opcode = command.opcode();
        if self.busy && opcode.pipelined() == Pipelined::No {
            return Err(ExecError::NotIdle);
        }
        self.stats.commands += 1;
        self.perf.advance(ArrayCycles {
            total_cycles: CLOCKS_PER_COMMAND,
            active_cycles: 0,
        });
        match *command {
            Command::InitPerfCounters(mode) => self.perf.init(mode),
            Command::StartPerfCounters => self.perf.start(),
            Command::StopPerfCounters => self.perf.stop(),
            Command::ReadPerfCounters(address) => {
                if let Some(words) = self.perf.read_words() {
                    self.memory
                        .write_words(address.get(), &words)
                        .map_err(ExecError::PerfWrite)?;
                }
            }
            Command::SetCondVal(value) => self.co.value_bits = value,
            Command::SetDomain(domain) => self.domain = Some(domain),
            Command::StartProgram => self.start_program()?,
            Command::WaitForIdle => self.busy = false,
            Command::SetInstFmt { base, format } => self.mc.set_surface(
                Client::Instructions,
                Surface {
                    base,
                    format,
                    height: None,
                },
            ),
            Command::SetInpFmt {
                input,
                base,
                format,
                height,
            } => self.mc.set_surface(
                Client::Input(input),
                Surface {
                    base,
                    format,
                    height: Some(height.get()),
                },
            ),
            Command::SetOutFmt {
                output,
                base,
                format,
                height,
            } => self.mc.set_surface(
                Client::Output(output),
                Surface {
                    base,
                    format,
                    height: Some(height.get()),
                },
            ),
            Command::SetCondOutFmt {
                base,
                format,
                height,
            } => self.mc.set_surface(
                Client::ConditionalOutput,
                Surface {
                    base,
                    format,
                    height: Some(height.get()),
                },
            ),
            Command::SetConstFmt { kind, base, format } => self.mc.set_surface(
                Client::constants(kind),
                Surface {
                    base,
                    format,
                    height: None,
                },
            ),
            Command::Invalidate(target) => self.mc.invalidate(target),
            Command::Flush(target) => self
                .mc
                .flush(target, &mut self.memory)
                .map_err(ExecError::Flush)?,
            Command::SetOutMask(mask) => self.mc.out_mask = mask,
            Command::SetCondOutMask(write) => self.mc.cond_write = write,
            Command::SetCondTest(test) => self.co.test = test,
            Command::SetCondLoc(location) => self.co.location = location,
        }
        Ok(())
    }

    /// Check the execution environment against the program's notes (CTM
    /// §4.1.4: the notes "ensure the validity of the execution environment").
    fn check_environment(&self, program: &LoadedProgram) -> Result<(), ExecError> {
        let need = |client: Client| match self.mc.surface(client) {
            Some(_) => Ok(()),
            None => Err(ExecError::NotConfigured { client }),
        };
        need(Client::Instructions)?;
        for &input in &program.notes.inputs {
            need(Client::Input(input))?;
        }
        for &output in &program.notes.outputs {
            need(Client::Output(output))?;
        }
        if !program.notes.float_constants.is_empty() {
            need(Client::constants(ConstKind::Float))?;
        }
        if !program.notes.int_constants.is_empty() {
            need(Client::constants(ConstKind::Int))?;
        }
        if self.co.test.reads_buffer() || self.mc.cond_write == CondWrite::Enabled {
            need(Client::ConditionalOutput)?;
        }
        Ok(())
    }

    /// The CO's test for client value `v` at (i, j), with the buffer read
    /// and the write of a passing `v` (CTM §2.1.3).
    fn co_test(&mut self, i: u32, j: u32, v: f32) -> Result<bool, ExecError> {
        co_test(
            &mut self.mc,
            &self.memory,
            self.co,
            &mut self.stats,
            i,
            j,
            v,
        )
    }

    /// `start_program` (CTM §2.1.2).
    fn start_program(&mut self) -> Result<(), ExecError> {
        let program = self.program.clone().ok_or(ExecError::NoProgram)?;
        let domain = self.domain.ok_or(ExecError::DomainNotSet)?;
        self.check_environment(&program)?;
        let info = program.info;
        self.mc
            .fill_for_run(&self.memory, info.instr_cnt, self.co.test);
        let text = self.mc.read_instructions(&self.memory, info.instr_cnt)?;
        let insts = decode_program_bytes(&text).map_err(ExecError::ProgramDecode)?;
        let decoded = info.to_program(insts);

        // PE-side conditional execution: skip failing pairs before scheduling.
        self.stats.programs_started += 1;
        self.stats.domain_pairs += domain.len();
        let pe_value = self.co.pe_value();
        let list = if self.co.location == CondLocation::Pe {
            let mut list = Vec::with_capacity(domain.len() as usize);
            for (i, j) in domain.pairs() {
                if !self.co_test(i, j, pe_value)? {
                    self.stats.pairs_skipped += 1;
                    continue;
                }
                list.push((i, j));
            }
            Some(list)
        } else {
            None
        };
        // Without a PE test the whole domain runs: a rectangle, no list.
        let pairs = match &list {
            Some(list) => Elements::List(list),
            None => {
                let (i0, j0, i1, j1) = domain.bounds();
                Elements::Rect {
                    i0,
                    j0,
                    width: (i1 + 1).saturating_sub(i0),
                    height: (j1 + 1).saturating_sub(j0),
                }
            }
        };

        // The results are applied while the array runs (through the MC's
        // write side; the processors read through its read side).
        let mut applier = Applier {
            mc: self.mc.take_writer(),
            memory: &self.memory,
            co: self.co,
            stats: &mut self.stats,
            pe_value,
            info: &info,
            pairs,
            at: 0,
        };
        let view = self.mc.view(&self.memory);
        let run = self
            .array
            .run_streaming(&decoded, pairs, &view, &mut |results| {
                applier.apply(results)
            });
        let fault = view.into_fault();
        let applied = applier.at;
        self.mc.restore_writer(applier.mc);
        let cycles = run.map_err(|e| match e {
            StreamFailure::Array(e) => ExecError::Array(e),
            StreamFailure::Sink(e) => e,
        })?;
        if let Some(fault) = fault {
            return Err(ExecError::Memory(fault));
        }
        if applied != pairs.len() {
            return Err(ExecError::ArrayContract {
                expected: pairs.len(),
                found: applied,
                first_mismatch: None,
            });
        }
        self.stats.elements_run += pairs.len() as u64;
        let sums = &mut self.stats.array_cycles;
        sums.total_cycles = sums.total_cycles.saturating_add(cycles.total_cycles);
        sums.active_cycles = sums.active_cycles.saturating_add(cycles.active_cycles);
        self.perf.advance(cycles);
        self.busy = true;
        Ok(())
    }
}

/// The CO's test for client value `v` at (i, j), with the buffer read
/// and the write of a passing `v` (CTM §2.1.3).
fn co_test(
    mc: &mut MemoryController,
    memory: &GpuMemory,
    co: ConditionalUnit,
    stats: &mut DeviceStats,
    i: u32,
    j: u32,
    v: f32,
) -> Result<bool, ExecError> {
    let test = co.test;
    let pass = if test.reads_buffer() {
        stats.cond_reads += 1;
        let b = mc.read_cond(memory, i, j)?;
        test.evaluate(v, b)
    } else {
        test.evaluate(v, 0.0)
    };
    if pass && mc.cond_write == CondWrite::Enabled {
        match mc.write_cond(memory, i, j, v)? {
            WriteOutcome::Written => stats.cond_writes += 1,
            WriteOutcome::Clipped => stats.clipped_writes += 1,
        }
    }
    Ok(pass)
}

/// Applies the array's results as they arrive, in pair order: the
/// conditional test at the DPP, output and UMRT writes into the MC's write
/// caches, the device's counts.
struct Applier<'a> {
    /// The MC's write side (`MemoryController::take_writer`).
    mc: MemoryController,
    memory: &'a GpuMemory,
    co: ConditionalUnit,
    stats: &'a mut DeviceStats,
    pe_value: f32,
    info: &'a ProgramInfo,
    /// The pairs run, to check the array's contract.
    pairs: Elements<'a>,
    /// Results applied so far.
    at: usize,
}

impl Applier<'_> {
    /// Apply the next results (they continue the pairs where the last
    /// slice ended).
    fn apply(&mut self, results: &[ElementResult]) -> Result<(), ExecError> {
        let at = self.at;
        let pairs = self.pairs;
        let mismatch = results
            .iter()
            .enumerate()
            .position(|(k, r)| pairs.get(at + k) != Some((r.i, r.j)));
        if let Some(k) = mismatch {
            return Err(ExecError::ArrayContract {
                expected: self.pairs.len(),
                found: self.at + results.len(),
                first_mismatch: Some(self.at + k),
            });
        }
        self.at += results.len();
        for result in results {
            self.apply_result(result)?;
        }
        Ok(())
    }

    /// Apply one element's writes (CTM §2.1.1, §2.1.3, §3.3.8).
    fn apply_result(&mut self, result: &ElementResult) -> Result<(), ExecError> {
        if result.killed {
            // A killed element writes no render target and no conditional
            // value, and the CO is not consulted; the uncached writes it
            // made before the kill have happened (docs/ctm-device.md §6).
            self.stats.elements_killed += 1;
            return self.apply_umrt(result);
        }
        if self.co.location == CondLocation::Dpp {
            // The value comes from the program (W_OMASK, FG_DEPTH_SRC bit 0)
            // or else is the PE's (§2.1.1).
            let v = match result.conditional_value {
                Some(v) if self.info.fg_depth_src.shader_exports_w => v,
                _ => self.pe_value,
            };
            if !co_test(
                &mut self.mc,
                self.memory,
                self.co,
                self.stats,
                result.i,
                result.j,
                v,
            )? {
                self.stats.outputs_suppressed += 1;
                return Ok(());
            }
        }
        if self.info.us_config.output_mode == OutputMode::Cached {
            for (k, target) in result.targets.iter().enumerate() {
                let Some(write) = target else { continue };
                let output = OutputId::new(k as u8).unwrap_or_default();
                match self.mc.write_output(
                    self.memory,
                    output,
                    result.i,
                    result.j,
                    write.value,
                    write.mask,
                )? {
                    WriteOutcome::Written => self.stats.output_writes += 1,
                    WriteOutcome::Clipped => self.stats.clipped_writes += 1,
                }
            }
        }
        self.apply_umrt(result)
    }

    /// Apply one element's uncached (UMRT) writes, in the order it made
    /// them (CTM §3.3.8).
    fn apply_umrt(&mut self, result: &ElementResult) -> Result<(), ExecError> {
        for umrt in &result.umrt {
            // §3.3.8: G, B = (X, Y), R = the value. Written to output 0,
            // channel 0 (docs/ctm-device.md §6). Coordinates truncate toward
            // zero; negative or non-finite ones are clipped.
            let coord = |c: f32| (c.is_finite() && c >= 0.0).then_some(c as u32);
            let outcome = match (coord(umrt.x), coord(umrt.y)) {
                (Some(x), Some(y)) => self.mc.write_output(
                    self.memory,
                    OutputId::default(),
                    x,
                    y,
                    [umrt.value, 0.0, 0.0, 0.0],
                    1,
                )?,
                _ => WriteOutcome::Clipped,
            };
            match outcome {
                WriteOutcome::Written => self.stats.umrt_writes += 1,
                WriteOutcome::Clipped => self.stats.clipped_writes += 1,
            }
        }
        Ok(())
    }
}
