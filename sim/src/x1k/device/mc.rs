//! The Memory Controller Unit (CTM §2.1.4): per-client parameters,
//! address translation, format conversion, the caches, and the
//! [`DppMemory`] view the processors read through.
//!
//! Rectangles (`docs/ctm-device.md` §4): an input, output or conditional
//! buffer is `pitch × height` elements (the guide gives no separate width).
//! Input reads clamp (x, y) into it — the array clamps, and the superfine
//! neighbours (x+1, y+1) are clamped here; conditional-buffer reads clamp
//! too. Output, UMRT and conditional-buffer writes outside it are dropped
//! ("clipped") and counted.

use std::sync::Mutex;

use super::cache::{AfterFlush, Cache, CacheStats};
use super::command::{ConstKind, FlushTarget, InvalidateTarget};
use super::cond::{CondTest, CondWrite};
use super::format::{DataFormat, Surface};
use super::memory::{GpuMemory, MemoryError};
use super::params::{ChannelMask, InputId, OutputId};
use super::tiling::{linear_address, tiled_address};
use crate::x1k::interface::DppMemory;

/// A memory client of the MC (CTM §2.1.4 "Input Parameters" …
/// "Instruction Parameters").
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Client {
    /// Instructions (`set_inst_fmt`).
    Instructions,
    /// Float constants (`set_constf_fmt`).
    FloatConstants,
    /// Integer constants (`set_consti_fmt`).
    IntConstants,
    /// Boolean constants (`set_constb_fmt`).
    BoolConstants,
    /// A program input (`set_inp_fmt`).
    Input(InputId),
    /// A program output (`set_out_fmt`).
    Output(OutputId),
    /// The conditional buffer (`set_cond_out_fmt`).
    ConditionalOutput,
}

impl Client {
    /// The client a `set_const*_fmt` configures.
    pub const fn constants(kind: ConstKind) -> Self {
        match kind {
            ConstKind::Float => Client::FloatConstants,
            ConstKind::Int => Client::IntConstants,
            ConstKind::Bool => Client::BoolConstants,
        }
    }
}

/// A failed MC access.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum McError {
    /// The client's parameters were never set.
    #[error("{client:?} has no base/format (its set_*_fmt command was not issued)")]
    NotConfigured {
        /// The client.
        client: Client,
    },
    /// The translated address is unmapped or out of range.
    #[error("{client:?} ({x}, {y}): {source}")]
    Memory {
        /// The client.
        client: Client,
        /// Element column.
        x: u32,
        /// Element row.
        y: u32,
        /// Why.
        source: MemoryError,
    },
    /// A 2x2 superfine read of a multi-channel format ("its behavior is
    /// undefined if the input memory format has more than one channel",
    /// CTM §2.1.4).
    #[error("input {} uses the 2x2 superfine tiling with multi-channel format {format}", input.get())]
    SuperfineMultiChannel {
        /// The input.
        input: InputId,
        /// Its format.
        format: DataFormat,
    },
}

/// The seven caches (CTM §2.1.4).
#[derive(Clone, Debug, Default)]
pub struct Caches {
    /// Instruction read cache.
    pub instruction: Cache,
    /// Float constant read cache.
    pub float_constant: Cache,
    /// Integer constant read cache.
    pub int_constant: Cache,
    /// Boolean constant read cache.
    pub bool_constant: Cache,
    /// Input read cache (shared by all 16 inputs).
    pub input: Cache,
    /// Output write cache (shared by all 4 outputs).
    pub output: Cache,
    /// Conditional output cache (read and written by the CO).
    pub conditional_output: Cache,
}

impl Caches {
    /// Statistics of each cache, named.
    pub fn stats(&self) -> [(&'static str, CacheStats); 7] {
        [
            ("instruction", self.instruction.stats()),
            ("float_constant", self.float_constant.stats()),
            ("int_constant", self.int_constant.stats()),
            ("bool_constant", self.bool_constant.stats()),
            ("input", self.input.stats()),
            ("output", self.output.stats()),
            ("conditional_output", self.conditional_output.stats()),
        ]
    }
}

/// What a write request became.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum WriteOutcome {
    /// Written into the write cache (possibly with no channel enabled).
    Written,
    /// Outside the client's rectangle: dropped.
    Clipped,
}

