//! The boundary between the CTM device model and the processor array.
//!
//! The device's `start_program` command hands the array a decoded program,
//! the domain, the set of index pairs to run (conditional execution happens
//! at the PE, before scheduling) and a [`DppMemory`] through which the
//! processors read inputs and constants. The array returns one
//! [`ElementResult`] per index pair run (as one list, or in slices while it
//! runs); the device applies the conditional-output test and writes the
//! outputs through the memory controller. [`Elements`] names the pairs: a
//! list, or a whole rectangle without one. Keeping memory formats on the device side and instruction
//! semantics on the array side lets each be tested alone.

use ctm_backend_x1k::isa::Inst;
use smallvec::SmallVec;

/// Everything a program reads outside its registers.
///
/// Implemented by the device (through the memory controller's formats and
/// tiling) and by plain tables for bare runs (`ctmc run --raw`).
pub trait DppMemory: Sync {
    /// The size in texels (width, height) of input `input` (0..16), used to
    /// clamp lookups to the edge and to scale normalised coordinates;
    /// `None` if the input is not bound (lookups then read zeros).
    fn input_size(&self, input: u8) -> Option<(u32, u32)>;

    /// Texel `(x, y)` of input `input`, already clamped into its size,
    /// converted to four f32 channels by the input's data format (missing
    /// channels read as 0, alpha as 1 for formats without alpha — see
    /// `docs/sim-x1k.md`).
    fn read_input(&self, input: u8, x: u32, y: u32) -> [f32; 4];

    /// Texel `(x, y)` of input `input` read by an uncached lookup
    /// (`TEX_INST_LOOKUP_UNCACHED`, CTM §3.4.1), already clamped. Uncached
    /// reads bypass the input cache, so a device whose UMRT writes alias an
    /// input may return data written earlier in the same run; the default
    /// reads the input as it was at the start.
    fn read_uncached(&self, input: u8, x: u32, y: u32) -> [f32; 4] {
        self.read_input(input, x, y)
    }

    /// Bytes one texel of input `input` occupies in memory (its data
    /// format's element size), for the memory-traffic statistics. The
    /// default, for inputs without a format (bare runs), is 16: four f32
    /// channels.
    fn texel_bytes(&self, input: u8) -> u32 {
        let _ = input;
        16
    }

    /// Float constant `index` (0..256).
    fn float_constant(&self, index: u8) -> [f32; 4];

    /// Integer constant `index` (0..32), packed as `US_FC_INT_CONST`:
    /// iteration count in bits 7:0, initial aL in 15:8, aL step in 23:16.
    fn int_constant(&self, index: u8) -> u32;

    /// Boolean constant `index` (0..32).
    fn bool_constant(&self, index: u8) -> bool;
}

/// A decoded program with the program-level register values of its
/// program-information note.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The instructions, slot 0 first.
    pub insts: Vec<Inst>,
    /// `US_CONFIG`: bit 0 = uncached (UMRT) output writes.
    pub us_config: u32,
    /// `US_PIXSIZE`: the highest temporary register the program uses.
    pub us_pixsize: u32,
    /// `US_FC_CTRL`: bit 31 = full flow-control mode.
    pub us_fc_ctrl: u32,
    /// `US_CODE_ADDR`: start slot (bits 15:0) and end slot (bits 31:16).
    pub us_code_addr: u32,
}

/// One render-target write of an element (cached output mode).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetWrite {
    /// The last value written to each channel.
    pub value: [f32; 4],
    /// Which channels were written (bit 0 = R .. bit 3 = A).
    pub mask: u8,
}

/// One uncached (UMRT) write.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UmrtWrite {
    /// The RGB `TARGET` code of the writing instruction.
    pub target: u8,
    /// Column (the G channel of the written value).
    pub x: f32,
    /// Row (the B channel).
    pub y: f32,
    /// The value (the R channel).
    pub value: f32,
}

/// What one element (index pair) produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ElementResult {
    /// Column i.
    pub i: u32,
    /// Row j.
    pub j: u32,
    /// The element was killed (TEX KILL): its target writes do not happen.
    pub killed: bool,
    /// Render targets A-D (cached mode), written at program end.
    pub targets: [Option<TargetWrite>; 4],
    /// The conditional value written by `W_OMASK`, if any.
    pub conditional_value: Option<f32>,
    /// Uncached writes, in program order.
    pub umrt: SmallVec<[UmrtWrite; 2]>,
}

/// The index pairs a run covers, in the order they run: an explicit list,
/// or every pair of a rectangle in row-major order, which needs no memory
/// per element (a whole domain).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elements<'a> {
    /// These pairs, in this order.
    List(&'a [(u32, u32)]),
    /// Columns `i0 .. i0 + width` of rows `j0 .. j0 + height`, row by row.
    Rect {
        /// First column.
        i0: u32,
        /// First row.
        j0: u32,
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
    },
}

impl Elements<'_> {
    /// The number of pairs.
    pub fn len(&self) -> usize {
        match *self {
            Elements::List(l) => l.len(),
            Elements::Rect { width, height, .. } => width as usize * height as usize,
        }
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pair `k` (`None` past the end).
    pub fn get(&self, k: usize) -> Option<(u32, u32)> {
        match *self {
            Elements::List(l) => l.get(k).copied(),
            Elements::Rect { i0, j0, width, .. } => {
                // k < width × height, so width > 0.
                let w = width as usize;
                (k < self.len()).then(|| (i0 + (k % w) as u32, j0 + (k / w) as u32))
            }
        }
    }

    /// Pairs `start .. end` (clamped to the length), into `out` (cleared
    /// first) unless they are a slice of a list, which is returned as is.
    pub fn slice<'b>(
        &'b self,
        start: usize,
        end: usize,
        out: &'b mut Vec<(u32, u32)>,
    ) -> &'b [(u32, u32)] {
        let end = end.min(self.len());
        let start = start.min(end);
        match *self {
            Elements::List(l) => &l[start..end],
            Elements::Rect { .. } => {
                out.clear();
                out.extend((start..end).filter_map(|k| self.get(k)));
                out
            }
        }
    }

    /// Every pair, as a list.
    pub fn to_vec(&self) -> Vec<(u32, u32)> {
        match *self {
            Elements::List(l) => l.to_vec(),
            Elements::Rect { .. } => (0..self.len()).filter_map(|k| self.get(k)).collect(),
        }
    }
}
