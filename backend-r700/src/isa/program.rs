//! Whole programs: the CF program and the clauses it starts, as laid out in
//! memory (digest §1.3, §2.0).
//!
//! Layout rules ctm reads and writes (all addresses in 64-bit qwords from
//! the program start, bytes little-endian):
//!
//! * The CF program starts at qword 0 and runs up to the first clause (or
//!   the end of the image if there is none). Padding inside it is explicit:
//!   LLVM's all-zero "PAD" qword before a 16-byte-aligned clause decodes as
//!   a CF NOP. (The manual's order "CF, ALU, TEX/VTX" is not required: LLVM
//!   puts fetch clauses first.)
//! * Every clause is started by at least one CF instruction; its kind and
//!   size come from that instruction (ALU: `COUNT` + 1 slots including
//!   literal slots; TEX/VTX: `COUNT` + 1 instructions of 2 qwords). Several
//!   CF instructions may start the same clause if they agree on kind and size.
//! * TEX and VTX clauses start at even qwords (16-byte alignment, Table 3.2).
//! * Clauses follow each other without gaps, except for one zero qword
//!   that aligns a fetch clause; they do not overlap; nothing follows the
//!   last clause. (So the layout is canonical: the order and sizes of the
//!   clauses fix every address.)
//! * Jump targets of branch and loop instructions lie inside the CF program.
//!
//! [`decode_program`] checks all of this and returns a typed error for
//! anything else, never panicking; [`encode_program`] accepts exactly the
//! programs `decode_program` returns, so both round trips are identities.

use std::collections::BTreeMap;

use super::alu::{AluClause, AluGroup, MAX_GROUP_INSTS};
use super::cf::CfInst;
use super::decode::{DecodeError, decode_alu, decode_cf, decode_tex, decode_vtx_clause_inst};
use super::encode::{GroupEnd, encode_alu, encode_cf, encode_mem_rd, encode_tex, encode_vtx};
use super::fetch::{FetchClause, VtxClauseInst};
use super::opcodes::{CfAddr, FetchClauseKind};

/// Bytes per qword (a CF instruction, an ALU slot, half a fetch instruction).
pub const QWORD_BYTES: usize = 8;
/// Qwords per fetch instruction.
pub const FETCH_QWORDS: u64 = 2;

/// A program: the CF instructions and the clauses, keyed by qword address.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Program {
    /// The CF program, instruction `i` at qword `i`.
    pub cf: Vec<CfInst>,
    /// The clauses by start address (qwords).
    pub clauses: BTreeMap<u32, Clause>,
}

/// A clause's instructions.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Clause {
    /// An ALU clause.
    Alu(AluClause),
    /// A TEX or VTX clause.
    Fetch(FetchClause),
}

/// The kind of clause a CF instruction starts.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ClauseKind {
    /// ALU* (CF_ALU_WORD*).
    Alu,
    /// TEX.
    Tex,
    /// VTX or VTX_TC.
    Vtx,
}

impl Clause {
    /// The clause's kind.
    pub fn kind(&self) -> ClauseKind {
        match self {
            Clause::Alu(_) => ClauseKind::Alu,
            Clause::Fetch(FetchClause::Tex(_)) => ClauseKind::Tex,
            Clause::Fetch(FetchClause::Vtx(_)) => ClauseKind::Vtx,
        }
    }

    /// The clause's size as its CF instruction counts it: slots for ALU,
    /// instructions for TEX/VTX.
    pub fn count(&self) -> usize {
        match self {
            Clause::Alu(a) => a.slots(),
            Clause::Fetch(f) => f.len(),
        }
    }

    /// The clause's size in qwords.
    pub fn qwords(&self) -> u64 {
        match self {
            Clause::Alu(a) => a.slots() as u64,
            Clause::Fetch(f) => f.len() as u64 * FETCH_QWORDS,
        }
    }
}

