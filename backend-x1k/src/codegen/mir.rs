//! The machine IR between instruction selection and emission: X1K
//! operations on virtual registers, arranged in a tree of straight-line
//! blocks, branches and loops.
//!
//! A [`MirOp`] is one half-instruction's worth of work (or a pair of halves
//! for vec4 operations, a transcendental with its `SOP` copy, or a `DP4`),
//! a texture fetch, or a `KILL`. Operands name virtual registers by *lane*;
//! the register allocator later maps lanes to channels, and the emitter
//! turns lanes into swizzles. Scheduling packs ops into [`Bundle`]s (one
//! instruction slot each).

use crate::isa::{CompareOp, InputModifier, PresubOp, TexId};
use smallvec::SmallVec;
use std::fmt;

/// A virtual register: 1 to 4 lanes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u32);

impl fmt::Debug for VReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// An op in the function's op arena.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct OpId(pub u32);

/// Where a virtual register's lanes may live (x1k-encoding §3, CTM §3.3.3:
/// a register is an RGB vector written by the RGB unit plus an alpha
/// scalar written by the alpha unit).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RegClass {
    /// Lanes in distinct channels among r, g, b (chosen by the allocator).
    Rgb,
    /// One lane, in channel a.
    Alpha,
    /// Four lanes, lane i in channel i (r, g, b, a).
    Rgba,
    /// Not yet decided (a scalar whose producer may issue on either unit).
    Undecided,
}

/// Facts about a virtual register.
#[derive(Clone, Debug)]
pub struct VRegInfo {
    /// Lanes.
    pub width: u8,
    /// Channel class.
    pub class: RegClass,
    /// Fixed placement (the start state's `r0` for `index()`): register
    /// and the channel of each lane.
    pub fixed: Option<(u8, [u8; 4])>,
    /// The channel of each lane, in any register: an RGB-class register
    /// whose writer also writes a render target ([`super::out_reg`]), so
    /// that each result lane lands in the same channel of the register
    /// and of the target (one RGB result per channel, CTM §3.3.3,
    /// §3.3.8).
    pub channels: Option<[u8; 4]>,
}

/// One lane of an operand: a lane of the source, or a swizzle constant
/// (CTM §3.3.3: 0, 0.5, 1 need no source slot).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Lane {
    /// Lane (or, for a constant register, channel) n of the source.
    Of(u8),
    /// 0.0.
    Zero,
    /// 0.5.
    Half,
    /// 1.0.
    One,
}

/// The source an operand reads.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Src {
    /// A virtual register.
    Reg(VReg),
    /// A float constant register; lanes name channels. `relative` adds aL.
    Const {
        /// Constant index.
        index: u8,
        /// `ADDRn_REL` (aL-relative addressing inside a LOOP).
        relative: bool,
    },
    /// An inline constant (7-bit code); every lane reads its value.
    Inline(u8),
    /// No source: every lane is a swizzle constant.
    None,
    /// The presubtract result of this op's half (CTM §3.3.2).
    Presub,
}

/// An operand: a source, a lane per result lane, an input modifier.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Operand {
    /// What is read.
    pub src: Src,
    /// Result lane i reads `lanes[i]`.
    pub lanes: [Lane; 4],
    /// NEG/ABS/NAB.
    pub modifier: InputModifier,
}

impl Operand {
    /// All lanes the constant `lane`.
    pub fn splat_lane(lane: Lane) -> Operand {
        Operand {
            src: Src::None,
            lanes: [lane; 4],
            modifier: InputModifier::None,
        }
    }

    /// Lanes 0..width of `v`, in order.
    pub fn reg(v: VReg) -> Operand {
        Operand {
            src: Src::Reg(v),
            lanes: [Lane::Of(0), Lane::Of(1), Lane::Of(2), Lane::Of(3)],
            modifier: InputModifier::None,
        }
    }

