//! Rules on a read ELF image beyond the program itself (CTM §4.1.4): the
//! proginfo's code range and the ATI notes against what the code uses.

use std::collections::BTreeSet;

use crate::elf::{ElfImage, NoteType};

use super::facts::Facts;
use super::rule::{Rule, Violation};

fn set(list: &[u32]) -> BTreeSet<u32> {
    list.iter().copied().collect()
}

fn used(set: &BTreeSet<u8>) -> BTreeSet<u32> {
    set.iter().map(|&i| u32::from(i)).collect()
}

/// Check `image`'s proginfo and notes against `facts` (its program's).
pub(crate) fn check(image: &ElfImage, facts: &Facts, out: &mut Vec<Violation>) {
    let info = &image.proginfo;
    let len = image.insts.len();
    let last = u32::try_from(len.saturating_sub(1)).unwrap_or(u32::MAX);
    if info.instr_cnt as usize != len {
        out.push(Violation::program(
            Rule::CodeRange,
            format!("INSTR_CNT is {} for {len} slots", info.instr_cnt),
        ));
    }
    if info.us_code_range != last << 16 {
        out.push(Violation::program(
            Rule::CodeRange,
            format!(
                "US_CODE_RANGE is {:#010x}, not {:#010x}",
                info.us_code_range,
                last << 16
            ),
        ));
    }
    if info.us_code_addr != last << 16 {
        out.push(Violation::program(
            Rule::CodeRange,
            format!(
                "US_CODE_ADDR is {:#010x}; ctm requires start 0 and end {last} ({:#010x})",
                info.us_code_addr,
                last << 16
            ),
        ));
    }
    let notes = &image.notes;
    let lists = [
        (NoteType::Inputs, set(&notes.inputs), used(&facts.inputs)),
        (NoteType::Outputs, set(&notes.outputs), used(&facts.outputs)),
        (
            NoteType::Float32Consts,
            set(&notes.float32_constants),
            used(&facts.float_constants),
        ),
        (
            NoteType::Int32Consts,
            set(&notes.int32_constants),
            used(&facts.int_constants),
        ),
    ];
    for (note, listed, used) in lists {
        if listed != used {
            let missing: Vec<_> = used.difference(&listed).collect();
            let extra: Vec<_> = listed.difference(&used).collect();
            out.push(Violation::program(
                Rule::NoteMismatch,
                format!("{note}: used but not listed {missing:?}, listed but not used {extra:?}"),
            ));
        }
    }
    let flags = [
        (
            NoteType::CondOut.name(),
            notes.conditional_output,
            facts.conditional_output,
        ),
        (
            NoteType::EarlyExit.name(),
            notes.early_exit,
            facts.early_exit,
        ),
        (
            "FG_DEPTH_SRC bit 0",
            info.fg_depth_src & 1 != 0,
            facts.conditional_output,
        ),
    ];
    for (what, listed, used) in flags {
        if listed != used {
            out.push(Violation::program(
                Rule::NoteMismatch,
                format!(
                    "{what} says {} but the program {}",
                    u8::from(listed),
                    if used { "does" } else { "does not" }
                ),
            ));
        }
    }
}
