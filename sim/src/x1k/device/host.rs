//! Host helpers: lay out a job's memory image and emit the command
//! sequence a CTM application would submit, then read results back.
//!
//! A [`JobBuilder`] collects the program, inputs, outputs, constants,
//! domain and conditional setup; [`JobBuilder::build`] places everything in
//! memory ([`LayoutOptions`]) and produces a [`Job`]: the bytes to write,
//! the commands, and where each buffer lives. [`Job::run`] writes the image,
//! loads the program and submits the command buffer, so a simulation always
//! goes through the real command-buffer path.
//!
//! The command sequence (`docs/ctm-device.md` §10):
//!
//! ```text
//! init_perf_counters 1                  (if counters requested)
//! set_inst_fmt code; inv_inst_cache
//! set_constf_fmt; set_consti_fmt; set_constb_fmt; inv_const{f,i,b}_cache
//! set_inp_fmt k …  (each input); inv_inp_cache
//! set_out_fmt k …  (each output); set_out_mask 0xF
//! set_cond_out_fmt … ; inv_cond_out_cache   (if a conditional buffer)
//! set_cond_test; set_cond_loc; set_cond_val; set_cond_out_mask
//! set_domain
//! start_perf_counters                   (if counters)
//! start_program
//! wait_for_idle
//! stop_perf_counters                    (if counters)
//! flush_out_cache; flush_cond_out_cache
//! read_perf_counters perf               (if counters)
//! ```
//!
//! Layout: code, constants, inputs, outputs and the conditional buffer go
//! in local memory, each at a 4 KiB boundary; the command buffer and the
//! counter results in remote (system) memory, where a host would put them.
//! Pitches are the width rounded up to [`row_alignment`], and the padding
//! columns of inputs repeat the last column, so that clamping to the pitch
//! (the only width the MC knows) reads what clamping to the width would.

use std::collections::BTreeMap;

use super::array::ProcessorArray;
use super::command::{Command, ConstKind, FlushTarget, InvalidateTarget, encode_buffer};
use super::cond::{CondLocation, CondTest, CondWrite};
use super::format::{BaseAddress, DataFormat, Surface, SurfaceFormat, Tiling};
use super::mc::{element_address, extent_bytes};
use super::memory::{GpuMemory, MemoryError, MemoryMap, PAGE_BYTES};
use super::params::{ChannelMask, Domain, Height, InputId, OutputId, PerfCounterMode};
use super::pe::{Device, DeviceError, SubmissionId};
use super::program::ProgramImage;
use super::tiling::row_alignment;

/// Why a job cannot be built or run.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A buffer is empty or larger than 4096 × 4096 (indices are 12-bit).
    #[error("{what}: {width}×{height} is outside 1..=4096 in each dimension")]
    BadSize {
        /// Which buffer.
        what: String,
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// The data given does not match the size.
    #[error("{what}: {found} elements given for {expected}")]
    DataLength {
        /// Which buffer.
        what: String,
        /// width × height.
        expected: usize,
        /// Elements given.
        found: usize,
    },
    /// Too many constants.
    #[error("{what}: {found} constants, at most {max}")]
    TooManyConstants {
        /// Which kind.
        what: &'static str,
        /// Given.
        found: usize,
        /// Limit.
        max: usize,
    },
    /// No domain was given and there is no output to size it from.
    #[error("no domain and no output to take it from")]
    NoDomain,
    /// The layout does not fit the memory map.
    #[error("layout does not fit: {0}")]
    Layout(MemoryError),
    /// Writing the image or reading back failed.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// The device stopped on the command buffer.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The job has no such output.
    #[error("output {0} is not part of the job")]
    UnknownOutput(u8),
}

