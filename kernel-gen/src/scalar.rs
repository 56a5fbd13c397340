//! Expressions of type `i32` and `bool`, and uniform-array indices.
//!
//! Integers are always exact; in robust mode their magnitude stays below
//! [`INT_MAG`] (x1k emulates `i32` in f32, spec §3). On x1k no `/ % & | ^
//! << >> !` is applied to an `i32` (spec §3), and array indices are
//! constants or `for` counters plus constants (spec §3, x1k column).

use super::build;
use super::ctx::{Ex, Gen, Req, Role};
use super::expr::bin;
use super::range::{INT_MAG, ROBUST_MAG, Range, pow2_floor};
use ctm_frontend::ast::{BinaryOp, UnaryOp};
use ctm_frontend::types::{Target, Type};

/// Small integers the generator likes.
const NICE_INTS: &[i64] = &[0, 1, 2, 3, 4, 5, 7, 8, 10, 16, 100, 255, 1000];

/// Integers only exact mode uses.
const WILD_INTS: &[i64] = &[
    2_147_483_647,
    -2_147_483_648,
    65_536,
    16_777_216,
    16_777_217,
    -1_000_000_007,
];

impl Gen<'_> {
    /// `true` if `i32` operators beyond `+ - *` may be used (r700, ref).
    fn native_ints(&self) -> bool {
        self.o.target != Target::X1k
    }

    /// An `i32` expression.
    pub fn int_expr(&mut self, req: Req) -> Ex {
        let req = if self.robust {
            req.exact().mag(req.mag.min(INT_MAG))
        } else {
            req
        };
        let f = &self.o.features;
        if !f.integers || req.depth <= 1 || self.rng.percent(if req.depth <= 2 { 55 } else { 25 }) {
            return self.int_leaf(req);
        }
        let native = self.native_ints();
        let bools = f.bools;
        let helper_weight = self.helper_weight(Type::I32);
        let has_array = self.array_of(Type::I32).is_some();
        let weights = [
            2,                             // neg
            7,                             // add/sub
            4,                             // mul
            if native { 2 } else { 0 },    // div/rem
            if native { 3 } else { 0 },    // bitwise
            if native { 2 } else { 0 },    // shifts
            if native { 1 } else { 0 },    // bitwise not
            3,                             // abs/min/max/clamp/sign
            3,                             // float as i32
            if bools { 1 } else { 0 },     // bool as i32
            2,                             // select / if
            helper_weight,                 // helper
            if has_array { 2 } else { 0 }, // array element
        ];
        for _ in 0..4 {
            let made = match self.rng.weighted(&weights) {
                Some(0) => self.int_neg(req),
                Some(1) => self.int_add_sub(req),
                Some(2) => self.int_mul(req),
                Some(3) => self.int_div_rem(req),
                Some(4) => self.int_bitwise(req),
                Some(5) => self.int_shift(req),
                Some(6) => self.int_not(req),
                Some(7) => self.int_builtin(req),
                Some(8) => self.float_to_int(req),
                Some(9) => self.bool_to_int(req),
                Some(10) => self.choice(Type::I32, req),
                Some(11) => self.helper_call(Type::I32, req),
                Some(12) => self.array_element(Type::I32, req),
                _ => None,
            };
            if let Some(ex) = made {
                return ex;
            }
        }
        self.int_leaf(req)
    }

    /// An integer literal of magnitude at most `max`.
    pub fn int_literal(&mut self, max: f64) -> Ex {
        let v = if !self.robust && self.rng.percent(5) {
            *self.rng.pick(WILD_INTS).unwrap_or(&0)
        } else {
            let ok: Vec<i64> = NICE_INTS
                .iter()
                .copied()
                .filter(|&v| v as f64 <= max)
                .collect();
            let v = *self.rng.pick(&ok).unwrap_or(&0);
            if self.rng.percent(25) { -v } else { v }
        };
        let e = if v >= 0 && self.o.features.literal_forms && self.rng.percent(15) {
            build::int_bits(v as u32)
        } else {
            build::int(v)
        };
        Ex::new(e, Range::point(v as f64), 1)
    }

    /// A leaf: a literal, local, counter, uniform or constant.
    fn int_leaf(&mut self, req: Req) -> Ex {
        #[derive(Clone, Copy)]
        enum Leaf {
            Var(usize),
            Uniform(usize),
            Const(usize),
            Literal,
        }
        let mut cands: Vec<(Leaf, u32)> = vec![(Leaf::Literal, 3)];
        for (i, v) in self.vars.iter().enumerate() {
            if v.ty == Type::I32 && self.int_leaf_ok(v.range, req) {
                let w = if self.focus.as_deref() == Some(v.name.as_str()) {
                    60
                } else if v.uses == 0 {
                    10
                } else {
                    4
                };
                cands.push((Leaf::Var(i), w));
            }
        }
        if self.o.features.integers
            && let Some(env) = &self.env
        {
            for (i, u) in env.uniforms.iter().enumerate() {
                if u.ty == Type::I32 && self.int_leaf_ok(self.uniform_range(Type::I32), req) {
                    cands.push((Leaf::Uniform(i), 2));
                }
            }
        }
        for (i, c) in self.consts.iter().enumerate() {
            if c.ty == Type::I32 && self.int_leaf_ok(c.range, req) {
                cands.push((Leaf::Const(i), 2));
            }
        }
        let weights: Vec<u32> = cands.iter().map(|c| c.1).collect();
        let pick = self
            .rng
            .weighted(&weights)
            .map_or(Leaf::Literal, |i| cands[i].0);
        let ex = match pick {
            Leaf::Var(i) => {
                self.vars[i].uses += 1;
                let v = &self.vars[i];
                Ex::new(build::name(&v.name), v.range, 1)
            }
            Leaf::Uniform(i) => {
                let name = self.env.as_ref().map_or("", |e| &e.uniforms[i].name);
                Ex::new(build::name(name), self.uniform_range(Type::I32), 1)
            }
            Leaf::Const(i) => {
                let c = &self.consts[i];
                Ex::new(build::name(&c.name), c.range, 1)
            }
            Leaf::Literal => self.int_literal(req.mag.min(1000.0)),
        };
        self.fit_int_mag(ex, req)
    }

    /// A leaf of range `r` fits `req`, or a clamp around it does.
    fn int_leaf_ok(&self, r: Range, req: Req) -> bool {
        !self.robust || r.mag() <= req.mag || req.depth >= 2
    }

    /// Wraps `x` in `clamp(x, -K, K)` if it may exceed `req.mag`.
    pub fn fit_int_mag(&mut self, x: Ex, req: Req) -> Ex {
        if !self.robust || x.r.mag() <= req.mag || req.depth < 2 {
            return x;
        }
        let k = req.mag.floor().clamp(0.0, INT_MAG) as i64;
        let r = x.r.clamp(Range::point(-(k as f64)), Range::point(k as f64));
        let h = x.h + 1;
        Ex::new(
            build::call("clamp", vec![x.e, build::int(-k), build::int(k)]),
            r,
            h,
        )
    }

    fn int_neg(&mut self, req: Req) -> Option<Ex> {
        let x = self.int_expr(req.down(1));
        let r = x.r.neg();
        Some(Ex::new(build::unary(UnaryOp::Neg, x.e), r, x.h + 1))
    }

    fn int_add_sub(&mut self, req: Req) -> Option<Ex> {
        let child = req.down(1).mag(req.mag / 2.0);
        let a = self.int_expr(child);
        let b = self.int_expr(child);
        Some(if self.rng.percent(55) {
            let r = a.r.add(b.r);
            bin(BinaryOp::Add, a, b, r)
        } else {
            let r = a.r.sub(b.r);
            bin(BinaryOp::Sub, a, b, r)
        })
    }

    fn int_mul(&mut self, req: Req) -> Option<Ex> {
        let m1 = if self.robust {
            req.mag.sqrt().floor().max(1.0)
        } else {
            req.mag
        };
        let a = self.int_expr(req.down(1).mag(m1));
        let mb = if self.robust {
            (req.mag / a.r.mag().max(1.0)).floor()
        } else {
            req.mag
        };
        let b = self.int_expr(req.down(1).mag(mb));
        let r = a.r.mul(b.r);
        Some(bin(BinaryOp::Mul, a, b, r))
    }

    fn int_div_rem(&mut self, req: Req) -> Option<Ex> {
        let a = self.int_expr(req.down(1));
        let b = self.int_expr(req.down(1));
        Some(if self.rng.percent(50) {
            let r = Range::sym(a.r.mag());
            bin(BinaryOp::Div, a, b, r)
        } else {
            let r = Range::sym(a.r.mag().min(b.r.mag()));
            bin(BinaryOp::Rem, a, b, r)
        })
    }

    fn int_bitwise(&mut self, req: Req) -> Option<Ex> {
        let child = req.down(1).mag(req.mag / 2.0);
        let a = self.int_expr(child);
        let b = self.int_expr(child);
        // Two's complement values within (-2^k, 2^k) combine within [-2^k, 2^k).
        let r = Range::sym(pow2_floor(a.r.mag().max(b.r.mag()).max(1.0)) * 2.0);
        let op = *self
            .rng
            .pick(&[BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor])?;
        Some(bin(op, a, b, if self.robust { r } else { Range::any() }))
    }

    fn int_shift(&mut self, req: Req) -> Option<Ex> {
        if self.rng.percent(50) {
            let a = self.int_expr(req.down(1));
            let b = self.int_expr(req.down(1));
            let r = Range::sym(a.r.mag());
            return Some(bin(BinaryOp::Shr, a, b, r));
        }
        let a = self.int_expr(req.down(1).mag(req.mag / 16.0));
        let b = if self.robust {
            self.int_literal(4.0)
        } else {
            self.int_expr(req.down(1))
        };
        let b = if self.robust {
            let v = b.r.lo.abs();
            Ex::new(build::int(v as i64), Range::point(v), 1)
        } else {
            b
        };
        let r = Range::sym(a.r.mag() * 16.0);
        Some(bin(
            BinaryOp::Shl,
            a,
            b,
            if self.robust { r } else { Range::any() },
        ))
    }

    fn int_not(&mut self, req: Req) -> Option<Ex> {
        let x = self.int_expr(req.down(1).mag(req.mag - 1.0));
        let r = Range::sym(x.r.mag() + 1.0);
        Some(Ex::new(build::unary(UnaryOp::Not, x.e), r, x.h + 1))
    }

    fn int_builtin(&mut self, req: Req) -> Option<Ex> {
        let child = req.down(1);
        let (name, args, r) = match self.rng.below(5) {
            0 => {
                let x = self.int_expr(child);
                let r = x.r.abs();
                ("abs", vec![x], r)
            }
            1 | 2 => {
                let a = self.int_expr(child);
                let b = self.int_expr(child);
                let (n, r) = if self.rng.percent(50) {
                    ("min", a.r.min(b.r))
                } else {
                    ("max", a.r.max(b.r))
                };
                (n, vec![a, b], r)
            }
            3 => {
                let x = self.int_expr(child.mag(INT_MAG));
                let lo = self.rng.range_i64(-10, 0).max(-(req.mag as i64));
                let hi = self.rng.range_i64(1, 100).min(req.mag as i64).max(lo);
                let r = x.r.clamp(Range::point(lo as f64), Range::point(hi as f64));
                let lo = Ex::new(build::int(lo), Range::point(lo as f64), 1);
                let hi = Ex::new(build::int(hi), Range::point(hi as f64), 1);
                ("clamp", vec![x, lo, hi], r)
            }
            _ => {
                let x = self.int_expr(child);
                ("sign", vec![x], Range::new(-1.0, 1.0))
            }
        };
        let h = 1 + args.iter().map(|a| a.h).max().unwrap_or(0);
        let r = if self.robust { r } else { Range::any() };
        Some(Ex::new(
            build::call(name, args.into_iter().map(|a| a.e).collect()),
            r,
            h,
        ))
    }

    /// `x as i32` of an exact float.
    fn float_to_int(&mut self, req: Req) -> Option<Ex> {
        let x = self.float(1, req.down(1).exact().mag(req.mag.min(ROBUST_MAG)));
        let r = x.r.truncated();
        Some(Ex::new(build::cast(x.e, Type::I32), r, x.h + 1))
    }

    /// `b as i32`.
    fn bool_to_int(&mut self, req: Req) -> Option<Ex> {
        let b = self.bool_expr(req.down(1));
        Some(Ex::new(
            build::cast(b.e, Type::I32),
            Range::new(0.0, 1.0),
            b.h + 1,
        ))
    }

    /// An index into a uniform array of `len` elements. On x1k, and often
    /// elsewhere, a constant or a `for` counter plus a constant that stays
    /// inside the array; in robust mode always inside it.
    pub fn array_index(&mut self, len: u16, req: Req) -> Ex {
        let last = f64::from(len) - 1.0;
        // A clamp around a computed index needs a level of its own.
        let simple = self.o.target == Target::X1k || req.depth < 2 || self.rng.percent(50);
        if simple {
            let mut cands: Vec<Ex> = Vec::new();
            for v in &self.vars {
                if v.role != Role::ForCounter {
                    continue;
                }
                let (lo, hi) = (v.range.lo, v.range.hi);
                let (cmin, cmax) = (-lo, last - hi);
                if cmin > cmax || !lo.is_finite() || !hi.is_finite() {
                    continue;
                }
                let c = if req.depth >= 2 {
                    let c = self.rng.range_i64(cmin as i64, cmax as i64);
                    c.clamp(cmin as i64, cmax as i64)
                } else if cmin <= 0.0 && cmax >= 0.0 {
                    0
                } else {
                    continue;
                };
                let r = Range::new(lo + c as f64, hi + c as f64);
                let e = match c {
                    0 => Ex::new(build::name(&v.name), r, 1),
                    c if c > 0 => Ex::new(
                        build::binary(BinaryOp::Add, build::name(&v.name), build::int(c)),
                        r,
                        2,
                    ),
                    c => Ex::new(
                        build::binary(BinaryOp::Sub, build::name(&v.name), build::int(-c)),
                        r,
                        2,
                    ),
                };
                cands.push(e);
            }
            for c in &self.consts {
                if let Some(v) = c.int_value
                    && (0..=i64::from(len) - 1).contains(&v)
                {
                    cands.push(Ex::new(build::name(&c.name), c.range, 1));
                }
            }
            if !cands.is_empty() && self.rng.percent(75) {
                let i = self.rng.index(cands.len());
                let ex = cands.swap_remove(i);
                if let ctm_frontend::ast::ExprKind::Name(id) = &ex.e.kind {
                    if let Some(v) = self.vars.iter_mut().find(|v| v.name == id.name) {
                        v.uses += 1;
                    }
                } else if let ctm_frontend::ast::ExprKind::Binary { lhs, .. } = &ex.e.kind
                    && let ctm_frontend::ast::ExprKind::Name(id) = &lhs.kind
                    && let Some(v) = self.vars.iter_mut().find(|v| v.name == id.name)
                {
                    v.uses += 1;
                }
                return ex;
            }
            let v = self.rng.range_i64(0, i64::from(len) - 1);
            return Ex::new(build::int(v), Range::point(v as f64), 1);
        }
        if !self.robust {
            return self.int_expr(req);
        }
        let x = self.int_expr(req.down(1));
        if x.r.lo >= 0.0 && x.r.hi <= last {
            return x;
        }
        let r = x.r.clamp(Range::point(0.0), Range::point(last));
        let h = x.h + 1;
        Ex::new(
            build::call(
                "clamp",
                vec![x.e, build::int(0), build::int(i64::from(len) - 1)],
            ),
            r,
            h,
        )
    }

    /// A `bool` expression (always exact class).
    pub fn bool_expr(&mut self, req: Req) -> Ex {
        let req = req.exact();
        let f = &self.o.features;
        let bools = f.bools;
        let ints = f.integers || self.vars.iter().any(|v| v.ty == Type::I32);
        if req.depth <= 1 {
            return self.bool_leaf();
        }
        let helper_weight = self.helper_weight(Type::Bool);
        let weights = [
            if bools { 2 } else { 0 }, // leaf
            8,                         // float comparison
            if ints { 4 } else { 0 },  // int comparison
            if bools { 2 } else { 0 }, // !b
            if bools { 4 } else { 0 }, // && ||
            if bools { 1 } else { 0 }, // == != on bools
            if bools { 1 } else { 0 }, // select / if
            helper_weight,             // helper
        ];
        for _ in 0..4 {
            let made = match self.rng.weighted(&weights) {
                Some(0) => Some(self.bool_leaf()),
                Some(1) => Some(self.compare(Type::F32, req)),
                Some(2) => Some(self.compare(Type::I32, req)),
                Some(3) => {
                    let x = self.bool_expr(req.down(1));
                    let h = x.h + 1;
                    Some(Ex::new(build::unary(UnaryOp::Not, x.e), x.r, h))
                }
                Some(4) => {
                    let a = self.bool_expr(req.down(1));
                    let b = self.bool_expr(req.down(1));
                    let op = if self.rng.percent(50) {
                        BinaryOp::And
                    } else {
                        BinaryOp::Or
                    };
                    Some(bin(op, a, b, Range::new(0.0, 1.0)))
                }
                Some(5) => {
                    let a = self.bool_expr(req.down(1));
                    let b = self.bool_expr(req.down(1));
                    let op = if self.rng.percent(50) {
                        BinaryOp::Eq
                    } else {
                        BinaryOp::Ne
                    };
                    Some(bin(op, a, b, Range::new(0.0, 1.0)))
                }
                Some(6) => self.choice(Type::Bool, req),
                Some(7) => self.helper_call(Type::Bool, req),
                _ => None,
            };
            if let Some(ex) = made {
                return ex;
            }
        }
        self.compare(Type::F32, req)
    }

    /// A bool local, uniform, constant or literal.
    fn bool_leaf(&mut self) -> Ex {
        let mut names: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.ty == Type::Bool)
            .map(|v| v.name.clone())
            .collect();
        if let Some(env) = &self.env {
            names.extend(
                env.uniforms
                    .iter()
                    .filter(|u| u.ty == Type::Bool)
                    .map(|u| u.name.clone()),
            );
        }
        names.extend(
            self.consts
                .iter()
                .filter(|c| c.ty == Type::Bool)
                .map(|c| c.name.clone()),
        );
        let r = Range::new(0.0, 1.0);
        if !names.is_empty() && self.rng.percent(85) {
            let n = self.rng.pick(&names).cloned().unwrap_or_default();
            if let Some(v) = self.vars.iter_mut().find(|v| v.name == n) {
                v.uses += 1;
            }
            return Ex::new(build::name(&n), r, 1);
        }
        Ex::new(build::boolean(self.rng.percent(50)), r, 1)
    }

    /// `a op b` for a comparison of two exact `ty` values.
    fn compare(&mut self, ty: Type, req: Req) -> Ex {
        let child = req.down(1).exact().mag(Gen::mag_cap(ty));
        let a = self.expr(ty, child);
        let mut b = self.expr(ty, child);
        if b.e == a.e {
            // `x < x` is constant.
            b = self.expr(ty, child);
        }
        let ops = [
            BinaryOp::Lt,
            BinaryOp::Le,
            BinaryOp::Gt,
            BinaryOp::Ge,
            BinaryOp::Eq,
            BinaryOp::Ne,
        ];
        // Float equality is almost always false (and `!=` true): rarer.
        let eq_weight = if ty == Type::F32 { 1 } else { 3 };
        let op = ops[self
            .rng
            .weighted(&[4, 3, 4, 3, eq_weight, eq_weight])
            .unwrap_or(0)];
        bin(op, a, b, Range::new(0.0, 1.0))
    }
}
