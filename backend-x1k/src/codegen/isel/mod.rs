//! Instruction selection: the verified graph IR to [`Mir`].
//!
//! Every IR value becomes a [`Val`]: a *view* of a virtual register or a
//! constant register (lanes and an input modifier, so swizzles, splats,
//! negation, `abs`, `i2f` and `b2i` cost nothing), a literal (placed as a
//! swizzle constant, an inline constant or a pooled constant at its use),
//! or a lazy boolean ([`BoolVal`]) that becomes an ALU-result test where a
//! branch consumes it and a 1.0/0.0 value (or a fused `CMP`) elsewhere.
//! `i32` is emulated in f32 (exact below 2^24: `docs/backend-x1k.md`).
//!
//! One file per concern: [`arith`] (float and integer arithmetic,
//! transcendentals), [`cond`] (comparisons, selects, booleans), [`io`]
//! (uniforms, reads, outputs, scatters, discard), [`flow`] (gammas and
//! thetas).

mod arith;
mod arrays;
mod coalesce;
mod cond;
mod flow;
mod io;
mod loops;

use super::CodegenError;
use super::consts::ConstTable;
use super::mir::{
    AluKind, Lane, Mir, MirOp, Node, OpId, Operand, RegClass, Special, Src, Unit, VReg,
};
use crate::isa::InputModifier;
use ctm_frontend::value::Value as Constant;
use ctm_ir::fasthash::FastMap as HashMap;
use ctm_ir::graph::{Module, NodeId, RegionId, Value};
use ctm_ir::op::{Op, ParamInfo};
use ctm_ir::types::Ty;
use smallvec::SmallVec;

pub use cond::BoolVal;

/// A selected IR value.
#[derive(Clone, Debug)]
pub enum Val {
    /// Lanes of a register or constant (`src` is `Src::Reg` or
    /// `Src::Const`), with a modifier.
    View {
        /// The source.
        src: Src,
        /// Lane i of the value is `lanes[i]` of the source.
        lanes: [Lane; 4],
        /// Lanes.
        width: u8,
        /// Input modifier applied on every read.
        modifier: InputModifier,
    },
    /// A literal.
    Lit {
        /// The lanes.
        values: [f32; 4],
        /// Lanes.
        width: u8,
    },
    /// A boolean.
    Bool(Box<BoolVal>),
    /// The state token (scatter order is kept by the scheduler).
    State,
}

impl Val {
    /// Lanes 0..width of `v`.
    pub fn reg(v: VReg, width: u8) -> Val {
        Val::View {
            src: Src::Reg(v),
            lanes: [Lane::Of(0), Lane::Of(1), Lane::Of(2), Lane::Of(3)],
            width,
            modifier: InputModifier::None,
        }
    }

    /// A scalar literal.
    pub fn scalar(x: f32) -> Val {
        Val::Lit {
            values: [x; 4],
            width: 1,
        }
    }

    /// Lanes.
    pub fn width(&self) -> u8 {
        match self {
            Val::View { width, .. } | Val::Lit { width, .. } => *width,
            _ => 1,
        }
    }
}

/// The selector's state.
pub struct Selector<'m> {
    pub(super) m: &'m Module,
    pub(super) mir: Mir,
    pub(super) consts: ConstTable,
    /// The value of each IR value selected so far.
    values: HashMap<Value, Val>,
    /// IR nodes and values needed by the program (the rest is not
    /// selected).
    live: flow::Liveness,
    /// Own-position input reads, loaded at the start.
    inputs: HashMap<u32, VReg>,
    /// `index()`: `r0.rg` at start.
    index: Option<VReg>,
    /// The node list being built and the current block.
    nodes: Vec<Node>,
    block: Vec<OpId>,
    /// Branch nesting (for CK0073) and the deepest seen.
    pub(super) if_depth: u32,
    pub(super) max_if_depth: u32,
    pub(super) loop_depth: u32,
    pub(super) max_loop_depth: u32,
    /// If-frames opened inside the innermost loop (for BREAK pop counts).
    pub(super) frames_in_loop: u32,
    /// Uses of each IR value (for single-use folds).
    uses: HashMap<Value, usize>,
    /// How uniform-array reads at computed indices are addressed, and
    /// which loops set aL for them.
    pub(super) arrays: arrays::ArrayPlan,
    /// How many IR values are bound to views of each register (a value
    /// computed into another register's lanes must have no other name).
    pub(super) names: HashMap<VReg, u32>,
    /// Scalar phis made so far (their classes alternate, `flow::phi_class`).
    pub(super) scalar_phis: u32,
}

