//! The CTM device model (CTM guide chapter 2): everything around the
//! processor array.
//!
//! * [`memory`]: the sparse 32-bit GPU address space (local and remote).
//! * [`format`](mod@format), [`tiling`]: the MC's data formats and address
//!   translation (§2.1.4 Tables 1 and 2).
//! * [`cache`]: the MC's read and write caches.
//! * [`mc`]: the Memory Controller Unit and the processors' [`DppMemory`]
//!   view.
//! * [`cond`]: the Conditional Operation Unit (§2.1.3).
//! * [`command`], [`params`]: the command table (§2.2) and typed commands.
//! * [`perf`]: the performance counters.
//! * [`pe`]: the [`Device`] and its Processor Execution Unit.
//! * [`array`](mod@array): the [`ProcessorArray`] trait the device schedules work on.
//! * [`program`], [`elf`]: the loader's view of a program and the CTM ELF
//!   reader (chapter 4).
//! * [`host`]: host helpers — memory layout, command sequences, readback.
//!
//! Decisions the guide leaves open are recorded in `docs/ctm-device.md`.
//!
//! [`DppMemory`]: crate::x1k::interface::DppMemory

pub mod array;
pub mod cache;
pub mod command;
pub mod cond;
pub mod elf;
pub mod format;
pub mod host;
pub mod mc;
pub mod memory;
pub mod params;
pub mod pe;
pub mod perf;
pub mod program;
pub mod tiling;

pub use array::{ArrayCycles, ArrayError, ArrayRun, ProcessorArray};
pub use command::{Command, CommandDecodeError, Opcode};
pub use cond::{CondLocation, CondTest, CondWrite};
pub use elf::{ElfError, LoadError, read_elf};
pub use format::{BaseAddress, DataFormat, Surface, SurfaceFormat, Tiling};
pub use mc::{Client, McError, MemoryController};
pub use memory::{GpuMemory, MemoryError, MemoryKind, MemoryMap};
pub use params::{ChannelMask, Domain, Height, InputId, OutputId, PerfCounterMode};
pub use pe::{Device, DeviceError, DeviceStats, ExecError, SubmissionId};
pub use program::{ProgramImage, ProgramInfo, ProgramNotes};