/// The byte address of element (x, y) of `surface` (Tables 1 and 2).
pub fn element_address(surface: &Surface, x: u32, y: u32) -> u32 {
    let f = surface.format;
    let bpe = f.format.bytes_per_element();
    let address = if f.tiling.is_tiled() {
        tiled_address(surface.base, f.pitch(), bpe, x, y)
    } else {
        linear_address(surface.base, f.pitch(), bpe, x, y)
    };
    // Every data format has a table row, so translation is total.
    address.unwrap_or(surface.base.get())
}

/// Bytes from the base that elements `0..width × 0..height` can touch
/// (indices are 12-bit, so at most 4096 × 4096 count); for tiled memory,
/// whole 2 KiB tiles.
pub fn extent_bytes(surface: &Surface, width: u32, height: u32) -> u64 {
    if width == 0 || height == 0 {
        return 0;
    }
    let (x, y) = (width.min(4096) - 1, height.min(4096) - 1);
    let at_zero = Surface {
        base: Default::default(),
        ..*surface
    };
    // With base 0 the farthest element's address cannot wrap (< 2^30).
    let last = u64::from(element_address(&at_zero, x, y));
    if surface.format.tiling.is_tiled() {
        (last | 0x7FF) + 1 // the whole 2 KiB tile
    } else {
        last + u64::from(surface.format.format.bytes_per_element())
    }
}

/// The MC's state: client parameters, write masks, caches.
#[derive(Clone, Debug, Default)]
pub struct MemoryController {
    instructions: Option<Surface>,
    float_constants: Option<Surface>,
    int_constants: Option<Surface>,
    bool_constants: Option<Surface>,
    inputs: [Option<Surface>; InputId::COUNT],
    outputs: [Option<Surface>; OutputId::COUNT],
    conditional_output: Option<Surface>,
    /// `set_out_mask` (reset: all channels).
    pub out_mask: ChannelMask,
    /// `set_cond_out_mask` (reset: disabled).
    pub cond_write: CondWrite,
    caches: Caches,
}

impl MemoryController {
    /// The parameters of `client`, if set.
    pub fn surface(&self, client: Client) -> Option<Surface> {
        match client {
            Client::Instructions => self.instructions,
            Client::FloatConstants => self.float_constants,
            Client::IntConstants => self.int_constants,
            Client::BoolConstants => self.bool_constants,
            Client::Input(i) => self.inputs[usize::from(i.get())],
            Client::Output(o) => self.outputs[usize::from(o.get())],
            Client::ConditionalOutput => self.conditional_output,
        }
    }

    /// Set the parameters of `client` (the `set_*_fmt` commands).
    pub fn set_surface(&mut self, client: Client, surface: Surface) {
        let slot = match client {
            Client::Instructions => &mut self.instructions,
            Client::FloatConstants => &mut self.float_constants,
            Client::IntConstants => &mut self.int_constants,
            Client::BoolConstants => &mut self.bool_constants,
            Client::Input(i) => &mut self.inputs[usize::from(i.get())],
            Client::Output(o) => &mut self.outputs[usize::from(o.get())],
            Client::ConditionalOutput => &mut self.conditional_output,
        };
        *slot = Some(surface);
    }

    /// The caches.
    pub fn caches(&self) -> &Caches {
        &self.caches
    }

    fn configured(&self, client: Client) -> Result<Surface, McError> {
        self.surface(client)
            .ok_or(McError::NotConfigured { client })
    }

    /// `inv_*_cache`.
    pub fn invalidate(&mut self, target: InvalidateTarget) {
        let cache = match target {
            InvalidateTarget::Instruction => &mut self.caches.instruction,
            InvalidateTarget::FloatConstant => &mut self.caches.float_constant,
            InvalidateTarget::IntConstant => &mut self.caches.int_constant,
            InvalidateTarget::BoolConstant => &mut self.caches.bool_constant,
            InvalidateTarget::ConditionalOutput => &mut self.caches.conditional_output,
            InvalidateTarget::Input => &mut self.caches.input,
        };
        cache.invalidate();
    }

