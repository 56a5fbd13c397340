//! Lowering from the typed AST ([`ctm_frontend::tast`]) to a [`Module`].
//!
//! Every local variable, output stream, the state token and the control
//! flags become *variables*; lowering keeps, for the region being built,
//! the SSA value each variable currently holds (an [`Env`]). Statements
//! update the environment; `if` becomes a gamma whose entries and exits are
//! the environment; loops become thetas carrying the environment.
//!
//! Early exits become flags: `break` and `continue` set the innermost
//! loop's `broke`/`continued` flags, `return` the body's `returned` flag,
//! `discard` the kernel's `discarded` flag. After a statement that may have
//! set a flag, the rest of its block runs under a gamma on "no flag set";
//! a loop continues only while no flag ending it is set. Helper functions
//! are inlined at every call with their own `returned` flag and result
//! variable. `const` items were already folded by the checker; compound
//! built-ins are expanded in [`builtins`], once, for both targets.

mod builtins;
mod exits;
mod expr;
mod reduction;
pub mod reduction_edges;
mod stmt;

pub use reduction::{PassLayout, lower_reduction_pass, pass_layout};
pub use reduction_edges::{Lane, LaneMap, LaneOp, PassEdges, lane_ops, lanes, pass_edges};

use crate::graph::{Module, Param, RegionId, Value};
use crate::op::{Op, ParamInfo};
use crate::types::Ty;
use ctm_frontend::tast::{self, LocalId, ParamKind, Program};
use ctm_frontend::types::Type;
use ctm_frontend::value::Value as Constant;
use std::collections::BTreeMap;

/// A variable of the program being lowered.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
struct Var(u32);

/// The current value of each variable, in the region being built.
#[derive(Clone, Debug, Default)]
struct Env {
    values: BTreeMap<Var, Value>,
}

/// Where lowering is: the region being built and the variables' values.
struct Cx {
    region: RegionId,
    env: Env,
}

/// The flags of a loop being lowered.
#[derive(Clone, Copy)]
struct LoopFlags {
    broke: Var,
    continued: Var,
}

/// A body being lowered: the kernel, or an inlined helper or reduction.
struct Frame {
    /// Variable of each local, once declared.
    locals: Vec<Option<Var>>,
    /// Type of each local.
    local_types: Vec<Ty>,
    /// Set by `return`.
    returned: Var,
    /// The value given by `return expr;` (helpers).
    result: Option<Var>,
    /// Enclosing loops of this body, innermost last.
    loops: Vec<LoopFlags>,
}

/// Lowering state for one module.
struct Lowerer<'p> {
    program: &'p Program,
    m: Module,
    var_types: Vec<Ty>,
    frames: Vec<Frame>,
    /// The state token's variable.
    state: Var,
    /// Set by `discard` (kernels).
    discarded: Var,
    /// The variable of each `Out` parameter, by parameter index.
    outputs: Vec<Option<Var>>,
}

/// The IR view of a kernel's parameters.
fn params_of(kernel: &tast::Kernel) -> Vec<Param> {
    kernel
        .params
        .iter()
        .map(|p| Param {
            name: p.name.clone(),
            kind: p.kind,
            info: match p.kind {
                ParamKind::Uniform(Type::Mat4) => ParamInfo::Array(Ty::Float(4), 4),
                ParamKind::Uniform(Type::Array(a)) => {
                    ParamInfo::Array(Ty::from_type(a.elem.ty()).unwrap_or(Ty::F32), a.len)
                }
                ParamKind::Uniform(t) => ParamInfo::Uniform(Ty::from_type(t).unwrap_or(Ty::F32)),
                ParamKind::Input(s) => {
                    ParamInfo::Input(Ty::from_type(s.value_type()).unwrap_or(Ty::F32))
                }
                ParamKind::Output(o) => {
                    ParamInfo::Output(Ty::from_type(o.value_type()).unwrap_or(Ty::F32))
                }
                ParamKind::Scatter => ParamInfo::Scatter,
            },
        })
        .collect()
}

/// The IR types of a body's locals.
fn local_types(locals: &[tast::Local]) -> Vec<Ty> {
    locals
        .iter()
        .map(|l| Ty::from_type(l.ty).unwrap_or(Ty::F32))
        .collect()
}

/// Lowers a checked kernel of `program` to a module (not yet optimised or
/// verified).
///
/// Runs on a thread with a [`LOWER_STACK_BYTES`] stack: lowering recurses
/// once per expression level and per inlined call, which the front end
/// bounds (`MAX_NESTING` per body, `MAX_CALL_DEPTH` calls), but beyond what
/// a main thread's 8 MiB hold (issue 13).
pub fn lower_kernel(program: &Program, kernel: &tast::Kernel) -> Module {
    on_deep_stack(|| lower_kernel_here(program, kernel))
}

