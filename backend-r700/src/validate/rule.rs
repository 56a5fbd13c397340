//! The hardware rules the R700 validator checks: one [`Rule`] variant per
//! rule, each citing the manual (`shared/spec/seeds/r700-isa.txt`, line
//! numbers `Lnnnn`) and the digest rule number (`Rnn`), and the
//! [`Violation`] that names a broken rule, where, and what is wrong.

use std::fmt;

ctm_isa_kit::rules! {
    /// A checkable hardware rule of the R700 (digest §4, §5.2).
    ///
    /// Rules the instruction *types* make impossible to break (one
    /// INDEX_MODE per instruction, R21; at most two kcache sets per clause,
    /// R36; two vector units writing one GPR element, R5, since a vector
    /// unit's element is its destination element; field ranges) have no variant. See `docs/validator-r700.md`.
    pub enum Rule {
        // --- Instruction groups (digest §4.1) -------------------------------
        /// R1, L1230-1234: a group has 1..=5 instruction slots.
        GroupSize => "§4.3 L1230-1234 (R1)",
        /// R3/R4, L1255-1282, L1964: each unit X, Y, Z, W, Trans runs at most one
        /// instruction of a group (trans-only ops go to Trans, vector-only ops
        /// to their element's unit).
        UnitTaken => "§4.4 L1255-1282, L1964 (R3, R4)",
        /// R2, Table 4.1, L1234-1253: instructions are in unit order X, Y, Z, W,
        /// Trans; a Trans instruction is the last of its group.
        UnitOrder => "§4.3 Table 4.1 L1234-1253 (R2)",
        /// R6, L1906, L1978-1980: DOT4, DOT4_IEEE, CUBE, MAX4 fill all four
        /// vector units with the same opcode, OMOD and CLAMP.
        ReductionSlots => "§4.8 L1906, L1978-1980 (R6)",
        /// R7, §4.12 L2085: two-slot double ops fill X+Y or Z+W, four-slot
        /// double ops fill X..W, with the same opcode.
        DoubleSlots => "§4.12 L2085 (R7)",
        /// R8, L1872-1874, L2002, L2026: at most one PRED_SET* per group, the
        /// only instruction that may update the predicate or execute mask; no
        /// two KILL*; no KILL* with PRED_SET*.
        PredicateUpdates => "§4.8 L1872-1874, L2002, L2026 (R8)",
        /// R9, L1872, L3866: a KILL* is in the last group of its ALU clause.
        KillNotLast => "§4.8 L1872, L3866 (R9)",

        // --- Operands and constants (digest §4.2) ---------------------------
        /// R10, L1356, L1465, L1723-1725: the Trans instruction has at most two
        /// constant operands.
        ConstantCount => "§4.7 L1356, L1465, L1723-1725 (R10)",
        /// R11, L1453, L1662-1679: a group reads at most two (constant-file
        /// address, element pair) combinations.
        CfilePorts => "§4.7 L1453, L1662-1679 (R11)",
        /// R12, L1375, L1234: at most 4 literal dwords per group, and every
        /// literal element an operand selects is present.
        LiteralLimit => "§4.6.4 L1375, L1234 (R12)",
        /// R12, L1465: a source field the opcode does not read must not select
        /// the literal (253), or a literal is fetched anyway.
        UnusedLiteralSelect => "§4.7 L1465 (R12)",
        /// R13, L1350, L1413-1415: a kcache operand lies in a locked line (mode
        /// NOP locks none, LOCK_1 constants 0-15, LOCK_2 0-31).
        KcacheUnlocked => "§4.6.4 L1350, L1413-1415 (R13)",
        /// R36, L545, L1363: a program uses the constant file (DX9) or kcache
        /// (DX10), never both.
        ConstantModeMix => "§2.5 L545, §4.6.4 L1363 (R36)",

        // --- GPR read ports and bank swizzle (digest §4.3) ------------------
        /// R16-R18, R20, L1447-1744: per cycle 0..=2 and element bank, at most
        /// one GPR address is read.
        GprReadPort => "§4.7.4-4.7.9 L1447-1744 (R16-R18, R20)",
        /// Table 4.3, L8113-8121: the Trans slot defines bank swizzles 0-3 only.
        TransBankSwizzle => "Table 4.3, L8113-8121",
        /// R19, L1562, L1589, L1709, L1734-1737: a Trans instruction with n
        /// constant operands reads no GPR before cycle n.
        TransConstantCycle => "§4.7.8 L1562, L1589, L1734-1737 (R19)",
        /// L1284, L2828, L1920: PV.e / PS come from the previous group of the
        /// same clause, which ran unit e / Trans (not a MOVA*).
        PreviousResult => "§4.4 L1284, L2828; §4.9.5 L1920",
        /// Table 2.6 L541, §4.6 L1299-1301, L1334, L1346: a clause temporary
        /// (GPR 128 − N..127) is written earlier in its ALU clause before it
        /// is read, never indexed, never used by a fetch or an export.
        ClauseTemp => "Table 2.6 L541, §4.6 L1299-1309, L1334, L1346",

        // --- Relative addressing (digest §4.4, §4.5) ------------------------
        /// R22, Table 4.2 L1317-1324: a relative kcache operand uses only
        /// INDEX_MODE LOOP.
        KcacheRelativeIndex => "§4.6.1 Table 4.2 L1317-1324 (R22)",
        /// R23, R29, L1328, L831: AR is loaded by a MOVA* in an earlier group of
        /// the same clause before an AR-relative access.
        ArNotLoaded => "§4.6.1 L1328, §3.2 L831 (R23, R29)",
        /// R24, L1332: a group uses at most one AR element.
        ArElementMix => "§4.6.1 L1332 (R24)",
        /// R25, L1330, L1918, L4483: a group with a MOVA* has no AR-relative
        /// access.
        RelativeInMovaGroup => "§4.6.1 L1330, L1918, L4483 (R25)",
        /// R26, L1900-1920, L2010: a MOVA* has its GPR write (WRITE_MASK)
        /// cleared; its result is undefined.
        MovaWritesGpr => "§4.9.5 L1900-1920, L2010 (R26)",
        /// R30, L2032, L2069-2079: a GPR write and a read in the next group,
        /// one AR-relative and the other not (or aL-relative), may alias
        /// undetected.
        AdjacentRelativeHazard => "§4.11 L2032, L2069-2079 (R30)",
        /// R22, L1143, L2662: aL (INDEX_MODE LOOP, LOCK_LOOP_INDEX) is used only
        /// in clauses no CF path runs outside a loop.
        LoopIndexOutsideLoop => "§3.7.3 L1143, L2662 (R22)",

        // --- Clauses (digest §4.7) ------------------------------------------
        /// R33, Table 3.2 L816, L7748-7749: an ALU clause has 1..=128 slots.
        AluClauseSize => "Table 3.2 L816, L7748-7749 (R33)",
        /// R34, Table 3.2 L817-818, L2091, L2120: a TEX or VTX clause has at
        /// most 8 instructions (configurable: the COUNT field allows 16).
        FetchClauseSize => "Table 3.2 L817-818, L2091, L2120 (R34)",
        /// R35, L2169: a memory-read clause has at most 16 instructions and no
        /// vertex-fetch instruction.
        MemReadClause => "§7 L2169 (R35)",
        /// R37, Table 3.2, L7632, §3.1: every clause a CF instruction starts
        /// exists with that kind and size.
        ClauseReference => "§3.1 L7632",
        /// R37, Table 3.2 L815-818: clauses lie after the CF program without
        /// overlapping; TEX/VTX clauses start at 128-bit (even qword) addresses.
        ClauseLayout => "Table 3.2 L815-818 (R37)",

        // --- CF program (digest §4.8, §5.2) ---------------------------------
        /// R39, L1021-1026, L7672-7699: CF instructions other than branches and
        /// loops use COND = ACTIVE.
        CondNotActive => "§3.6.3 L1021-1026, L7672-7699 (R39)",
        /// R40, L1013, L7708: WHOLE_QUAD_MODE and VALID_PIXEL_MODE are not both set.
        WqmWithVpm => "§3.6.2 L1013, L7708 (R40)",
        /// §3.1, L7640: branch, loop and call targets lie inside the CF program;
        /// LOOP_BREAK/LOOP_CONTINUE target a LOOP_END.
        JumpTarget => "§3.7 L7640",
        /// R42, L2555: a JUMP does not leave its loop.
        JumpOutOfLoop => "§9.1 L2555 (R42)",
        /// R43, L1109, L2394: CALL and CALL_FS have POP_COUNT 0.
        CallPopCount => "§3.7 L1109, L2394 (R43)",
        /// R43, L1165: RETURN only inside a subroutine.
        ReturnOutsideSubroutine => "§3.7.6 L1165 (R43)",
        /// §5.2, L1083-1085: entries + subentries/subentries-per-entry ≤
        /// STACK_SIZE on every path.
        StackOverflow => "§3.6.5 L1060-1085 (R44)",
        /// §5.2, L1133: a POP (or pop count) does not pop more pushes than the
        /// current loop or subroutine holds.
        StackUnderflow => "§3.6.5 L1060-1085, L1133",
        /// §5.4, L1100, L1147: LOOP_END closes the innermost open loop;
        /// LOOP_BREAK/CONTINUE and ALU_BREAK/CONTINUE are inside a loop.
        LoopMismatch => "§3.7.3 L1100, L1147",
        /// R41, L795-797: END_OF_PROGRAM is never inside a loop, subroutine or
        /// with pushes outstanding.
        EndOfProgramNested => "§3.1 L795-797 (R41)",
        /// R41, L711: every path reaches an instruction with END_OF_PROGRAM.
        MissingEndOfProgram => "§3.1 L711 (R41)",
        /// ctm: the flow analysis explores a bounded number of CF states; a
        /// program needing more is not proven correct.
        FlowAnalysisLimit => "ctm",}
}