    /// The same operand negated.
    pub fn negated(mut self) -> Operand {
        self.modifier = match self.modifier {
            InputModifier::None => InputModifier::Neg,
            InputModifier::Neg => InputModifier::None,
            InputModifier::Abs => InputModifier::NegAbs,
            InputModifier::NegAbs => InputModifier::Abs,
        };
        self
    }

    /// The virtual register read, if any.
    pub fn vreg(&self) -> Option<VReg> {
        match self.src {
            Src::Reg(v) => Some(v),
            _ => None,
        }
    }
}

/// The operation of an ALU op (CTM §3.3.4). Binary arithmetic is MAD with
/// swizzle-constant inputs (`a + b = a * 1 + b`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AluKind {
    /// A·B + C.
    Mad,
    /// min(A, B).
    Min,
    /// max(A, B).
    Max,
    /// C >= 0 ? A : B.
    Cmp,
    /// C > 0.5 ? A : B.
    Cnd,
    /// A − floor(A).
    Frc,
    /// A.r·B.r + A.g·B.g (+ C.b with C = 0): `D2A`, RGB only.
    Dp2,
    /// `DP3`, RGB only.
    Dp3,
    /// `DP4`, both units (its fourth lane uses the alpha selects).
    Dp4,
    /// A transcendental (alpha unit only).
    Trans(Transcendental),
}

impl AluKind {
    /// `true` for the operations both units have (MAD, MIN, MAX, CMP,
    /// CND, FRC; CTM §3.3.4): such an op may move between the RGB and the
    /// alpha unit.
    pub fn on_both_units(self) -> bool {
        matches!(
            self,
            AluKind::Mad | AluKind::Min | AluKind::Max | AluKind::Cmp | AluKind::Cnd | AluKind::Frc
        )
    }
}

/// The alpha unit's transcendental operations (CTM §3.3.4): the ISA's
/// opcode table type.
pub use crate::isa::Transcendental;

/// Which unit(s) an op occupies.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Unit {
    /// The RGB unit only.
    Rgb,
    /// The alpha unit only.
    Alpha,
    /// Both units (vec4 ops; transcendentals copied to RGB by `SOP`; DP4).
    Both,
    /// A scalar op the scheduler places on either unit.
    Any,
    /// The texture unit (its own instruction).
    Tex,
}

/// What an ALU op writes besides (or instead of) its destination register.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Special {
    /// Nothing else.
    None,
    /// Sets the ALU result for the next flow-control instruction (CTM
    /// §3.3.10), comparing lane 0 with zero.
    AluResult(CompareOp),
    /// Sets the predicate bit of its unit (r for the RGB unit, a for the
    /// alpha unit) by comparing lane 0 with zero (CTM §3.3.9).
    Predicate(CompareOp),
    /// Writes render target `.0` (an OUT instruction, CTM §3.3.8): the
    /// op's lane `l` goes to the target's channel `.1 + l` (R, G, B by
    /// the RGB unit, A by the alpha unit). Several ops may write parts of
    /// one target: a channel written more than once keeps the last value
    /// (CTM §3.3.8). An op may also write its `dest` register: an OUT
    /// instruction has the temporary write masks too (CTM §3.2's field
    /// table, §3.3.6), so one instruction writes a register and a target
    /// ([`super::out_reg`]).
    Output(u8, u8),
    /// A UMRT (uncached) write: lanes (value, x, y) to R, G, B, A = 0.
    Umrt,
}

/// A texture operation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TexKind {
    /// `LD` from input `tex` at the coordinates of lanes (s, t) of the
    /// operand (CTM §3.4.1), `UNSCALED`.
    Load {
        /// The input.
        tex: TexId,
        /// Channels the fetched value has (1, 2 or 4).
        fetched: u8,
    },
    /// `KILL_LT_0`: kill the element if lane 0 of the operand is < 0.
    Kill,
}

