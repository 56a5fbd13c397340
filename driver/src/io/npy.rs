//! `.npy` files: reading any of the dtypes the driver accepts into an
//! [`NpyArray`], and writing one back.
//!
//! Reading never trusts the file: the preamble, the header's size, its
//! nesting and its shape are checked here before `npyz` parses the header,
//! and the data's length is checked against the shape before any element is
//! decoded, so a truncated, garbage or hostile file is an [`NpyFormatError`],
//! never a panic or a huge allocation. Only C-order, little-endian (or
//! byte-sized) plain dtypes are accepted; see [`NpyDtype`].

use npyz::{DType, Endianness, TypeChar, TypeStr, WriterBuilder};
use std::io::Write;

/// The `.npy` magic string.
const MAGIC: &[u8] = b"\x93NUMPY";

/// Largest header (in bytes) the reader accepts; numpy's headers for plain
/// dtypes are 118 bytes or so.
const MAX_HEADER_BYTES: usize = 1 << 16;

/// Deepest bracket nesting accepted in a header (a plain dtype needs 2).
const MAX_HEADER_NESTING: usize = 16;

/// The element types of `.npy` files the driver reads and writes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NpyDtype {
    /// `<f4`
    F32,
    /// `<f8`
    F64,
    /// `<i4`
    I32,
    /// `<i8`
    I64,
    /// `|u1`
    U8,
    /// `<u2`
    U16,
}

impl NpyDtype {
    /// The numpy type string, e.g. `<f4`.
    pub fn descr(self) -> &'static str {
        match self {
            NpyDtype::F32 => "<f4",
            NpyDtype::F64 => "<f8",
            NpyDtype::I32 => "<i4",
            NpyDtype::I64 => "<i8",
            NpyDtype::U8 => "|u1",
            NpyDtype::U16 => "<u2",
        }
    }

    /// The numpy name, e.g. `float32`.
    pub fn numpy_name(self) -> &'static str {
        match self {
            NpyDtype::F32 => "float32",
            NpyDtype::F64 => "float64",
            NpyDtype::I32 => "int32",
            NpyDtype::I64 => "int64",
            NpyDtype::U8 => "uint8",
            NpyDtype::U16 => "uint16",
        }
    }

    /// Bytes per element.
    pub fn size_bytes(self) -> usize {
        match self {
            NpyDtype::U8 => 1,
            NpyDtype::U16 => 2,
            NpyDtype::F32 | NpyDtype::I32 => 4,
            NpyDtype::F64 | NpyDtype::I64 => 8,
        }
    }

    fn from_type_str(ts: &TypeStr) -> Option<NpyDtype> {
        Some(match (ts.type_char(), ts.size_field()) {
            (TypeChar::Float, 4) => NpyDtype::F32,
            (TypeChar::Float, 8) => NpyDtype::F64,
            (TypeChar::Int, 4) => NpyDtype::I32,
            (TypeChar::Int, 8) => NpyDtype::I64,
            (TypeChar::Uint, 1) => NpyDtype::U8,
            (TypeChar::Uint, 2) => NpyDtype::U16,
            _ => return None,
        })
    }
}

impl std::fmt::Display for NpyDtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.descr(), self.numpy_name())
    }
}

/// The elements of an array, in C (row-major) order.
#[derive(Clone, Debug, PartialEq)]
pub enum NpyData {
    /// `<f4`
    F32(Vec<f32>),
    /// `<f8`
    F64(Vec<f64>),
    /// `<i4`
    I32(Vec<i32>),
    /// `<i8`
    I64(Vec<i64>),
    /// `|u1`
    U8(Vec<u8>),
    /// `<u2`
    U16(Vec<u16>),
}

impl NpyData {
    /// The dtype of the elements.
    pub fn dtype(&self) -> NpyDtype {
        match self {
            NpyData::F32(_) => NpyDtype::F32,
            NpyData::F64(_) => NpyDtype::F64,
            NpyData::I32(_) => NpyDtype::I32,
            NpyData::I64(_) => NpyDtype::I64,
            NpyData::U8(_) => NpyDtype::U8,
            NpyData::U16(_) => NpyDtype::U16,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            NpyData::F32(v) => v.len(),
            NpyData::F64(v) => v.len(),
            NpyData::I32(v) => v.len(),
            NpyData::I64(v) => v.len(),
            NpyData::U8(v) => v.len(),
            NpyData::U16(v) => v.len(),
        }
    }

