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

/// One note for the test ELF writer.
#[derive(Clone, Debug)]
pub struct RawNote {
    /// Name bytes (`namesz` = its length).
    pub name: Vec<u8>,
    /// `n_type`.
    pub n_type: u32,
    /// Descriptor.
    pub desc: Vec<u8>,
}

impl RawNote {
    /// An "ATI DPP" note of `n_type` with descriptor words.
    pub fn ati(n_type: u32, words: &[u32]) -> Self {
        RawNote {
            name: b"ATI DPP\0".to_vec(),
            n_type,
            desc: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        }
    }
}

/// Every field of a test CTM ELF file (CTM §4.1), valid by default.
#[derive(Clone, Debug)]
pub struct ElfSpec {
    /// `e_ident[0..4]`.
    pub magic: [u8; 4],
    /// `EI_CLASS`.
    pub class: u8,
    /// `EI_DATA`.
    pub data: u8,
    /// `EI_VERSION`.
    pub ident_version: u8,
    /// `EI_OSABI`.
    pub osabi: u8,
    /// `EI_ABIVERSION`.
    pub abi_version: u8,
    /// `e_type`.
    pub e_type: u16,
    /// `e_machine`.
    pub e_machine: u16,
    /// `e_version`.
    pub e_version: u32,
    /// `e_entry`.
    pub e_entry: u32,
    /// `e_flags`.
    pub e_flags: u32,
    /// `.text` contents.
    pub text: Vec<u8>,
    /// How many sections are named `.text` (each with `text`).
    pub text_sections: usize,
    /// `.text` `sh_type`.
    pub text_type: u32,
    /// `.text` `sh_flags`.
    pub text_flags: u32,
    /// Emit the `PT_LOAD` segment over `.text`.
    pub load_segment: bool,
    /// Emit the `PT_NOTE` segment over the notes.
    pub note_segment: bool,
    /// Make the `SHT_NOTE` section start before the `PT_NOTE` segment.
    pub note_section_outside: bool,
    /// The notes, in order.
    pub notes: Vec<RawNote>,
}

impl ElfSpec {
    /// A valid file for `image`, with all seven notes.
    pub fn for_image(image: &ProgramImage) -> Self {
        let n = &image.notes;
        let list = |v: Vec<u32>| v;
        let notes = vec![
            RawNote::ati(1, &image.info.to_words()),
            RawNote::ati(
                2,
                &list(n.inputs.iter().map(|i| u32::from(i.get())).collect()),
            ),
            RawNote::ati(
                3,
                &list(n.outputs.iter().map(|o| u32::from(o.get())).collect()),
            ),
            RawNote::ati(4, &[u32::from(n.conditional_output)]),
            RawNote::ati(
                5,
                &list(n.float_constants.iter().map(|&c| u32::from(c)).collect()),
            ),
            RawNote::ati(6, &list(n.int_constants.iter().map(|c| c.get()).collect())),
            RawNote::ati(7, &[u32::from(n.early_exit)]),
        ];
        ElfSpec {
            magic: *b"\x7fELF",
            class: 1,
            data: 1,
            ident_version: 1,
            osabi: 98,
            abi_version: 1,
            e_type: 2,
            e_machine: 122,
            e_version: 1,
            e_entry: 0,
            e_flags: 1,
            text: image.text().to_vec(),
            text_sections: 1,
            text_type: 1,          // SHT_PROGBITS
            text_flags: 0x2 | 0x4, // SHF_ALLOC | SHF_EXECINSTR
            load_segment: true,
            note_segment: true,
            note_section_outside: false,
            notes,
        }
    }

    /// The file bytes: ehdr, phdrs, .text copies, notes, .shstrtab, shdrs.
    pub fn bytes(&self) -> Vec<u8> {
        let phnum = usize::from(self.load_segment) + usize::from(self.note_segment);
        let mut out = vec![0u8; 52 + 32 * phnum];
        let text_off = out.len();
        for _ in 0..self.text_sections {
            out.extend(&self.text);
        }
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
        let note_off = out.len();
        for note in &self.notes {
            out.extend((note.name.len() as u32).to_le_bytes());
            out.extend((note.desc.len() as u32).to_le_bytes());
            out.extend(note.n_type.to_le_bytes());
            out.extend(&note.name);
            while !out.len().is_multiple_of(4) {
                out.push(0);
            }
            out.extend(&note.desc);
            while !out.len().is_multiple_of(4) {
                out.push(0);
            }
        }
        let note_len = out.len() - note_off;
        let strtab_off = out.len();
        let strtab = b"\0.text\0.note\0.shstrtab\0";
        out.extend(strtab);
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
        let shoff = out.len();
        let section = |name: u32, ty: u32, flags: u32, off: usize, size: usize, align: u32| {
            let mut s = Vec::with_capacity(40);
            for w in [name, ty, flags, 0, off as u32, size as u32, 0, 0, align, 0] {
                s.extend(w.to_le_bytes());
            }
            s
        };
        let mut shdrs = vec![0u8; 40];
        for k in 0..self.text_sections {
            shdrs.extend(section(
                1,
                self.text_type,
                self.text_flags,
                text_off + k * self.text.len(),
                self.text.len(),
                4,
            ));
        }
        let note_sec_off = if self.note_section_outside {
            note_off - 4
        } else {
            note_off
        };
        shdrs.extend(section(7, 7, 0, note_sec_off, note_len, 4));
        shdrs.extend(section(13, 3, 0, strtab_off, strtab.len(), 1));
        out.extend(&shdrs);
        let shnum = 1 + self.text_sections + 2;

        // ELF header.
        let mut h = Vec::with_capacity(52);
        h.extend(self.magic);
        h.extend([
            self.class,
            self.data,
            self.ident_version,
            self.osabi,
            self.abi_version,
        ]);
        h.extend([0u8; 7]);
        h.extend(self.e_type.to_le_bytes());
        h.extend(self.e_machine.to_le_bytes());
        h.extend(self.e_version.to_le_bytes());
        h.extend(self.e_entry.to_le_bytes());
        h.extend(52u32.to_le_bytes()); // e_phoff
        h.extend((shoff as u32).to_le_bytes());
        h.extend(self.e_flags.to_le_bytes());
        h.extend(52u16.to_le_bytes()); // e_ehsize
        h.extend(32u16.to_le_bytes()); // e_phentsize
        h.extend((phnum as u16).to_le_bytes());
        h.extend(40u16.to_le_bytes()); // e_shentsize
        h.extend((shnum as u16).to_le_bytes());
        h.extend(((shnum - 1) as u16).to_le_bytes()); // e_shstrndx
        out[..52].copy_from_slice(&h);

        // Program headers.
        let mut at = 52;
        let mut phdr = |ty: u32, off: usize, size: usize, flags: u32, align: u32| {
            let mut p = Vec::with_capacity(32);
            for w in [ty, off as u32, 0, 0, size as u32, size as u32, flags, align] {
                p.extend(w.to_le_bytes());
            }
            out[at..at + 32].copy_from_slice(&p);
            at += 32;
        };
        if self.load_segment {
            phdr(1, text_off, self.text.len() * self.text_sections, 5, 4);
        }
        if self.note_segment {
            phdr(4, note_off, note_len, 4, 4);
        }
        out
    }
}
