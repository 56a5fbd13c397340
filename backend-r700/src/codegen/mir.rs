//! The machine IR between selection and scheduling: scalar R700 ALU
//! operations on virtual registers (one 32-bit lane each), fetches,
//! exports and structured control flow (a tree of blocks).
//!
//! A value of the graph IR becomes up to four *lanes*; a lane is an
//! [`Operand`]: a virtual register, a constant-file element, a literal or
//! an inline constant, with the float input modifiers (ABS then NEG,
//! manual §4.6.2). Swizzles, splats and negation therefore cost nothing.
//!
//! Virtual registers are written once, except *merge* registers (the
//! results of an `if` and the variables of a loop), which are written on
//! each path; those have a fixed channel so every write lands in the same
//! GPR element. *Tuples* are registers that must share one GPR (fetch
//! coordinates and results, exported values), each in a fixed channel.

use smallvec::SmallVec;

use crate::isa::{InlineConst, Op2, Op3, UnitClass};

/// A virtual register: one 32-bit lane.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct VReg(pub u32);

/// What a lane reads.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Src {
    /// A virtual register.
    Reg(VReg),
    /// Constant-file element `elem`, channel `chan` (cb0 element, ABI §3.1).
    Const {
        /// The element.
        elem: u8,
        /// The channel 0..4.
        chan: u8,
    },
    /// Constant-file element `base + AR.x`, channel `chan`.
    ConstRel {
        /// The base element.
        base: u8,
        /// The channel.
        chan: u8,
    },
    /// A literal dword.
    Lit(u32),
    /// An inline constant.
    Inline(InlineConst),
}

/// A source with its float modifiers: the value is `neg(abs(src))`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Operand {
    /// What is read.
    pub src: Src,
    /// ABS (applied first; OP2 only).
    pub abs: bool,
    /// NEG.
    pub neg: bool,
}

impl Operand {
    /// A plain operand.
    pub const fn of(src: Src) -> Operand {
        Operand {
            src,
            abs: false,
            neg: false,
        }
    }

    /// A virtual register.
    pub const fn reg(v: VReg) -> Operand {
        Operand::of(Src::Reg(v))
    }

    /// The float constant `x` (inline where one fits).
    pub fn f32(x: f32) -> Operand {
        let bits = x.to_bits();
        let src = match bits {
            0 => Src::Inline(InlineConst::Zero),
            0x3F80_0000 => Src::Inline(InlineConst::One),
            0x3F00_0000 => Src::Inline(InlineConst::Half),
            _ => Src::Lit(bits),
        };
        Operand::of(src)
    }

    /// The integer constant `x`.
    pub fn i32(x: i32) -> Operand {
        let src = match x {
            0 => Src::Inline(InlineConst::Zero),
            1 => Src::Inline(InlineConst::OneInt),
            -1 => Src::Inline(InlineConst::MinusOneInt),
            _ => Src::Lit(x as u32),
        };
        Operand::of(src)
    }

    /// Negated (float).
    pub fn negated(self) -> Operand {
        Operand {
            neg: !self.neg,
            ..self
        }
    }

    /// Absolute value (float).
    pub fn absolute(self) -> Operand {
        Operand {
            abs: true,
            neg: false,
            ..self
        }
    }

    /// Whether a modifier is set.
    pub fn modified(self) -> bool {
        self.abs || self.neg
    }

    /// The register read, if any.
    pub fn vreg(self) -> Option<VReg> {
        match self.src {
            Src::Reg(v) => Some(v),
            _ => None,
        }
    }

    /// Whether the operand takes a constant read (constant file, literal,
    /// inline: manual §4.7.5-4.7.6, digest R10).
    pub fn is_const(self) -> bool {
        !matches!(self.src, Src::Reg(_))
    }
}

/// An ALU opcode.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Opc {
    /// Two-source form.
    Op2(Op2),
    /// Three-source form.
    Op3(Op3),
}

impl Opc {
    /// The units the opcode may use.
    pub fn unit_class(self) -> UnitClass {
        match self {
            Opc::Op2(o) => o.unit_class(),
            Opc::Op3(o) => o.unit_class(),
        }
    }

    /// Mnemonic.
    pub fn mnemonic(self) -> &'static str {
        match self {
            Opc::Op2(o) => o.mnemonic(),
            Opc::Op3(o) => o.mnemonic(),
        }
    }
}