/// One scheduled unit of work.
#[derive(Clone, Debug)]
pub struct MirOp {
    /// ALU operation, or `None` for a texture op.
    pub alu: Option<AluKind>,
    /// Texture operation, for `Unit::Tex`.
    pub tex: Option<TexKind>,
    /// Units used.
    pub unit: Unit,
    /// Destination register and the first lane written (lanes
    /// `dest_lane..dest_lane + width`).
    pub dest: Option<(VReg, u8)>,
    /// Lanes computed.
    pub width: u8,
    /// A, B, C (and the texture coordinates as operand 0).
    pub args: SmallVec<[Operand; 3]>,
    /// The presubtract op and its two sources (src0, src1), read by
    /// operands with `Src::Presub`.
    pub presub: Option<(PresubOp, Operand, Operand)>,
    /// Output modifier disabled (bit-exact MIN/MAX/CMP/CND, CTM §3.3.5).
    pub omod_off: bool,
    /// The output modifier's scale, a power of two: the result is
    /// multiplied by 2^`scale` (−3..=3: `OMOD_D8` .. `OMOD_U8`, CTM
    /// §3.3.5) before the clamp. 0 unless [`super::omod`] folded a
    /// multiplication into the op; ignored with `omod_off`.
    pub scale: i8,
    /// Saturate the result.
    pub clamp: bool,
    /// ALU result, output or UMRT write.
    pub special: Special,
}

impl MirOp {
    /// The source of a bit-exact lane copy: `MAX(v, v)` with the output
    /// modifier off (CTM §3.3.5), no clamp, scale or presubtract, `v` a
    /// register read without an input modifier. What the op writes
    /// (`special`) is the caller's to check.
    pub fn copy_source(&self) -> Option<Operand> {
        let a = *self.args.first()?;
        let copy = self.alu == Some(AluKind::Max)
            && self.omod_off
            && !self.clamp
            && self.scale == 0
            && self.presub.is_none()
            && self.args.len() == 2
            && self.args[1] == a
            && a.modifier == InputModifier::None
            && matches!(a.src, Src::Reg(_));
        copy.then_some(a)
    }

    /// Every virtual register this op reads.
    pub fn reads(&self) -> impl Iterator<Item = VReg> + '_ {
        let pre = self
            .presub
            .iter()
            .flat_map(|(_, a, b)| [a.vreg(), b.vreg()]);
        self.args.iter().map(|o| o.vreg()).chain(pre).flatten()
    }
}

/// A flow-control condition.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cond {
    /// The ALU result written by the last op of the preceding block.
    AluResult {
        /// The op writing it (lives in the preceding block).
        op: OpId,
    },
    /// Boolean constant n (a `bool` uniform).
    Bool(u8),
    /// A function of up to three inputs, as `JUMP_FUNC` reads them (CTM
    /// §3.5.3): the ALU result set by `alu`, the predicate bit set by
    /// `pred`, boolean constant `boolean`. Bit `alu << 2 | pred << 1 |
    /// bool` of `table` is the condition's value.
    Func {
        /// The op setting the ALU result.
        alu: Option<OpId>,
        /// The op setting a predicate bit.
        pred: Option<OpId>,
        /// The boolean constant.
        boolean: Option<u8>,
        /// The truth table.
        table: u8,
    },
    /// Always.
    Always,
}

/// How a loop counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LoopCount {
    /// `REP`/`ENDREP` with integer constant n.
    Rep(u8),
    /// `LOOP`/`ENDLOOP` with integer constant n (aL is live).
    Loop(u8),
}

/// A node of the control tree.
#[derive(Clone, Debug)]
pub enum Node {
    /// Straight-line ops (scheduled into bundles later).
    Block(Vec<OpId>),
    /// `if cond { then } else { else_ }`; `invert` jumps on true.
    If {
        /// The condition.
        cond: Cond,
        /// Take `then` when the condition is false.
        invert: bool,
        /// Run when the condition holds.
        then: Vec<Node>,
        /// Run otherwise.
        else_: Vec<Node>,
    },
    /// A counted loop.
    Loop {
        /// REP or LOOP and its integer constant.
        count: LoopCount,
        /// The body.
        body: Vec<Node>,
    },
    /// Leave the innermost loop when the condition (inverted if `invert`)
    /// holds.
    Break {
        /// The condition.
        cond: Cond,
        /// Break when the condition is false.
        invert: bool,
    },
}