    /// `flush_*_cache`.
    ///
    /// # Errors
    /// [`MemoryError`] only if the memory map changed since the writes.
    pub fn flush(
        &mut self,
        target: FlushTarget,
        memory: &mut GpuMemory,
    ) -> Result<(), MemoryError> {
        match target {
            FlushTarget::Output => self.caches.output.flush(memory, AfterFlush::Release),
            FlushTarget::ConditionalOutput => self
                .caches
                .conditional_output
                .flush(memory, AfterFlush::Keep),
        }
    }

    /// Fill the read caches with everything a run can read: `slots`
    /// instruction slots, the constant ranges (256 float, 32 int, 32 bool
    /// elements), every bound input, and the conditional buffer if `test`
    /// reads it (cache model, `super::cache` doc).
    pub(crate) fn fill_for_run(&mut self, memory: &GpuMemory, slots: u32, test: CondTest) {
        if let Some(s) = self.instructions {
            let len = u64::from(slots) * ctm_backend_x1k::isa::encode::BYTES_PER_SLOT as u64;
            self.caches
                .instruction
                .fill_range(memory, s.base.get(), len);
        }
        let constants = [
            (self.float_constants, 256, &mut self.caches.float_constant),
            (self.int_constants, 32, &mut self.caches.int_constant),
            (self.bool_constants, 32, &mut self.caches.bool_constant),
        ];
        for (surface, count, cache) in constants {
            if let Some(s) = surface {
                cache.fill_range(memory, s.base.get(), extent_bytes(&s, count, 1));
            }
        }
        for s in self.inputs.iter().flatten() {
            if let Some((w, h)) = s.size() {
                self.caches
                    .input
                    .fill_range(memory, s.base.get(), extent_bytes(s, w, h));
            }
        }
        if test.reads_buffer()
            && let Some(s) = self.conditional_output
            && let Some((w, h)) = s.size()
        {
            self.caches
                .conditional_output
                .fill_range(memory, s.base.get(), extent_bytes(&s, w, h));
        }
    }

    /// The `.text` bytes of `slots` slots from the instruction base, through
    /// the instruction cache. Slot s is at base + 24·s: instructions have no
    /// data format of their size, so the format word's pitch, tiling and
    /// format do not enter (`docs/ctm-device.md` §7).
    ///
    /// # Errors
    /// [`McError`] if instructions are not configured or unmapped.
    pub fn read_instructions(&self, memory: &GpuMemory, slots: u32) -> Result<Vec<u8>, McError> {
        let client = Client::Instructions;
        let s = self.configured(client)?;
        let mut bytes = vec![0u8; slots as usize * ctm_backend_x1k::isa::encode::BYTES_PER_SLOT];
        self.caches
            .instruction
            .read(memory, s.base.get(), &mut bytes)
            .map_err(|source| McError::Memory {
                client,
                x: 0,
                y: 0,
                source,
            })?;
        Ok(bytes)
    }

    fn read_element(
        cache: &Cache,
        memory: &GpuMemory,
        client: Client,
        surface: &Surface,
        x: u32,
        y: u32,
    ) -> Result<[u8; 16], McError> {
        let mut bytes = [0u8; 16];
        let n = surface.format.format.bytes_per_element() as usize;
        cache
            .read(memory, element_address(surface, x, y), &mut bytes[..n])
            .map_err(|source| McError::Memory {
                client,
                x,
                y,
                source,
            })?;
        Ok(bytes)
    }

    /// Read input texel (x, y) (already clamped by the array), with the 2x2
    /// superfine tiling if the input's tiling has it.
    fn read_input(
        &self,
        memory: &GpuMemory,
        input: InputId,
        x: u32,
        y: u32,
    ) -> Result<[f32; 4], McError> {
        let client = Client::Input(input);
        // Unbound or empty inputs read zeros (interface.rs).
        let Some(s) = self.surface(client) else {
            return Ok([0.0; 4]);
        };
        let Some((w, h)) = s.size() else {
            return Ok([0.0; 4]);
        };
        let cache = &self.caches.input;
        let format = s.format.format;
        if !s.format.tiling.is_superfine() {
            let bytes = Self::read_element(cache, memory, client, &s, x, y)?;
            return Ok(format.decode(&bytes));
        }
        if format.channels() != 1 {
            return Err(McError::SuperfineMultiChannel { input, format });
        }
        // CTM §2.1.4: (x+1, y), (x, y+1), (x+1, y+1), (x, y) into c0..c3,
        // each neighbour clamped into the input's rectangle.
        let (x1, y1) = (
            x.saturating_add(1).min(w - 1),
            y.saturating_add(1).min(h - 1),
        );
        let mut out = [0.0f32; 4];
        for (c, (px, py)) in [(x1, y), (x, y1), (x1, y1), (x, y)].into_iter().enumerate() {
            out[c] = format.decode(&Self::read_element(cache, memory, client, &s, px, py)?)[0];
        }
        Ok(out)
    }

