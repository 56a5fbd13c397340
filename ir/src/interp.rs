//! The IR interpreter: runs a [`Module`] over a domain with the numerics of
//! [`ctm_frontend::numerics`], so that it agrees with the reference
//! interpreter bit for bit on unoptimised IR (and within the spec's
//! tolerance after passes that reassociate).
//!
//! Each region is compiled once into a list of steps over value slots (in
//! dependency order); elements run in parallel over rows. Scatter writes
//! happen in state order within an element and are applied in row-major
//! element order, so results are deterministic.

use crate::graph::{Module, NodeId, RegionId};
use crate::op::{BinOp, CmpOp, LaneCond, Op, ParamInfo, UnOp};
use ctm_frontend::ast::BinaryOp;
use ctm_frontend::data::{KernelArgs, ParamData, StreamData, UniformValue};
use ctm_frontend::interp::{KernelRun, OutputData, RefStats, RunOptions, RuntimeError};
use ctm_frontend::numerics as n;
use ctm_frontend::tast::ParamId;
use ctm_frontend::value::Value;
use rayon::prelude::*;
use smallvec::SmallVec;
use std::collections::HashMap;

/// One step of a compiled region: an operation reading slots and writing
/// `outputs` consecutive slots from `out`.
struct Step<'m> {
    op: &'m Op,
    inputs: SmallVec<[usize; 4]>,
    out: usize,
}

/// A region compiled to steps over slots.
struct Compiled<'m> {
    slots: usize,
    args: Vec<usize>,
    steps: Vec<Step<'m>>,
    results: Vec<usize>,
}

fn compile_region(m: &Module, r: RegionId) -> Compiled<'_> {
    let order = m.topo_order(r).unwrap_or_else(|| m.nodes(r));
    let mut slot_of: HashMap<NodeId, usize> = HashMap::new();
    let mut slots = 0;
    for &id in &order {
        slot_of.insert(id, slots);
        slots += m.node(id).outputs.len().max(1);
    }
    let slot = |v: crate::graph::Value| slot_of[&v.node] + v.port as usize;
    let region = m.region(r);
    let args = region
        .arguments
        .iter()
        .map(|&index| slot_of[&NodeId { region: r, index }])
        .collect();
    let results = (0..region.results.len())
        .map(|i| slot(m.result(r, i)))
        .collect();
    let steps = order
        .iter()
        .filter(|&&id| !matches!(m.node(id).op, Op::Argument(_) | Op::Result(_)))
        .map(|&id| Step {
            op: &m.node(id).op,
            inputs: m.inputs(id).iter().map(|v| slot(*v)).collect(),
            out: slot_of[&id],
        })
        .collect();
    Compiled {
        slots,
        args,
        steps,
        results,
    }
}

/// Everything an element's evaluation reads.
struct Machine<'m, 'a> {
    regions: HashMap<RegionId, Compiled<'m>>,
    args: &'a KernelArgs,
    params: Vec<ParamInfo>,
    limit: u64,
    numerics: Numerics,
}

/// How [`run_with_mad`] evaluates `Op::Mad`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum MadRounding {
    /// Round the product, then the sum: the language's numerics (`a * b +
    /// c` written out), what [`run`] does.
    #[default]
    Twice,
    /// One rounding (`f32::mul_add`), as the X1K's MAD does (it does not
    /// round the product), and one rounding per dot product, as its
    /// DP2A/DP3/DP4 do: the differential and `--check` use it to tell
    /// a discontinuity that the fused MAD tips over from a miscompile
    /// (issue 13).
    Fused,
}