/// Stack of the lowering thread (virtual memory: only touched pages
/// count).
pub const LOWER_STACK_BYTES: usize = 256 << 20;

/// Runs `f` on a thread with a [`LOWER_STACK_BYTES`] stack (or here, if
/// the thread cannot be made).
pub(crate) fn on_deep_stack<T: Send>(f: impl Fn() -> T + Sync) -> T {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("ctm-lower".into())
            .stack_size(LOWER_STACK_BYTES)
            .spawn_scoped(scope, &f);
        match spawned.map(|h| h.join()) {
            Ok(Ok(r)) => r,
            // A panic in lowering is a compiler bug: pass it on unchanged.
            Ok(Err(payload)) => std::panic::resume_unwind(payload),
            Err(_) => f(),
        }
    })
}

fn lower_kernel_here(program: &Program, kernel: &tast::Kernel) -> Module {
    let params = params_of(kernel);
    let mut l = Lowerer::new(program, Module::new(kernel.name.clone(), params));
    let root = l.m.root;
    let mut cx = Cx {
        region: root,
        env: Env::default(),
    };
    let state = l.m.argument(root, 0);
    cx.env.values.insert(l.state, state);
    let f = l.constant(&mut cx, Constant::Bool(false));
    cx.env.values.insert(l.discarded, f);
    for (i, p) in l.m.params.clone().iter().enumerate() {
        if let ParamInfo::Output(t) = p.info {
            let v = l.new_var(t);
            l.outputs[i] = Some(v);
            let zero = l.zero(&mut cx, t);
            cx.env.values.insert(v, zero);
        }
    }
    let returned = l.new_var(Ty::Bool);
    cx.env.values.insert(returned, f);
    l.frames.push(Frame {
        locals: vec![None; kernel.locals.len()],
        local_types: local_types(&kernel.locals),
        returned,
        result: None,
        loops: Vec::new(),
    });
    l.lower_block(&mut cx, &kernel.body);
    l.finish(cx)
}

impl<'p> Lowerer<'p> {
    fn new(program: &'p Program, m: Module) -> Lowerer<'p> {
        let outputs = vec![None; m.params.len()];
        let mut l = Lowerer {
            program,
            m,
            var_types: Vec::new(),
            frames: Vec::new(),
            state: Var(0),
            discarded: Var(0),
            outputs,
        };
        l.state = l.new_var(Ty::State);
        l.discarded = l.new_var(Ty::Bool);
        l
    }

    /// Adds the root results: outputs, the discard flag, the state.
    fn finish(mut self, cx: Cx) -> Module {
        let root = self.m.root;
        for v in self.outputs.clone().into_iter().flatten() {
            let value = cx.env.values[&v];
            self.m.add_result(root, value);
        }
        let d = cx.env.values[&self.discarded];
        self.m.add_result(root, d);
        let s = cx.env.values[&self.state];
        self.m.add_result(root, s);
        self.m
    }

    fn new_var(&mut self, t: Ty) -> Var {
        self.var_types.push(t);
        Var(self.var_types.len() as u32 - 1)
    }

    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a body is being lowered")
    }

    /// The variable of local `l` of the current body.
    fn local(&mut self, l: LocalId) -> Var {
        if let Some(v) = self.frame().locals[l.index()] {
            return v;
        }
        let ty = self.local_type(l);
        let v = self.new_var(ty);
        self.frame().locals[l.index()] = Some(v);
        v
    }

    /// Declares a fresh variable for local `l` (a `let` or a loop variable),
    /// so that shadowed and re-entered declarations never share values.
    fn declare_local(&mut self, l: LocalId) -> Var {
        let ty = self.local_type(l);
        let v = self.new_var(ty);
        self.frame().locals[l.index()] = Some(v);
        v
    }

    fn local_type(&self, l: LocalId) -> Ty {
        self.frames
            .last()
            .and_then(|f| f.local_types.get(l.index()).copied())
            .unwrap_or(Ty::F32)
    }

    fn op(&mut self, cx: &mut Cx, op: Op, inputs: &[Value]) -> Value {
        self.m.op(cx.region, op, inputs)
    }

    fn constant(&mut self, cx: &mut Cx, c: Constant) -> Value {
        self.op(cx, Op::Const(c), &[])
    }

