//! Shared test support for the CTM device tests: fake processor arrays, a
//! test-only CTM ELF writer with knobs for every field, and program helpers.

#![allow(dead_code)]

use ctm_backend_x1k::isa::program_regs::{
    FcMode, FgDepthSrcReg, OutputMode, UsCodeAddrReg, UsConfigReg, UsFcCtrlReg, UsPixsizeReg,
};
use ctm_backend_x1k::isa::{SlotIndex, TempReg};
use ctm_sim::x1k::device::array::{ArrayCycles, ArrayError, ArrayRun, ProcessorArray};
use ctm_sim::x1k::device::program::{ProgramImage, ProgramInfo, ProgramNotes};
use ctm_sim::x1k::interface::{DppMemory, ElementResult, Program, TargetWrite};

/// The hardware-verified two-slot program of `x1k-encoding.md` §9
/// (`tex ld` then `out`).
pub const WORKED_EXAMPLE: [[u32; 6]; 2] = [
    [0x0000_7807, 0x0240_0000, 0xE400_F400, 0, 0, 0],
    [
        0x0007_8005,
        0x0802_0000,
        0x0802_0000,
        0x0044_0220,
        0x0060_C003,
        0x0000_0005,
    ],
];

/// `.text` bytes of `slots` copies of the worked example (alternating slots).
pub fn text_bytes(slots: usize) -> Vec<u8> {
    (0..slots)
        .flat_map(|s| WORKED_EXAMPLE[s % 2])
        .flat_map(u32::to_le_bytes)
        .collect()
}

/// A program-information structure for `instr_cnt` slots.
pub fn info(instr_cnt: u32) -> ProgramInfo {
    ProgramInfo {
        fg_depth_src: FgDepthSrcReg::default(),
        us_config: UsConfigReg::default(),
        us_pixsize: UsPixsizeReg {
            max_temp: TempReg::new(1).unwrap(),
        },
        us_fc_ctrl: UsFcCtrlReg {
            mode: FcMode::Partial,
        },
        us_code_addr: UsCodeAddrReg {
            start: SlotIndex::new(0).unwrap(),
            end: SlotIndex::new(instr_cnt - 1).unwrap(),
        },
        instr_cnt,
    }
}

/// A two-slot image with the given notes.
pub fn image(notes: ProgramNotes) -> ProgramImage {
    ProgramImage::new(text_bytes(2), info(2), notes).unwrap()
}

/// A two-slot image with the given info tweaks.
pub fn image_with(f: impl FnOnce(&mut ProgramInfo), notes: ProgramNotes) -> ProgramImage {
    let mut i = info(2);
    f(&mut i);
    ProgramImage::new(text_bytes(2), i, notes).unwrap()
}

/// An uncached (UMRT) program image.
pub fn umrt_image() -> ProgramImage {
    image_with(
        |i| i.us_config.output_mode = OutputMode::Uncached,
        ProgramNotes::default(),
    )
}

/// The cycles fake arrays report: 7 per element plus 3 of latency; active
/// 7 per element.
pub fn fake_cycles(elements: usize) -> ArrayCycles {
    ArrayCycles {
        total_cycles: 7 * elements as u64 + 3,
        active_cycles: 7 * elements as u64,
    }
}

type ElementFn = dyn FnMut(&Program, u32, u32, &dyn DppMemory) -> ElementResult;

/// A fake array running a closure per element; records what it was given.
pub struct FnArray {
    f: Box<ElementFn>,
    /// The program of each run.
    pub programs: Vec<Program>,
    /// The pairs of each run.
    pub pairs: Vec<Vec<(u32, u32)>>,
}

impl FnArray {
    /// An array computing each element with `f`.
    pub fn new(
        f: impl FnMut(&Program, u32, u32, &dyn DppMemory) -> ElementResult + 'static,
    ) -> Self {
        FnArray {
            f: Box::new(f),
            programs: Vec::new(),
            pairs: Vec::new(),
        }
    }
}

impl ProcessorArray for FnArray {
    fn run(
        &mut self,
        program: &Program,
        pairs: &[(u32, u32)],
        memory: &dyn DppMemory,
    ) -> Result<ArrayRun, ArrayError> {
        self.programs.push(program.clone());
        self.pairs.push(pairs.to_vec());
        let results = pairs
            .iter()
            .map(|&(i, j)| (self.f)(program, i, j, memory))
            .collect();
        Ok(ArrayRun {
            results,
            cycles: fake_cycles(pairs.len()),
        })
    }
}

/// A result writing `value` to target 0 with all channels.
pub fn target0(i: u32, j: u32, value: [f32; 4]) -> ElementResult {
    ElementResult {
        i,
        j,
        targets: [Some(TargetWrite { value, mask: 0xF }), None, None, None],
        ..Default::default()
    }
}

/// The value [`index_array`] writes for (i, j).
pub fn index_value(i: u32, j: u32) -> [f32; 4] {
    [i as f32, j as f32, (i * 1000 + j) as f32, 0.5]
}

/// An array writing [`index_value`] to target 0.
pub fn index_array() -> FnArray {
    FnArray::new(|_, i, j, _| target0(i, j, index_value(i, j)))
}

/// An array copying input 0 at (i, j) (clamped) to target 0.
pub fn copy_array() -> FnArray {
    FnArray::new(|_, i, j, mem| {
        let value = match mem.input_size(0) {
            Some((w, h)) => mem.read_input(0, i.min(w - 1), j.min(h - 1)),
            None => [0.0; 4],
        };
        target0(i, j, value)
    })
}

/// The CTM executable of `image`, written by the backend's ELF writer (the
/// one definition of the layout), with all seven ATI notes and no `"ctm"`
/// note.
pub fn elf_bytes(image: &ProgramImage) -> Vec<u8> {
    use ctm_backend_x1k::elf::{AtiNotes, ElfImage, ProgInfo, proginfo_word as w, write_image};
    let words = image.info.to_words();
    let n = &image.notes;
    let elf = ElfImage {
        insts: ctm_backend_x1k::isa::decode_program_bytes(image.text()).expect("test text decodes"),
        proginfo: ProgInfo {
            fg_depth_src: words[w::FG_DEPTH_SRC],
            us_config: words[w::US_CONFIG],
            us_pixsize: words[w::US_PIXSIZE],
            us_fc_ctrl: words[w::US_FC_CTRL],
            us_code_addr: words[w::US_CODE_ADDR],
            us_code_range: words[w::US_CODE_RANGE],
            instr_cnt: words[w::INSTR_CNT],
        },
        notes: AtiNotes {
            inputs: n.inputs.iter().map(|i| u32::from(i.get())).collect(),
            outputs: n.outputs.iter().map(|o| u32::from(o.get())).collect(),
            conditional_output: n.conditional_output,
            float32_constants: n.float_constants.iter().map(|&c| u32::from(c)).collect(),
            int32_constants: n.int_constants.iter().map(|c| c.get()).collect(),
            early_exit: n.early_exit,
        },
        bindings: None,
    };
    write_image(&elf)
}