/// Host data for an input (or the conditional buffer's initial contents).
#[derive(Clone, PartialEq, Debug)]
pub struct HostBuffer {
    /// Data format in memory.
    pub format: DataFormat,
    /// Tiling in memory.
    pub tiling: Tiling,
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Row-major `width × height` elements, four channels each (channels the
    /// format lacks are ignored).
    pub texels: Vec<[f32; 4]>,
}

/// An output buffer to allocate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OutputSpec {
    /// Data format in memory.
    pub format: DataFormat,
    /// Tiling in memory.
    pub tiling: Tiling,
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

/// Conditional test setup (CTM §2.1.3).
#[derive(Clone, PartialEq, Debug)]
pub struct ConditionalSetup {
    /// The test.
    pub test: CondTest,
    /// PE (conditional execution) or DPP (conditional output).
    pub location: CondLocation,
    /// The PE's conditional value.
    pub value: f32,
    /// Whether passing values are written to the buffer.
    pub write: CondWrite,
    /// The buffer and its initial contents.
    pub buffer: HostBuffer,
}

/// Where the layout starts in each kind of memory.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LayoutOptions {
    /// First local address used (4 KiB-aligned).
    pub local_base: u32,
    /// First remote address used (4 KiB-aligned).
    pub remote_base: u32,
}

impl Default for LayoutOptions {
    fn default() -> Self {
        LayoutOptions {
            local_base: MemoryMap::LOCAL_BASE + 0x10_0000,
            remote_base: MemoryMap::REMOTE_BASE,
        }
    }
}

/// A buffer placed in memory.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PlacedBuffer {
    /// The MC parameters it is bound with.
    pub surface: Surface,
    /// Columns of data (≤ the pitch).
    pub width: u32,
    /// Rows.
    pub height: u32,
}

/// Elements read back, flattened: `channels` values per element, row-major.
#[derive(Clone, PartialEq, Debug)]
pub struct Readback {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Values per element: the format's channel count.
    pub channels: usize,
    /// `width × height × channels` values.
    pub data: Vec<f32>,
}

/// Collects a job (module doc).
#[derive(Clone, Debug)]
pub struct JobBuilder {
    program: ProgramImage,
    inputs: BTreeMap<InputId, InputImage>,
    outputs: BTreeMap<OutputId, OutputSpec>,
    float_constants: Vec<[f32; 4]>,
    int_constants: Vec<u32>,
    bool_constants: Vec<bool>,
    domain: Option<Domain>,
    cond: Option<ConditionalSetup>,
    perf_counters: PerfCounterMode,
    layout: LayoutOptions,
}

impl JobBuilder {
    /// A job running `program`.
    pub fn new(program: ProgramImage) -> Self {
        JobBuilder {
            program,
            inputs: BTreeMap::new(),
            outputs: BTreeMap::new(),
            float_constants: Vec::new(),
            int_constants: Vec::new(),
            bool_constants: Vec::new(),
            domain: None,
            cond: None,
            perf_counters: PerfCounterMode::Enabled,
            layout: LayoutOptions::default(),
        }
    }

    /// Bind input `id` to `data`.
    pub fn input(mut self, id: InputId, data: HostBuffer) -> Self {
        self.inputs.insert(id, InputImage::Texels(data));
        self
    }

    /// Bind input `id` to a `width × height` buffer of `format` whose
    /// element (x, y) is `texel(x, y)`, encoded into the memory image at
    /// once: no list of four-channel texels is held (a large stream costs
    /// its bytes in memory, not 16 bytes per element). The same image as
    /// [`JobBuilder::input`] with those texels. A size outside 1..=4096 is
    /// reported by [`JobBuilder::build`].
    pub fn input_with(
        mut self,
        id: InputId,
        format: DataFormat,
        tiling: Tiling,
        (width, height): (u32, u32),
        texel: impl Fn(u32, u32) -> [f32; 4] + Sync,
    ) -> Self {
        let bytes = match layout(format, tiling, width, height) {
            Some(placed) => encode_image(&placed, texel),
            None => Vec::new(),
        };
        self.inputs.insert(
            id,
            InputImage::Encoded {
                format,
                tiling,
                width,
                height,
                bytes,
            },
        );
        self
    }

