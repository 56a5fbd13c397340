//! Loading CTM executables into the device.
//!
//! The CTM ELF layout (CTM §4.1) and ctm's `"ctm"` bindings note are
//! defined once, in the backend (`ctm_backend_x1k::elf`): its reader checks
//! every field of the header, the `.text` section and the notes, and
//! decodes the instructions with the ISA's strict decoder. This module
//! turns what it read into the device's [`ProgramImage`] — the raw `.text`
//! the device fetches through its instruction cache, the program
//! registers, and the note lists the device checks at `start_program`.

use super::params::{InputId, OutputId};
use super::program::{ImageError, ProgInfoError, ProgramImage, ProgramInfo, ProgramNotes};
use ctm_backend_x1k::elf::ElfImage;
use ctm_backend_x1k::isa::{IntConstId, encode_program_bytes};

pub use ctm_backend_x1k::elf::ElfError;

/// Why an executable cannot be loaded.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum LoadError {
    /// The file is not a valid CTM executable.
    #[error(transparent)]
    Elf(#[from] ElfError),
    /// The program-information note holds values the device rejects.
    #[error("program information: {0}")]
    ProgInfo(ProgInfoError),
    /// The parts do not make an image.
    #[error(transparent)]
    Image(ImageError),
    /// A note lists an index outside the device's range.
    #[error("the {note} note lists index {index}, outside the device's range")]
    NoteIndex {
        /// Which note.
        note: &'static str,
        /// The index.
        index: u32,
    },
}

/// Reads a CTM executable for the device.
///
/// # Errors
/// [`LoadError`] naming what is wrong with the file.
pub fn read_elf(bytes: &[u8]) -> Result<ProgramImage, LoadError> {
    image_of(&ctm_backend_x1k::elf::read_image(bytes)?)
}

/// The device's image of an executable read by the backend.
///
/// # Errors
/// [`LoadError`] when the registers or notes do not fit the device.
pub fn image_of(elf: &ElfImage) -> Result<ProgramImage, LoadError> {
    let text = encode_program_bytes(&elf.insts);
    let info = ProgramInfo::from_words(&elf.proginfo.to_words()).map_err(LoadError::ProgInfo)?;
    let index = |note: &'static str, k: u32| LoadError::NoteIndex { note, index: k };
    let n = &elf.notes;
    let notes = ProgramNotes {
        inputs: n
            .inputs
            .iter()
            .map(|&k| {
                u8::try_from(k)
                    .ok()
                    .and_then(InputId::new)
                    .ok_or_else(|| index("inputs", k))
            })
            .collect::<Result<_, _>>()?,
        outputs: n
            .outputs
            .iter()
            .map(|&k| {
                u8::try_from(k)
                    .ok()
                    .and_then(OutputId::new)
                    .ok_or_else(|| index("outputs", k))
            })
            .collect::<Result<_, _>>()?,
        conditional_output: n.conditional_output,
        float_constants: n
            .float32_constants
            .iter()
            .map(|&k| u8::try_from(k).map_err(|_| index("float32 constants", k)))
            .collect::<Result<_, _>>()?,
        int_constants: n
            .int32_constants
            .iter()
            .map(|&k| IntConstId::new(k).ok_or_else(|| index("int32 constants", k)))
            .collect::<Result<_, _>>()?,
        early_exit: n.early_exit,
    };
    ProgramImage::new(text, info, notes).map_err(LoadError::Image)
}