    /// `true` if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An n-dimensional array as stored in a `.npy` file.
#[derive(Clone, Debug, PartialEq)]
pub struct NpyArray {
    /// The shape, slowest axis first (C order).
    pub shape: Vec<usize>,
    /// The elements; `data.len()` is the product of `shape`.
    pub data: NpyData,
}

/// Why the bytes of a file are not a `.npy` array the driver can use.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NpyFormatError {
    /// The file does not start with the `\x93NUMPY` magic.
    #[error("not a .npy file (the NUMPY magic is missing)")]
    NotNpy,
    /// A format version this reader does not know.
    #[error("unsupported .npy format version {major}.{minor}")]
    UnsupportedVersion {
        /// Major version.
        major: u8,
        /// Minor version.
        minor: u8,
    },
    /// The file ends inside its preamble or header.
    #[error("truncated .npy header: needs {needed_bytes} bytes, the file has {found_bytes}")]
    TruncatedHeader {
        /// Bytes the header claims.
        needed_bytes: usize,
        /// Bytes in the file.
        found_bytes: usize,
    },
    /// The header is not the dictionary numpy writes.
    #[error("malformed .npy header: {0}")]
    MalformedHeader(String),
    /// A big-endian dtype.
    #[error("big-endian dtype `{descr}` is not supported; convert with `a.astype('<{}')`", &descr[1..])]
    BigEndian {
        /// The dtype as written in the file.
        descr: String,
    },
    /// Fortran (column-major) order.
    #[error("Fortran-order arrays are not supported; save with `np.ascontiguousarray(a)`")]
    FortranOrder,
    /// A dtype the driver does not read (objects, records, complex, ...).
    #[error("unsupported dtype `{descr}`; use <f4, <f8, <i4, <i8, |u1 or <u2")]
    UnsupportedDtype {
        /// The dtype as written in the file.
        descr: String,
    },
    /// More elements than memory could hold.
    #[error("array of shape {shape:?} is too large")]
    TooLarge {
        /// The shape claimed by the header.
        shape: Vec<u64>,
    },
    /// Fewer data bytes than the shape needs.
    #[error(
        "truncated .npy data: shape {shape:?} needs {expected_bytes} bytes, the file has {found_bytes}"
    )]
    TruncatedData {
        /// The shape.
        shape: Vec<usize>,
        /// Bytes the shape needs.
        expected_bytes: usize,
        /// Bytes present after the header.
        found_bytes: usize,
    },
    /// More data bytes than the shape needs.
    #[error("{extra_bytes} unexpected bytes after the .npy data of shape {shape:?}")]
    TrailingBytes {
        /// The shape.
        shape: Vec<usize>,
        /// Bytes after the last element.
        extra_bytes: usize,
    },
}

/// Largest number of elements an array may have (2^31: 8 GiB of `f32`).
const MAX_ELEMENTS: u64 = 1 << 31;

