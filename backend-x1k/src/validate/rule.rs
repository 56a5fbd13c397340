//! The hardware rules the validator checks: one [`Rule`] variant per rule,
//! each citing its CTM guide section (`shared/spec/seeds/ctm-guide-x1k.txt`)
//! or fact-sheet section (`x1k-encoding.md` §n), and the [`Violation`] that
//! names a broken rule, the slot and what is wrong.

ctm_isa_kit::rules! {
    /// A hardware rule of the X1K fragment processor under CTM.
    ///
    /// Rules the instruction *types* already make impossible to break (an FC
    /// predicate is always a replicate swizzle, CTM §3.5.1; an ALU instruction
    /// cannot write an output, CTM §3.1; register numbers are in range, CTM
    /// §3.3.1) have no variant: `isa::decode` rejects such words. See
    /// `docs/validator-x1k.md` for the full list.
    pub enum Rule {
        // --- The program as a whole -------------------------------------------
        /// CTM §3.1: there are 512 instruction slots; a program has 1..=512.
        ProgramLength => "CTM §3.1",
        /// `x1k-encoding.md` §10, CTM §4.1.4: `US_CONFIG`, `US_PIXSIZE` and
        /// `US_FC_CTRL` hold only their documented fields.
        ProgramRegister => "CTM §4.1.4, x1k-encoding §10",
        /// CTM §4.1.4: `US_CODE_ADDR` starts at slot 0 and ends at the last
        /// slot, `US_CODE_RANGE` is `(INSTR_CNT − 1) << 16`, and `INSTR_CNT` is
        /// the number of `.text` slots (checked when validating an ELF image).
        CodeRange => "CTM §4.1.4",
        /// CTM §3.1: the last executed instruction is an OUTPUT instruction.
        LastNotOutput => "CTM §3.1",
        /// CTM §3.1, §3.4.2: the last instruction sets `TEX_SEM_WAIT`.
        LastWithoutSemWait => "CTM §3.1, §3.4.2",
        /// CTM §4.1.4 (`US_PIXSIZE`, "largest register used"): no temporary
        /// above `US_PIXSIZE` is used.
        PixsizeTooSmall => "CTM §4.1.4",
        /// CTM §4.1.4: the ATI notes list exactly the inputs, outputs,
        /// conditional output, float and integer constants and early exit the
        /// program uses, and `FG_DEPTH_SRC` says whether it exports the
        /// conditional value (checked when validating an ELF image).
        NoteMismatch => "CTM §4.1.4",

        // --- ALU and OUTPUT instructions --------------------------------------
        /// CTM §3.1: only ALU instructions update predicates or the ALU result;
        /// an OUTPUT instruction cannot set `ALU_WMASK`.
        OutputWritesAluResult => "CTM §3.1",
        /// CTM §3.3.5: `OMOD_DISABLED` is valid only with MIN, MAX, CND, CMP.
        OmodDisabledOp => "CTM §3.3.5",
        /// CTM §3.3.5: with `OMOD_DISABLED` "clamping is not applied", so the
        /// clamp bit must not be set with it.
        OmodDisabledClamp => "CTM §3.3.5",
        /// CTM §3.3.4: RGB SOP is valid only if the alpha op is EX2, LN2, RCP,
        /// RSQ, SIN or COS.
        SopWithoutTranscendental => "CTM §3.3.4",
        /// CTM §3.3.4: alpha DP is valid only if the RGB op is DP3, DP4 or D2A.
        DpWithoutDotProduct => "CTM §3.3.4",
        /// CTM §3.3.3: DP4's fourth component takes the *alpha* unit's select
        /// and swizzle for inputs A and B; the manual does not say which input
        /// modifier applies, so the alpha A/B modifiers must equal the RGB A/B
        /// modifiers.
        Dp4ModifierMismatch => "CTM §3.3.3",
        /// CTM §3.3.3: a swizzle selects R, G, B, A, 0, 0.5 or 1; code 7
        /// ("unused", `x1k-encoding.md` §7.2) is not valid in an input the op
        /// reads.
        UndefinedSwizzle => "CTM §3.3.3",
        /// CTM §3.3.4 lists every operation the ALU performs; MDH/MDV
        /// (`x1k-encoding.md` §7.6, §7.7) are not among them — they need
        /// neighbouring pixels, which CTM's independent processors (§2.1.1) do
        /// not have.
        OpNotInCtmGuide => "CTM §3.3.4",
        /// CTM §3.3.2: an instruction using a presubtract result whose source
        /// was written by the immediately preceding ALU/OUTPUT instruction
        /// needs `NOP` set on that preceding instruction.
        PresubtractNop => "CTM §3.3.2",

        // --- Uncached (UMRT) output, US_CONFIG bit 0 ----------------------------
        /// CTM §3.3.8: an output instruction of a UMRT program writes all
        /// channels or none.
        UmrtPartialMask => "CTM §3.3.8",
        /// CTM §3.3.8: the alpha channel of a UMRT write must be zero (checked
        /// where the alpha result is a compile-time constant).
        UmrtAlphaNotZero => "CTM §3.3.8",
        /// CTM §3.3.8: cached and uncached writes cannot be mixed; in a UMRT
        /// program no OUTPUT instruction writes the (cached) W / conditional
        /// output.
        UmrtCachedWrite => "CTM §3.3.8",

        // --- Texture semaphore --------------------------------------------------
        /// CTM §3.4.2 (and §3.3.8 for UMRT writes): an instruction that sets
        /// `TEX_SEM_ACQUIRE` must also set `TEX_SEM_WAIT`.
        AcquireWithoutWait => "CTM §3.4.2",
        /// CTM §3.2.1, §3.4.2: a texture result is not read by an ALU or TEX
        /// instruction before a `TEX_SEM_WAIT` that follows an acquiring lookup
        /// at or after the producing lookup.
        TexResultNotReady => "CTM §3.2.1, §3.4.2",
        /// CTM §3.4.2: an ALU instruction does not overwrite a channel that a
        /// texture lookup still in flight will write.
        TexResultOverwritten => "CTM §3.4.2",
        /// CTM §3.4.2: "it is invalid to terminate the program while holding
        /// the texture semaphore".
        SemaphoreHeldAtEnd => "CTM §3.4.2",
        /// CTM §3.3.8, §3.4.2: an uncached read after uncached writes of this
        /// program needs an acquiring uncached write and a `TEX_SEM_WAIT` first.
        UncachedReadNotSynchronised => "CTM §3.3.8, §3.4.2",
        /// CTM §3.7 (errata): a flow-control instruction sets `TEX_SEM_WAIT`
        /// when any instruction that may follow it does.
        ErrataFcSemWait => "CTM §3.7",

        // --- ALU synchronisation -------------------------------------------------
        /// CTM §3.2.1: a TEX or FC instruction that uses a temporary, predicate
        /// bit or ALU result written by an ALU instruction since the last
        /// `ALU_WAIT` sets `ALU_WAIT`.
        MissingAluWait => "CTM §3.2.1",
        /// CTM §3.3.10: an FC instruction whose `JUMP_FUNC` reads the ALU result
        /// needs an ALU result written since the previous FC instruction on
        /// every path ("not preserved across flow control instructions").
        AluResultNotWritten => "CTM §3.3.10",
        /// CTM §3.5.1: an FC instruction whose `JUMP_FUNC` reads the predicate
        /// selects a predicate bit with `RGB_PRED_SEL`.
        FcPredicateNotSelected => "CTM §3.5.1",

        // --- Flow control -----------------------------------------------------
        /// CTM §3.5.3 (`JUMP_ADDR`), §3.1: a jump that can be taken targets a
        /// slot of the program.
        JumpOutOfRange => "CTM §3.5.3, §3.1",
        /// CTM §3.5, §3.5.2: partial flow-control mode (`US_FC_CTRL` bit 31 = 0)
        /// has no loop or address stack: no LOOP/REP/ENDLOOP/ENDREP/BREAK/
        /// CONTINUE, no CALL/RETURN.
        FullModeRequired => "CTM §3.5, §3.5.2",
        /// CTM §3.5.2: branch nesting at most 4 (partial mode) or 32 (full).
        BranchDepth => "CTM §3.5.2",
        /// CTM §3.5.3: a `DECR` pops no more frames than are open, and `B_ELSE`
        /// is used inside a conditional block.
        BranchUnderflow => "CTM §3.5.3",
        /// CTM §3.5.2: at most 4 loop-stack frames (full mode).
        LoopStackOverflow => "CTM §3.5.2",
        /// CTM §3.5.3: ENDLOOP/BREAKLOOP close a LOOP, ENDREP/BREAKREP a REP,
        /// CONTINUE is inside a loop.
        LoopMismatch => "CTM §3.5.3",
        /// CTM §3.5.2: at most 4 address-stack frames (full mode).
        AddressStackOverflow => "CTM §3.5.2",
        /// CTM §3.5.2: RETURN (`A_OP` POP) only inside a called subroutine.
        AddressStackUnderflow => "CTM §3.5.2",
        /// CTM §3.5.4: every path reaches a slot with the same nesting of
        /// conditional blocks and loops (IF/ELSE/ENDIF, LOOP/ENDLOOP, REP/ENDREP
        /// balanced along every path).
        NestingMismatch => "CTM §3.5.4",
        /// CTM §3.5.4: the conditional blocks inside a loop are closed at
        /// ENDLOOP/ENDREP, and BREAK/CONTINUE's `B_POP_CNT` is the number of
        /// conditional blocks they leave.
        LoopBodyUnbalanced => "CTM §3.5.4",
        /// CTM §3.5.2: "returns within dynamic branches and/or loops (nested in
        /// the subroutine) are not supported"; RETURN restores the nesting of
        /// its CALL.
        ReturnUnbalanced => "CTM §3.5.2",
        /// CTM §3.5.2, §3.5.4: the program ends with no open conditional block,
        /// loop or call.
        UnbalancedAtEnd => "CTM §3.5.2, §3.5.4",
        /// CTM §3.3.1, §3.5.2: "the loop variable is not valid if you are not
        /// in at least one LOOP block" — aL-relative addressing only inside a
        /// LOOP.
        RelativeOutsideLoop => "CTM §3.3.1, §3.5.2",
        /// ctm: the flow-control analysis gave up (more states than it
        /// explores); the program is too irregular to prove correct.
        AnalysisLimit => "ctm",}
}