/// The arithmetic of a target's machine code where it may differ from the
/// language's (spec §7), for [`run_with_numerics`]: the model `--check`
/// compares a machine's outputs with (`docs/cli.md`, "--check").
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Numerics {
    /// How `Op::Mad` rounds.
    pub mad: MadRounding,
    /// How `Op::Dot` rounds: `Twice` rounds each product and each sum (the
    /// language), `Fused` sums the exact products and rounds once (the
    /// X1K's DP3/DP4, `docs/sim-x1k.md` §2.2).
    pub dot: MadRounding,
    /// Float division as `a * rcp(b)`, each rounded (the X1K divides with
    /// `RCP` and `MUL`, `docs/cli.md` "--check"; its simulated reciprocal
    /// is correctly rounded, `docs/sim-x1k.md` §2.3), instead of one
    /// correctly rounded quotient.
    pub div_by_rcp: bool,
    /// With `div_by_rcp`: where `|b| > 2^126` (whose reciprocal would be a
    /// flushed denormal) both operands are first multiplied by 2^-64, the
    /// R700's division (`docs/backend-r700.md` §"Division").
    pub scale_huge_divisor: bool,
}

impl Numerics {
    /// The X1K's: MAD and DP round once, division by `RCP` and `MUL`.
    pub const X1K: Numerics = Numerics {
        mad: MadRounding::Fused,
        dot: MadRounding::Fused,
        div_by_rcp: true,
        scale_huge_divisor: false,
    };

    /// The R700's: MULADD and DOT4 round each step (the language's), float
    /// division `a · RECIP_IEEE(b)` with huge divisors scaled
    /// ([`rcp_division`]); the simulated `RECIP_IEEE` and `MUL_IEEE` are
    /// `rcp` and `mul` of the language's numerics.
    pub const R700: Numerics = Numerics {
        mad: MadRounding::Twice,
        dot: MadRounding::Twice,
        div_by_rcp: true,
        scale_huge_divisor: true,
    };
}

/// `a / b` as `a · rcp(b)`, each rounded; with `scale_huge_divisor`, both
/// operands multiplied by 2^-64 first where `|b| > 2^126` (exact for a
/// power of two), so that `3e38 / 3e38` is 1 and not `3e38 · 0`.
pub fn rcp_division(a: f32, b: f32, scale_huge_divisor: bool) -> f32 {
    if scale_huge_divisor && n::ftz(b).abs() > 2f32.powi(126) {
        let s = 2f32.powi(-64);
        n::mul(n::mul(a, s), n::rcp(n::mul(b, s)))
    } else {
        n::mul(a, n::rcp(b))
    }
}

/// `a[0] · b[0] + ...` with exact products and one rounding (flushing
/// denormal inputs and the result).
fn dot_fused(a: &[f32], b: &[f32]) -> f32 {
    let sum: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(n::ftz(*x)) * f64::from(n::ftz(*y)))
        .fold(0.0, |acc, t| acc + t);
    n::ftz(sum as f32)
}

/// Per-element state.
struct Element {
    i: usize,
    j: usize,
    steps: u64,
    ops: u64,
    scatters: Vec<(ParamId, i64, i64, f32)>,
}

/// Runs the module over `args.domain`.
///
/// # Errors
/// [`RuntimeError::BadArguments`] when `args` do not fit the parameters;
/// [`RuntimeError::StepLimit`] for a runaway element.
pub fn run(m: &Module, args: &KernelArgs, options: &RunOptions) -> Result<KernelRun, RuntimeError> {
    run_with_mad(m, args, options, MadRounding::Twice)
}

/// [`run`] with `Op::Mad` evaluated as `mad` says.
///
/// # Errors
/// As [`run`].
pub fn run_with_mad(
    m: &Module,
    args: &KernelArgs,
    options: &RunOptions,
    mad: MadRounding,
) -> Result<KernelRun, RuntimeError> {
    // A target whose MAD rounds once rounds its dot products once too
    // (the X1K's DP2A/DP3/DP4, ctm-guide-x1k "X1K FP": fused operations).
    let numerics = Numerics {
        mad,
        dot: mad,
        ..Numerics::default()
    };
    run_with_numerics(m, args, options, numerics)
}

