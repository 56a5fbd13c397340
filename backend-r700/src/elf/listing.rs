//! The listing of `ctmc disasm` (`shared/spec/language.md` §9): an image's
//! summary (registers, notes, bindings) as `;` comment lines, then the
//! program exactly as `--emit asm` prints it (`isa::format_program`). Raw
//! `.text` bytes (LLVM's output, for example) list without the summary.

use std::fmt::Write as _;

use crate::isa::{ProgramDecodeError, decode_program, format_program, format_program_with_temps};

use super::{ElfError, ElfImage, read_image};

/// The listing of a CAL image.
///
/// # Errors
/// What [`read_image`] rejects.
pub fn listing(bytes: &[u8]) -> Result<String, ElfError> {
    read_image(bytes).map(|image| listing_image(&image))
}

/// The listing of raw program bytes (a `.text` image).
///
/// # Errors
/// What [`decode_program`] rejects.
pub fn listing_raw(bytes: &[u8]) -> Result<String, ProgramDecodeError> {
    decode_program(bytes).map(|p| format_program(&p))
}

/// The listing of a read image: summary comments, then the program.
pub fn listing_image(image: &ElfImage) -> String {
    let mut out = String::new();
    let r = image.resources();
    if let Some(b) = &image.bindings {
        let _ = writeln!(out, "; kernel {}", b.kernel);
        for i in &b.inputs {
            let _ = writeln!(
                out,
                ";   in  {}: {} -> resource {}",
                i.param, i.format, i.resource
            );
        }
        for o in &b.outputs {
            let _ = writeln!(
                out,
                ";   out {}: {} -> PIXEL{}",
                o.param, o.format, o.export
            );
        }
        for s in &b.scatters {
            let _ = writeln!(out, ";   scatter {} -> MEM_EXPORT slot {}", s.param, s.slot);
        }
        let launch_constant = |name: &str| b.launch_constants.iter().any(|c| c.param == name);
        for u in b.uniforms.iter().filter(|u| !launch_constant(&u.param)) {
            let _ = writeln!(
                out,
                ";   uniform {}: {} -> cb0[{}..{}]",
                u.param,
                u.ty,
                u.element,
                u.element + u.elements
            );
        }
        for c in &b.launch_constants {
            let place = match b.uniforms.iter().find(|u| u.param == c.param) {
                Some(u) => format!("cb0[{}]", u.element),
                None => format!("{}, not bound", c.param),
            };
            let _ = writeln!(out, ";   launch constant {place} ({}) = {}", c.ty, c.expr);
        }
        if let Some(d) = b.domain_element {
            let _ = writeln!(out, ";   domain -> cb0[{d}]");
        }
        if let Some(bits) = b.input_padding_bits {
            let v = bits.map(f32::from_bits);
            let _ = writeln!(
                out,
                ";   input padded to whole blocks with ({}, {}, {}, {})",
                v[0], v[1], v[2], v[3]
            );
        }
    }
    let _ = writeln!(
        out,
        "; gprs {} stack {} kill {} exports {}",
        r.num_gprs, r.stack_size, r.kill, r.color_exports
    );
    if r.clause_temps > 0 {
        let _ = writeln!(
            out,
            "; clause temporaries {} (T0..T{} = R{}..R127)",
            r.clause_temps,
            r.clause_temps - 1,
            128 - r.clause_temps
        );
    }
    out.push_str(&format_program_with_temps(&image.program, r.clause_temps));
    out
}