/// Parses a whole `.npy` file held in memory.
///
/// # Errors
/// [`NpyFormatError`] for anything but a C-order array of one of the
/// [`NpyDtype`]s whose data is exactly as long as its shape says.
pub fn parse_npy(bytes: &[u8]) -> Result<NpyArray, NpyFormatError> {
    let (header_text, data_start) = split_header(bytes)?;
    check_nesting(header_text)?;
    check_duplicate_keys(header_text)?;
    // npyz multiplies the dimensions without overflow checks: look at the
    // shape first.
    let claimed = scan_shape(header_text)?;
    let mut count: u64 = 1;
    for &d in &claimed {
        count = count
            .checked_mul(d)
            .filter(|&c| c <= MAX_ELEMENTS)
            .ok_or_else(|| NpyFormatError::TooLarge {
                shape: claimed.clone(),
            })?;
    }
    let header = npyz::NpyHeader::from_reader(&bytes[..data_start])
        .map_err(|e| NpyFormatError::MalformedHeader(e.to_string()))?;
    let DType::Plain(ts) = header.dtype() else {
        return Err(NpyFormatError::UnsupportedDtype {
            descr: header.dtype().descr(),
        });
    };
    let descr = ts.to_string();
    if ts.endianness() == Endianness::Big && ts.size_field() > 1 {
        return Err(NpyFormatError::BigEndian { descr });
    }
    let dtype = NpyDtype::from_type_str(&ts).ok_or(NpyFormatError::UnsupportedDtype { descr })?;
    if header.order() == npyz::Order::Fortran && header.shape().len() > 1 {
        return Err(NpyFormatError::FortranOrder);
    }
    let shape: Vec<usize> = header.shape().iter().map(|&d| d as usize).collect();
    let expected_bytes = count as usize * dtype.size_bytes();
    let data = &bytes[data_start..];
    if data.len() < expected_bytes {
        return Err(NpyFormatError::TruncatedData {
            shape,
            expected_bytes,
            found_bytes: data.len(),
        });
    }
    if data.len() > expected_bytes {
        return Err(NpyFormatError::TrailingBytes {
            shape,
            extra_bytes: data.len() - expected_bytes,
        });
    }
    Ok(NpyArray {
        shape,
        data: decode(dtype, data),
    })
}

/// Bytes enough for any preamble (magic, version, header length).
pub const HEADER_PREFIX_BYTES: usize = 12;

/// Where the data of the file starting with `prefix` begins (the preamble
/// must be complete; the header need not be).
///
/// # Errors
/// As [`parse_npy`] for a bad preamble.
pub fn header_end(prefix: &[u8]) -> Result<usize, NpyFormatError> {
    match split_header(prefix) {
        Ok((_, end)) => Ok(end),
        Err(NpyFormatError::TruncatedHeader { needed_bytes, .. }) if prefix.len() >= 8 => {
            Ok(needed_bytes)
        }
        Err(e) => Err(e),
    }
}

/// The data bytes the header of `bytes` (preamble and whole header)
/// declares: elements times 8 bytes, the widest dtype read, so that a
/// reader never needs more.
///
/// # Errors
/// As [`parse_npy`] for a bad header or an impossible shape.
pub fn declared_data_bytes(bytes: &[u8]) -> Result<u64, NpyFormatError> {
    let (text, _) = split_header(bytes)?;
    check_nesting(text)?;
    let claimed = scan_shape(text)?;
    let mut count: u64 = 1;
    for &d in &claimed {
        count = count
            .checked_mul(d)
            .filter(|&c| c <= MAX_ELEMENTS)
            .ok_or_else(|| NpyFormatError::TooLarge {
                shape: claimed.clone(),
            })?;
    }
    Ok(count * 8)
}

/// Splits off the preamble and header; returns the header text and where
/// the data starts.
fn split_header(bytes: &[u8]) -> Result<(&str, usize), NpyFormatError> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(NpyFormatError::NotNpy);
    }
    let truncated = |needed_bytes| NpyFormatError::TruncatedHeader {
        needed_bytes,
        found_bytes: bytes.len(),
    };
    let [major, minor] = *bytes.get(6..8).ok_or(truncated(8))? else {
        return Err(truncated(8));
    };
    let (len_bytes, header_start) = match major {
        1 => (2, 10),
        2 | 3 => (4, 12),
        _ => return Err(NpyFormatError::UnsupportedVersion { major, minor }),
    };
    let len_field = bytes.get(8..header_start).ok_or(truncated(header_start))?;
    let header_len = len_field
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | b as usize);
    debug_assert_eq!(len_field.len(), len_bytes);
    if header_len > MAX_HEADER_BYTES {
        return Err(NpyFormatError::MalformedHeader(format!(
            "header of {header_len} bytes (at most {MAX_HEADER_BYTES} accepted)"
        )));
    }
    let data_start = header_start + header_len;
    let text = bytes
        .get(header_start..data_start)
        .ok_or(truncated(data_start))?;
    let text = std::str::from_utf8(text)
        .map_err(|_| NpyFormatError::MalformedHeader("the header is not text".into()))?;
    Ok((text, data_start))
}