impl<'m> Selector<'m> {
    /// A selector for `m`, with the uniforms laid out.
    pub fn new(m: &'m Module) -> Result<Selector<'m>, CodegenError> {
        let consts = ConstTable::new(&m.name, &m.params)?;
        let mut uses = HashMap::default();
        for r in m.region_ids() {
            for n in m.nodes(r) {
                for v in m.inputs(n) {
                    *uses.entry(v).or_insert(0) += 1;
                }
            }
        }
        let arrays = arrays::plan(m, &consts.uniform_base);
        Ok(Selector {
            m,
            mir: Mir::default(),
            consts,
            values: HashMap::default(),
            live: flow::liveness(m, &arrays),
            inputs: HashMap::default(),
            index: None,
            nodes: Vec::new(),
            block: Vec::new(),
            if_depth: 0,
            max_if_depth: 0,
            loop_depth: 0,
            max_loop_depth: 0,
            frames_in_loop: 0,
            uses,
            arrays,
            names: HashMap::default(),
            scalar_phis: 0,
        })
    }

    /// Selects the whole module; returns the MIR and the constants.
    pub fn run(mut self) -> Result<(Mir, ConstTable, Depths), CodegenError> {
        let m = self.m;
        let root = m.root;
        self.load_inputs()?;
        self.values.insert(m.argument(root, 0), Val::State);
        self.region_body(root)?;
        let results = m.results(root);
        let n_out = results.len().saturating_sub(2);
        let discarded = self.get(results[n_out])?;
        self.discard(discarded)?;
        let outs: Vec<(usize, Val)> = m
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.info, ParamInfo::Output(_)))
            .enumerate()
            .map(|(k, _)| (k, results[k]))
            .map(|(k, v)| self.get(v).map(|val| (k, val)))
            .collect::<Result<_, _>>()?;
        let vals: Vec<Val> = outs.iter().map(|(_, v)| v.clone()).collect();
        for (i, (k, val)) in outs.into_iter().enumerate() {
            let others: Vec<Val> = vals
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, v)| v.clone())
                .collect();
            self.output(k as u8, val, &others)?;
        }
        self.flush_block();
        let depths = Depths {
            ifs: self.max_if_depth,
            loops: self.max_loop_depth,
        };
        let mut mir = self.mir;
        mir.body = self.nodes;
        Ok((mir, self.consts, depths))
    }

    /// The selected value of `v`.
    pub(super) fn get(&self, v: Value) -> Result<Val, CodegenError> {
        self.values.get(&v).cloned().ok_or_else(|| {
            CodegenError::internal("isel-order", format!("{v:?} used before it was selected"))
        })
    }

    /// The selected value of `v`, or [`Val::State`] (a placeholder nothing
    /// reads) when no needed node depends on it: the entries of gammas
    /// and thetas whose region never reads them were not selected.
    pub(super) fn get_live(&self, v: Value) -> Result<Val, CodegenError> {
        if self.live.values.contains(&v) {
            self.get(v)
        } else {
            Ok(Val::State)
        }
    }

    /// Uses of IR value `v`.
    pub(super) fn use_count(&self, v: Value) -> usize {
        self.uses.get(&v).copied().unwrap_or(0)
    }

    /// Selects the nodes of region `r` (its arguments already bound).
    pub(super) fn region_body(&mut self, r: RegionId) -> Result<(), CodegenError> {
        let order = self.m.topo_order(r).ok_or_else(|| {
            CodegenError::internal("acyclic-region", format!("region {r:?} has a cycle"))
        })?;
        self.select_nodes(&order)
    }

    /// Selects `nodes` in order, skipping arguments, results and unneeded
    /// nodes.
    pub(super) fn select_nodes(&mut self, nodes: &[NodeId]) -> Result<(), CodegenError> {
        for &n in nodes {
            if matches!(self.m.node(n).op, Op::Argument(_) | Op::Result(_))
                || !self.live.nodes.contains(&n)
                || self.values.contains_key(&self.m.output(n, 0))
            {
                continue;
            }
            self.node(n)?;
        }
        Ok(())
    }

    /// Binds the value of `v`.
    pub(super) fn bind(&mut self, v: Value, val: Val) {
        if let Val::View {
            src: Src::Reg(r), ..
        } = &val
        {
            *self.names.entry(*r).or_insert(0) += 1;
        }
        self.values.insert(v, val);
    }

    fn node(&mut self, n: NodeId) -> Result<(), CodegenError> {
        let m = self.m;
        let node = m.node(n);
        let inputs: SmallVec<[Value; 4]> = m.inputs(n);
        let out = m.output(n, 0);
        let ty = node.outputs.first().copied().unwrap_or(Ty::State);
        let val = match &node.op {
            Op::Argument(_) | Op::Result(_) => return Ok(()),
            Op::Const(c) => constant(c),
            Op::Uniform(p) => self.uniform(*p, ty)?,
            Op::UniformElement(p) => self.uniform_element(n, *p, inputs[0], ty)?,
            Op::Input(p) => {
                let w = ty.width().unwrap_or(1);
                match self.inputs.get(&p.0) {
                    Some(&v) => Val::reg(v, w),
                    None => return Err(CodegenError::internal("input-loaded", format!("{p}"))),
                }
            }
            Op::Gather(p) => {
                let pos = self.get(inputs[0])?;
                self.gather(*p, pos, ty)?
            }
            Op::Index => Val::reg(self.index_vreg(), 2),
            Op::Domain => {
                let d = self.consts.domain()?;
                Val::View {
                    src: Src::Const {
                        index: d,
                        relative: false,
                    },
                    lanes: [Lane::Of(0), Lane::Of(1), Lane::Zero, Lane::Zero],
                    width: 2,
                    modifier: InputModifier::None,
                }
            }
            Op::Unary(u) => {
                let a = self.get(inputs[0])?;
                self.unary(*u, a, inputs[0], ty)?
            }
            Op::Binary(b) => {
                let (a, c) = (self.get(inputs[0])?, self.get(inputs[1])?);
                self.binary(*b, a, c, ty)?
            }
            Op::Mad => {
                let a = self.get(inputs[0])?;
                let b = self.get(inputs[1])?;
                let c = self.get(inputs[2])?;
                let w = ty.width().unwrap_or(1);
                self.alu(AluKind::Mad, w, &[a, b, c])?
            }
            Op::Dot => {
                let (a, b) = (self.get(inputs[0])?, self.get(inputs[1])?);
                self.dot(a, b)?
            }
            Op::Compare(c) => {
                let (a, b) = (self.get(inputs[0])?, self.get(inputs[1])?);
                self.compare(*c, a, b, m.ty(inputs[0]))?
            }
            Op::Select => {
                let c = self.get(inputs[0])?;
                let (a, b) = (self.get(inputs[1])?, self.get(inputs[2])?);
                self.select(c, a, b, ty)?
            }
            Op::LaneSelect(cond) => {
                let c = self.get(inputs[0])?;
                let (a, b) = (self.get(inputs[1])?, self.get(inputs[2])?);
                self.lane_select(*cond, c, a, b)?
            }
            Op::Splat(k) => splat(self.get(inputs[0])?, *k),
            Op::Swizzle(s) => swizzle(self.get(inputs[0])?, s.lanes()),
            Op::Construct => {
                let parts: Vec<Val> = inputs
                    .iter()
                    .map(|v| self.get(*v))
                    .collect::<Result<_, _>>()?;
                self.construct_of(&parts, Some(&inputs))?
            }
            Op::Scatter(_) => {
                let (pos, value) = (self.get(inputs[1])?, self.get(inputs[2])?);
                let pos_integral = flow::integral(m, inputs[1]);
                self.scatter(pos, value, pos_integral)?;
                Val::State
            }
            Op::Gamma(g) => return self.gamma(n, *g),
            Op::Theta(t) => return self.theta(n, *t),
        };
        self.bind(out, val);
        Ok(())
    }

    /// The `index()` register: `r0.rg` at start (`docs/abi-x1k.md` §2).
    pub(super) fn index_vreg(&mut self) -> VReg {
        if let Some(v) = self.index {
            return v;
        }
        let v = self.mir.new_vreg(2, RegClass::Rgb);
        self.mir.vregs[v.0 as usize].fixed = Some((0, [0, 1, 2, 3]));
        self.index = Some(v);
        v
    }

    /// Appends `op` to the current block.
    pub(super) fn emit(&mut self, op: MirOp) -> OpId {
        let id = self.mir.push(op);
        self.block.push(id);
        id
    }

    /// Ends the current block (if it has ops).
    pub(super) fn flush_block(&mut self) {
        if !self.block.is_empty() {
            let b = std::mem::take(&mut self.block);
            self.nodes.push(Node::Block(b));
        }
    }

    /// Adds a control node after the current block.
    pub(super) fn push_node(&mut self, n: Node) {
        self.flush_block();
        self.nodes.push(n);
    }

    /// Runs `f` collecting the nodes it emits.
    pub(super) fn nested(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<(), CodegenError>,
    ) -> Result<Vec<Node>, CodegenError> {
        self.flush_block();
        let saved = std::mem::take(&mut self.nodes);
        let r = f(self);
        self.flush_block();
        let inner = std::mem::replace(&mut self.nodes, saved);
        r.map(|()| inner)
    }

    /// The ops of the current (open) block.
    pub(super) fn current_block(&self) -> &[OpId] {
        &self.block
    }

    /// The operand reading `val` (materialising booleans; placing
    /// literals).
    pub(super) fn operand(&mut self, val: &Val) -> Result<Operand, CodegenError> {
        match val {
            Val::View {
                src,
                lanes,
                modifier,
                ..
            } => Ok(Operand {
                src: *src,
                lanes: *lanes,
                modifier: *modifier,
            }),
            Val::Lit { values, width } => self.consts.literal(&values[..*width as usize]),
            Val::Bool(b) => {
                let v = self.bool_value((**b).clone(), false)?;
                self.operand(&v)
            }
            Val::State => Err(CodegenError::internal(
                "operand-type",
                "the state token read",
            )),
        }
    }

    /// A new ALU op of `kind` over lanes `width` of `args`, into a new
    /// register; returns the view of the result. Scalars may issue on
    /// either unit, vec4 on both, others on the RGB unit.
    pub(super) fn alu(
        &mut self,
        kind: AluKind,
        width: u8,
        args: &[Val],
    ) -> Result<Val, CodegenError> {
        let ops: SmallVec<[Operand; 3]> = args
            .iter()
            .map(|a| self.operand(a))
            .collect::<Result<_, _>>()?;
        Ok(self.alu_ops(kind, width, ops, None, false))
    }

    /// As [`Self::alu`] with ready operands, a presubtract and OMOD
    /// disabled.
    pub(super) fn alu_ops(
        &mut self,
        kind: AluKind,
        width: u8,
        args: SmallVec<[Operand; 3]>,
        presub: Option<(crate::isa::PresubOp, Operand, Operand)>,
        omod_off: bool,
    ) -> Val {
        let (unit, class) = match width {
            1 => (Unit::Any, RegClass::Undecided),
            4 => (Unit::Both, RegClass::Rgba),
            _ => (Unit::Rgb, RegClass::Rgb),
        };
        let dest = self.mir.new_vreg(width, class);
        self.emit(MirOp {
            alu: Some(kind),
            tex: None,
            unit,
            dest: Some((dest, 0)),
            width,
            args,
            presub,
            omod_off,
            scale: 0,
            clamp: false,
            special: Special::None,
        });
        Val::reg(dest, width)
    }
}