/// The whole program in MIR form.
#[derive(Clone, Debug, Default)]
pub struct Mir {
    /// Every op.
    pub ops: Vec<MirOp>,
    /// Every virtual register.
    pub vregs: Vec<VRegInfo>,
    /// The control tree.
    pub body: Vec<Node>,
    /// Groups of RGB-class virtual registers that must share one physical
    /// register (distinct channels), so that reading them takes one RGB
    /// source address (CTM §3.3.1: three RGB addresses per instruction).
    /// The scheduler forms them to co-issue two ops whose sources fit only
    /// that way ([`super::sched`]); the allocator honours them.
    pub groups: Vec<Vec<VReg>>,
}

impl Mir {
    /// A new virtual register.
    pub fn new_vreg(&mut self, width: u8, class: RegClass) -> VReg {
        self.vregs.push(VRegInfo {
            width,
            class,
            fixed: None,
            channels: None,
        });
        VReg(self.vregs.len() as u32 - 1)
    }

    /// Adds an op; returns its id.
    pub fn push(&mut self, op: MirOp) -> OpId {
        self.ops.push(op);
        OpId(self.ops.len() as u32 - 1)
    }

    /// The op `id`.
    pub fn op(&self, id: OpId) -> &MirOp {
        &self.ops[id.0 as usize]
    }

    /// The op `id`, mutably.
    pub fn op_mut(&mut self, id: OpId) -> &mut MirOp {
        &mut self.ops[id.0 as usize]
    }

    /// The ops among `ops` that write `v`, and how many of them read it.
    pub fn writers_and_readers(&self, ops: &[OpId], v: VReg) -> (Vec<OpId>, usize) {
        let writers = ops
            .iter()
            .copied()
            .filter(|&o| self.op(o).dest.is_some_and(|(d, _)| d == v))
            .collect();
        let readers = ops
            .iter()
            .filter(|&&o| self.op(o).reads().any(|r| r == v))
            .count();
        (writers, readers)
    }

    /// The ops of every block of the control tree, in depth-first order
    /// (the arena also keeps ops a pass removed from their block).
    pub fn live_ops(&self) -> Vec<OpId> {
        let mut out = Vec::new();
        let mut stack: Vec<&[Node]> = vec![&self.body];
        while let Some(list) = stack.pop() {
            for n in list {
                match n {
                    Node::Block(ops) => out.extend_from_slice(ops),
                    Node::If { then, else_, .. } => {
                        stack.push(then);
                        stack.push(else_);
                    }
                    Node::Loop { body, .. } => stack.push(body),
                    Node::Break { .. } => {}
                }
            }
        }
        out
    }

    /// Facts about `v`.
    pub fn vreg(&self, v: VReg) -> &VRegInfo {
        &self.vregs[v.0 as usize]
    }

    /// Calls `f` with the MIR and each block's op list, depth first (a
    /// branch's `then` before its `else`, a loop's body where it stands):
    /// the walk of every pass that rewrites blocks one at a time.
    pub fn each_block(&mut self, mut f: impl FnMut(&mut Mir, &mut Vec<OpId>)) {
        let mut body = std::mem::take(&mut self.body);
        for_each_block(&mut body, &mut |ops| f(self, ops));
        self.body = body;
    }
}

/// Calls `f` on each block's op list in `nodes`, in [`Mir::each_block`]'s
/// order.
pub fn for_each_block<F: FnMut(&mut Vec<OpId>)>(nodes: &mut [Node], f: &mut F) {
    for n in nodes {
        match n {
            Node::Block(ops) => f(ops),
            Node::If { then, else_, .. } => {
                for_each_block(then, f);
                for_each_block(else_, f);
            }
            Node::Loop { body, .. } => for_each_block(body, f),
            Node::Break { .. } => {}
        }
    }
}
