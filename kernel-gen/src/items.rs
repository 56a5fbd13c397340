//! Items: `const` items, helper functions and the kernel (its parameters
//! and its body's frame: output defaults first, final output writes last).

use super::build;
use super::ctx::{BodyKind, Const, Gen, Helper, KernelEnv, Req, Role, Uniform, Var};
use super::range::{Range, TRIG_ARG};
use ctm_frontend::ast::{self, BinaryOp, Param};
use ctm_frontend::builtins::BUILTINS;
use ctm_frontend::numerics;
use ctm_frontend::span::Span;
use ctm_frontend::types::{ArrayType, OutputType, ScalarOrVector, StreamType, Target, Type};
use ctm_frontend::value::Value;

fn param(name: &str, ty: ast::TypeExpr, mutable: bool) -> Param {
    Param {
        mutable,
        name: build::ident(name),
        ty,
        span: Span::default(),
    }
}

fn value_range(v: &Value) -> Range {
    match v {
        Value::I32(x) => Range::point(f64::from(*x)),
        Value::Bool(_) => Range::new(0.0, 1.0),
        other => other
            .lanes()
            .iter()
            .map(|x| Range::point(f64::from(*x)))
            .reduce(Range::union)
            .unwrap_or(Range::point(0.0)),
    }
}

