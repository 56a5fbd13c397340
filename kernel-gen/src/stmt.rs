//! Statements: `let`, assignments (plain, compound, swizzle writes),
//! output and scatter writes, `if`/`else if`/`else`, and the guarded exits
//! `break`, `continue`, `discard` and `return`. Loops are in
//! [`super::loops`].
//!
//! Robust bookkeeping of mutable locals: a plain assignment keeps the
//! value within the local's `base` range; additive updates (`+=`, `-=`)
//! draw on its reserve, charged once per execution (the product of the
//! trips of the loops entered since its declaration), so that every value
//! it ever holds stays within its declared `range` however the loops run.

use super::build;
use super::ctx::{BodyKind, Ex, Gen, Req, Role, Var};
use super::range::{REL, Range, ULP};
use ctm_frontend::ast::{BinaryOp, Stmt};
use ctm_frontend::types::{Target, Type};

impl Gen<'_> {
    /// Up to `max` statements (fewer if the budget runs out).
    pub fn stmts(&mut self, max: u32) -> Vec<Stmt> {
        let mut out = Vec::new();
        let n = self.rng.range_i64(1, i64::from(max.max(1)));
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            out.extend(self.stmt());
        }
        out
    }

    /// Statements per nested block.
    fn block_size(&mut self) -> u32 {
        self.budget.clamp(1, 4)
    }

    /// One statement (or a few that belong together, such as a loop and
    /// its counter).
    fn stmt(&mut self) -> Vec<Stmt> {
        let f = &self.o.features;
        let kernel = self.in_kernel();
        let helper = matches!(self.body, BodyKind::Helper(..));
        let nest = self.can_nest() && self.budget >= 2;
        let in_loop = !self.loops.is_empty();
        let loops_ok = nest && (self.loops.len() as u32) < self.o.max_loop_nesting;
        let has_outputs = self.env.as_ref().is_some_and(|e| !e.outputs.is_empty());
        let has_scatters = self.env.as_ref().is_some_and(|e| !e.scatters.is_empty());
        let assignable = self.vars.iter().any(|v| v.mutable);
        let weights = [
            6,                                           // let
            if assignable { 6 } else { 0 },              // assign
            if has_outputs { 2 } else { 0 },             // output
            if has_scatters { 2 } else { 0 },            // scatter
            if nest { 3 } else { 0 },                    // if
            if loops_ok && f.for_loops { 2 } else { 0 }, // for
            if loops_ok && f.while_loops && self.budget >= 4 {
                1
            } else {
                0
            }, // while
            if loops_ok
                && f.while_loops
                && self.budget >= 5
                && self.nesting + 2 <= self.o.max_nesting
            {
                1
            } else {
                0
            }, // loop
            if nest && in_loop && f.while_loops {
                2
            } else {
                0
            }, // break / continue
            if nest && kernel && f.discard_return && self.exits_left > 0 {
                1
            } else {
                0
            }, // discard / return
            if nest && helper { 2 } else { 0 },          // return value
        ];
        self.budget -= 1;
        let made = match self.rng.weighted(&weights) {
            Some(1) => self.assign_stmt(),
            Some(2) => self.output_stmt(),
            Some(3) => self.scatter_stmt(),
            Some(4) => Some(self.if_stmt()),
            Some(5) => self.for_stmt(),
            Some(6) => self.while_stmt(),
            Some(7) => self.loop_stmt(),
            Some(8) => Some(self.loop_exit_stmt()),
            Some(9) => Some(self.kernel_exit_stmt()),
            Some(10) => Some(self.helper_return_stmt()),
            _ => None,
        };
        made.unwrap_or_else(|| vec![self.let_stmt()])
    }

    /// The type of a new local.
    fn local_type(&mut self) -> Type {
        let f = &self.o.features;
        let weights = [
            5,
            2,
            3,
            3,
            if f.integers { 2 } else { 0 },
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

    /// `let [mut] name[: T] = init;`
    pub fn let_stmt(&mut self) -> Stmt {
        let ty = self.local_type();
        let mutable = self.rng.percent(45);
        let annotate = self.rng.percent(30);
        let name = self.fresh(Self::prefix(ty));
        // Exact-class locals can feed branches; approximate ones cannot.
        let err = if ty.is_float() && self.out_err > 0.0 && self.rng.percent(50) {
            self.out_err / 2.0
        } else {
            0.0
        };
        let var = if !self.robust {
            let init = self.expr(ty, self.top_req(ty, f64::INFINITY));
            let v = self.simple_var(name.clone(), ty, mutable, Role::Local, Range::any());
            (init, v)
        } else if !mutable || ty == Type::Bool {
            let req = self.top_req(ty, err);
            let init = self.expr(ty, req);
            let r = init.r;
            (
                init,
                self.simple_var(name.clone(), ty, mutable, Role::Local, r),
            )
        } else {
            let cap = Gen::mag_cap(ty);
            let choices: &[f64] = if ty == Type::I32 {
                &[16.0, 256.0, 4096.0, 65536.0]
            } else if err > 0.0 {
                &[4.0, 16.0, 32.0]
            } else {
                &[4.0, 16.0, 64.0, 256.0, 1024.0]
            };
            let base = *self.rng.pick(choices).unwrap_or(&16.0);
            let cap = if err > 0.0 {
                super::range::APPROX_MAG
            } else {
                cap
            };
            let reserve = (base * [0.0, 1.0, 4.0][self.rng.index(3)]).min(cap - base);
            let req = self.top_req(ty, err / 2.0).mag(base);
            let init = self.expr(ty, req);
            let v = Var {
                name: name.clone(),
                ty,
                mutable,
                role: Role::Local,
                range: Range::sym(base + reserve).with_err(err),
                base: Range::sym(base).with_err(err / 2.0),
                reserve_mag: reserve,
                reserve_err: err / 2.0,
                loop_level: self.loops.len(),
                uses: 0,
            };
            (init, v)
        };
        let (init, v) = var;
        self.declare(v);
        build::let_(mutable, &name, annotate.then_some(ty), init.e)
    }

    /// An assignment to a mutable local: plain, compound or swizzle write.
    fn assign_stmt(&mut self) -> Option<Vec<Stmt>> {
        let cands: Vec<usize> = (0..self.vars.len())
            .filter(|&i| self.vars[i].mutable)
            .collect();
        let i = *self.rng.pick(&cands)?;
        let v = self.vars[i].clone();
        let vector = v.ty.is_vector();
        let swz = vector && self.o.features.swizzle_writes;
        let weights = [
            4,                                      // plain
            if v.ty == Type::Bool { 0 } else { 3 }, // += -=
            if v.ty == Type::Bool { 0 } else { 1 }, // *=
            if v.ty == Type::Bool { 0 } else { 1 }, // /=
            if swz { 3 } else { 0 },                // v.xz = ..
            if swz { 1 } else { 0 },                // v.xz += ..
        ];
        let target = build::name(&v.name);
        match self.rng.weighted(&weights)? {
            0 if v.ty == Type::Bool => {
                let b = self.bool_expr(self.top_req(Type::Bool, 0.0));
                Some(vec![build::assign(target, None, b.e)])
            }
            0 => {
                let value = self.expr(v.ty, self.plain_req(&v));
                Some(vec![build::assign(target, None, value.e)])
            }
            1 => {
                let w = v.ty.float_width().unwrap_or(1);
                let qty = if w > 1 && self.rng.percent(25) {
                    Type::F32
                } else {
                    v.ty
                };
                let q = self.additive(i, qty)?;
                let op = if self.rng.percent(60) {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                };
                Some(vec![build::assign(target, Some(op), q.e)])
            }
            2 => {
                let q = self.shrinking_factor(i)?;
                Some(vec![build::assign(target, Some(BinaryOp::Mul), q.e)])
            }
            3 => {
                let d = self.shrinking_divisor(i)?;
                Some(vec![build::assign(target, Some(BinaryOp::Div), d.e)])
            }
            4 | 5 => {
                let w = v.ty.float_width().unwrap_or(2);
                let mut lanes: Vec<u8> = (0..w).collect();
                self.rng.shuffle(&mut lanes);
                let k = self.rng.range_i64(1, i64::from(w) - 1) as usize;
                lanes.truncate(k.max(1));
                let name = build::swizzle_name(&lanes, self.rng.percent(20));
                let part = Type::float(lanes.len() as u8);
                let place = build::field(target, &name);
                let compound = weights[5] > 0 && self.rng.percent(25);
                if compound {
                    let q = self.additive(i, part)?;
                    Some(vec![build::assign(place, Some(BinaryOp::Add), q.e)])
                } else {
                    let value = self.expr(part, self.plain_req(&v));
                    Some(vec![build::assign(place, None, value.e)])
                }
            }
            _ => None,
        }
    }

    /// What a plain assignment to `v` must satisfy.
    fn plain_req(&self, v: &Var) -> Req {
        if self.robust {
            Req {
                depth: self.o.max_expr_depth,
                mag: v.base.mag(),
                err: v.base.err,
            }
        } else {
            self.top_req(v.ty, f64::INFINITY)
        }
    }

    /// The `q` of `vars[i] += q`, charged to the local's reserve.
    fn additive(&mut self, i: usize, qty: Type) -> Option<Ex> {
        if !self.robust {
            return Some(self.expr(qty, self.top_req(qty, f64::INFINITY)));
        }
        let v = &self.vars[i];
        let times = self.multiplicity(v.loop_level) as f64;
        let rounding = if v.range.err > 0.0 {
            ULP * v.range.mag() * times
        } else {
            0.0
        };
        let mag = v.reserve_mag / times;
        let err = (v.reserve_err - rounding).max(0.0) / times;
        let min_step = if v.ty == Type::I32 { 1.0 } else { 1.0 / 16.0 };
        if mag < min_step || v.reserve_err < rounding {
            return None;
        }
        let req = Req {
            depth: self.o.max_expr_depth,
            mag,
            err,
        };
        let q = self.expr(qty, req);
        let v = &mut self.vars[i];
        v.reserve_mag -= q.r.mag() * times;
        v.reserve_err -= q.r.err * times
            + if q.r.err > 0.0 {
                ULP * v.range.mag() * times
            } else {
                rounding
            };
        v.reserve_err = v.reserve_err.max(0.0);
        Some(q)
    }

    /// The `q` of `vars[i] *= q`: robust mode keeps `|q| <= 1`, exact.
    fn shrinking_factor(&mut self, i: usize) -> Option<Ex> {
        let ty = if self.vars[i].ty == Type::I32 {
            Type::I32
        } else {
            Type::F32
        };
        if !self.robust {
            return Some(self.expr(ty, self.top_req(ty, f64::INFINITY)));
        }
        let v = &self.vars[i];
        let rounding = if v.range.err > 0.0 {
            ULP * v.range.mag() * self.multiplicity(v.loop_level) as f64
        } else {
            0.0
        };
        if rounding > v.reserve_err {
            return None;
        }
        let q = self.expr(
            ty,
            Req {
                depth: self.o.max_expr_depth,
                mag: 1.0,
                err: 0.0,
            },
        );
        self.vars[i].reserve_err -= rounding;
        Some(q)
    }

    /// The `d` of `vars[i] /= d`: robust mode divides approximate floats
    /// by `abs(x) + 1.0` (which shrinks them); r700 and ref divide integers.
    fn shrinking_divisor(&mut self, i: usize) -> Option<Ex> {
        let v = self.vars[i].clone();
        if v.ty == Type::I32 {
            if self.o.target == Target::X1k {
                return None;
            }
            return Some(self.int_expr(self.top_req(Type::I32, 0.0)));
        }
        if !self.robust {
            return Some(self.expr(Type::F32, self.top_req(Type::F32, f64::INFINITY)));
        }
        let times = self.multiplicity(v.loop_level) as f64;
        let cost = 2.0 * (REL + ULP) * v.range.mag() * times;
        if v.range.err <= 0.0 || cost > v.reserve_err || self.o.max_expr_depth < 3 {
            return None;
        }
        let x = self.float(
            1,
            Req {
                depth: self.o.max_expr_depth - 2,
                mag: super::range::ROBUST_MAG,
                err: 0.0,
            },
        );
        self.vars[i].reserve_err -= cost;
        let a = x.r.abs();
        let abs = Ex::new(build::call("abs", vec![x.e]), a, x.h + 1);
        let one = Ex::new(build::float(1.0), Range::point(1.0), 1);
        let r = a.add(one.r);
        Some(super::expr::bin(BinaryOp::Add, abs, one, r))
    }

    /// `out = value;`
    pub fn output_stmt(&mut self) -> Option<Vec<Stmt>> {
        let outs = self.env.as_ref()?.outputs.clone();
        let (name, ty) = self.rng.pick(&outs)?.clone();
        Some(vec![self.write_output(&name, ty)])
    }

    /// `name = value;` for the output `name` of type `ty`.
    pub fn write_output(&mut self, name: &str, ty: ctm_frontend::types::OutputType) -> Stmt {
        let t = ty.value_type();
        let req = self.out_req(t);
        let value = self.live_expr(t, req);
        build::assign(build::name(name), None, value.e)
    }

    /// `s[p] = value;`
    fn scatter_stmt(&mut self) -> Option<Vec<Stmt>> {
        let scatters = self.env.as_ref()?.scatters.clone();
        let (name, pos) = self.rng.pick(&scatters)?.clone();
        let pos = if self.robust {
            pos
        } else {
            let req = self.top_req(Type::Vec2, f64::INFINITY);
            self.position(req).e
        };
        let req = self.out_req(Type::F32);
        let value = self.live_expr(Type::F32, req);
        Some(vec![build::assign(build::index(&name, pos), None, value.e)])
    }

    /// A condition: an exact `bool` of full depth.
    pub fn condition(&mut self) -> Ex {
        let req = self.top_req(Type::Bool, 0.0);
        self.live_bool(req)
    }

    /// A condition one level shallower, to combine with a loop bound.
    pub fn sub_condition(&mut self) -> Ex {
        let req = self.top_req(Type::Bool, 0.0);
        self.live_bool(req.down(1))
    }

    /// A value of `ty` that is not a constant, if a few tries find one:
    /// an output written with a constant makes earlier work dead code.
    pub fn live_expr(&mut self, ty: Type, req: Req) -> Ex {
        let mut x = self.expr(ty, req);
        for _ in 0..4 {
            if !build::is_constant(&x.e) {
                break;
            }
            x = self.expr(ty, req);
        }
        x
    }

    /// A `bool` that depends on the element (not only on literals and
    /// constants), if a few tries find one: a constant condition makes
    /// one branch dead code.
    pub fn live_bool(&mut self, req: Req) -> Ex {
        let mut c = self.bool_expr(req);
        for _ in 0..4 {
            if !build::is_constant(&c.e) {
                break;
            }
            c = self.bool_expr(req);
        }
        c
    }

    /// `if c { .. } [else if d { .. }] [else { .. }]`.
    fn if_stmt(&mut self) -> Vec<Stmt> {
        let c = self.condition();
        let then = self.branch_block();
        let else_ = if self.budget > 0 && self.rng.percent(30) {
            Some(self.else_if())
        } else if self.budget > 0 && self.rng.percent(55) {
            Some(build::block_expr(build::block(self.branch_block(), None)))
        } else {
            None
        };
        vec![build::expr_stmt(build::if_expr(
            c.e,
            build::block(then, None),
            else_,
        ))]
    }

    fn else_if(&mut self) -> ctm_frontend::ast::Expr {
        let c = self.condition();
        let then = self.branch_block();
        let else_ = if self.budget > 0 && self.rng.percent(50) {
            Some(build::block_expr(build::block(self.branch_block(), None)))
        } else {
            None
        };
        build::if_expr(c.e, build::block(then, None), else_)
    }

    /// The block of an `if` branch; sometimes it ends by leaving (the
    /// element, the loop or the helper).
    fn branch_block(&mut self) -> Vec<Stmt> {
        let max = self.block_size();
        self.enter();
        self.push_scope();
        let mut s = self.stmts(max);
        if self.rng.percent(70) {
            s.extend(self.sink());
        }
        if self.budget > 0 && self.rng.percent(8) {
            let kernel_exit = self.in_kernel() && self.o.features.discard_return;
            let loop_exit = !self.loops.is_empty() && self.o.features.while_loops;
            if let Some(exit) = self.exit(kernel_exit, loop_exit) {
                self.budget -= 1;
                s.push(exit);
            }
        }
        self.pop_scope();
        self.leave();
        s
    }

    /// A statement that leaves: `return;`/`discard;` in kernels, `return
    /// e;` in helpers, `break;`/`continue;` in loops.
    fn exit(&mut self, kernel_exit: bool, loop_exit: bool) -> Option<Stmt> {
        if let BodyKind::Helper(ty, req) = self.body {
            let v = self.expr(ty, req);
            self.note_return(v.r);
            return Some(build::return_(Some(v.e)));
        }
        let mut choices = Vec::new();
        if kernel_exit && self.exits_left > 0 {
            choices.extend([0, 1]);
        }
        if loop_exit {
            choices.extend([2, 3]);
        }
        let pick = *self.rng.pick(&choices)?;
        if pick < 2 {
            self.exits_left -= 1;
        }
        Some(match pick {
            0 => build::discard(),
            1 => build::return_(None),
            2 => build::break_(),
            _ => build::continue_(),
        })
    }

    /// `if c { break; }` or `if c { continue; }`.
    fn loop_exit_stmt(&mut self) -> Vec<Stmt> {
        self.guarded_exit(false, true)
    }

    /// `if c { discard; }` or `if c { return; }`.
    fn kernel_exit_stmt(&mut self) -> Vec<Stmt> {
        self.guarded_exit(true, false)
    }

    /// `if c { return e; }` in a helper.
    fn helper_return_stmt(&mut self) -> Vec<Stmt> {
        self.guarded_exit(false, false)
    }

    fn guarded_exit(&mut self, kernel_exit: bool, loop_exit: bool) -> Vec<Stmt> {
        let mut c = self.condition();
        if kernel_exit {
            // A condition that only uniforms decide would end every element.
            for _ in 0..4 {
                if self.per_element(&c.e) && !constant_disjunct(&c.e) {
                    break;
                }
                c = self.condition();
            }
        }
        self.budget = self.budget.saturating_sub(1);
        self.enter();
        let exit = self.exit(kernel_exit, loop_exit);
        self.leave();
        match exit {
            Some(exit) => vec![build::expr_stmt(build::if_expr(
                c.e,
                build::block(vec![exit], None),
                None,
            ))],
            None => vec![self.let_stmt()],
        }
    }

    /// Flows a local of the innermost scope that nothing has read into an
    /// outer mutable local or an output of its type, so that its
    /// computation is not dead code.
    pub fn sink(&mut self) -> Option<Stmt> {
        if self.budget == 0 {
            return None;
        }
        let mark = *self.marks.last()?;
        let unused: Vec<usize> = (mark..self.vars.len())
            .filter(|&i| self.vars[i].uses == 0 && self.vars[i].role == Role::Local)
            .collect();
        let vi = *self.rng.pick(&unused)?;
        let (name, ty) = (self.vars[vi].name.clone(), self.vars[vi].ty);
        // Targets of the same type, or of a float type the local converts
        // to (see `focus_leaf`).
        let takes = |t: Type| t == ty || (t.is_float() && ty != Type::Bool) || t == Type::F32;
        let outer: Vec<usize> = (0..mark)
            .filter(|&i| self.vars[i].mutable && takes(self.vars[i].ty))
            .collect();
        let has_outputs = self.env.as_ref().is_some_and(|e| !e.outputs.is_empty());
        if outer.is_empty() && !has_outputs {
            return None;
        }
        self.budget -= 1;
        self.focus = Some(name);
        let made = if !outer.is_empty() && (!has_outputs || self.rng.percent(60)) {
            let ti = *self.rng.pick(&outer)?;
            let tty = self.vars[ti].ty;
            let target = build::name(&self.vars[ti].name);
            let additive = if tty != Type::Bool && self.rng.percent(50) {
                self.additive(ti, tty)
            } else {
                None
            };
            match additive {
                Some(q) => build::assign(target, Some(BinaryOp::Add), q.e),
                None => {
                    let v = self.vars[ti].clone();
                    let value = self.expr(tty, self.plain_req(&v));
                    build::assign(target, None, value.e)
                }
            }
        } else {
            self.output_stmt()?.pop()?
        };
        self.focus = None;
        Some(made)
    }

    /// `true` if `e` reads an input stream or `index()`, so that its
    /// value differs between elements.
    fn per_element(&self, e: &ctm_frontend::ast::Expr) -> bool {
        use ctm_frontend::ast::ExprKind as K;
        let inputs: Vec<&str> = self
            .env
            .iter()
            .flat_map(|e| e.inputs.iter().map(|(n, _)| n.as_str()))
            .collect();
        let mut found = false;
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            match &x.kind {
                K::Name(id) if inputs.contains(&id.name.as_str()) => found = true,
                K::Call { callee, args } => {
                    found |= callee.name == "index";
                    stack.extend(args);
                }
                K::Unary { operand, .. } | K::Cast { operand, .. } => stack.push(operand),
                K::Binary { lhs, rhs, .. } => stack.extend([&**lhs, &**rhs]),
                K::Field { base, .. } => stack.push(base),
                K::Index { base, index } => stack.extend([&**base, &**index]),
                K::If { cond, then, else_ } => {
                    stack.push(cond);
                    stack.extend(then.tail.as_deref());
                    stack.extend(else_.as_deref());
                }
                K::Block(b) => stack.extend(b.tail.as_deref()),
                _ => {}
            }
        }
        found
    }

    /// Records a helper's returned range.
    pub fn note_return(&mut self, r: Range) {
        self.ret_range = Some(self.ret_range.map_or(r, |x| x.union(r)));
    }
}

/// `true` if `e` is `a || b` with a constant `a` or `b` (at any depth of
/// `||`): likely always true.
fn constant_disjunct(e: &ctm_frontend::ast::Expr) -> bool {
    match &e.kind {
        ctm_frontend::ast::ExprKind::Binary {
            op: BinaryOp::Or,
            lhs,
            rhs,
        } => {
            build::is_constant(lhs)
                || build::is_constant(rhs)
                || constant_disjunct(lhs)
                || constant_disjunct(rhs)
        }
        _ => false,
    }
}