/// Rejects headers nested deeper than any plain dtype needs (the header
/// parser recurses).
fn check_nesting(text: &str) -> Result<(), NpyFormatError> {
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_HEADER_NESTING {
                    return Err(NpyFormatError::MalformedHeader(
                        "the header is nested too deeply".into(),
                    ));
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Rejects a header dictionary that names a key twice (numpy's own
/// reader would keep the last one silently; issue 13).
fn check_duplicate_keys(text: &str) -> Result<(), NpyFormatError> {
    let mut keys: Vec<&str> = Vec::new();
    let mut depth = 0usize;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            q @ (b'\'' | b'"') => {
                let start = i + 1;
                let Some(len) = text[start..].find(q as char) else {
                    break;
                };
                let end = start + len;
                let after = text[end + 1..].trim_start();
                if depth == 1 && after.starts_with(':') {
                    let key = &text[start..end];
                    if keys.contains(&key) {
                        return Err(NpyFormatError::MalformedHeader(format!(
                            "the header names the key '{key}' twice"
                        )));
                    }
                    keys.push(key);
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Finds the `'shape': (..)` tuple of the header and reads its dimensions.
fn scan_shape(text: &str) -> Result<Vec<u64>, NpyFormatError> {
    let malformed = || NpyFormatError::MalformedHeader("no valid 'shape' entry".into());
    let key = text
        .find("'shape'")
        .or_else(|| text.find("\"shape\""))
        .ok_or_else(malformed)?;
    let rest = text[key + 7..].trim_start();
    let rest = rest.strip_prefix(':').ok_or_else(malformed)?.trim_start();
    let rest = rest.strip_prefix('(').ok_or_else(malformed)?;
    let close = rest.find(')').ok_or_else(malformed)?;
    rest[..close]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.trim_end_matches('L')
                .parse::<u64>()
                .map_err(|_| malformed())
        })
        .collect()
}

/// Decodes little-endian elements; `data.len()` is a multiple of the size.
fn decode(dtype: NpyDtype, data: &[u8]) -> NpyData {
    fn chunks<const N: usize, T>(data: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
        data.chunks_exact(N)
            .map(|c| {
                let mut a = [0u8; N];
                a.copy_from_slice(c);
                f(a)
            })
            .collect()
    }
    match dtype {
        NpyDtype::F32 => NpyData::F32(chunks(data, f32::from_le_bytes)),
        NpyDtype::F64 => NpyData::F64(chunks(data, f64::from_le_bytes)),
        NpyDtype::I32 => NpyData::I32(chunks(data, i32::from_le_bytes)),
        NpyDtype::I64 => NpyData::I64(chunks(data, i64::from_le_bytes)),
        NpyDtype::U8 => NpyData::U8(data.to_vec()),
        NpyDtype::U16 => NpyData::U16(chunks(data, u16::from_le_bytes)),
    }
}

/// Writes `array` as a `.npy` file (format version 1.0, C order,
/// little-endian) to `out`.
///
/// # Errors
/// The writer's I/O errors; `InvalidInput` if the data's length is not the
/// product of the shape.
pub fn write_npy(out: impl Write, array: &NpyArray) -> std::io::Result<()> {
    if array.shape.iter().product::<usize>() != array.data.len() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} elements do not fill shape {:?}",
                array.data.len(),
                array.shape
            ),
        ));
    }
    let shape: Vec<u64> = array.shape.iter().map(|&d| d as u64).collect();
    let dtype = |d: NpyDtype| -> std::io::Result<DType> {
        let ts: TypeStr = d
            .descr()
            .parse()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{e}")))?;
        Ok(DType::Plain(ts))
    };
    fn put<T: npyz::Serialize + Copy>(
        out: impl Write,
        shape: &[u64],
        dtype: DType,
        values: &[T],
    ) -> std::io::Result<()> {
        let mut writer = npyz::WriteOptions::<T>::new()
            .dtype(dtype)
            .shape(shape)
            .writer(out)
            .begin_nd()?;
        writer.extend(values.iter().copied())?;
        writer.finish()
    }
    let out = std::io::BufWriter::new(out);
    let d = dtype(array.data.dtype())?;
    match &array.data {
        NpyData::F32(v) => put(out, &shape, d, v),
        NpyData::F64(v) => put(out, &shape, d, v),
        NpyData::I32(v) => put(out, &shape, d, v),
        NpyData::I64(v) => put(out, &shape, d, v),
        NpyData::U8(v) => put(out, &shape, d, v),
        NpyData::U16(v) => put(out, &shape, d, v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(array: &NpyArray) -> Vec<u8> {
        let mut out = Vec::new();
        write_npy(&mut out, array).unwrap();
        out
    }

    /// A file with a hand-written header (padded as numpy pads it).
    fn with_header(header: &str, data: &[u8]) -> Vec<u8> {
        let mut text = header.to_string();
        while !(10 + text.len() + 1).is_multiple_of(64) {
            text.push(' ');
        }
        text.push('\n');
        let mut out = MAGIC.to_vec();
        out.extend([1, 0]);
        out.extend((text.len() as u16).to_le_bytes());
        out.extend(text.as_bytes());
        out.extend(data);
        out
    }

    #[test]
    fn every_dtype_round_trips() {
        let cases = [
            NpyData::F32(vec![1.5, -0.0, f32::INFINITY, 3.25, 1e-3, 7.0]),
            NpyData::F64(vec![1.5, 2.0, -3.0, 0.1, 5.0, 6.0]),
            NpyData::I32(vec![1, -2, i32::MAX, i32::MIN, 0, 5]),
            NpyData::I64(vec![1, -2, i64::MAX, 0, 0, 5]),
            NpyData::U8(vec![0, 1, 127, 128, 254, 255]),
            NpyData::U16(vec![0, 1, 65535, 300, 4, 5]),
        ];
        for data in cases {
            for shape in [vec![6], vec![2, 3], vec![1, 3, 2]] {
                let array = NpyArray {
                    shape: shape.clone(),
                    data: data.clone(),
                };
                let back = parse_npy(&bytes_of(&array)).unwrap();
                assert_eq!(back, array, "{:?} {shape:?}", data.dtype());
            }
        }
    }

    #[test]
    fn header_names_the_dtype_as_numpy_does() {
        let array = NpyArray {
            shape: vec![2, 2],
            data: NpyData::F32(vec![0.0; 4]),
        };
        let bytes = bytes_of(&array);
        let text = String::from_utf8_lossy(&bytes[10..]);
        assert!(text.contains("'descr': '<f4'"), "{text}");
        assert!(text.contains("'fortran_order': False"), "{text}");
        assert!(text.contains("'shape': (2, 2"), "{text}");
    }

    #[test]
    fn nan_payload_and_scalar_shape() {
        let array = NpyArray {
            shape: vec![],
            data: NpyData::F32(vec![f32::NAN]),
        };
        let back = parse_npy(&bytes_of(&array)).unwrap();
        assert_eq!(back.shape, Vec::<usize>::new());
        let NpyData::F32(v) = back.data else { panic!() };
        assert!(v[0].is_nan());
    }

    #[test]
    fn rejects_big_endian() {
        let f = with_header(
            "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
            &[0; 8],
        );
        assert_eq!(
            parse_npy(&f),
            Err(NpyFormatError::BigEndian {
                descr: ">f4".into()
            })
        );
        let msg = parse_npy(&f).unwrap_err().to_string();
        assert!(msg.contains("<f4"), "{msg}");
    }

    #[test]
    fn big_endian_bytes_are_fine() {
        let f = with_header(
            "{'descr': '>u1', 'fortran_order': False, 'shape': (2,), }",
            &[3, 4],
        );
        assert_eq!(parse_npy(&f).unwrap().data, NpyData::U8(vec![3, 4]));
    }

    #[test]
    fn rejects_duplicate_keys() {
        let data = [0u8; 8];
        for header in [
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (1,), }",
            "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
            "{\"shape\": (2,), 'descr': '<f4', 'fortran_order': False, \"shape\": (2,), }",
        ] {
            let e = parse_npy(&with_header(header, &data)).unwrap_err();
            assert!(
                matches!(&e, NpyFormatError::MalformedHeader(m) if m.contains("twice")),
                "{header}: {e:?}"
            );
        }
        // Values may repeat a key's text.
        let ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
        assert!(parse_npy(&with_header(ok, &data)).is_ok());
    }

    #[test]
    fn rejects_fortran_order() {
        let f = with_header(
            "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
            &[0; 16],
        );
        assert_eq!(parse_npy(&f), Err(NpyFormatError::FortranOrder));
        // A 1-D array is the same in both orders.
        let f = with_header(
            "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }",
            &[0; 8],
        );
        assert!(parse_npy(&f).is_ok());
    }

    #[test]
    fn rejects_unsupported_dtypes() {
        for descr in ["|O", "<c8", "<f2", "|b1", "<u4", "|S4", "<M8[s]"] {
            let f = with_header(
                &format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (1,), }}"),
                &[0; 16],
            );
            assert!(
                matches!(
                    parse_npy(&f),
                    Err(NpyFormatError::UnsupportedDtype { .. }
                        | NpyFormatError::MalformedHeader(_))
                ),
                "{descr}: {:?}",
                parse_npy(&f)
            );
        }
        let f = with_header(
            "{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }",
            &[0; 8],
        );
        assert!(matches!(
            parse_npy(&f),
            Err(NpyFormatError::UnsupportedDtype { .. })
        ));
    }

    #[test]
    fn rejects_truncated_and_trailing_data() {
        let array = NpyArray {
            shape: vec![4],
            data: NpyData::F32(vec![1.0; 4]),
        };
        let bytes = bytes_of(&array);
        let short = &bytes[..bytes.len() - 1];
        assert!(matches!(
            parse_npy(short),
            Err(NpyFormatError::TruncatedData {
                expected_bytes: 16,
                found_bytes: 15,
                ..
            })
        ));
        let mut long = bytes.clone();
        long.push(0);
        assert!(matches!(
            parse_npy(&long),
            Err(NpyFormatError::TrailingBytes { extra_bytes: 1, .. })
        ));
        for cut in [0, 3, 6, 7, 9, 20, 60] {
            assert!(parse_npy(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn rejects_garbage_and_huge_shapes() {
        assert_eq!(parse_npy(b""), Err(NpyFormatError::NotNpy));
        assert_eq!(
            parse_npy(b"hello world, no npy"),
            Err(NpyFormatError::NotNpy)
        );
        let mut v9 = MAGIC.to_vec();
        v9.extend([9, 0, 0, 0]);
        assert!(matches!(
            parse_npy(&v9),
            Err(NpyFormatError::UnsupportedVersion { major: 9, .. })
        ));
        let huge = with_header(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }",
            &[],
        );
        assert!(matches!(
            parse_npy(&huge),
            Err(NpyFormatError::TooLarge { .. })
        ));
        let deep = with_header(&format!("{}{}", "[".repeat(5000), "]".repeat(5000)), &[]);
        assert!(matches!(
            parse_npy(&deep),
            Err(NpyFormatError::MalformedHeader(_))
        ));
        let nonsense = with_header("{'descr': '<f4', 'shape': (2,) garbage", &[0; 8]);
        assert!(parse_npy(&nonsense).is_err());
        // A v2 header length of 4 GiB in a tiny file.
        let mut v2 = MAGIC.to_vec();
        v2.extend([2, 0, 0xff, 0xff, 0xff, 0xff]);
        assert!(parse_npy(&v2).is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            let mut with_magic = MAGIC.to_vec();
            with_magic.extend(&bytes);
            let _ = parse_npy(&bytes);
            let _ = parse_npy(&with_magic);
        }

        #[test]
        fn corrupting_a_valid_file_never_panics(index in 0usize..200, byte in proptest::num::u8::ANY) {
            let array = NpyArray { shape: vec![3, 5], data: NpyData::F32(vec![0.5; 15]) };
            let mut bytes = bytes_of(&array);
            let i = index % bytes.len();
            bytes[i] = byte;
            let _ = parse_npy(&bytes);
        }
    }
}
