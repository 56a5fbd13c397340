//! The X1K opcode table: every opcode of the RGB, alpha and texture units,
//! each defined once with its code, its spelling and its static facts —
//! which inputs it reads, its operation class, which transcendental it is,
//! which coordinates a texture op reads. The encoder, decoder,
//! disassembler, validator and simulator all read these rows (style §3,
//! issue 8); nothing else lists opcodes by property.
//!
//! Codes: `x1k-encoding.md` §7.6, §7.7, §8.4. Facts: CTM guide §3.3.3
//! (DP4's fourth component), §3.3.4 (what each op computes, hence reads;
//! SOP and DP; the transcendentals), §3.3.5 (`OMOD_DISABLED` only with
//! MIN, MAX, CND, CMP), §3.4.1 (texture coordinates; TEXKILL reads the
//! channels of its write mask, "the source swizzles are ignored").

use ctm_isa_kit::isa_ops;

/// What kind of operation an ALU opcode is (CTM §3.3.4, §3.3.5).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum OpClass {
    /// Arithmetic (MAD, FRC): output modifiers and clamping apply.
    Arithmetic,
    /// A selection (MIN, MAX, CND, CMP): the only ops valid with
    /// `OMOD_DISABLED` (bit-exact result, CTM §3.3.5).
    Select,
    /// A dot product of the RGB unit (DP3, DP4, D2A); alpha `DP` copies it.
    Dot,
    /// An alpha transcendental (EX2, LN2, RCP, RSQ, SIN, COS); RGB `SOP`
    /// copies it.
    Transcendental,
    /// Copies the other unit's result: RGB `SOP` (valid only with an alpha
    /// transcendental) and alpha `DP` (valid only with an RGB dot product).
    Replicate,
    /// MDH/MDV: AMD's derivative helpers, absent from the CTM guide (they
    /// need neighbouring pixels, `x1k-encoding.md` §14 item 14).
    Derivative,
}

/// A transcendental op of the alpha unit (CTM §3.3.4, §3.6.3): the alpha
/// ops RGB `SOP` may copy.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Transcendental {
    /// 2^A.
    Ex2,
    /// log2(A).
    Ln2,
    /// 1/A.
    Rcp,
    /// 1/sqrt(A).
    Rsq,
    /// sin(2π·A).
    Sin,
    /// cos(2π·A).
    Cos,
}

impl Transcendental {
    /// The alpha opcode computing it.
    pub const fn alpha_op(self) -> AlphaOp {
        match self {
            Transcendental::Ex2 => AlphaOp::Ex2,
            Transcendental::Ln2 => AlphaOp::Ln2,
            Transcendental::Rcp => AlphaOp::Rcp,
            Transcendental::Rsq => AlphaOp::Rsq,
            Transcendental::Sin => AlphaOp::Sin,
            Transcendental::Cos => AlphaOp::Cos,
        }
    }

    /// The transcendental an alpha op is, if any (read from the table).
    pub const fn of(op: AlphaOp) -> Option<Self> {
        op.facts().transcendental
    }
}

/// The static facts of an RGB opcode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RgbOpFacts {
    /// Per input A, B, C: the swizzle positions read (bit 0 = r, 1 = g,
    /// 2 = b). D2A reads A.rg, B.rg and C.b; SOP reads nothing.
    pub reads: [u8; 3],
    /// The operation class.
    pub class: OpClass,
}

/// The static facts of an alpha opcode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AlphaOpFacts {
    /// How many of the inputs A, B, C the op reads itself (A first). DP
    /// reads none of its own; an RGB DP4 reads the alpha unit's A and B as
    /// its fourth component ([`alpha_inputs_read`]).
    pub inputs: u8,
    /// The operation class.
    pub class: OpClass,
    /// Which transcendental the op is.
    pub transcendental: Option<Transcendental>,
}

/// Which coordinate channels a texture op reads (CTM §3.4.1).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CoordReads {
    /// Nothing (NOP).
    None,
    /// S and T (the source swizzle's first two selects).
    St,
    /// S, T and Q (selects 0, 1 and 3).
    Stq,
    /// The channels of the write mask, swizzle ignored (TEXKILL).
    WriteMask,
}

/// The static facts of a texture opcode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TexOpcodeFacts {
    /// The coordinate channels read.
    pub coords: CoordReads,
    /// Whether the op samples a texture (reads the CTM input `TEX_ID`) and
    /// writes its destination: all but NOP and TEXKILL.
    pub samples: bool,
}