/// [`run`] with the arithmetic `numerics` describes.
///
/// # Errors
/// As [`run`].
pub fn run_with_numerics(
    m: &Module,
    args: &KernelArgs,
    options: &RunOptions,
    numerics: Numerics,
) -> Result<KernelRun, RuntimeError> {
    let with_constants;
    let args = if m.launch_constants.is_empty() {
        args
    } else {
        with_constants = bind_launch_constants(m, args)?;
        &with_constants
    };
    if args.params.len() != m.params.len() {
        return Err(RuntimeError::BadArguments(format!(
            "{} arguments for {} parameters",
            args.params.len(),
            m.params.len()
        )));
    }
    let mut regions = HashMap::new();
    for r in m.region_ids() {
        regions.insert(r, compile_region(m, r));
    }
    let machine = Machine {
        regions,
        args,
        params: m.params.iter().map(|p| p.info).collect(),
        limit: options.max_steps_per_element,
        numerics,
    };
    let (width, height) = args.domain;
    let outputs: Vec<(usize, usize)> = m
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p.info {
            ParamInfo::Output(t) => Some((i, t.width().unwrap_or(1) as usize)),
            ParamInfo::Scatter => Some((i, 1)),
            _ => None,
        })
        .collect();
    type Row = Vec<(Option<Vec<Value>>, Vec<(ParamId, i64, i64, f32)>, u64)>;
    let rows: Result<Vec<Row>, RuntimeError> = (0..height)
        .into_par_iter()
        .map(|j| {
            (0..width)
                .map(|i| {
                    let mut e = Element {
                        i,
                        j,
                        steps: 0,
                        ops: 0,
                        scatters: Vec::new(),
                    };
                    let res = machine.eval(m.root, &[Value::Unit], &mut e)?;
                    let n_out = res.len() - 2;
                    let discarded = res[n_out].as_bool();
                    let outs = (!discarded).then(|| res[..n_out].to_vec());
                    Ok((outs, e.scatters, e.ops))
                })
                .collect()
        })
        .collect();
    let rows = rows?;
    let mut streams: Vec<StreamData> = outputs
        .iter()
        .map(|&(_, c)| StreamData::zeros(width, height, c))
        .collect();
    let mut stats = RefStats::default();
    for (j, row) in rows.iter().enumerate() {
        for (i, (outs, scatters, ops)) in row.iter().enumerate() {
            stats.elements += 1;
            stats.operations += ops;
            match outs {
                Some(values) => {
                    let mut k = 0;
                    for (slot, &(p, c)) in outputs.iter().enumerate() {
                        if matches!(m.params[p].info, ParamInfo::Output(_)) {
                            write(&mut streams[slot], i, j, c, values[k].lanes());
                            k += 1;
                        }
                    }
                }
                None => stats.discarded += 1,
            }
            for &(p, x, y, v) in scatters {
                if x >= 0
                    && y >= 0
                    && (x as usize) < width
                    && (y as usize) < height
                    && let Some(slot) = outputs.iter().position(|&(q, _)| q == p.index())
                {
                    write(&mut streams[slot], x as usize, y as usize, 1, &[v]);
                }
            }
        }
    }
    Ok(KernelRun {
        outputs: outputs
            .iter()
            .zip(streams)
            .map(|(&(p, _), data)| OutputData {
                param: ParamId(p as u32),
                name: m.params[p].name.clone(),
                data,
            })
            .collect(),
        stats,
    })
}

/// `args` (one entry per user parameter, or per parameter including the
/// hidden ones, whose entries are then ignored) with the module's launch
/// constants evaluated from the user's uniforms and bound, as the loader
/// does (`crate::launch`): always with the language's numerics, whatever
/// [`Numerics`] the elements run with, because the loader computes them so.
///
/// # Errors
/// [`RuntimeError::BadArguments`] when the arguments do not fit or a
/// launch constant cannot be evaluated from them.
pub fn bind_launch_constants(m: &Module, args: &KernelArgs) -> Result<KernelArgs, RuntimeError> {
    let users = m.params.len().saturating_sub(m.launch_constants.len());
    if args.params.len() != users && args.params.len() != m.params.len() {
        return Err(RuntimeError::BadArguments(format!(
            "{} arguments for {} parameters ({users} without the launch constants)",
            args.params.len(),
            m.params.len()
        )));
    }
    let lookup = |name: &str| {
        let i = m.params[..users].iter().position(|p| p.name == name)?;
        match args.params.get(i) {
            Some(ParamData::Uniform(u)) => Some(u),
            _ => None,
        }
    };
    let mut params: Vec<ParamData> = args.params[..users].to_vec();
    params.resize(m.params.len(), ParamData::Output);
    for c in &m.launch_constants {
        let v = c
            .expr
            .evaluate(&lookup)
            .map_err(|e| RuntimeError::BadArguments(format!("{}: {e}", c.expr.to_text())))?;
        match params.get_mut(c.param.index()) {
            Some(slot) if c.param.index() >= users => {
                *slot = ParamData::Uniform(UniformValue::Value(v))
            }
            _ => {
                return Err(RuntimeError::BadArguments(format!(
                    "launch constant {} is not a hidden parameter",
                    c.param
                )));
            }
        }
    }
    Ok(KernelArgs {
        domain: args.domain,
        params,
    })
}