/// Where a violation is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Loc {
    /// The program as a whole.
    Program,
    /// CF instruction `index`.
    Cf(usize),
    /// ALU clause at qword `clause`, group `group`, instruction `slot`
    /// (`None`: the group as a whole).
    Alu {
        /// The clause's start address (qwords).
        clause: u32,
        /// The group's index in the clause.
        group: usize,
        /// The instruction's index in the group.
        slot: Option<usize>,
    },
    /// Fetch clause at qword `clause`, instruction `inst` (`None`: the
    /// clause as a whole).
    Fetch {
        /// The clause's start address (qwords).
        clause: u32,
        /// The instruction's index.
        inst: Option<usize>,
    },
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Loc::Program => write!(f, "program"),
            Loc::Cf(i) => write!(f, "cf {i}"),
            Loc::Alu {
                clause,
                group,
                slot: None,
            } => write!(f, "alu clause @{clause} group {group}"),
            Loc::Alu {
                clause,
                group,
                slot: Some(s),
            } => write!(f, "alu clause @{clause} group {group} slot {s}"),
            Loc::Fetch { clause, inst: None } => write!(f, "fetch clause @{clause}"),
            Loc::Fetch {
                clause,
                inst: Some(i),
            } => write!(f, "fetch clause @{clause} inst {i}"),
        }
    }
}

/// A broken rule: which, where, and what is wrong.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{loc}: hardware rule {rule} broken: {detail}")]
pub struct Violation {
    /// The rule.
    pub rule: Rule,
    /// Where.
    pub loc: Loc,
    /// What is wrong, in words.
    pub detail: String,
}

impl Violation {
    /// A violation of `rule` at `loc`.
    pub fn new(rule: Rule, loc: Loc, detail: impl Into<String>) -> Self {
        Violation {
            rule,
            loc,
            detail: detail.into(),
        }
    }
}