/// What an ALU operation does besides its result.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Role {
    /// An ordinary operation.
    Plain,
    /// The `PRED_SET*` that sets the active mask before a branch or a loop
    /// exit test (`UPDATE_EXEC_MASK`, `UPDATE_PRED`); last in its clause.
    Predicate,
    /// A `KILL*`; last in its clause (manual §4.8, L1872).
    Kill,
    /// `MOVA_INT`: loads AR.x.
    Mova,
    /// An in-clause `PRED_SET*` (`UPDATE_PRED` only, manual §4.9.3): sets
    /// the clause-local predicate the next groups' `IfTrue`/`IfFalse` ops
    /// test (`predicate.rs`).
    PredSet,
    /// An ordinary operation with `PRED_SEL_ONE` (§4.9.4, L2019).
    IfTrue,
    /// An ordinary operation with `PRED_SEL_ZERO` (§4.9.4, L2019).
    IfFalse,
    /// `DOT4_IEEE` over the four vector units (manual §4.8, L1906): the
    /// sources are `a0, b0, a1, b1, a2, b2, a3, b3`, unit k reading
    /// `a_k, b_k`; only the unit of the result's element writes it.
    Dot4,
}

/// One scalar ALU operation.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AluOp {
    /// The opcode.
    pub opc: Opc,
    /// The result register (`None`: none written, e.g. KILL).
    pub dst: Option<VReg>,
    /// The sources, `src_count` of them.
    pub srcs: SmallVec<[Operand; 3]>,
    /// CLAMP.
    pub clamp: bool,
    /// Side role.
    pub role: Role,
}

/// A texture fetch: `SAMPLE` at unnormalised (x, y).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Fetch {
    /// Resource and sampler.
    pub resource: u8,
    /// The coordinate tuple (x in channel x, y in channel y).
    pub coord: [VReg; 2],
    /// The result tuple: lane k in channel k; `None` lanes are masked.
    pub dst: [Option<VReg>; 4],
}

/// A structured item of a block.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Item {
    /// A scalar ALU operation.
    Alu(AluOp),
    /// A texture fetch.
    Fetch(Fetch),
    /// `if cond != 0 { then } else { els }`; the block before ends with the
    /// `Predicate` op computing the branch mask.
    If {
        /// Taken part.
        then: Block,
        /// Other part.
        els: Block,
    },
    /// `do { body } while cond != 0`; the body ends with the `Predicate`
    /// op whose mask is the elements that leave.
    Loop {
        /// The body.
        body: Block,
    },
    /// A pixel export of a tuple (lane k in channel k).
    Export {
        /// ARRAY_BASE.
        base: u32,
        /// The lanes.
        lanes: [Lane; 4],
    },
    /// A scatter write: `MEM_EXPORT` of `value.x` at dword `index.x`.
    MemExport {
        /// The value (channel x).
        value: VReg,
        /// The dword index, an integer (channel x).
        index: VReg,
    },
}

/// One exported channel: a register of the tuple, or a constant the
/// export's swizzle supplies (`SEL_0`, `SEL_1`, digest §2.3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Lane {
    /// The tuple register (lane k in channel k).
    Reg(VReg),
    /// 0.0.
    Zero,
    /// 1.0.
    One,
}

impl Lane {
    /// The register, if any.
    pub fn vreg(self) -> Option<VReg> {
        match self {
            Lane::Reg(v) => Some(v),
            _ => None,
        }
    }
}

/// A sequence of items.
pub type Block = Vec<Item>;

/// Per-register constraints.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct RegInfo {
    /// The channel every write must use.
    pub chan: Option<u8>,
    /// The tuple the register belongs to.
    pub tuple: Option<u32>,
    /// A fixed GPR (R0 for the position).
    pub gpr: Option<u8>,
    /// Written more than once (merge registers).
    pub merge: bool,
}

/// A selected kernel.
#[derive(Clone, Debug, Default)]
pub struct Mir {
    /// The body.
    pub body: Block,
    /// Constraints of every register, indexed by `VReg.0`.
    pub regs: Vec<RegInfo>,
    /// Tuples: their members.
    pub tuples: Vec<SmallVec<[VReg; 4]>>,
    /// The program kills elements.
    pub kills: bool,
}

impl Mir {
    /// A fresh register.
    pub fn new_reg(&mut self) -> VReg {
        self.regs.push(RegInfo::default());
        VReg(self.regs.len() as u32 - 1)
    }

    /// A fresh register whose writes all use channel `chan`.
    pub fn new_merge(&mut self, chan: u8) -> VReg {
        let v = self.new_reg();
        self.regs[v.0 as usize].chan = Some(chan);
        self.regs[v.0 as usize].merge = true;
        v
    }

    /// A fresh tuple of registers in the given channels.
    pub fn new_tuple(&mut self, chans: &[u8]) -> SmallVec<[VReg; 4]> {
        let t = self.tuples.len() as u32;
        let mut members = SmallVec::new();
        for &c in chans {
            let v = self.new_reg();
            self.regs[v.0 as usize].chan = Some(c);
            self.regs[v.0 as usize].tuple = Some(t);
            members.push(v);
        }
        self.tuples.push(members.clone());
        members
    }
}