fn write(s: &mut StreamData, i: usize, j: usize, c: usize, lanes: &[f32]) {
    if let ctm_frontend::data::StreamBuffer::F32(v) = &mut s.buffer {
        let base = (j * s.width + i) * c;
        for (k, x) in lanes.iter().take(c).enumerate() {
            v[base + k] = *x;
        }
    }
}

/// A gather/scatter coordinate, as the reference interpreter computes it.
fn coordinate(x: f32) -> i64 {
    n::coordinate(x)
}

impl Machine<'_, '_> {
    fn eval(
        &self,
        r: RegionId,
        args: &[Value],
        e: &mut Element,
    ) -> Result<Vec<Value>, RuntimeError> {
        let c = &self.regions[&r];
        let mut slots = vec![Value::Unit; c.slots];
        for (k, &s) in c.args.iter().enumerate() {
            slots[s] = args[k];
        }
        for step in &c.steps {
            e.ops += 1;
            let input = |k: usize| slots[step.inputs[k]];
            match step.op {
                Op::Gamma(g) => {
                    let branch = if input(0).as_bool() {
                        g.branches[0]
                    } else {
                        g.branches[1]
                    };
                    let entries: Vec<Value> = step.inputs[1..].iter().map(|&s| slots[s]).collect();
                    let outs = self.eval(branch, &entries, e)?;
                    slots[step.out..step.out + outs.len()].copy_from_slice(&outs);
                }
                Op::Theta(t) => {
                    let mut values: Vec<Value> = step.inputs.iter().map(|&s| slots[s]).collect();
                    loop {
                        e.steps += 1;
                        if e.steps > self.limit {
                            return Err(RuntimeError::StepLimit {
                                i: e.i,
                                j: e.j,
                                limit: self.limit,
                            });
                        }
                        let outs = self.eval(t.body, &values, e)?;
                        values.copy_from_slice(&outs[1..]);
                        if !outs[0].as_bool() {
                            break;
                        }
                    }
                    slots[step.out..step.out + values.len()].copy_from_slice(&values);
                }
                Op::Scatter(p) => {
                    let pos = input(1);
                    let v = input(2).as_f32();
                    let l = pos.lanes();
                    // A NaN position is outside the domain: the write is
                    // dropped, as the reference interpreter does.
                    if !l[0].is_nan() && !l[1].is_nan() {
                        e.scatters.push((*p, coordinate(l[0]), coordinate(l[1]), v));
                    }
                    slots[step.out] = Value::Unit;
                }
                op => {
                    let inputs: SmallVec<[Value; 4]> =
                        step.inputs.iter().map(|&s| slots[s]).collect();
                    slots[step.out] = self.simple(op, &inputs, e);
                }
            }
        }
        Ok(c.results.iter().map(|&s| slots[s]).collect())
    }

    fn uniform(&self, p: ParamId) -> Option<&UniformValue> {
        match self.args.params.get(p.index()) {
            Some(ParamData::Uniform(u)) => Some(u),
            _ => None,
        }
    }

