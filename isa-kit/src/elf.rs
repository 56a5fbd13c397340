//! The section plumbing both chips' ELF writers share: the sections of an
//! image in index order, their file space, their headers and the section
//! name table, laid out the same way for the X1K (`docs/abi-x1k.md` §1.1)
//! and the R700 (`docs/abi-r700.md` §1); and the non-allocated
//! `.ctm.source` section both carry for `ctmc run FILE.elf --check`, which
//! loaders ignore (no segment loads it, no note names it).

use object::elf;
use object::read::elf::{FileHeader, SectionHeader as _};
use object::write::StringId;
use object::write::elf::{SectionHeader, Writer};

/// The name of the section holding what the reference interpreter needs
/// (the kernel's source, `docs/abi-x1k.md` §1.3, `docs/abi-r700.md` §1):
/// not allocated, in no segment.
pub const SOURCE_SECTION: &[u8] = b".ctm.source";

/// One section of an image, in section-index order.
#[derive(Clone, Copy, Debug)]
pub struct Section<'a> {
    /// Its name in `.shstrtab`.
    pub name: &'static [u8],
    /// `sh_type`.
    pub sh_type: elf::SectionType,
    /// `sh_flags`.
    pub flags: elf::SectionFlags,
    /// `sh_addralign`, also the alignment of its file bytes.
    pub align: u64,
    /// Its bytes.
    pub data: &'a [u8],
}

impl<'a> Section<'a> {
    /// `.text`: the code, loaded (`SHF_ALLOC | SHF_EXECINSTR`), aligned to
    /// `align`.
    pub fn text(data: &'a [u8], align: u64) -> Section<'a> {
        Section {
            name: b".text",
            sh_type: elf::SHT_PROGBITS,
            flags: elf::SHF_ALLOC | elf::SHF_EXECINSTR,
            align,
            data,
        }
    }

    /// `.note`: the notes, under the `PT_NOTE` segment, aligned to 4.
    pub fn notes(data: &'a [u8]) -> Section<'a> {
        Section {
            name: b".note",
            sh_type: elf::SHT_NOTE,
            flags: elf::SectionFlags(0),
            align: 4,
            data,
        }
    }

    /// The non-allocated [`SOURCE_SECTION`] holding `data`.
    pub fn source(data: &'a [u8]) -> Section<'a> {
        Section {
            name: SOURCE_SECTION,
            sh_type: elf::SHT_PROGBITS,
            flags: elf::SectionFlags(0),
            align: 1,
            data,
        }
    }
}

/// Where [`reserve`] put the sections.
#[derive(Debug)]
pub struct Reserved {
    offsets: Vec<u64>,
    names: Vec<StringId>,
}

impl Reserved {
    /// The file offset of section `k` (in the order given to [`reserve`]).
    pub fn offset(&self, k: usize) -> u64 {
        self.offsets.get(k).copied().unwrap_or(0)
    }
}

/// Reserves, after what `w` reserved so far, the sections' file bytes in
/// order, then the section indices (null, the sections, `.shstrtab`), the
/// name table and the section headers.
///
/// # Errors
/// `object`'s, should the name table not fit.
pub fn reserve(w: &mut Writer<'_>, sections: &[Section<'_>]) -> object::write::Result<Reserved> {
    let offsets = sections
        .iter()
        .map(|s| w.reserve(s.data.len() as u64, s.align))
        .collect();
    w.reserve_null_section_index();
    let names = sections
        .iter()
        .map(|s| {
            let name = w.add_section_name(s.name);
            w.reserve_section_index();
            name
        })
        .collect();
    w.reserve_shstrtab_section_index();
    w.reserve_shstrtab()?;
    w.reserve_section_headers();
    Ok(Reserved { offsets, names })
}

/// Writes the sections' bytes, the name table and the section headers, as
/// [`reserve`] laid them out (after everything written before them).
pub fn write(w: &mut Writer<'_>, sections: &[Section<'_>], reserved: &Reserved) {
    for s in sections {
        w.write_align(s.align);
        w.write(s.data);
    }
    w.write_shstrtab();
    w.write_null_section_header();
    for (k, (s, name)) in sections.iter().zip(&reserved.names).enumerate() {
        w.write_section_header(&SectionHeader {
            sh_name: w.section_name_offset(Some(*name)),
            sh_type: s.sh_type,
            sh_flags: s.flags,
            sh_addr: 0,
            sh_offset: reserved.offset(k),
            sh_size: s.data.len() as u64,
            sh_link: 0,
            sh_info: 0,
            sh_addralign: s.align,
            sh_entsize: 0,
        });
    }
    w.write_shstrtab_section_header();
}

/// The bytes of the section named `name` in a little-endian ELF32 file;
/// `None` if the file does not parse or has no such section.
pub fn section_data<'d>(data: &'d [u8], name: &[u8]) -> Option<&'d [u8]> {
    let e = object::LittleEndian;
    let header = elf::FileHeader32::<object::LittleEndian>::parse(data).ok()?;
    let sections = header.sections(e, data).ok()?;
    let section = sections
        .iter()
        .find(|s| sections.section_name(e, s).ok() == Some(name))?;
    section.data(e, data).ok()
}