isa_ops! {
    /// `RGB_OP` (§7.6, CTM §3.3.4). Codes 6 and 13..15 are undefined.
    pub enum RgbOp facts RgbOpFacts {
        /// A·B + C.
        Mad = 0 => "mad" { reads: [7, 7, 7], class: OpClass::Arithmetic },
        /// 3-component dot product, broadcast.
        Dp3 = 1 => "dp3" { reads: [7, 7, 0], class: OpClass::Dot },
        /// 4-component dot product; `.a` from the alpha unit's A/B selects.
        Dp4 = 2 => "dp4" { reads: [7, 7, 0], class: OpClass::Dot },
        /// A.r·B.r + A.g·B.g + C.b.
        D2a = 3 => "d2a" { reads: [3, 3, 4], class: OpClass::Dot },
        /// min(A, B).
        Min = 4 => "min" { reads: [7, 7, 0], class: OpClass::Select },
        /// max(A, B).
        Max = 5 => "max" { reads: [7, 7, 0], class: OpClass::Select },
        /// C > 0.5 ? A : B.
        Cnd = 7 => "cnd" { reads: [7, 7, 7], class: OpClass::Select },
        /// C >= 0 ? A : B.
        Cmp = 8 => "cmp" { reads: [7, 7, 7], class: OpClass::Select },
        /// A − floor(A).
        Frc = 9 => "frc" { reads: [7, 0, 0], class: OpClass::Arithmetic },
        /// Replicate the alpha unit's transcendental result.
        Sop = 10 => "sop" { reads: [0, 0, 0], class: OpClass::Replicate },
        /// Horizontal derivative helper (AMD only).
        Mdh = 11 => "mdh" { reads: [7, 7, 7], class: OpClass::Derivative },
        /// Vertical derivative helper (AMD only).
        Mdv = 12 => "mdv" { reads: [7, 7, 7], class: OpClass::Derivative },
    }
}

isa_ops! {
    /// `ALPHA_OP` (§7.7, CTM §3.3.4). Code 4 is reserved.
    pub enum AlphaOp facts AlphaOpFacts {
        /// A·B + C.
        Mad = 0 => "mad" { inputs: 3, class: OpClass::Arithmetic, transcendental: None },
        /// Copy the RGB unit's dot product.
        Dp = 1 => "dp" { inputs: 0, class: OpClass::Replicate, transcendental: None },
        /// min(A, B).
        Min = 2 => "min" { inputs: 2, class: OpClass::Select, transcendental: None },
        /// max(A, B).
        Max = 3 => "max" { inputs: 2, class: OpClass::Select, transcendental: None },
        /// C > 0.5 ? A : B.
        Cnd = 5 => "cnd" { inputs: 3, class: OpClass::Select, transcendental: None },
        /// C >= 0 ? A : B.
        Cmp = 6 => "cmp" { inputs: 3, class: OpClass::Select, transcendental: None },
        /// A − floor(A).
        Frc = 7 => "frc" { inputs: 1, class: OpClass::Arithmetic, transcendental: None },
        /// 2^A.
        Ex2 = 8 => "ex2" { inputs: 1, class: OpClass::Transcendental, transcendental: Some(Transcendental::Ex2) },
        /// log2(A).
        Ln2 = 9 => "ln2" { inputs: 1, class: OpClass::Transcendental, transcendental: Some(Transcendental::Ln2) },
        /// 1/A.
        Rcp = 10 => "rcp" { inputs: 1, class: OpClass::Transcendental, transcendental: Some(Transcendental::Rcp) },
        /// 1/sqrt(A).
        Rsq = 11 => "rsq" { inputs: 1, class: OpClass::Transcendental, transcendental: Some(Transcendental::Rsq) },
        /// sin(2π·A).
        Sin = 12 => "sin" { inputs: 1, class: OpClass::Transcendental, transcendental: Some(Transcendental::Sin) },
        /// cos(2π·A).
        Cos = 13 => "cos" { inputs: 1, class: OpClass::Transcendental, transcendental: Some(Transcendental::Cos) },
        /// Horizontal derivative helper (AMD only).
        Mdh = 14 => "mdh" { inputs: 3, class: OpClass::Derivative, transcendental: None },
        /// Vertical derivative helper (AMD only).
        Mdv = 15 => "mdv" { inputs: 3, class: OpClass::Derivative, transcendental: None },
    }
}