/// A broken rule: which, where, and what is wrong. A violation in
/// compiler output is an internal compiler error (style §6), never the
/// user's fault.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{}: hardware rule {rule} broken: {detail}", slot_text(*.slot))]
pub struct Violation {
    /// The rule.
    pub rule: Rule,
    /// The instruction slot, or `None` for a program-level rule.
    pub slot: Option<u16>,
    /// What is wrong, in words.
    pub detail: String,
}

fn slot_text(slot: Option<u16>) -> String {
    match slot {
        Some(s) => format!("slot {s}"),
        None => "program".to_string(),
    }
}

impl Violation {
    /// A violation at `slot`.
    pub fn at(rule: Rule, slot: usize, detail: impl Into<String>) -> Self {
        Violation {
            rule,
            slot: Some(u16::try_from(slot).unwrap_or(u16::MAX)),
            detail: detail.into(),
        }
    }

    /// A program-level violation.
    pub fn program(rule: Rule, detail: impl Into<String>) -> Self {
        Violation {
            rule,
            slot: None,
            detail: detail.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_sections() {
        assert_eq!(Rule::PresubtractNop.name(), "presubtract-nop");
        assert_eq!(Rule::ALL.len(), 42);
        for r in Rule::ALL {
            assert!(
                r.section().starts_with("CTM") || *r == Rule::AnalysisLimit,
                "{r:?}"
            );
        }
        let v = Violation::at(Rule::LastNotOutput, 3, "slot 3 is FC");
        assert_eq!(
            v.to_string(),
            "slot 3: hardware rule last-not-output (CTM §3.1) broken: slot 3 is FC"
        );
    }
}
