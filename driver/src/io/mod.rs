//! Data I/O of the driver: `.npy` and raw `.f32` files, generated input
//! streams, and uniform values written on the command line (spec §9).
//!
//! - [`npy`]: the `.npy` format itself ([`NpyArray`], [`parse_npy`],
//!   [`write_npy`]);
//! - [`stream`]: arrays to streams by the shape and dtype rules, and back;
//! - [`source`]: the `SRC` of `--input NAME=SRC` and the generated streams;
//! - [`uniform`]: the `VALUE` of `--uniform NAME=VALUE`;
//! - [`png`]: image outputs as PNG (`--output NAME=PATH.png`).
//!
//! This module's functions add the file system: every failure is an
//! [`IoError`] naming the path, which the command line reports with exit
//! code 2. Nothing here panics on any file or text.

pub mod npy;
pub mod png;
pub mod source;
pub mod stream;
pub mod uniform;

pub use self::png::{PngError, encode_png, write_png_file};
pub use npy::{NpyArray, NpyData, NpyDtype, NpyFormatError, parse_npy, write_npy};
pub use source::{InputSource, SourceError, parse_input_source};
pub use stream::{StreamError, array_to_stream, lanes_to_array, stream_to_array};
pub use uniform::{UniformError, parse_uniform, zero_uniform};

use ctm_frontend::data::StreamData;
use ctm_frontend::types::StreamType;
use std::path::{Path, PathBuf};

/// A failed read or write of a data file.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// The file could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("cannot write `{}`: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The file is not a usable `.npy` array.
    #[error("`{}`: {source}", path.display())]
    Npy {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: NpyFormatError,
    },
    /// The file holds more bytes than its kind may (a special file such as
    /// `/dev/zero` never ends).
    #[error("`{}` is larger than {limit_bytes} bytes, the most a {what} may have", path.display())]
    TooLong {
        /// The file.
        path: PathBuf,
        /// What the file is read as.
        what: &'static str,
        /// The bound.
        limit_bytes: u64,
    },
    /// The data does not fit the stream it is read for.
    #[error("`{}`: {source}", path.display())]
    Stream {
        /// The file.
        path: PathBuf,
        /// What does not fit.
        source: StreamError,
    },
}

/// The largest kernel source `ctmc` reads (16 MiB; `docs/cli.md`).
pub const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// The largest ELF image or raw instruction file `ctmc disasm`/`run`
/// reads (16 MiB; an X1K program is at most 512 × 24 bytes, an R700 one a
/// few hundred KiB).
pub const MAX_PROGRAM_BYTES: u64 = 16 << 20;

