//! The listings of `ctmc disasm` (`shared/spec/language.md` §9): an ELF's
//! header summary (program registers, flow-control mode, notes, bindings)
//! as `#` comment lines, then the instructions exactly as `--emit asm`
//! prints them (`isa::format_program`). Because the summary is comments,
//! `isa::parse_program` reads a listing back into the instructions.

use std::fmt::Write as _;

use crate::abi::{Bindings, IntSource};
use crate::isa::asm::disassemble_words;
use crate::isa::decode::bytes_to_words;
use crate::isa::encode::BYTES_PER_SLOT;
use crate::isa::program_regs::{
    FcMode, MultiplyMode, OutputMode, ProgramRegister, UsConfigReg, UsFcCtrlReg, UsPixsizeReg,
};
use crate::isa::{ProgramDecodeError, decode_program_bytes, format_program};

use super::{ElfError, ElfImage, read_image};

/// The full listing of an ELF file.
///
/// # Errors
/// What [`read_image`] rejects.
pub fn listing_elf(bytes: &[u8]) -> Result<String, ElfError> {
    read_image(bytes).map(|image| listing_image(&image))
}

/// The listing of raw `.bin` instruction words (24 bytes per slot,
/// little-endian). A slot that does not decode is printed as a `#` comment
/// naming its fields and the decode error, so the rest stays readable.
///
/// # Errors
/// [`ProgramDecodeError::PartialSlot`] if the length is not a multiple of
/// 24 bytes.
pub fn listing_bin(bytes: &[u8]) -> Result<String, ProgramDecodeError> {
    if !bytes.len().is_multiple_of(BYTES_PER_SLOT) {
        return Err(ProgramDecodeError::PartialSlot {
            len: bytes.len(),
            unit: "bytes",
            per_slot: BYTES_PER_SLOT,
        });
    }
    Ok(match decode_program_bytes(bytes) {
        Ok(insts) => format_program(&insts),
        Err(_) => disassemble_words(&bytes_to_words(bytes)),
    })
}

/// The listing of a read image: summary comments, then the program.
pub fn listing_image(image: &ElfImage) -> String {
    let mut out = String::new();
    summary(&mut out, image);
    out.push_str(&format_program(&image.insts));
    out
}

fn summary(out: &mut String, image: &ElfImage) {
    let info = &image.proginfo;
    let name = image
        .bindings
        .as_ref()
        .map_or("(no ctm bindings note)".to_string(), |b| {
            format!("kernel {:?}", b.kernel)
        });
    let _ = writeln!(out, "# ctm x1k executable: {name}");
    let pixsize = UsPixsizeReg::decode(info.us_pixsize)
        .map_or("?".to_string(), |r| format!("r0..r{}", r.max_temp.get()));
    let config = UsConfigReg::decode(info.us_config).map_or("?", |c| {
        match (c.output_mode, c.multiply_mode) {
            (OutputMode::Cached, MultiplyMode::Ieee) => "cached outputs, IEEE multiply",
            (OutputMode::Cached, _) => "cached outputs, 0*x=0 multiply",
            (OutputMode::Uncached, MultiplyMode::Ieee) => "uncached (UMRT) outputs, IEEE multiply",
            (OutputMode::Uncached, _) => "uncached (UMRT) outputs, 0*x=0 multiply",
        }
    });
    let mode = UsFcCtrlReg::decode(info.us_fc_ctrl).map_or("?", |r| match r.mode {
        FcMode::Partial => "partial",
        FcMode::Full => "full",
    });
    let _ = writeln!(
        out,
        "# {} slots; US_PIXSIZE {} (temporaries {pixsize}); US_CONFIG {:#x} ({config}); \
         US_FC_CTRL {:#010x} ({mode} flow control); FG_DEPTH_SRC {}",
        info.instr_cnt, info.us_pixsize, info.us_config, info.us_fc_ctrl, info.fg_depth_src
    );
    let n = &image.notes;
    let _ = writeln!(
        out,
        "# notes: inputs {:?}; outputs {:?}; conditional output {}; float32 constants {:?}; \
         int32 constants {:?}; early exit {}",
        n.inputs,
        n.outputs,
        u8::from(n.conditional_output),
        n.float32_constants,
        n.int32_constants,
        u8::from(n.early_exit)
    );
    if let Some(b) = &image.bindings {
        bindings(out, b);
    }
}

fn int_source(s: &IntSource) -> String {
    match s {
        IntSource::Const(n) => n.to_string(),
        IntSource::Uniform(name) => name.clone(),
        IntSource::UniformRange(start, end) => {
            format!("{} - {}", int_source(end), int_source(start))
        }
    }
}

fn bindings(out: &mut String, b: &Bindings) {
    for i in &b.inputs {
        let _ = writeln!(out, "# input {}: t{} ({})", i.param, i.input, i.format);
    }
    for o in &b.outputs {
        let _ = writeln!(out, "# output {}: o{} ({})", o.param, o.output, o.format);
    }
    if let Some(s) = &b.scatter {
        let _ = writeln!(out, "# scatter {s}: o0 (uncached)");
    }
    let launch_constant = |name: &str| b.launch_constants.iter().any(|c| c.param == name);
    for u in b.uniforms.iter().filter(|u| !launch_constant(&u.param)) {
        let _ = writeln!(
            out,
            "# uniform {}: c{} ({})",
            u.param, u.float_constant, u.ty
        );
    }
    for c in &b.launch_constants {
        let place = match b.uniforms.iter().find(|u| u.param == c.param) {
            Some(u) => format!("c{}", u.float_constant),
            None => format!("{}, not read", c.param),
        };
        let _ = writeln!(out, "# launch constant {place} ({}) = {}", c.ty, c.expr);
    }
    for u in b
        .unread_uniforms
        .iter()
        .filter(|u| !launch_constant(&u.param))
    {
        let _ = writeln!(out, "# uniform {}: not read ({})", u.param, u.ty);
    }
    for u in &b.bool_uniforms {
        let value = u
            .float_constant
            .map_or(String::new(), |c| format!(", value in c{c}"));
        let _ = writeln!(
            out,
            "# bool uniform {}: b{}{value}",
            u.param, u.bool_constant
        );
    }
    if let Some(c) = b.domain_constant {
        let _ = writeln!(out, "# domain (width, height, 1/width, 1/height): c{c}");
    }
    if let Some(bits) = b.input_padding_bits {
        let v = bits.map(f32::from_bits);
        let _ = writeln!(
            out,
            "# input padded to whole blocks with ({}, {}, {}, {})",
            v[0], v[1], v[2], v[3]
        );
    }
    for l in &b.literals {
        let v = l.value;
        let _ = writeln!(
            out,
            "# literal c{} = ({}, {}, {}, {})",
            l.float_constant, v[0], v[1], v[2], v[3]
        );
    }
    for i in &b.int_constants {
        let _ = writeln!(
            out,
            "# loop constant i{}: count {}, init {}, step {}",
            i.int_constant,
            int_source(&i.count),
            int_source(&i.init),
            i.step
        );
    }
}