/// The clause a CF instruction starts: `(kind, address, count)`.
pub fn clause_ref(inst: &CfInst) -> Option<(ClauseKind, u32, usize)> {
    match inst {
        CfInst::Alu(a) => Some((ClauseKind::Alu, a.addr.get(), a.count.get() as usize)),
        CfInst::Cf(c) => match c.op.addr_meaning() {
            CfAddr::Clause(FetchClauseKind::Tex) => {
                Some((ClauseKind::Tex, c.addr, c.count.get() as usize))
            }
            CfAddr::Clause(FetchClauseKind::Vtx) => {
                Some((ClauseKind::Vtx, c.addr, c.count.get() as usize))
            }
            _ => None,
        },
        CfInst::Export(_) | CfInst::Mem(_) => None,
    }
}

/// Why bytes are not a valid program.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ProgramDecodeError {
    /// The length is not a whole number of qwords.
    #[error("program is {len} bytes long, not a multiple of 8")]
    Truncated {
        /// The length in bytes.
        len: usize,
    },
    /// A CF instruction does not decode.
    #[error("CF instruction {index}: {error}")]
    Cf {
        /// Its index (= qword address).
        index: u32,
        /// Why.
        error: DecodeError,
    },
    /// An ALU instruction does not decode.
    #[error("ALU slot at qword {addr}: {error}")]
    Alu {
        /// Its qword address.
        addr: u64,
        /// Why.
        error: DecodeError,
    },
    /// A fetch instruction does not decode.
    #[error("fetch instruction at qword {addr}: {error}")]
    Fetch {
        /// Its qword address.
        addr: u64,
        /// Why.
        error: DecodeError,
    },
    /// A clause starts inside the CF program.
    #[error("CF instruction {cf_index} starts a clause at qword {addr}, inside the CF program")]
    ClauseInsideCf {
        /// The CF instruction.
        cf_index: u32,
        /// The clause address.
        addr: u32,
    },
    /// A clause extends past the end of the program.
    #[error(
        "CF instruction {cf_index}: clause at qword {addr} of {qwords} qwords ends past the program's {len} qwords"
    )]
    ClauseOutOfRange {
        /// The CF instruction.
        cf_index: u32,
        /// The clause address.
        addr: u32,
        /// The clause size in qwords.
        qwords: u64,
        /// The program size in qwords.
        len: u64,
    },
    /// A TEX/VTX clause starts at an odd qword.
    #[error(
        "CF instruction {cf_index}: fetch clause at odd qword {addr} (16-byte alignment required)"
    )]
    ClauseMisaligned {
        /// The CF instruction.
        cf_index: u32,
        /// The clause address.
        addr: u32,
    },
    /// Two CF instructions start clauses at one address with different kinds or sizes.
    #[error("CF instructions {first} and {second} disagree about the clause at qword {addr}")]
    ClauseConflict {
        /// The first CF instruction.
        first: u32,
        /// The second.
        second: u32,
        /// The clause address.
        addr: u32,
    },
    /// Two clauses overlap.
    #[error("the clause at qword {second} overlaps the clause at qword {first}")]
    ClausesOverlap {
        /// The earlier clause.
        first: u32,
        /// The later clause.
        second: u32,
    },
    /// An instruction group has more than five instructions.
    #[error("ALU group at qword {addr} has no LAST bit within 5 instructions")]
    GroupTooLong {
        /// The group's first qword.
        addr: u64,
    },
    /// An instruction group or its literals run past the clause end.
    #[error("ALU group at qword {addr} runs past the end of its clause at qword {clause_end}")]
    GroupPastClauseEnd {
        /// The group's first qword.
        addr: u64,
        /// The clause's end.
        clause_end: u64,
    },
    /// A qword between clauses is not zero.
    #[error("qword {addr} lies between clauses and is not zero")]
    NonZeroGap {
        /// Its address.
        addr: u64,
    },
    /// Clauses are separated by more than the one qword that aligns a
    /// fetch clause.
    #[error(
        "{qwords} qwords at qword {addr} separate two clauses (only one, before an aligned fetch clause, is allowed)"
    )]
    Gap {
        /// The first qword of the gap.
        addr: u64,
        /// Its size.
        qwords: u64,
    },
    /// Data follows the last clause.
    #[error("{qwords} qwords follow the last clause, which ends at qword {end}")]
    TrailingData {
        /// The last clause's end.
        end: u64,
        /// How many qwords follow.
        qwords: u64,
    },
    /// A branch or loop instruction targets something outside the CF program.
    #[error("CF instruction {cf_index} jumps to {target}, outside the CF program of {cf_len}")]
    JumpOutOfRange {
        /// The CF instruction.
        cf_index: u32,
        /// Its target.
        target: u32,
        /// The CF program length.
        cf_len: u32,
    },
}