impl Gen<'_> {
    /// Resets the per-body state before generating a new body.
    fn reset_body(&mut self, body: BodyKind, budget: u32) {
        self.vars.clear();
        self.marks.clear();
        self.loops.clear();
        self.nesting = 0;
        self.nesting_seen = 0;
        self.loop_nesting_seen = 0;
        self.trips_seen = 1;
        self.ret_range = None;
        self.body = body;
        self.budget = budget;
    }

    /// Up to `max_consts` `const` items.
    pub fn const_items(&mut self) -> Vec<ast::Item> {
        if !self.o.features.consts {
            return Vec::new();
        }
        let n = self.rng.range_i64(0, i64::from(self.o.max_consts));
        (0..n)
            .map(|_| ast::Item::Const(self.const_item()))
            .collect()
    }

    fn const_item(&mut self) -> ast::ConstItem {
        let f = &self.o.features;
        let weights = [
            3,
            if f.integers || f.for_loops { 3 } else { 0 },
            1,
            1,
            1,
            if f.bools { 1 } else { 0 },
        ];
        let types = [
            Type::F32,
            Type::I32,
            Type::Vec2,
            Type::Vec3,
            Type::Vec4,
            Type::Bool,
        ];
        let ty = types[self.rng.weighted(&weights).unwrap_or(0)];
        let name = format!("K{}", self.consts.len());
        let prev_f32: Vec<(String, f32)> = self
            .consts
            .iter()
            .filter(|c| c.ty == Type::F32)
            .map(|c| (c.name.clone(), c.range.lo as f32))
            .collect();
        let prev_i32: Vec<(String, i64)> = self
            .consts
            .iter()
            .filter_map(|c| c.int_value.map(|v| (c.name.clone(), v)))
            .collect();
        let (expr, value) = match ty {
            Type::I32 => {
                let lit = *self.rng.pick(&[2i64, 3, 4, 5, 6, 8]).unwrap_or(&4);
                match self.rng.pick(&prev_i32).cloned() {
                    Some((k, v)) if self.rng.percent(40) => {
                        let c = self.rng.range_i64(1, 3);
                        (
                            build::binary(BinaryOp::Add, build::name(&k), build::int(c)),
                            Value::I32((v + c) as i32),
                        )
                    }
                    _ => (build::int(lit), Value::I32(lit as i32)),
                }
            }
            Type::F32 => {
                let lit = self.float_literal(16.0);
                let x = lit.r.lo as f32;
                match self.rng.pick(&prev_f32).cloned() {
                    Some((k, v)) if self.rng.percent(40) => {
                        let y = numerics::mul(v, x);
                        (
                            build::binary(BinaryOp::Mul, build::name(&k), lit.e),
                            Value::f32(y),
                        )
                    }
                    _ => (lit.e, Value::f32(x)),
                }
            }
            Type::Bool => {
                let b = self.rng.percent(50);
                match self.rng.pick(&prev_i32).cloned() {
                    Some((k, v)) if self.rng.percent(60) => {
                        let c = self.rng.range_i64(0, 6);
                        (
                            build::binary(BinaryOp::Gt, build::name(&k), build::int(c)),
                            Value::Bool(v > c),
                        )
                    }
                    _ => (build::boolean(b), Value::Bool(b)),
                }
            }
            _ => {
                let w = ty.float_width().unwrap_or(2);
                let mut lanes = Vec::new();
                let mut args = Vec::new();
                for _ in 0..w {
                    match self.rng.pick(&prev_f32).cloned() {
                        Some((k, v)) if self.rng.percent(25) => {
                            lanes.push(v);
                            args.push(build::name(&k));
                        }
                        _ => {
                            let lit = self.float_literal(16.0);
                            lanes.push(lit.r.lo as f32);
                            args.push(lit.e);
                        }
                    }
                }
                (build::call(&format!("vec{w}"), args), Value::floats(&lanes))
            }
        };
        let int_value = match value {
            Value::I32(v) => Some(i64::from(v)),
            _ => None,
        };
        let range = value_range(&value);
        self.consts.push(Const {
            name: name.clone(),
            ty,
            range,
            int_value,
        });
        ast::ConstItem {
            name: build::ident(&name),
            ty: build::type_expr(ty),
            value: expr,
            span: Span::default(),
        }
    }

    /// Up to `max_helpers` helper functions; each may call the earlier ones.
    pub fn helper_items(&mut self) -> Vec<ast::Item> {
        if !self.o.features.helpers {
            return Vec::new();
        }
        let n = self.rng.range_i64(0, i64::from(self.o.max_helpers));
        (0..n as usize)
            .map(|i| ast::Item::Fn(self.helper_item(i)))
            .collect()
    }

    /// A type for a helper parameter or result.
    fn helper_type(&mut self) -> Type {
        let f = &self.o.features;
        let weights = [
            4,
            2,
            2,
            2,
            if f.integers { 1 } else { 0 },
            if f.bools { 1 } else { 0 },
        ];
        let types = [
            Type::F32,
            Type::Vec2,
            Type::Vec3,
            Type::Vec4,
            Type::I32,
            Type::Bool,
        ];
        types[self.rng.weighted(&weights).unwrap_or(0)]
    }

    fn helper_item(&mut self, idx: usize) -> ast::FnItem {
        let name = format!("h{idx}");
        let budget = self
            .rng
            .range_i64(0, i64::from(self.o.max_helper_statements)) as u32;
        let ret = self.helper_type();
        let helper_err = if self.out_err > 0.0 && self.rng.percent(60) {
            self.out_err / 2.0
        } else {
            0.0
        };
        let req = self.top_req(ret, helper_err);
        self.env = None;
        self.reset_body(BodyKind::Helper(ret, req), budget);
        self.push_scope();
        let n = self.rng.range_i64(1, 3) as usize;
        let mut params = Vec::new();
        let mut sig = Vec::new();
        for name in ["a", "b", "c"].iter().take(n) {
            let ty = self.helper_type();
            let mutable = self.rng.percent(20);
            let contract = if !self.robust {
                Range::any()
            } else {
                match ty {
                    Type::Bool => Range::new(0.0, 1.0),
                    Type::I32 => Range::sym(*self.rng.pick(&[16.0, 256.0]).unwrap_or(&16.0)),
                    _ => {
                        let m = *self.rng.pick(&[1.0, 4.0, 16.0, 64.0]).unwrap_or(&4.0);
                        let e = if self.out_err > 0.0 && self.rng.percent(50) {
                            self.out_err / 8.0
                        } else {
                            0.0
                        };
                        Range::sym(m).with_err(e)
                    }
                }
            };
            let v = Var {
                name: name.to_string(),
                ty,
                mutable,
                role: Role::Param,
                range: contract,
                base: contract,
                reserve_mag: 0.0,
                reserve_err: 0.0,
                loop_level: 0,
                uses: 0,
            };
            self.declare(v);
            params.push(param(name, build::type_expr(ty), mutable));
            sig.push((name.to_string(), ty, contract));
        }
        let stmts = if budget > 0 {
            self.stmts(budget)
        } else {
            Vec::new()
        };
        let tail = self.expr(ret, req);
        self.note_return(tail.r);
        self.pop_scope();
        self.helpers.push(Helper {
            name: name.clone(),
            params: sig,
            ret,
            ret_range: self.ret_range.unwrap_or(tail.r),
            nesting: self.nesting_seen,
            loop_nesting: self.loop_nesting_seen,
            trips: self.trips_seen,
            calls: 0,
        });
        ast::FnItem {
            name: build::ident(&name),
            params,
            ret: Some(build::type_expr(ret)),
            body: build::block(stmts, Some(tail.e)),
            span: Span::default(),
        }
    }

    /// The kernel's parameters and what its body sees of them.
    fn kernel_params(&mut self) -> (Vec<Param>, KernelEnv) {
        let f = self.o.features.clone();
        let mut env = KernelEnv::default();
        let mut params = Vec::new();
        let n_uniforms = self.rng.range_i64(0, i64::from(self.o.max_uniforms));
        for i in 0..n_uniforms {
            let weights = [
                4,
                1,
                1,
                2,
                if f.integers || f.for_loops { 2 } else { 0 },
                if f.bools { 1 } else { 0 },
                if f.uniform_arrays { 2 } else { 0 },
                if f.mat4 { 1 } else { 0 },
            ];
            let ty = match self.rng.weighted(&weights).unwrap_or(0) {
                0 => Type::F32,
                1 => Type::Vec2,
                2 => Type::Vec3,
                3 => Type::Vec4,
                4 => Type::I32,
                5 => Type::Bool,
                6 => {
                    let mut elems = vec![
                        ScalarOrVector::F32,
                        ScalarOrVector::Vec4,
                        ScalarOrVector::Vec2,
                    ];
                    if f.integers {
                        elems.push(ScalarOrVector::I32);
                    }
                    let elem = *self.rng.pick(&elems).unwrap_or(&ScalarOrVector::F32);
                    let len = self.rng.range_i64(2, 16) as u16;
                    Type::Array(ArrayType { elem, len })
                }
                _ => Type::Mat4,
            };
            let name = match ty {
                Type::Array(_) => format!("arr{i}"),
                Type::Mat4 => format!("m{i}"),
                _ => format!("u{i}"),
            };
            params.push(param(&name, build::type_expr(ty), false));
            env.uniforms.push(Uniform { name, ty });
        }
        let max_in = i64::from(self.o.max_inputs);
        let n_inputs = self.rng.range_i64(max_in.min(1), max_in);
        for i in 0..n_inputs {
            let weights = [
                3,
                2,
                2,
                if f.packed_inputs { 1 } else { 0 },
                if f.packed_inputs { 1 } else { 0 },
            ];
            let s = [
                StreamType::F32,
                StreamType::Vec2,
                StreamType::Vec4,
                StreamType::Unorm8x4,
                StreamType::U16,
            ][self.rng.weighted(&weights).unwrap_or(0)];
            let name = format!("in{i}");
            params.push(param(&name, build::input_type(s), false));
            env.inputs.push((name, s));
        }
        let max_out = i64::from(self.o.max_outputs);
        let x1k = self.o.target == Target::X1k;
        let (n_out, n_scatter) = if f.scatters && x1k && self.rng.percent(25) {
            // x1k writes one uncached buffer, and no `Out` beside it.
            (0, 1)
        } else {
            let outs = if self.rng.percent(60) {
                1
            } else {
                self.rng.range_i64(1, max_out)
            };
            let sc = i64::from(f.scatters && !x1k && outs < max_out && self.rng.percent(30));
            (outs, sc)
        };
        for i in 0..n_out {
            let t = *self
                .rng
                .pick(&[
                    OutputType::F32,
                    OutputType::F32,
                    OutputType::Vec2,
                    OutputType::Vec4,
                ])
                .unwrap_or(&OutputType::F32);
            let name = format!("out{i}");
            params.push(param(&name, build::output_type(t), false));
            env.outputs.push((name, t));
        }
        for i in 0..n_scatter {
            let name = format!("sc{i}");
            params.push(param(&name, build::scatter_type(), false));
            let pos = self.injective_position();
            env.scatters.push((name, pos));
        }
        (params, env)
    }

    /// A position that differs for every element: no two elements scatter
    /// to the same place, so the hardware's order of writes cannot matter.
    fn injective_position(&mut self) -> ast::Expr {
        let idx = || build::call("index", vec![]);
        // Heights of the forms below: 1, 3, 2, 5, 2.
        let heights = [1, 3, 2, 5, 2];
        let ok: Vec<usize> = (0..5)
            .filter(|&i| heights[i] <= self.o.max_expr_depth)
            .collect();
        match self.rng.pick(&ok).copied().unwrap_or(0) {
            0 => idx(),
            1 => {
                let dx = self.rng.range_i64(-2, 2) as f32;
                let dy = self.rng.range_i64(-2, 2) as f32;
                build::binary(
                    BinaryOp::Add,
                    idx(),
                    build::call("vec2", vec![build::float(dx), build::float(dy)]),
                )
            }
            2 => build::field(idx(), "yx"),
            3 => build::call(
                "vec2",
                vec![
                    build::binary(
                        BinaryOp::Sub,
                        build::binary(
                            BinaryOp::Sub,
                            build::field(build::call("domain", vec![]), "x"),
                            build::float(1.0),
                        ),
                        build::field(idx(), "x"),
                    ),
                    build::field(idx(), "y"),
                ],
            ),
            _ => build::binary(BinaryOp::Mul, idx(), build::float(2.0)),
        }
    }

    /// The kernel item named `name`, and whether its first statement is
    /// the marker of [`Self::transcendental_marker`].
    pub fn kernel_item(&mut self, name: &str) -> (ast::KernelItem, bool) {
        let (params, env) = self.kernel_params();
        let outputs = env.outputs.clone();
        let budget = self.o.max_statements.max(outputs.len() as u32);
        if self.robust && budget as usize <= outputs.len() {
            // No room for the marker: no approximate operation either.
            self.out_err = 0.0;
        }
        self.env = Some(env);
        self.reset_body(BodyKind::Kernel, budget);
        self.push_scope();
        let marker = (self.robust && self.out_err > 0.0 && self.budget > outputs.len() as u32)
            .then(|| {
                self.budget -= 1;
                self.transcendental_marker()
            });
        let mut body: Vec<ast::Stmt> = marker.iter().cloned().collect();
        // The defaults' statements are paid for up front, so that lets in
        // their `if` expressions cannot take their place.
        self.budget -= outputs.len() as u32;
        for (out, ty) in &outputs {
            let t = ty.value_type();
            let req = self.out_req(t);
            let v = self.live_expr(t, req);
            body.push(build::assign(build::name(out), None, v.e));
        }
        let most = (self.budget / 3).min(outputs.len() as u32);
        let finals = self.rng.range_i64(i64::from(most.min(1)), i64::from(most)) as u32;
        self.budget -= finals;
        if self.budget > 0 {
            let n = self.budget;
            body.extend(self.stmts(n));
        }
        self.budget += finals;
        // Each final write goes to another output, as kernels that compute
        // first and write their results last do.
        let mut order = outputs.clone();
        self.rng.shuffle(&mut order);
        for (out, ty) in order.iter().take(finals as usize) {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            // Pull a local nothing has read into the output.
            let unused: Vec<String> = self
                .vars
                .iter()
                .filter(|v| v.uses == 0 && v.role == Role::Local)
                .map(|v| v.name.clone())
                .collect();
            self.focus = self.rng.pick(&unused).cloned();
            body.push(self.write_output(out, *ty));
            self.focus = None;
        }
        let marker = marker.is_some();
        self.pop_scope();
        let item = ast::KernelItem {
            name: build::ident(name),
            params,
            body: build::block(body, None),
            span: Span::default(),
        };
        (item, marker)
    }

    /// `let _tN = sin(x);`: makes a robust kernel that may hold
    /// approximate operations use a transcendental built-in, so that spec
    /// §7's looser tolerance applies to it. Removed again by the caller
    /// when the kernel already has one.
    fn transcendental_marker(&mut self) -> ast::Stmt {
        let x = self.float(
            1,
            Req {
                depth: self.o.max_expr_depth.clamp(2, 3) - 1,
                mag: TRIG_ARG,
                err: 0.0,
            },
        );
        let name = self.fresh("_t");
        build::let_(false, &name, None, build::call("sin", vec![x.e]))
    }
}