/// Nesting depths seen (for the flow-control mode and CK0073).
#[derive(Clone, Copy, Debug, Default)]
pub struct Depths {
    /// Deepest `if` nesting.
    pub ifs: u32,
    /// Deepest loop nesting.
    pub loops: u32,
}

/// The value of an IR constant.
fn constant(c: &Constant) -> Val {
    match *c {
        Constant::Bool(b) => Val::Bool(Box::new(BoolVal::Lit(b))),
        Constant::I32(i) => Val::scalar(i as f32),
        Constant::Float { lanes, width } => Val::Lit {
            values: lanes,
            width,
        },
        _ => Val::State,
    }
}

/// An f32 repeated into `k` lanes.
fn splat(v: Val, k: u8) -> Val {
    swizzle(v, &[0; 4][..k as usize])
}

/// Lanes `sel` of `v`.
pub(super) fn swizzle(v: Val, sel: &[u8]) -> Val {
    let w = sel.len() as u8;
    match v {
        Val::View {
            src,
            lanes,
            modifier,
            ..
        } => {
            let mut out = [Lane::Zero; 4];
            for (i, &l) in sel.iter().enumerate() {
                out[i] = lanes[l as usize & 3];
            }
            Val::View {
                src,
                lanes: out,
                width: w,
                modifier,
            }
        }
        Val::Lit { values, .. } => {
            let mut out = [0.0; 4];
            for (i, &l) in sel.iter().enumerate() {
                out[i] = values[l as usize & 3];
            }
            Val::Lit {
                values: out,
                width: w,
            }
        }
        other => other,
    }
}