/// Why a [`Program`] cannot be encoded.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ProgramEncodeError {
    /// An ALU group has no instructions or more than five.
    #[error("ALU clause at qword {addr}, group {group}: {len} instructions (1..=5 allowed)")]
    GroupSize {
        /// The clause.
        addr: u32,
        /// The group index.
        group: usize,
        /// Its instruction count.
        len: usize,
    },
    /// An ALU group's literal dwords do not match what its sources select.
    #[error(
        "ALU clause at qword {addr}, group {group}: {found} literal dwords, sources need {needed}"
    )]
    LiteralCount {
        /// The clause.
        addr: u32,
        /// The group index.
        group: usize,
        /// Literal dwords present.
        found: usize,
        /// Literal dwords needed.
        needed: usize,
    },
    /// No CF instruction starts this clause.
    #[error("no CF instruction starts the clause at qword {addr}")]
    UnreferencedClause {
        /// The clause.
        addr: u32,
    },
    /// The first clause does not start right after the CF program.
    #[error(
        "the CF program has {cf_len} instructions but the first clause starts at qword {first_clause}; pad with CF NOPs"
    )]
    CfNotAdjacent {
        /// The CF program length.
        cf_len: usize,
        /// The first clause's address.
        first_clause: u32,
    },
    /// A clause overlaps what precedes it, or leaves a gap other than one
    /// aligning qword.
    #[error("the clause at qword {addr} does not follow what precedes it (qword {expected})")]
    Misplaced {
        /// The clause.
        addr: u32,
        /// Where the previous clause (or the CF program) ends.
        expected: u64,
    },
    /// The encoded image does not decode back to the program (a CF
    /// instruction names a missing clause, a wrong size or kind, a jump
    /// target out of range, a misaligned fetch clause, ...).
    #[error("the encoded program does not decode: {0}")]
    Invalid(ProgramDecodeError),
    /// The encoded image decodes to a different program (a bug).
    #[error("the encoded program decodes to a different program")]
    NotCanonical,
}

fn qword(bytes: &[u8], addr: u64) -> [u32; 2] {
    let at = addr as usize * QWORD_BYTES;
    let dword = |i: usize| {
        let mut b = [0u8; 4];
        b.copy_from_slice(&bytes[at + 4 * i..at + 4 * i + 4]);
        u32::from_le_bytes(b)
    };
    [dword(0), dword(1)]
}