/// Reads at most `limit_bytes` of `path`: never reads on forever from a
/// special file (`/dev/zero`, a pipe) and never allocates more than the
/// bound plus one byte.
///
/// # Errors
/// [`IoError::Read`], or [`IoError::TooLong`] naming `what` when the file
/// has more bytes.
pub fn read_bounded(path: &Path, limit_bytes: u64, what: &'static str) -> Result<Vec<u8>, IoError> {
    use std::io::Read;
    let read_error = |source| IoError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut bytes = Vec::new();
    file.take(limit_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > limit_bytes {
        return Err(IoError::TooLong {
            path: path.to_path_buf(),
            what,
            limit_bytes,
        });
    }
    Ok(bytes)
}

/// Reads a whole `.npy` file, no more bytes than its header declares: the
/// preamble and header first (at most 64 KiB), then the data its shape and
/// dtype need (one byte more, to notice trailing data).
///
/// # Errors
/// [`IoError::Read`] or [`IoError::Npy`].
pub fn read_npy(path: &Path) -> Result<NpyArray, IoError> {
    use std::io::Read;
    let read_error = |source| IoError::Read {
        path: path.to_path_buf(),
        source,
    };
    let npy_error = |source| IoError::Npy {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut reader = std::io::BufReader::new(file);
    let mut bytes = Vec::new();
    (&mut reader)
        .take(npy::HEADER_PREFIX_BYTES as u64)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    let header_end = npy::header_end(&bytes).map_err(npy_error)?;
    (&mut reader)
        .take((header_end.saturating_sub(bytes.len())) as u64)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    let data_bytes = npy::declared_data_bytes(&bytes).map_err(npy_error)?;
    let total = (header_end as u64).saturating_add(data_bytes);
    let have = bytes.len() as u64;
    (&mut reader)
        .take(total.saturating_add(1).saturating_sub(have))
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    parse_npy(&bytes).map_err(npy_error)
}

/// Writes `array` to a `.npy` file, replacing it.
///
/// # Errors
/// [`IoError::Write`].
pub fn write_npy_file(path: &Path, array: &NpyArray) -> Result<(), IoError> {
    let write_error = |source| IoError::Write {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::create(path).map_err(write_error)?;
    write_npy(file, array).map_err(write_error)
}

/// Reads a `.npy` file as a stream of element type `ty`.
///
/// # Errors
/// [`IoError::Read`], [`IoError::Npy`] or [`IoError::Stream`].
pub fn read_npy_stream(path: &Path, ty: StreamType) -> Result<StreamData, IoError> {
    let array = read_npy(path)?;
    array_to_stream(&array, ty).map_err(|source| IoError::Stream {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads a raw little-endian `.f32` file as a `domain`-shaped stream.
///
/// # Errors
/// [`IoError::Read`] or [`IoError::Stream`] (wrong length, or values the
/// stream type cannot hold).
pub fn read_raw_stream(
    path: &Path,
    ty: StreamType,
    domain: (usize, usize),
) -> Result<StreamData, IoError> {
    // The domain's values, and one byte more to notice a longer file.
    let expected = (domain.0 as u64)
        .saturating_mul(domain.1 as u64)
        .saturating_mul(ty.channels() as u64)
        .saturating_mul(4);
    let bytes = read_bounded(path, expected, "raw .f32 stream of this domain")?;
    stream::raw_f32_to_stream(&bytes, ty, domain).map_err(|source| IoError::Stream {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes `f32` values as a raw little-endian file.
///
/// # Errors
/// [`IoError::Write`].
pub fn write_raw_file(path: &Path, values: &[f32]) -> Result<(), IoError> {
    std::fs::write(path, stream::f32_to_raw(values)).map_err(|source| IoError::Write {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctm_frontend::data::StreamBuffer;

    #[test]
    fn files_round_trip_through_streams() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            (
                StreamType::F32,
                source::random_stream("a", StreamType::F32, (5, 3)),
            ),
            (
                StreamType::Vec2,
                source::random_stream("b", StreamType::Vec2, (5, 3)),
            ),
            (
                StreamType::Vec4,
                source::random_stream("c", StreamType::Vec4, (1, 7)),
            ),
            (
                StreamType::U16,
                source::random_stream("d", StreamType::U16, (4, 4)),
            ),
            (
                StreamType::Unorm8x4,
                source::random_stream("e", StreamType::Unorm8x4, (2, 3)),
            ),
        ];
        for (ty, stream) in cases {
            let path = dir.path().join(format!("{}.npy", ty.name()));
            write_npy_file(&path, &stream_to_array(&stream)).unwrap();
            let back = read_npy_stream(&path, ty).unwrap();
            assert_eq!(back, stream, "{ty:?}");
        }
    }

    #[test]
    fn raw_files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.f32");
        let values: Vec<f32> = (0..12).map(|x| x as f32 * 0.5).collect();
        write_raw_file(&path, &values).unwrap();
        let s = read_raw_stream(&path, StreamType::Vec2, (3, 2)).unwrap();
        assert_eq!(s.buffer, StreamBuffer::F32(values));
        assert!(matches!(
            read_raw_stream(&path, StreamType::Vec4, (3, 2)),
            Err(IoError::Stream { .. })
        ));
    }

    #[test]
    fn errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.npy");
        let e = read_npy(&missing).unwrap_err();
        assert!(matches!(e, IoError::Read { .. }));
        assert!(e.to_string().contains("missing.npy"), "{e}");
        let garbage = dir.path().join("garbage.npy");
        std::fs::write(&garbage, b"this is not numpy").unwrap();
        let e = read_npy_stream(&garbage, StreamType::F32).unwrap_err();
        assert!(matches!(e, IoError::Npy { .. }), "{e}");
        assert!(e.to_string().contains("garbage.npy"), "{e}");
        let bytes = dir.path().join("bytes.npy");
        write_npy_file(
            &bytes,
            &NpyArray {
                shape: vec![2, 2],
                data: NpyData::U8(vec![1; 4]),
            },
        )
        .unwrap();
        let e = read_npy_stream(&bytes, StreamType::F32).unwrap_err();
        assert!(matches!(e, IoError::Stream { .. }), "{e}");
        let e = write_npy_file(&dir.path().join("no/such/dir.npy"), &lanes_to_array(&[1.0]))
            .unwrap_err();
        assert!(matches!(e, IoError::Write { .. }), "{e}");
    }
}