    fn read_constant(
        &self,
        memory: &GpuMemory,
        kind: ConstKind,
        index: u32,
    ) -> Result<(DataFormat, [u8; 16]), McError> {
        let client = Client::constants(kind);
        let s = self.configured(client)?;
        let cache = match kind {
            ConstKind::Float => &self.caches.float_constant,
            ConstKind::Int => &self.caches.int_constant,
            ConstKind::Bool => &self.caches.bool_constant,
        };
        // CTM §2.1.1: "The index pair for each of the constants is (c, 0)".
        let bytes = Self::read_element(cache, memory, client, &s, index, 0)?;
        Ok((s.format.format, bytes))
    }

    /// Write `value`'s channels `mask & set_out_mask` to output element (x, y).
    ///
    /// # Errors
    /// [`McError`] if the output is not configured or the address is unmapped.
    pub fn write_output(
        &mut self,
        memory: &GpuMemory,
        output: OutputId,
        x: u32,
        y: u32,
        value: [f32; 4],
        mask: u8,
    ) -> Result<WriteOutcome, McError> {
        let client = Client::Output(output);
        let s = self.configured(client)?;
        let mask = mask & self.out_mask.bits();
        Self::write_element(
            &mut self.caches.output,
            memory,
            client,
            &s,
            x,
            y,
            value,
            mask,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn write_element(
        cache: &mut Cache,
        memory: &GpuMemory,
        client: Client,
        s: &Surface,
        x: u32,
        y: u32,
        value: [f32; 4],
        mask: u8,
    ) -> Result<WriteOutcome, McError> {
        match s.size() {
            Some((w, h)) if x < w && y < h => {}
            _ => return Ok(WriteOutcome::Clipped),
        }
        let address = element_address(s, x, y);
        // Each run of written bytes in one cache write (`encode`'s runs,
        // merged where they touch; the bytes are the same).
        let (bytes, mut written) = s.format.format.encode_bytes(value, mask);
        while written != 0 {
            let start = written.trailing_zeros() as usize;
            let len = (written >> start).trailing_ones() as usize;
            cache
                .write(
                    memory,
                    address.wrapping_add(start as u32),
                    &bytes[start..start + len],
                )
                .map_err(|source| McError::Memory {
                    client,
                    x,
                    y,
                    source,
                })?;
            written &= !(((1u32 << len) - 1) << start) as u16;
        }
        Ok(WriteOutcome::Written)
    }

    /// The conditional buffer's value `b` at (i, j): channel 0, with (i, j)
    /// clamped into the buffer's rectangle.
    ///
    /// # Errors
    /// [`McError`] if the buffer is not configured or unmapped.
    pub fn read_cond(&self, memory: &GpuMemory, i: u32, j: u32) -> Result<f32, McError> {
        let client = Client::ConditionalOutput;
        let s = self.configured(client)?;
        let (w, h) = s.size().unwrap_or((1, 1));
        let (x, y) = (i.min(w - 1), j.min(h - 1));
        let bytes = Self::read_element(&self.caches.conditional_output, memory, client, &s, x, y)?;
        Ok(s.format.format.decode(&bytes)[0])
    }

    /// Write `v` to channel 0 of the conditional buffer at (i, j).
    ///
    /// # Errors
    /// [`McError`] if the buffer is not configured or unmapped.
    pub fn write_cond(
        &mut self,
        memory: &GpuMemory,
        i: u32,
        j: u32,
        v: f32,
    ) -> Result<WriteOutcome, McError> {
        let client = Client::ConditionalOutput;
        let s = self.configured(client)?;
        Self::write_element(
            &mut self.caches.conditional_output,
            memory,
            client,
            &s,
            i,
            j,
            [v, 0.0, 0.0, 0.0],
            1,
        )
    }

    /// The write side of the MC for the duration of a run: a controller
    /// holding this one's output and conditional parameters and its output
    /// and conditional caches (moved out; [`Self::restore_writer`] moves
    /// them back), so results can be applied while the processors read
    /// through [`Self::view`] of this one. The read side never touches the
    /// two write caches (inputs and constants have their own caches).
    pub(crate) fn take_writer(&mut self) -> MemoryController {
        MemoryController {
            outputs: self.outputs,
            conditional_output: self.conditional_output,
            out_mask: self.out_mask,
            cond_write: self.cond_write,
            caches: Caches {
                output: std::mem::take(&mut self.caches.output),
                conditional_output: std::mem::take(&mut self.caches.conditional_output),
                ..Caches::default()
            },
            ..MemoryController::default()
        }
    }

    /// Take back the write caches of a [`Self::take_writer`] controller.
    pub(crate) fn restore_writer(&mut self, writer: MemoryController) {
        self.caches.output = writer.caches.output;
        self.caches.conditional_output = writer.caches.conditional_output;
    }

    /// The processors' view of memory during a run.
    pub(crate) fn view<'a>(&'a self, memory: &'a GpuMemory) -> McView<'a> {
        McView {
            mc: self,
            memory,
            fault: Mutex::new(None),
        }
    }
}

/// A fault met while the array was reading, keyed for a deterministic pick.
#[derive(Clone, Copy, Debug)]
struct Fault {
    key: (Client, u32, u32),
    error: McError,
}

/// [`DppMemory`] over the MC's read caches. Reads cannot fail through the
/// trait, so a fault reads zeros and is recorded; `start_program` then
/// fails with the fault of the smallest (client, x, y), whatever order the
/// processors ran in.
pub(crate) struct McView<'a> {
    mc: &'a MemoryController,
    memory: &'a GpuMemory,
    fault: Mutex<Option<Fault>>,
}

impl McView<'_> {
    fn record(&self, key: (Client, u32, u32), error: McError) {
        // A poisoned lock only means another reader panicked; keep recording.
        let mut slot = self.fault.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().is_none_or(|f| key < f.key) {
            *slot = Some(Fault { key, error });
        }
    }