/// Decode a program image (`.text` bytes). See the module doc for the
/// layout rules.
///
/// # Errors
///
/// A [`ProgramDecodeError`] naming the first malformed instruction or
/// layout violation.
pub fn decode_program(bytes: &[u8]) -> Result<Program, ProgramDecodeError> {
    if !bytes.len().is_multiple_of(QWORD_BYTES) {
        return Err(ProgramDecodeError::Truncated { len: bytes.len() });
    }
    let len = (bytes.len() / QWORD_BYTES) as u64;

    // The CF program: qwords up to the first clause.
    let mut cf = Vec::new();
    let mut cf_end = len;
    let mut refs: Vec<(u32, ClauseKind, u32, usize)> = Vec::new();
    let mut index = 0u64;
    while index < cf_end {
        let cf_index = index as u32;
        let inst = decode_cf(qword(bytes, index)).map_err(|error| ProgramDecodeError::Cf {
            index: cf_index,
            error,
        })?;
        if let Some((kind, addr, count)) = clause_ref(&inst) {
            if u64::from(addr) <= index {
                return Err(ProgramDecodeError::ClauseInsideCf { cf_index, addr });
            }
            cf_end = cf_end.min(u64::from(addr));
            refs.push((cf_index, kind, addr, count));
        }
        cf.push(inst);
        index += 1;
    }
    let cf_len = cf.len() as u32;
    check_jumps(&cf)?;

    // Clause references, grouped by address.
    let mut starts: BTreeMap<u32, (u32, ClauseKind, usize)> = BTreeMap::new();
    for &(cf_index, kind, addr, count) in &refs {
        if kind != ClauseKind::Alu && addr % 2 != 0 {
            return Err(ProgramDecodeError::ClauseMisaligned { cf_index, addr });
        }
        let qwords = match kind {
            ClauseKind::Alu => count as u64,
            ClauseKind::Tex | ClauseKind::Vtx => count as u64 * FETCH_QWORDS,
        };
        if u64::from(addr) + qwords > len {
            return Err(ProgramDecodeError::ClauseOutOfRange {
                cf_index,
                addr,
                qwords,
                len,
            });
        }
        match starts.get(&addr) {
            Some(&(first, k, c)) if (k, c) != (kind, count) => {
                return Err(ProgramDecodeError::ClauseConflict {
                    first,
                    second: cf_index,
                    addr,
                });
            }
            Some(_) => {}
            None => {
                starts.insert(addr, (cf_index, kind, count));
            }
        }
    }

    // The clauses, in address order, with zero gaps between them.
    let mut clauses = BTreeMap::new();
    let mut prev: Option<(u32, u64)> = None;
    let mut end = u64::from(cf_len);
    for (&addr, &(_, kind, count)) in &starts {
        let start = u64::from(addr);
        if let Some((first, prev_end)) = prev
            && start < prev_end
        {
            return Err(ProgramDecodeError::ClausesOverlap {
                first,
                second: addr,
            });
        }
        if start > end {
            let aligns_fetch = kind != ClauseKind::Alu && start == end + 1;
            if !aligns_fetch {
                return Err(ProgramDecodeError::Gap {
                    addr: end,
                    qwords: start - end,
                });
            }
            check_zero(bytes, end)?;
        }
        let clause = match kind {
            ClauseKind::Alu => Clause::Alu(decode_alu_clause(bytes, start, count as u64)?),
            ClauseKind::Tex => Clause::Fetch(FetchClause::Tex(
                (0..count as u64)
                    .map(|i| {
                        let at = start + i * FETCH_QWORDS;
                        decode_tex(fetch_words(bytes, at))
                            .map_err(|error| ProgramDecodeError::Fetch { addr: at, error })
                    })
                    .collect::<Result<_, _>>()?,
            )),
            ClauseKind::Vtx => Clause::Fetch(FetchClause::Vtx(
                (0..count as u64)
                    .map(|i| {
                        let at = start + i * FETCH_QWORDS;
                        decode_vtx_clause_inst(fetch_words(bytes, at))
                            .map_err(|error| ProgramDecodeError::Fetch { addr: at, error })
                    })
                    .collect::<Result<_, _>>()?,
            )),
        };
        end = start + clause.qwords();
        prev = Some((addr, end));
        clauses.insert(addr, clause);
    }
    if !starts.is_empty() && end < len {
        return Err(ProgramDecodeError::TrailingData {
            end,
            qwords: len - end,
        });
    }
    Ok(Program { cf, clauses })
}

fn fetch_words(bytes: &[u8], addr: u64) -> [u32; 4] {
    let [a, b] = qword(bytes, addr);
    let [c, d] = qword(bytes, addr + 1);
    [a, b, c, d]
}

fn check_zero(bytes: &[u8], addr: u64) -> Result<(), ProgramDecodeError> {
    if qword(bytes, addr) == [0, 0] {
        Ok(())
    } else {
        Err(ProgramDecodeError::NonZeroGap { addr })
    }
}

fn check_jumps(cf: &[CfInst]) -> Result<(), ProgramDecodeError> {
    let cf_len = cf.len() as u32;
    for (index, inst) in cf.iter().enumerate() {
        if let CfInst::Cf(c) = inst
            && c.op.addr_meaning() == CfAddr::JumpTarget
            && c.addr >= cf_len
        {
            return Err(ProgramDecodeError::JumpOutOfRange {
                cf_index: index as u32,
                target: c.addr,
                cf_len,
            });
        }
    }
    Ok(())
}