    /// The zero of a type (false, 0, 0.0, vecN(0.0)); never called for the
    /// state.
    fn zero(&mut self, cx: &mut Cx, t: Ty) -> Value {
        let c = match t {
            Ty::Bool => Constant::Bool(false),
            Ty::I32 => Constant::I32(0),
            Ty::Float(w) => Constant::Float {
                lanes: [0.0; 4],
                width: w,
            },
            Ty::State => Constant::Bool(false),
        };
        self.constant(cx, c)
    }

    /// An f32 constant splatted to `width` lanes.
    fn float_const(&mut self, cx: &mut Cx, x: f32, width: u8) -> Value {
        let mut lanes = [0.0; 4];
        lanes[..width as usize].fill(x);
        self.constant(cx, Constant::Float { lanes, width })
    }

    /// Runs `then` in a gamma on `predicate`; the other branch keeps the
    /// environment. Both branches pass every variable through; `tail` is
    /// the type of the value `then` returns (the other branch gives its
    /// zero). Returns that value.
    fn guarded(
        &mut self,
        cx: &mut Cx,
        predicate: Value,
        tail: Option<Ty>,
        then: &mut dyn FnMut(&mut Self, &mut Cx) -> Option<Value>,
    ) -> Option<Value> {
        self.branch(cx, predicate, tail, then, &mut |_, _| None)
    }

    /// Builds a gamma on `predicate` with the two branch builders, each run
    /// on a copy of the environment; every variable and the value of type
    /// `tail` (if any) come out of the gamma.
    fn branch(
        &mut self,
        cx: &mut Cx,
        predicate: Value,
        tail: Option<Ty>,
        then: &mut dyn FnMut(&mut Self, &mut Cx) -> Option<Value>,
        otherwise: &mut dyn FnMut(&mut Self, &mut Cx) -> Option<Value>,
    ) -> Option<Value> {
        let vars: Vec<Var> = cx.env.values.keys().copied().collect();
        let entries: Vec<Value> = vars.iter().map(|v| cx.env.values[v]).collect();
        let types: Vec<Ty> = entries.iter().map(|v| self.m.ty(*v)).collect();
        let regions = [
            self.build_branch(&vars, &types, tail, then),
            self.build_branch(&vars, &types, tail, otherwise),
        ];
        let g = self.m.add_gamma(cx.region, predicate, &entries, regions);
        for (i, v) in vars.iter().enumerate() {
            cx.env.values.insert(*v, self.m.output(g, i));
        }
        tail.map(|_| self.m.output(g, vars.len()))
    }

    /// One branch region of a gamma: arguments for `vars` (of `types`),
    /// filled by `build`, with every variable and the `tail` value as results.
    fn build_branch(
        &mut self,
        vars: &[Var],
        types: &[Ty],
        tail: Option<Ty>,
        build: &mut dyn FnMut(&mut Self, &mut Cx) -> Option<Value>,
    ) -> RegionId {
        let r = self.m.new_region(types);
        let mut inner = Cx {
            region: r,
            env: Env {
                values: vars
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (*v, self.m.argument(r, i)))
                    .collect(),
            },
        };
        let value = build(self, &mut inner);
        for v in vars {
            let out = inner.env.values[v];
            self.m.add_result(r, out);
        }
        if let Some(t) = tail {
            let out = match value {
                Some(v) => v,
                None => self.zero(&mut inner, t),
            };
            self.m.add_result(r, out);
        }
        r
    }

    /// `!(flag1 || flag2 || ...)` over the flags the exits may have set.
    fn normal_condition(&mut self, cx: &mut Cx, exits: exits::Exits) -> Value {
        let mut flags = Vec::new();
        let frame_ret = self.frames.last().map(|f| f.returned);
        let lp = self.frames.last().and_then(|f| f.loops.last().copied());
        if exits.brk {
            flags.extend(lp.map(|l| l.broke));
        }
        if exits.cont {
            flags.extend(lp.map(|l| l.continued));
        }
        if exits.ret {
            flags.extend(frame_ret);
        }
        if exits.discard {
            flags.push(self.discarded);
        }
        self.none_set(cx, &flags)
    }

    /// `true` when none of `flags` is set.
    fn none_set(&mut self, cx: &mut Cx, flags: &[Var]) -> Value {
        let mut any: Option<Value> = None;
        for f in flags {
            let v = cx.env.values[f];
            any = Some(match any {
                None => v,
                Some(a) => self.op(cx, Op::Binary(crate::op::BinOp::BOr), &[a, v]),
            });
        }
        match any {
            None => self.constant(cx, Constant::Bool(true)),
            Some(a) => self.op(cx, Op::Unary(crate::op::UnOp::BNot), &[a]),
        }
    }
}