isa_ops! {
    /// `US_TEX_INST.INST` (§8.4, CTM §3.4.1). `LdUncached` = 7 is ctm's
    /// resolution of `x1k-encoding.md` §14 item 4 (see `docs/isa-x1k.md`).
    pub enum TexOpcode facts TexOpcodeFacts {
        /// `TEX_INST_NOP`.
        Nop = 0 => "nop" { coords: CoordReads::None, samples: false },
        /// `TEX_INST_LOOKUP` (AMD LD).
        Ld = 1 => "ld" { coords: CoordReads::St, samples: true },
        /// `TEX_INST_KILL_LT_0` (AMD TEXKILL).
        TexKill = 2 => "texkill" { coords: CoordReads::WriteMask, samples: false },
        /// `TEX_INST_LOOKUP_PROJ` (AMD PROJ).
        Proj = 3 => "proj" { coords: CoordReads::Stq, samples: true },
        /// AMD LODBIAS (not in the CTM guide).
        LodBias = 4 => "lodbias" { coords: CoordReads::Stq, samples: true },
        /// AMD LOD (not in the CTM guide).
        Lod = 5 => "lod" { coords: CoordReads::Stq, samples: true },
        /// AMD DXDY: gradients from word 3 (not in the CTM guide).
        Dxdy = 6 => "dxdy" { coords: CoordReads::St, samples: true },
        /// `TEX_INST_LOOKUP_UNCACHED` (code inferred, see module doc).
        LdUncached = 7 => "ld_uncached" { coords: CoordReads::St, samples: true },
    }
}

impl RgbOp {
    /// Per input A, B, C, the swizzle positions read (bit 0 = r).
    pub const fn reads(self) -> [u8; 3] {
        self.facts().reads
    }

    /// How many inputs the op reads (CTM §3.3.4; MDH/MDV per AMD: A·B + C).
    pub const fn arity(self) -> usize {
        let r = self.facts().reads;
        (r[0] != 0) as usize + (r[1] != 0) as usize + (r[2] != 0) as usize
    }

    /// The operation class.
    pub const fn class(self) -> OpClass {
        self.facts().class
    }
}

impl AlphaOp {
    /// How many inputs the op reads itself.
    pub const fn arity(self) -> usize {
        self.facts().inputs as usize
    }

    /// The operation class.
    pub const fn class(self) -> OpClass {
        self.facts().class
    }

    /// Which transcendental the op is, if any.
    pub const fn transcendental(self) -> Option<Transcendental> {
        self.facts().transcendental
    }
}

/// The alpha inputs A, B, C an instruction reads, given both ops: the
/// alpha op's own inputs, plus A and B when the RGB op is DP4 (its fourth
/// component uses the alpha unit's A and B selects, CTM §3.3.3).
pub const fn alpha_inputs_read(alpha: AlphaOp, rgb: RgbOp) -> [bool; 3] {
    let n = alpha.facts().inputs;
    let dp4 = matches!(rgb, RgbOp::Dp4);
    [n >= 1 || dp4, n >= 2 || dp4, n >= 3]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_the_ctm_guide() {
        let select: Vec<_> = RgbOp::ALL
            .iter()
            .filter(|o| o.class() == OpClass::Select)
            .collect();
        assert_eq!(select, [&RgbOp::Min, &RgbOp::Max, &RgbOp::Cnd, &RgbOp::Cmp]);
        let trans: Vec<_> = AlphaOp::ALL
            .iter()
            .filter_map(|o| o.transcendental())
            .collect();
        assert_eq!(trans.len(), 6);
        for t in trans {
            assert_eq!(Transcendental::of(t.alpha_op()), Some(t));
            assert_eq!(t.alpha_op().class(), OpClass::Transcendental);
        }
        assert_eq!(RgbOp::Sop.arity(), 0);
        assert_eq!(RgbOp::Frc.arity(), 1);
        assert_eq!(RgbOp::Dp4.arity(), 2);
        assert_eq!(RgbOp::D2a.arity(), 3);
        assert_eq!(AlphaOp::Dp.arity(), 0);
    }

    #[test]
    fn dp4_reads_alpha_a_and_b() {
        assert_eq!(
            alpha_inputs_read(AlphaOp::Dp, RgbOp::Dp4),
            [true, true, false]
        );
        assert_eq!(alpha_inputs_read(AlphaOp::Dp, RgbOp::Dp3), [false; 3]);
        assert_eq!(alpha_inputs_read(AlphaOp::Mad, RgbOp::Dp4), [true; 3]);
        assert_eq!(
            alpha_inputs_read(AlphaOp::Rcp, RgbOp::Mad),
            [true, false, false]
        );
    }

    #[test]
    fn texture_facts() {
        for op in TexOpcode::ALL {
            let f = op.facts();
            assert_eq!(
                f.samples,
                !matches!(op, TexOpcode::Nop | TexOpcode::TexKill),
                "{op}"
            );
        }
        assert_eq!(TexOpcode::Proj.facts().coords, CoordReads::Stq);
        assert_eq!(TexOpcode::TexKill.facts().coords, CoordReads::WriteMask);
    }
}