    /// Allocate output `id`.
    pub fn output(mut self, id: OutputId, spec: OutputSpec) -> Self {
        self.outputs.insert(id, spec);
        self
    }

    /// Float constants c0.. (at most 256).
    pub fn float_constants(mut self, values: Vec<[f32; 4]>) -> Self {
        self.float_constants = values;
        self
    }

    /// Integer constants i0.. (at most 32), packed as `US_FC_INT_CONST`.
    pub fn int_constants(mut self, values: Vec<u32>) -> Self {
        self.int_constants = values;
        self
    }

    /// Boolean constants b0.. (at most 32).
    pub fn bool_constants(mut self, values: Vec<bool>) -> Self {
        self.bool_constants = values;
        self
    }

    /// The domain (default: the lowest-numbered output's size).
    pub fn domain(mut self, domain: Domain) -> Self {
        self.domain = Some(domain);
        self
    }

    /// Conditional execution or output.
    pub fn conditional(mut self, setup: ConditionalSetup) -> Self {
        self.cond = Some(setup);
        self
    }

    /// Whether to emit the performance-counter commands (default: enabled).
    pub fn perf_counters(mut self, mode: PerfCounterMode) -> Self {
        self.perf_counters = mode;
        self
    }

    /// Where to place things.
    pub fn layout(mut self, layout: LayoutOptions) -> Self {
        self.layout = layout;
        self
    }