    fn stream(&self, p: ParamId) -> Option<&StreamData> {
        match self.args.params.get(p.index()) {
            Some(ParamData::Input(s)) => Some(s),
            _ => None,
        }
    }

    fn read(&self, p: ParamId, i: i64, j: i64) -> Value {
        let ty = match self.params.get(p.index()) {
            Some(ParamInfo::Input(t)) => *t,
            _ => crate::types::Ty::F32,
        };
        let lanes = self.stream(p).map(|s| s.read(i, j)).unwrap_or([0.0; 4]);
        let w = ty.width().unwrap_or(1) as usize;
        Value::floats(&lanes[..w])
    }

    fn simple(&self, op: &Op, a: &[Value], e: &Element) -> Value {
        match op {
            Op::Const(c) => *c,
            Op::Uniform(p) => match self.uniform(*p) {
                Some(UniformValue::Value(v)) => *v,
                _ => Value::Unit,
            },
            Op::UniformElement(p) => {
                let k = a[0].as_i32();
                match self.uniform(*p) {
                    Some(UniformValue::Array(items)) if !items.is_empty() => {
                        items[(k.max(0) as usize).min(items.len() - 1)]
                    }
                    Some(UniformValue::Mat4(m)) => {
                        let c = k.clamp(0, 3) as usize;
                        Value::floats(&m[4 * c..4 * c + 4])
                    }
                    _ => Value::Unit,
                }
            }
            Op::Input(p) => self.read(*p, e.i as i64, e.j as i64),
            Op::Gather(p) => {
                let l = a[0].lanes();
                self.read(*p, coordinate(l[0]), coordinate(l[1]))
            }
            Op::Index => Value::floats(&[e.i as f32, e.j as f32]),
            Op::Domain => Value::floats(&[self.args.domain.0 as f32, self.args.domain.1 as f32]),
            Op::Unary(u) => unary(*u, &a[0]),
            Op::Binary(BinOp::FDiv) if self.numerics.div_by_rcp => {
                let scale = self.numerics.scale_huge_divisor;
                lanes2(&a[0], &a[1], |x, y| rcp_division(x, y, scale))
            }
            Op::Binary(b) => binary(*b, &a[0], &a[1]),
            Op::Dot if self.numerics.dot == MadRounding::Fused => {
                Value::f32(dot_fused(a[0].lanes(), a[1].lanes()))
            }
            Op::Mad if self.numerics.mad == MadRounding::Fused => {
                lanes3(&a[0], &a[1], &a[2], |x, y, z| {
                    n::ftz(n::ftz(x).mul_add(n::ftz(y), n::ftz(z)))
                })
            }
            Op::Mad => lanes3(&a[0], &a[1], &a[2], n::mad),
            Op::Dot => Value::f32(n::dot(a[0].lanes(), a[1].lanes())),
            Op::Compare(c) => {
                let op = match c {
                    CmpOp::Eq => BinaryOp::Eq,
                    CmpOp::Ne => BinaryOp::Ne,
                    CmpOp::Lt => BinaryOp::Lt,
                    CmpOp::Le => BinaryOp::Le,
                    CmpOp::Gt => BinaryOp::Gt,
                    CmpOp::Ge => BinaryOp::Ge,
                };
                n::eval_binary(op, &a[0], &a[1])
            }
            Op::Select => {
                if a[0].as_bool() {
                    a[1]
                } else {
                    a[2]
                }
            }
            Op::LaneSelect(cond) => {
                let test = |c: f32| {
                    let c = n::ftz(c);
                    match cond {
                        LaneCond::Ge0 => c >= 0.0,
                        LaneCond::Gt0 => c > 0.0,
                        LaneCond::Eq0 => c == 0.0,
                    }
                };
                lanes3(&a[0], &a[1], &a[2], |c, x, y| if test(c) { x } else { y })
            }
            Op::Splat(w) => n::splat(&a[0], *w),
            Op::Swizzle(s) => n::swizzle(&a[0], s.lanes()),
            Op::Construct => {
                let w: u8 = a.iter().map(|v| v.lanes().len() as u8).sum();
                n::construct(a, w)
            }
            _ => Value::Unit,
        }
    }
}

