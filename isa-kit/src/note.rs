//! The ELF note records both chips' images are made of (CTM §4.1.4 for the
//! X1K's `"ATI DPP"` notes, `docs/abi-r700.md` §1 for the R700's `"ATI
//! CAL"` notes, and ctm's own `"ctm"` note in both): a record is
//! `namesz`, `descsz`, `type` as little-endian words, then the name and
//! the descriptor, each padded to 4 bytes (ELF32 note alignment).
//!
//! Only the byte layout lives here; which notes an image holds and what
//! their descriptors mean is each chip's ABI.

/// `bytes` padded with NULs to a multiple of 4.
pub fn padded(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.resize(bytes.len().next_multiple_of(4), 0);
    bytes
}

/// Little-endian bytes of `values`, four per word.
pub fn le_bytes(values: impl IntoIterator<Item = u32>) -> Vec<u8> {
    values.into_iter().flat_map(u32::to_le_bytes).collect()
}

/// The little-endian words of `bytes` (a trailing partial word is
/// ignored: callers check descriptor sizes first).
pub fn le_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Appends one note record to `out`. `name` includes its NUL.
pub fn push_note(out: &mut Vec<u8>, name: &[u8], n_type: u32, desc: &[u8]) {
    // A note name or descriptor longer than 4 GiB cannot be written in an
    // ELF32 image; ctm's notes are a few KiB at most.
    let len = |b: &[u8]| u32::try_from(b.len()).unwrap_or(u32::MAX);
    out.extend(le_bytes([len(name), len(desc), n_type]));
    out.extend_from_slice(name);
    out.resize(out.len().next_multiple_of(4), 0);
    out.extend_from_slice(desc);
    out.resize(out.len().next_multiple_of(4), 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_record_is_header_name_and_descriptor_each_padded() {
        let mut out = Vec::new();
        push_note(&mut out, b"ctm\0", 1, &[1, 2, 3, 4, 5]);
        assert_eq!(
            out,
            [
                4, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, b'c', b't', b'm', 0, 1, 2, 3, 4, 5, 0, 0, 0
            ]
        );
        push_note(&mut out, b"ATI CAL\0", 8, &le_bytes([7]));
        assert_eq!(out.len(), 24 + 12 + 8 + 4);
        assert_eq!(le_words(&out[36..]), [0x2049_5441, 0x004C_4143, 7]);
    }

    #[test]
    fn words_round_trip_and_padding() {
        assert_eq!(le_words(&le_bytes([1, 0xDEAD_BEEF])), [1, 0xDEAD_BEEF]);
        assert_eq!(padded(vec![1]), [1, 0, 0, 0]);
        assert_eq!(padded(vec![1, 2, 3, 4]), [1, 2, 3, 4]);
        assert!(padded(Vec::new()).is_empty());
    }
}