    /// Place everything and emit the commands.
    ///
    /// # Errors
    /// [`HostError`] for bad sizes, data lengths, too many constants, or a
    /// missing domain.
    pub fn build(self) -> Result<Job, HostError> {
        let mut local = Bump(self.layout.local_base);
        let mut remote = Bump(self.layout.remote_base);
        let mut image: Vec<(u32, Vec<u8>)> = Vec::new();
        let mut commands = Vec::new();
        if self.perf_counters == PerfCounterMode::Enabled {
            commands.push(Command::InitPerfCounters(PerfCounterMode::Enabled));
        }

        // Code: slot s at base + 24·s (docs/ctm-device.md §7).
        let code = local.take(self.program.text().len() as u64)?;
        image.push((code.get(), self.program.text().to_vec()));
        commands.push(Command::SetInstFmt {
            base: code,
            format: surface_format(0, Tiling::Linear, DataFormat::Float32_4),
        });
        commands.push(Command::Invalidate(InvalidateTarget::Instruction));

        // Constants: one element per constant, element (c, 0) (CTM §2.1.1).
        check_count("float constants", self.float_constants.len(), 256)?;
        check_count("int constants", self.int_constants.len(), 32)?;
        check_count("bool constants", self.bool_constants.len(), 32)?;
        let mut floats = vec![[0.0f32; 4]; 256];
        floats[..self.float_constants.len()].copy_from_slice(&self.float_constants);
        let float_bytes: Vec<u8> = floats
            .iter()
            .flat_map(|v| DataFormat::Float32_4.encode_all(*v))
            .collect();
        let mut ints = vec![0u32; 32];
        ints[..self.int_constants.len()].copy_from_slice(&self.int_constants);
        let mut bools = vec![0u32; 32];
        for (k, &b) in self.bool_constants.iter().enumerate() {
            bools[k] = u32::from(b);
        }
        // Int and bool constants are UINT8_4: the word's bytes are the
        // channels, so KR/KG/KB land in c0/c1/c2 and the raw word reads back.
        let word_bytes = |w: &[u32]| w.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
        for (kind, pitch, format, bytes) in [
            (ConstKind::Float, 256, DataFormat::Float32_4, float_bytes),
            (ConstKind::Int, 32, DataFormat::Uint8_4, word_bytes(&ints)),
            (ConstKind::Bool, 32, DataFormat::Uint8_4, word_bytes(&bools)),
        ] {
            let base = local.take(bytes.len() as u64)?;
            image.push((base.get(), bytes));
            commands.push(Command::SetConstFmt {
                kind,
                base,
                format: surface_format(pitch, Tiling::Linear, format),
            });
        }
        commands.push(Command::Invalidate(InvalidateTarget::FloatConstant));
        commands.push(Command::Invalidate(InvalidateTarget::IntConstant));
        commands.push(Command::Invalidate(InvalidateTarget::BoolConstant));

        // Inputs.
        for (id, data) in self.inputs {
            let what = format!("input {}", id.get());
            let (format, tiling, w, h) = data.shape();
            let placed = place(&mut local, &what, format, tiling, w, h)?;
            let bytes = match data {
                InputImage::Texels(data) => encode_buffer_image(&what, &placed, &data)?,
                InputImage::Encoded { bytes, .. } => bytes,
            };
            image.push((placed.surface.base.get(), bytes));
            commands.push(Command::SetInpFmt {
                input: id,
                base: placed.surface.base,
                format: placed.surface.format,
                height: height(placed.height),
            });
        }
        commands.push(Command::Invalidate(InvalidateTarget::Input));

        // Outputs, zero-filled.
        let mut outputs = BTreeMap::new();
        for (&id, spec) in &self.outputs {
            let what = format!("output {}", id.get());
            let placed = place(
                &mut local,
                &what,
                spec.format,
                spec.tiling,
                spec.width,
                spec.height,
            )?;
            let len = extent_bytes(&placed.surface, placed.width, placed.height) as usize;
            image.push((placed.surface.base.get(), vec![0; len]));
            commands.push(Command::SetOutFmt {
                output: id,
                base: placed.surface.base,
                format: placed.surface.format,
                height: height(placed.height),
            });
            outputs.insert(id, placed);
        }
        commands.push(Command::SetOutMask(ChannelMask::ALL));

        // Conditional unit: always set explicitly.
        let mut cond_buffer = None;
        let (test, location, value, write) = match &self.cond {
            Some(c) => {
                let b = &c.buffer;
                let placed = place(
                    &mut local,
                    "conditional buffer",
                    b.format,
                    b.tiling,
                    b.width,
                    b.height,
                )?;
                image.push((
                    placed.surface.base.get(),
                    encode_buffer_image("conditional buffer", &placed, b)?,
                ));
                commands.push(Command::SetCondOutFmt {
                    base: placed.surface.base,
                    format: placed.surface.format,
                    height: height(placed.height),
                });
                commands.push(Command::Invalidate(InvalidateTarget::ConditionalOutput));
                cond_buffer = Some(placed);
                (c.test, c.location, c.value, c.write)
            }
            None => (
                CondTest::Always,
                CondLocation::Dpp,
                0.0,
                CondWrite::Disabled,
            ),
        };
        commands.push(Command::SetCondTest(test));
        commands.push(Command::SetCondLoc(location));
        commands.push(Command::SetCondVal(value.to_bits()));
        commands.push(Command::SetCondOutMask(write));

        let domain = match self.domain {
            Some(d) => d,
            None => {
                let first = outputs.values().next().ok_or(HostError::NoDomain)?;
                Domain::sized(first.width, first.height).ok_or(HostError::NoDomain)?
            }
        };
        commands.push(Command::SetDomain(domain));
        if self.perf_counters == PerfCounterMode::Enabled {
            commands.push(Command::StartPerfCounters);
        }
        commands.push(Command::StartProgram);
        commands.push(Command::WaitForIdle);
        if self.perf_counters == PerfCounterMode::Enabled {
            commands.push(Command::StopPerfCounters);
        }
        commands.push(Command::Flush(FlushTarget::Output));
        commands.push(Command::Flush(FlushTarget::ConditionalOutput));
        let perf_address = if self.perf_counters == PerfCounterMode::Enabled {
            let at = remote.take(8)?;
            commands.push(Command::ReadPerfCounters(at));
            Some(at.get())
        } else {
            None
        };
        let words = encode_buffer(&commands);
        let command_address = remote.take(4 * words.len() as u64)?.get();
        Ok(Job {
            program: self.program,
            image,
            commands,
            command_address,
            perf_address,
            outputs,
            cond_buffer,
            domain,
        })
    }
}