fn lanes1(v: &Value, f: impl Fn(f32) -> f32) -> Value {
    let l = v.lanes();
    let mut out = [0.0; 4];
    for (o, x) in out.iter_mut().zip(l) {
        *o = f(*x);
    }
    Value::floats(&out[..l.len().max(1)])
}

fn lanes2(a: &Value, b: &Value, f: impl Fn(f32, f32) -> f32) -> Value {
    let (x, y) = (a.lanes(), b.lanes());
    let w = x.len().min(y.len()).max(1);
    let mut out = [0.0; 4];
    for k in 0..x.len().min(y.len()) {
        out[k] = f(x[k], y[k]);
    }
    Value::floats(&out[..w])
}

fn lanes3(a: &Value, b: &Value, c: &Value, f: impl Fn(f32, f32, f32) -> f32) -> Value {
    let (x, y, z) = (a.lanes(), b.lanes(), c.lanes());
    let len = x.len().min(y.len()).min(z.len());
    let mut out = [0.0; 4];
    for k in 0..len {
        out[k] = f(x[k], y[k], z[k]);
    }
    Value::floats(&out[..len.max(1)])
}

fn unary(u: UnOp, a: &Value) -> Value {
    use UnOp::*;
    match u {
        FNeg => lanes1(a, n::neg),
        FAbs => lanes1(a, n::abs),
        FFloor => lanes1(a, n::floor),
        FCeil => lanes1(a, n::ceil),
        FTrunc => lanes1(a, n::trunc),
        FRound => lanes1(a, n::round),
        FFract => lanes1(a, n::fract),
        FSqrt => lanes1(a, n::sqrt),
        FRsqrt => lanes1(a, n::rsqrt),
        FRcp => lanes1(a, n::rcp),
        FExp2 => lanes1(a, n::exp2),
        FLog2 => lanes1(a, n::log2),
        FSin => lanes1(a, n::sin),
        FCos => lanes1(a, n::cos),
        FSaturate => lanes1(a, n::saturate),
        INeg => Value::I32(a.as_i32().wrapping_neg()),
        IAbs => Value::I32(a.as_i32().wrapping_abs()),
        INot => Value::I32(!a.as_i32()),
        BNot => Value::Bool(!a.as_bool()),
        F2I => Value::I32(n::f32_to_i32(a.as_f32())),
        I2F => Value::f32(n::i32_to_f32(a.as_i32())),
        B2I => Value::I32(a.as_bool() as i32),
    }
}

fn binary(b: BinOp, x: &Value, y: &Value) -> Value {
    use BinOp::*;
    let (i, j) = (x.as_i32(), y.as_i32());
    match b {
        FAdd => lanes2(x, y, n::add),
        FSub => lanes2(x, y, n::sub),
        FMul => lanes2(x, y, n::mul),
        FDiv => lanes2(x, y, n::div),
        FMin => lanes2(x, y, n::min),
        FMax => lanes2(x, y, n::max),
        FStep => lanes2(x, y, n::step),
        IAdd => Value::I32(i.wrapping_add(j)),
        ISub => Value::I32(i.wrapping_sub(j)),
        IMul => Value::I32(i.wrapping_mul(j)),
        IDiv => Value::I32(n::idiv(i, j)),
        IRem => Value::I32(n::irem(i, j)),
        IShl => Value::I32(n::ishl(i, j)),
        IShr => Value::I32(n::ishr(i, j)),
        IAnd => Value::I32(i & j),
        IOr => Value::I32(i | j),
        IXor => Value::I32(i ^ j),
        IMin => Value::I32(i.min(j)),
        IMax => Value::I32(i.max(j)),
        BAnd => Value::Bool(x.as_bool() && y.as_bool()),
        BOr => Value::Bool(x.as_bool() || y.as_bool()),
    }
}