    /// The first fault, if any.
    pub(crate) fn into_fault(self) -> Option<McError> {
        self.fault
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .map(|f| f.error)
    }

    fn constant(&self, kind: ConstKind, index: u32) -> Option<(DataFormat, [u8; 16])> {
        match self.mc.read_constant(self.memory, kind, index) {
            Ok(v) => Some(v),
            Err(e) => {
                self.record((Client::constants(kind), index, 0), e);
                None
            }
        }
    }
}

impl DppMemory for McView<'_> {
    fn input_size(&self, input: u8) -> Option<(u32, u32)> {
        let id = InputId::new(input)?;
        self.mc.surface(Client::Input(id))?.size()
    }

    fn read_input(&self, input: u8, x: u32, y: u32) -> [f32; 4] {
        let Some(id) = InputId::new(input) else {
            return [0.0; 4];
        };
        self.mc
            .read_input(self.memory, id, x, y)
            .unwrap_or_else(|e| {
                self.record((Client::Input(id), x, y), e);
                [0.0; 4]
            })
    }

    fn texel_bytes(&self, input: u8) -> u32 {
        InputId::new(input)
            .and_then(|id| self.mc.surface(Client::Input(id)))
            .map_or(16, |s| s.format.format.bytes_per_element())
    }

    fn float_constant(&self, index: u8) -> [f32; 4] {
        self.constant(ConstKind::Float, u32::from(index))
            .map_or([0.0; 4], |(f, b)| f.decode(&b))
    }

    fn int_constant(&self, index: u8) -> u32 {
        self.constant(ConstKind::Int, u32::from(index))
            .map_or(0, |(f, b)| f.raw_word(&b))
    }

    fn bool_constant(&self, index: u8) -> bool {
        self.constant(ConstKind::Bool, u32::from(index))
            .is_some_and(|(f, b)| f.raw_word(&b) != 0)
    }
}