/// A laid-out job (module doc).
#[derive(Clone, Debug)]
pub struct Job {
    /// The program.
    pub program: ProgramImage,
    /// Bytes to write before submitting, by address.
    pub image: Vec<(u32, Vec<u8>)>,
    /// The command sequence.
    pub commands: Vec<Command>,
    /// Where the command buffer goes.
    pub command_address: u32,
    /// Where `read_perf_counters` writes, if counters are on.
    pub perf_address: Option<u32>,
    /// The outputs.
    pub outputs: BTreeMap<OutputId, PlacedBuffer>,
    /// The conditional buffer, if any.
    pub cond_buffer: Option<PlacedBuffer>,
    /// The domain run.
    pub domain: Domain,
}

impl Job {
    /// The command buffer's words.
    pub fn command_words(&self) -> Vec<u32> {
        encode_buffer(&self.commands)
    }

    /// Write the memory image and the command buffer, and load the program.
    ///
    /// # Errors
    /// [`MemoryError`] if the layout does not fit the device's memory map.
    pub fn install<A: ProcessorArray>(&self, device: &mut Device<A>) -> Result<(), MemoryError> {
        let memory = device.memory_mut();
        for (address, bytes) in &self.image {
            memory.write_bytes(*address, bytes)?;
        }
        memory.write_words(self.command_address, &self.command_words())?;
        device.load_program(&self.program);
        Ok(())
    }

    /// Install and submit the command buffer.
    ///
    /// # Errors
    /// [`HostError::Memory`] or [`HostError::Device`].
    pub fn run<A: ProcessorArray>(
        &self,
        device: &mut Device<A>,
    ) -> Result<SubmissionId, HostError> {
        self.install(device)?;
        let words = self.command_words().len() as u32;
        Ok(device.submit(self.command_address, words)?)
    }

    /// Output `id` as plain f32 values (host view of memory).
    ///
    /// # Errors
    /// [`HostError::UnknownOutput`], or a memory error.
    pub fn read_output(&self, memory: &GpuMemory, id: OutputId) -> Result<Readback, HostError> {
        let placed = self
            .outputs
            .get(&id)
            .ok_or(HostError::UnknownOutput(id.get()))?;
        Ok(read_buffer(memory, placed)?)
    }

    /// The performance counters the job read: (total clocks, clocks active).
    ///
    /// # Errors
    /// A memory error.
    pub fn read_perf(&self, memory: &GpuMemory) -> Result<Option<(u32, u32)>, MemoryError> {
        self.perf_address
            .map(|at| Ok((memory.read_u32(at)?, memory.read_u32(at.wrapping_add(4))?)))
            .transpose()
    }
}

/// Read a placed buffer's `width × height` elements, flattened to the
/// format's channel count.
///
/// # Errors
/// [`MemoryError`] if the buffer is unmapped.
pub fn read_buffer(memory: &GpuMemory, placed: &PlacedBuffer) -> Result<Readback, MemoryError> {
    use rayon::prelude::*;
    let surface = &placed.surface;
    let format = surface.format.format;
    let channels = format.channels();
    let n = format.bytes_per_element() as usize;
    let row_values = placed.width as usize * channels;
    let mut data = vec![0.0f32; row_values * placed.height as usize];
    // Rows in parallel, each decoded straight into its part of `data` (no
    // per-element list); an unmapped element fails the read (which one is
    // reported when several rows fail is not specified).
    let rows: Result<(), MemoryError> = data
        .par_chunks_mut(row_values.max(1))
        .enumerate()
        .try_for_each(|(y, row)| {
            let mut bytes = [0u8; 16];
            for (x, values) in row.chunks_exact_mut(channels.max(1)).enumerate() {
                memory.read_bytes(
                    element_address(surface, x as u32, y as u32),
                    &mut bytes[..n],
                )?;
                let texel = format.decode(&bytes[..n]);
                values.copy_from_slice(&texel[..values.len()]);
            }
            Ok(())
        });
    rows?;
    Ok(Readback {
        width: placed.width,
        height: placed.height,
        channels,
        data,
    })
}