/// `true` for the simple operations [`fold`] evaluates: unary, binary,
/// `mad`, `dot`, comparisons, `select`, `lane_select`, `splat`, `swizzle`
/// and `construct` (none reads a parameter or the position).
pub fn folds(op: &Op) -> bool {
    matches!(
        op,
        Op::Unary(_)
            | Op::Binary(_)
            | Op::Mad
            | Op::Dot
            | Op::Compare(_)
            | Op::Select
            | Op::LaneSelect(_)
            | Op::Splat(_)
            | Op::Swizzle(_)
            | Op::Construct
    )
}

/// Evaluates a simple operation on constant inputs (for constant folding),
/// or `None` for operations that read parameters or the position.
pub fn fold(op: &Op, inputs: &[Value]) -> Option<Value> {
    match op {
        Op::Unary(u) => Some(unary(*u, &inputs[0])),
        Op::Binary(b) => Some(binary(*b, &inputs[0], &inputs[1])),
        op if folds(op) => {
            let dummy_args = KernelArgs {
                domain: (0, 0),
                params: Vec::new(),
            };
            let m = Machine {
                regions: HashMap::new(),
                args: &dummy_args,
                params: Vec::new(),
                limit: 0,
                // Folding keeps the language's numerics.
                numerics: Numerics::default(),
            };
            let e = Element {
                i: 0,
                j: 0,
                steps: 0,
                ops: 0,
                scatters: Vec::new(),
            };
            Some(m.simple(op, inputs, &e))
        }
        _ => None,
    }
}

#[cfg(test)]
mod numerics_tests {
    use super::*;

    #[test]
    fn a_fused_dot_rounds_once() {
        let x = 1.0 + 2f32.powi(-12);
        // x·x = 1 + 2^-11 + 2^-24: the product rounds the 2^-24 away,
        // the exact sum keeps it.
        let (a, b) = ([x, 1.0], [x, -1.0]);
        assert_eq!(n::dot(&a, &b), 2f32.powi(-11));
        assert_eq!(dot_fused(&a, &b), 2f32.powi(-11) + 2f32.powi(-24));
        // Denormal inputs flush, as everywhere.
        assert_eq!(dot_fused(&[1e-40, 2.0], &[1.0, 3.0]), 6.0);
    }

    #[test]
    fn the_x1k_numerics_differ_from_the_language_in_all_three() {
        let d = Numerics::default();
        assert_eq!(
            (d.mad, d.dot, d.div_by_rcp),
            (MadRounding::Twice, MadRounding::Twice, false)
        );
        let x = Numerics::X1K;
        assert_eq!(
            (x.mad, x.dot, x.div_by_rcp),
            (MadRounding::Fused, MadRounding::Fused, true)
        );
        let r = Numerics::R700;
        assert_eq!(
            (r.mad, r.dot, r.div_by_rcp, r.scale_huge_divisor),
            (MadRounding::Twice, MadRounding::Twice, true, true)
        );
        // Some quotient differs from its reciprocal product.
        let differs = (1..1000).any(|k| {
            let (a, b) = (k as f32 * 0.37, 7.0 + k as f32 * 0.11);
            n::mul(a, n::rcp(b)) != n::div(a, b)
        });
        assert!(differs);
    }

    #[test]
    fn rcp_division_scales_only_huge_divisors() {
        // The reciprocal of 3e38 is a denormal, flushed: unscaled 0.
        assert_eq!(rcp_division(3e38, 3e38, false), 0.0);
        assert_eq!(rcp_division(3e38, 3e38, true), 1.0);
        assert_eq!(rcp_division(-3e38, 3e38, true), -1.0);
        assert_eq!(rcp_division(1.0, f32::INFINITY, true), 0.0);
        assert!(rcp_division(f32::INFINITY, f32::INFINITY, true).is_nan());
        // 2^126 itself has a normal reciprocal and is not scaled.
        let b = 2f32.powi(126);
        assert_eq!(rcp_division(b, b, true), 1.0);
        // Below the limit both models are one multiply by the reciprocal.
        for k in 1..200 {
            let (a, b) = (k as f32 * 1.37, 3.0 + k as f32 * 0.71);
            assert_eq!(rcp_division(a, b, true), n::mul(a, n::rcp(b)));
        }
    }
}