fn decode_alu_clause(
    bytes: &[u8],
    start: u64,
    slots: u64,
) -> Result<AluClause, ProgramDecodeError> {
    let clause_end = start + slots;
    let mut groups = Vec::new();
    let mut at = start;
    while at < clause_end {
        let group_start = at;
        let past_end = ProgramDecodeError::GroupPastClauseEnd {
            addr: group_start,
            clause_end,
        };
        let mut group = AluGroup::default();
        loop {
            if at >= clause_end {
                return Err(past_end);
            }
            if group.insts.len() == MAX_GROUP_INSTS {
                return Err(ProgramDecodeError::GroupTooLong { addr: group_start });
            }
            let (inst, group_end) = decode_alu(qword(bytes, at))
                .map_err(|error| ProgramDecodeError::Alu { addr: at, error })?;
            at += 1;
            group.insts.push(inst);
            if group_end == GroupEnd::Last {
                break;
            }
        }
        let literal_slots = group.literal_dwords_needed() as u64 / 2;
        if at + literal_slots > clause_end {
            return Err(past_end);
        }
        for _ in 0..literal_slots {
            group.literals.extend(qword(bytes, at));
            at += 1;
        }
        groups.push(group);
    }
    Ok(AluClause { groups })
}

/// Encode a program into its image (`.text` bytes).
///
/// # Errors
///
/// A [`ProgramEncodeError`] if the program is not laid out as the module
/// doc requires, i.e. if [`decode_program`] would not give it back.
pub fn encode_program(program: &Program) -> Result<Vec<u8>, ProgramEncodeError> {
    if let Some(&first_clause) = program.clauses.keys().next()
        && program.cf.len() as u64 != u64::from(first_clause)
    {
        return Err(ProgramEncodeError::CfNotAdjacent {
            cf_len: program.cf.len(),
            first_clause,
        });
    }
    let referenced: std::collections::BTreeSet<u32> = program
        .cf
        .iter()
        .filter_map(clause_ref)
        .map(|(_, addr, _)| addr)
        .collect();
    let mut words: Vec<u32> = Vec::new();
    for inst in &program.cf {
        words.extend(encode_cf(inst));
    }
    for (&addr, clause) in &program.clauses {
        if !referenced.contains(&addr) {
            return Err(ProgramEncodeError::UnreferencedClause { addr });
        }
        let expected = (words.len() / 2) as u64;
        let start = u64::from(addr);
        if start != expected && start != expected + 1 {
            return Err(ProgramEncodeError::Misplaced { addr, expected });
        }
        words.resize(2 * start as usize, 0);
        match clause {
            Clause::Alu(alu) => {
                for (index, group) in alu.groups.iter().enumerate() {
                    encode_group(&mut words, group, addr, index)?;
                }
            }
            Clause::Fetch(FetchClause::Tex(insts)) => {
                for inst in insts {
                    words.extend(encode_tex(inst));
                }
            }
            Clause::Fetch(FetchClause::Vtx(insts)) => {
                for inst in insts {
                    words.extend(match inst {
                        VtxClauseInst::Fetch(v) => encode_vtx(v),
                        VtxClauseInst::MemRead(m) => encode_mem_rd(m),
                    });
                }
            }
        }
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    match decode_program(&bytes) {
        Ok(decoded) if decoded == *program => Ok(bytes),
        Ok(_) => Err(ProgramEncodeError::NotCanonical),
        Err(e) => Err(ProgramEncodeError::Invalid(e)),
    }
}

fn encode_group(
    words: &mut Vec<u32>,
    group: &AluGroup,
    addr: u32,
    index: usize,
) -> Result<(), ProgramEncodeError> {
    let len = group.insts.len();
    if len == 0 || len > MAX_GROUP_INSTS {
        return Err(ProgramEncodeError::GroupSize {
            addr,
            group: index,
            len,
        });
    }
    let needed = group.literal_dwords_needed();
    if group.literals.len() != needed {
        return Err(ProgramEncodeError::LiteralCount {
            addr,
            group: index,
            found: group.literals.len(),
            needed,
        });
    }
    for (i, inst) in group.insts.iter().enumerate() {
        let end = if i + 1 == len {
            GroupEnd::Last
        } else {
            GroupEnd::More
        };
        words.extend(encode_alu(inst, end));
    }
    words.extend(&group.literals);
    Ok(())
}