/// Read `width × height` elements of `surface` as four channels each.
///
/// # Errors
/// [`MemoryError`] if an element is unmapped.
pub fn read_texels(
    memory: &GpuMemory,
    surface: &Surface,
    width: u32,
    height: u32,
) -> Result<Vec<[f32; 4]>, MemoryError> {
    let format = surface.format.format;
    let n = format.bytes_per_element() as usize;
    let count = u64::from(width) * u64::from(height);
    let mut out = Vec::with_capacity(count.min(1 << 24) as usize);
    let mut bytes = [0u8; 16];
    for y in 0..height {
        for x in 0..width {
            memory.read_bytes(element_address(surface, x, y), &mut bytes[..n])?;
            out.push(format.decode(&bytes[..n]));
        }
    }
    Ok(out)
}

/// Write `width × height` elements of `surface` (host view, no caches).
///
/// # Errors
/// [`MemoryError`] if an element is unmapped.
pub fn write_texels(
    memory: &mut GpuMemory,
    surface: &Surface,
    width: u32,
    height: u32,
    texels: &[[f32; 4]],
) -> Result<(), MemoryError> {
    let format = surface.format.format;
    for y in 0..height {
        for x in 0..width {
            let index = y as usize * width as usize + x as usize;
            if let Some(t) = texels.get(index) {
                memory.write_bytes(element_address(surface, x, y), &format.encode_all(*t))?;
            }
        }
    }
    Ok(())
}

/// A bump allocator at 4 KiB granularity.
struct Bump(u32);

impl Bump {
    fn take(&mut self, bytes: u64) -> Result<BaseAddress, HostError> {
        let at = self.0;
        let size = bytes.max(1).div_ceil(u64::from(PAGE_BYTES)) * u64::from(PAGE_BYTES);
        let next = u64::from(at) + size;
        self.0 = u32::try_from(next).map_err(|_| {
            HostError::Layout(MemoryError::OutOfRange {
                address: at,
                len_bytes: size,
                region_end: 1 << 32,
            })
        })?;
        // 4 KiB-aligned, hence 2 KiB-aligned.
        Ok(BaseAddress::from_param(at))
    }
}

fn check_count(what: &'static str, found: usize, max: usize) -> Result<(), HostError> {
    if found > max {
        return Err(HostError::TooManyConstants { what, found, max });
    }
    Ok(())
}

/// A format word; pitches here are multiples of 4 below the maximum.
fn surface_format(pitch: u32, tiling: Tiling, format: DataFormat) -> SurfaceFormat {
    SurfaceFormat::new(pitch, tiling, format).unwrap_or_default()
}

/// A height already checked to be at most 4096.
fn height(rows: u32) -> Height {
    Height::new(rows).unwrap_or_default()
}

/// A `width × height` buffer of `format` laid out at base 0 with a
/// non-aliasing pitch; `None` for a size outside 1..=4096.
fn layout(format: DataFormat, tiling: Tiling, width: u32, height: u32) -> Option<PlacedBuffer> {
    if !(1..=4096).contains(&width) || !(1..=4096).contains(&height) {
        return None;
    }
    let granule = row_alignment(tiling.is_tiled(), format.bytes_per_element());
    let pitch = width.div_ceil(granule) * granule;
    Some(PlacedBuffer {
        surface: Surface {
            base: BaseAddress::default(),
            format: surface_format(pitch, tiling, format),
            height: Some(height),
        },
        width,
        height,
    })
}