/// `true` if `block` calls a transcendental built-in (spec §7's tolerance
/// class), looking into nested blocks.
pub fn calls_transcendental(block: &ast::Block) -> bool {
    fn in_expr(e: &ast::Expr) -> bool {
        use ast::ExprKind as K;
        match &e.kind {
            K::Call { callee, args } => {
                BUILTINS
                    .iter()
                    .any(|b| b.name == callee.name && b.transcendental)
                    || args.iter().any(in_expr)
            }
            K::Unary { operand, .. } | K::Cast { operand, .. } => in_expr(operand),
            K::Binary { lhs, rhs, .. } => in_expr(lhs) || in_expr(rhs),
            K::Field { base, .. } => in_expr(base),
            K::Index { base, index } => in_expr(base) || in_expr(index),
            K::If { cond, then, else_ } => {
                in_expr(cond) || in_block(then) || else_.as_deref().is_some_and(in_expr)
            }
            K::Block(b) => in_block(b),
            _ => false,
        }
    }
    fn in_stmt(s: &ast::Stmt) -> bool {
        use ast::StmtKind as S;
        match &s.kind {
            S::Let { init, .. } => init.as_ref().is_some_and(in_expr),
            S::Assign { target, value, .. } => in_expr(target) || in_expr(value),
            S::Expr(e) => in_expr(e),
            S::For {
                start, end, body, ..
            } => in_expr(start) || in_expr(end) || in_block(body),
            S::While { cond, body } => in_expr(cond) || in_block(body),
            S::Loop { body } => in_block(body),
            S::Return(v) => v.as_ref().is_some_and(in_expr),
            S::Break | S::Continue | S::Discard => false,
        }
    }
    fn in_block(b: &ast::Block) -> bool {
        b.stmts.iter().any(in_stmt) || b.tail.as_deref().is_some_and(in_expr)
    }
    in_block(block)
}