/// Allocate a `width × height` buffer with a non-aliasing pitch.
fn place(
    bump: &mut Bump,
    what: &str,
    format: DataFormat,
    tiling: Tiling,
    width: u32,
    height: u32,
) -> Result<PlacedBuffer, HostError> {
    let mut placed = layout(format, tiling, width, height).ok_or_else(|| HostError::BadSize {
        what: what.to_string(),
        width,
        height,
    })?;
    let s = &placed.surface;
    placed.surface.base = bump.take(extent_bytes(s, s.format.pitch(), height))?;
    Ok(placed)
}

/// The bytes of a placed buffer's extent holding `data`, padding columns
/// repeating the last column.
fn encode_buffer_image(
    what: &str,
    placed: &PlacedBuffer,
    data: &HostBuffer,
) -> Result<Vec<u8>, HostError> {
    let expected = (data.width * data.height) as usize;
    if data.texels.len() != expected {
        return Err(HostError::DataLength {
            what: what.to_string(),
            expected,
            found: data.texels.len(),
        });
    }
    Ok(encode_image(placed, |x, y| {
        data.texels[(y * data.width + x) as usize]
    }))
}

/// The bytes of a placed buffer's extent whose element (x, y) is
/// `texel(x, y)` for x < width; padding columns repeat the last column.
/// Offsets from the base do not depend on the base (2 KiB-aligned, CTM
/// §2.2.2), so the image can be made before the buffer is placed.
fn encode_image(placed: &PlacedBuffer, texel: impl Fn(u32, u32) -> [f32; 4] + Sync) -> Vec<u8> {
    use rayon::prelude::*;
    let s = &placed.surface;
    let pitch = s.format.pitch();
    let len = extent_bytes(s, pitch, placed.height) as usize;
    let mut bytes = vec![0u8; len];
    let base = s.base.get();
    let n = s.format.format.bytes_per_element() as usize;
    let offset = |x: u32, y: u32| element_address(s, x, y).wrapping_sub(base) as usize;
    let encode_row = |y: u32, row: &mut [u8], row_start: usize| {
        for x in 0..pitch {
            let t = texel(x.min(placed.width - 1), y);
            let at = offset(x, y).wrapping_sub(row_start);
            let (enc, _) = s.format.format.encode_bytes(t, 0xF);
            if let Some(dst) = row.get_mut(at..at + n) {
                dst.copy_from_slice(&enc[..n]);
            }
        }
    };
    // Linear rows are consecutive ranges of one stride (Table 1): encode
    // them in parallel. Checked on the layout itself; anything else (tiled
    // memory) is encoded row after row.
    let stride = if placed.height > 1 { offset(0, 1) } else { len };
    let linear = !s.format.tiling.is_tiled()
        && stride > 0
        && offset(pitch - 1, 0) + n <= stride
        && offset(0, placed.height - 1) == (placed.height as usize - 1) * stride;
    if linear {
        bytes
            .par_chunks_mut(stride)
            .enumerate()
            .for_each(|(y, row)| encode_row(y as u32, row, y * stride));
    } else {
        for y in 0..placed.height {
            encode_row(y, &mut bytes, 0);
        }
    }
    bytes
}

/// An input of a job: texels given by the caller, or already encoded.
#[derive(Clone, Debug)]
enum InputImage {
    /// [`JobBuilder::input`].
    Texels(HostBuffer),
    /// [`JobBuilder::input_with`]: the image of a buffer laid out at base 0.
    Encoded {
        format: DataFormat,
        tiling: Tiling,
        width: u32,
        height: u32,
        bytes: Vec<u8>,
    },
}

impl InputImage {
    /// (format, tiling, width, height).
    fn shape(&self) -> (DataFormat, Tiling, u32, u32) {
        match self {
            InputImage::Texels(b) => (b.format, b.tiling, b.width, b.height),
            InputImage::Encoded {
                format,
                tiling,
                width,
                height,
                ..
            } => (*format, *tiling, *width, *height),
        }
    }
}
