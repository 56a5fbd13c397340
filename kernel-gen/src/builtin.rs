//! Calls of the float built-ins (spec §6), each in a form that is safe for
//! the numerics mode: in robust mode arguments are guarded
//! (`sqrt(abs(x) + 1.0)`, `log2(abs(x) + 0.5)`, `pow(abs(x) + 0.5,
//! clamp(y, -2.0, 2.0))`, `normalize(abs(v) + 0.5)`), bounded (`sin`, `cos`,
//! `tan`, `exp2`, `exp` arguments) or exact class where the function is
//! discontinuous (`floor`, `fract`, `sign`, `step`...), and the result's
//! range and error follow [`super::range`]'s model.

use super::build;
use super::ctx::{Ex, Gen, Req};
use super::expr::min_height;
use super::range::{
    EXP2_ARG, REL, ROBUST_MAG, Range, TAN_ARG, TRIG_ABS, TRIG_ARG, ULP, exp2_lower, exp2_upper,
    log2_lower, log2_upper,
};
use ctm_frontend::ast::BinaryOp;

/// `ln 2` rounded up (an upper bound, so not `std::f64::consts::LN_2`).
const LN2_UP: f64 = 0.6932;
/// `log2 e` rounded up (an upper bound, so not `std::f64::consts::LOG2_E`).
#[allow(clippy::approx_constant)]
const LOG2E_UP: f64 = 1.4427;

/// Per-lane built-ins the generator calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lane {
    Abs,
    Min,
    Max,
    Clamp,
    Saturate,
    Sign,
    Floor,
    Ceil,
    Fract,
    Trunc,
    Round,
    Step,
    Mix,
    Smoothstep,
    Sqrt,
    Rsqrt,
    Rcp,
    Exp2,
    Log2,
    Exp,
    Log,
    Pow,
    Sin,
    Cos,
    Tan,
    Normalize,
}

const BASIC: &[Lane] = &[
    Lane::Abs,
    Lane::Min,
    Lane::Max,
    Lane::Clamp,
    Lane::Saturate,
    Lane::Sign,
    Lane::Floor,
    Lane::Ceil,
    Lane::Fract,
    Lane::Trunc,
    Lane::Round,
    Lane::Step,
    Lane::Mix,
];

const TRANSCENDENTAL: &[Lane] = &[
    Lane::Smoothstep,
    Lane::Sqrt,
    Lane::Rsqrt,
    Lane::Rcp,
    Lane::Exp2,
    Lane::Log2,
    Lane::Exp,
    Lane::Log,
    Lane::Pow,
    Lane::Sin,
    Lane::Cos,
    Lane::Tan,
    Lane::Normalize,
];

impl Lane {
    fn name(self) -> &'static str {
        match self {
            Lane::Abs => "abs",
            Lane::Min => "min",
            Lane::Max => "max",
            Lane::Clamp => "clamp",
            Lane::Saturate => "saturate",
            Lane::Sign => "sign",
            Lane::Floor => "floor",
            Lane::Ceil => "ceil",
            Lane::Fract => "fract",
            Lane::Trunc => "trunc",
            Lane::Round => "round",
            Lane::Step => "step",
            Lane::Mix => "mix",
            Lane::Smoothstep => "smoothstep",
            Lane::Sqrt => "sqrt",
            Lane::Rsqrt => "rsqrt",
            Lane::Rcp => "rcp",
            Lane::Exp2 => "exp2",
            Lane::Log2 => "log2",
            Lane::Exp => "exp",
            Lane::Log => "log",
            Lane::Pow => "pow",
            Lane::Sin => "sin",
            Lane::Cos => "cos",
            Lane::Tan => "tan",
            Lane::Normalize => "normalize",
        }
    }
}

/// `f(args)` with range `r`.
fn call(f: &str, args: Vec<Ex>, r: Range) -> Ex {
    let h = 1 + args.iter().map(|a| a.h).max().unwrap_or(0);
    Ex::new(
        build::call(f, args.into_iter().map(|a| a.e).collect()),
        r,
        h,
    )
}

fn lit(v: f64) -> Ex {
    Ex::new(build::float(v as f32), Range::point(v), 1)
}

impl Gen<'_> {
    /// A per-lane built-in producing `w` lanes.
    pub fn lane_builtin(&mut self, w: u8, req: Req) -> Option<Ex> {
        let mut pool: Vec<Lane> = BASIC.to_vec();
        if self.o.features.transcendentals && self.approx_ok(req) {
            let mut trans = TRANSCENDENTAL.to_vec();
            if w == 1 {
                trans.retain(|&l| l != Lane::Normalize);
            }
            if self.robust && self.rng.percent(60) {
                pool = trans;
            } else {
                pool.extend(trans);
            }
        }
        let f = *self.rng.pick(&pool)?;
        if self.robust {
            self.robust_lane(f, w, req)
        } else {
            Some(self.exact_lane(f, w, req))
        }
    }

    /// Argument widths of a per-lane built-in of `n` arguments producing
    /// `w` lanes: at least one is `w` wide, others may be scalars.
    fn lane_widths(&mut self, n: usize, w: u8) -> Vec<u8> {
        let mut ws = vec![w; n];
        if w > 1 && n > 1 && self.rng.percent(35) {
            let keep = self.rng.index(n);
            for (i, x) in ws.iter_mut().enumerate() {
                if i != keep && self.rng.percent(60) {
                    *x = 1;
                }
            }
        }
        ws
    }

    /// Any arguments: exact mode, where every value is welcome.
    fn exact_lane(&mut self, f: Lane, w: u8, req: Req) -> Ex {
        let arity = match f {
            Lane::Min | Lane::Max | Lane::Step | Lane::Pow => 2,
            Lane::Clamp | Lane::Mix | Lane::Smoothstep => 3,
            _ => 1,
        };
        let child = req.down(1);
        // A third of the time use the guarded robust form anyway, so that
        // its shapes are exercised against the IR interpreter too.
        if self.rng.percent(30)
            && let Some(ex) = self.robust_shape(f, w, child)
        {
            return ex;
        }
        let widths = self.lane_widths(arity, w);
        let args: Vec<Ex> = widths.iter().map(|&aw| self.float(aw, child)).collect();
        call(f.name(), args, Range::any())
    }

    /// The guarded form of `f` with unconstrained operands (exact mode).
    fn robust_shape(&mut self, f: Lane, w: u8, req: Req) -> Option<Ex> {
        if req.depth < 2 + min_height(w) {
            return None;
        }
        let inner = req.down(2);
        Some(match f {
            Lane::Sqrt | Lane::Rsqrt | Lane::Rcp | Lane::Log2 | Lane::Log => {
                let x = self.float(w, inner);
                let g = self.guard(x, 1.0);
                call(f.name(), vec![g], Range::any())
            }
            Lane::Normalize => {
                let x = self.float(w, inner);
                let g = self.guard(x, 0.5);
                call(f.name(), vec![g], Range::any())
            }
            Lane::Pow => {
                let x = self.float(w, inner);
                let g = self.guard(x, 0.5);
                let y = self.float(1, inner);
                let y = call("clamp", vec![y, lit(-2.0), lit(2.0)], Range::any());
                call("pow", vec![g, y], Range::any())
            }
            _ => return None,
        })
    }

    /// `abs(x) + c`.
    fn guard(&mut self, x: Ex, c: f64) -> Ex {
        let a = x.r.abs();
        let abs = call("abs", vec![x], a);
        let r = a.add(Range::point(c));
        super::expr::bin(BinaryOp::Add, abs, lit(c), r)
    }

    /// `f` with arguments whose range and error keep the result within
    /// `req` (robust mode); `None` if `req` leaves no room for it.
    fn robust_lane(&mut self, f: Lane, w: u8, req: Req) -> Option<Ex> {
        let (m, e) = (req.mag, req.err);
        let child = req.down(1);
        let any = child.mag(ROBUST_MAG);
        match f {
            Lane::Abs => {
                let x = self.float(w, child);
                let r = x.r.abs();
                Some(call("abs", vec![x], r))
            }
            Lane::Min | Lane::Max => {
                let ws = self.lane_widths(2, w);
                let a = self.float(ws[0], child);
                let b = self.float(ws[1], child);
                let r = if f == Lane::Min {
                    a.r.min(b.r)
                } else {
                    a.r.max(b.r)
                };
                Some(call(f.name(), vec![a, b], r))
            }
            Lane::Clamp => {
                let lo: f64 = *self.rng.pick(&[-1.0, 0.0, -4.0, -0.5, -2.0])?;
                let hi = *self.rng.pick(&[1.0, 4.0, 0.5, 2.0, 8.0])?;
                if lo.max(hi) > m {
                    return None;
                }
                let x = self.float(w, any);
                let r = x.r.clamp(Range::point(lo), Range::point(hi));
                Some(call("clamp", vec![x, lit(lo), lit(hi)], r))
            }
            Lane::Saturate => {
                if m < 1.0 {
                    return None;
                }
                let x = self.float(w, any);
                let r = x.r.clamp(Range::point(0.0), Range::point(1.0));
                Some(call("saturate", vec![x], r))
            }
            Lane::Sign => {
                if m < 1.0 {
                    return None;
                }
                let x = self.float(w, any.exact());
                Some(call("sign", vec![x], Range::new(-1.0, 1.0)))
            }
            Lane::Floor | Lane::Ceil | Lane::Trunc | Lane::Round => {
                if m < 2.0 {
                    return None;
                }
                let x = self.float(w, child.exact().mag(m - 1.0));
                let r = Range::new(x.r.lo.floor(), x.r.hi.ceil());
                Some(call(f.name(), vec![x], r))
            }
            Lane::Fract => {
                if m < 1.0 {
                    return None;
                }
                let x = self.float(w, any.exact());
                Some(call("fract", vec![x], Range::new(0.0, 1.0)))
            }
            Lane::Step => {
                if m < 1.0 {
                    return None;
                }
                let ws = self.lane_widths(2, w);
                let a = self.float(ws[0], any.exact());
                let b = self.float(ws[1], any.exact());
                Some(call("step", vec![a, b], Range::new(0.0, 1.0)))
            }
            Lane::Mix => {
                let ab = child.mag(m / 3.0).err(e / 5.0);
                let a = self.float(w, ab);
                let b = self.float(w, ab);
                let t = if self.rng.percent(40) || req.depth < 3 {
                    lit(*self.rng.pick(&[0.25, 0.5, 0.75, 0.125])?)
                } else {
                    let span = (a.r.mag() + b.r.mag()).max(1.0);
                    let x = self.float(1, child.down(1).mag(ROBUST_MAG).err(e / (5.0 * span)));
                    let r = x.r.clamp(Range::point(0.0), Range::point(1.0));
                    call("saturate", vec![x], r)
                };
                let r = self.fused_range(a.r.add(b.r.sub(a.r).mul(t.r)), 1.0);
                if !self.fits(r, req) {
                    return None;
                }
                Some(call("mix", vec![a, b, t], r))
            }
            _ => self.robust_transcendental(f, w, req),
        }
    }

    /// The approximate built-ins in their robust forms.
    fn robust_transcendental(&mut self, f: Lane, w: u8, req: Req) -> Option<Ex> {
        let (m, e) = (req.mag, req.err);
        if e <= 0.0 {
            return None;
        }
        // Guarded forms need two levels for `abs(x) + c`.
        let guarded = req.down(3);
        let guarded_ok = req.depth >= 3 + min_height(w);
        let ex = match f {
            Lane::Smoothstep => {
                if m < 1.0 {
                    return None;
                }
                let e0 = *self.rng.pick(&[-1.0, 0.0, 0.5, -2.0])?;
                let width = *self.rng.pick(&[0.5, 1.0, 2.0, 4.0])?;
                let slope = 1.5 / width;
                let x = self.float(
                    w,
                    req.down(1)
                        .mag(ROBUST_MAG)
                        .err((e - 8.0 * REL) / (2.0 * slope)),
                );
                let err = slope * x.r.err + 8.0 * REL;
                call(
                    "smoothstep",
                    vec![lit(e0), lit(e0 + width), x],
                    Range::new(0.0, 1.0).with_err(err),
                )
            }
            Lane::Sqrt => {
                let bound = m.min(ROBUST_MAG.sqrt());
                if bound < 1.0 || !guarded_ok {
                    return None;
                }
                if self.rng.percent(50) {
                    // An exact argument may come close to zero.
                    let x = self.float(w, req.down(2).exact().mag(bound * bound));
                    let b = x.r.mag().sqrt();
                    let ax = x.r.abs();
                    let a = call("abs", vec![x], ax);
                    call(
                        "sqrt",
                        vec![a],
                        Range::new(0.0, b).with_err((REL + ULP) * b),
                    )
                } else {
                    let x = self.float(w, guarded.mag(bound * bound - 1.0).err(e));
                    let g = self.guard(x, 1.0);
                    let b = g.r.hi.sqrt();
                    let err = 0.5 * g.r.err + (REL + ULP) * b;
                    call("sqrt", vec![g], Range::new(1.0, b).with_err(err))
                }
            }
            Lane::Rsqrt | Lane::Rcp => {
                if !guarded_ok {
                    return None;
                }
                let c: f64 = *self.rng.pick(&[1.0, 0.5])?;
                let (top, slope) = if f == Lane::Rsqrt {
                    (if c == 1.0 { 1.0 } else { 1.5 }, 0.5 / (c * c.sqrt()))
                } else {
                    (1.0 / c, 1.0 / (c * c))
                };
                if top > m {
                    return None;
                }
                let own = (REL + ULP) * top;
                let x = self.float(w, guarded.mag(ROBUST_MAG).err((e - own) / slope));
                let g = self.guard(x, c);
                let err = slope * g.r.err + own;
                call(f.name(), vec![g], Range::new(0.0, top).with_err(err))
            }
            Lane::Exp2 => {
                let a = EXP2_ARG.min(log2_lower(m.min(e / (2.0 * (REL + ULP)))));
                if a < 0.5 {
                    return None;
                }
                let top = exp2_upper(a);
                let own = (REL + ULP) * top;
                let x = self.float(w, req.down(1).mag(a).err((e - own) / (LN2_UP * top)));
                let b = exp2_upper(x.r.hi);
                let err = LN2_UP * b * x.r.err + (REL + ULP) * b;
                call(
                    "exp2",
                    vec![x.clone()],
                    Range::new(exp2_lower(x.r.lo), b).with_err(err),
                )
            }
            Lane::Exp => {
                let a = 5.5f64.min(0.69 * log2_lower(m.min(e / (6.0 * REL))));
                if a < 0.5 {
                    return None;
                }
                let top = exp2_upper(a * LOG2E_UP);
                let own = 3.0 * REL * top;
                let x = self.float(w, req.down(1).mag(a).err((e - own) / top));
                let b = exp2_upper(x.r.hi * LOG2E_UP);
                let lo = exp2_lower(x.r.lo * LOG2E_UP);
                let err = b * (x.r.err + 3.0 * REL);
                call("exp", vec![x], Range::new(lo, b).with_err(err))
            }
            Lane::Log2 | Lane::Log => {
                if !guarded_ok {
                    return None;
                }
                let c = *self.rng.pick(&[1.0, 0.5, 2.0])?;
                let scale = if f == Lane::Log { 0.7 } else { 1.0 };
                let slope = 1.5 / c;
                let x = self.float(w, guarded.mag(ROBUST_MAG).err(e / (4.0 * slope)));
                let g = self.guard(x, c);
                let lo = log2_lower(c) * scale - 0.01;
                let hi = log2_upper(g.r.hi) * scale;
                let own = 2.0 * (REL + ULP) * hi.abs().max(1.0);
                let err = slope * g.r.err + own;
                call(f.name(), vec![g], Range::new(lo, hi).with_err(err))
            }
            Lane::Pow => {
                if m < 4.0 || !guarded_ok {
                    return None;
                }
                let cap = m.min(e / (3.0 * (LN2_UP * 16.0 * REL + 3.0 * REL)));
                let base_mag = (cap.sqrt() - 0.5).min(64.0);
                if base_mag < 0.5 {
                    return None;
                }
                let big = (base_mag + 0.5) * (base_mag + 0.5);
                let top = big.max(4.0);
                let lb = log2_upper(base_mag + 0.5).max(1.0);
                let own = top * (LN2_UP * 2.0 * REL * lb + 3.0 * REL);
                if own > e / 3.0 {
                    return None;
                }
                let x_err = e / (top * LN2_UP * 2.0 * 2.886 * 3.0);
                let x = self.float(w, guarded.mag(base_mag).err(x_err));
                let g = self.guard(x, 0.5);
                let (y, ym) = if self.rng.percent(40) || req.depth < 3 {
                    let v = *self.rng.pick(&[2.0, 0.5, 1.5, -1.0, -0.5])?;
                    (lit(v), f64::abs(v))
                } else {
                    let y_err = e / (top * LN2_UP * lb * 3.0);
                    let y = self.float(1, req.down(2).mag(ROBUST_MAG).err(y_err));
                    let r = y.r.clamp(Range::point(-2.0), Range::point(2.0));
                    (call("clamp", vec![y, lit(-2.0), lit(2.0)], r), 2.0)
                };
                let t_err = ym * (g.r.err * 2.886 + REL * lb) + lb * y.r.err;
                let err = top * (LN2_UP * t_err + 3.0 * REL);
                call("pow", vec![g, y], Range::new(0.0, top).with_err(err))
            }
            Lane::Sin | Lane::Cos => {
                if m < 1.0 || e <= TRIG_ABS {
                    return None;
                }
                let x = self.float(w, req.down(1).mag(TRIG_ARG).err(e - TRIG_ABS));
                let err = x.r.err + TRIG_ABS;
                call(f.name(), vec![x], Range::new(-1.0, 1.0).with_err(err))
            }
            Lane::Tan => {
                let own = 8.0 * TRIG_ABS;
                if m < 2.6 || e <= own {
                    return None;
                }
                let x = self.float(w, req.down(1).mag(TAN_ARG).err((e - own) / 8.0));
                let err = 8.0 * x.r.err + own;
                call("tan", vec![x], Range::new(-2.6, 2.6).with_err(err))
            }
            Lane::Normalize => {
                let own = 8.0 * REL;
                if m < 1.0 || e <= own || !guarded_ok {
                    return None;
                }
                let x = self.float(w, guarded.mag(ROBUST_MAG).err((e - own) / 4.0));
                let g = self.guard(x, 0.5);
                let err = 4.0 * g.r.err + own;
                call("normalize", vec![g], Range::new(0.0, 1.0).with_err(err))
            }
            _ => return None,
        };
        self.fits(ex.r, req).then_some(ex)
    }

    /// `dot`, `length`, `distance` (f32 results) and `cross` (vec3).
    pub fn geometry(&mut self, w: u8, req: Req) -> Option<Ex> {
        let (m, e) = (req.mag, req.err);
        let child = req.down(1);
        let n = if child.depth >= 2 {
            *self.rng.pick(&[2u8, 3, 4, 1])?
        } else {
            1
        };
        let trans = self.o.features.transcendentals && self.approx_ok(req);
        if !self.robust {
            let (name, args) = match w {
                1 => match self.rng.below(if trans { 3 } else { 1 }) {
                    0 => ("dot", 2),
                    1 => ("length", 1),
                    _ => ("distance", 2),
                },
                3 if child.depth >= 2 => ("cross", 2),
                _ => return None,
            };
            let aw = if name == "cross" { 3 } else { n };
            let args: Vec<Ex> = (0..args).map(|_| self.float(aw, child)).collect();
            return Some(call(name, args, Range::any()));
        }
        let ex = match w {
            1 if !trans || self.rng.percent(50) => {
                // dot: a sum of n products.
                let k = f64::from(n);
                let m1 = (m / k).sqrt().max(0.5);
                let a = self.float(n, child.mag(m1).err(0.4 * e / (k * (m / k / m1).max(1.0))));
                let ma = a.r.mag().max(1.0 / 1024.0);
                let mut mb = m / (k * ma);
                if a.r.err > 0.0 {
                    mb = mb.min(0.4 * e / (k * a.r.err));
                }
                let b = self.float(n, child.mag(mb).err(0.4 * e / (k * ma)));
                let r = self.fused_range(a.r.mul(b.r).scaled(k), k);
                call("dot", vec![a, b], r)
            }
            1 if self.rng.percent(50) => {
                let own = 4.0 * (REL + ULP) * m;
                if e <= own {
                    return None;
                }
                let v = self.float(n, child.mag(m / 2.0).err((e - own) / 2.0));
                let b = 2.0 * v.r.mag();
                let err = 2.0 * v.r.err + 4.0 * (REL + ULP) * b;
                call("length", vec![v], Range::new(0.0, b).with_err(err))
            }
            1 => {
                let own = 4.0 * (REL + ULP) * m;
                if e <= own {
                    return None;
                }
                let sub = child.mag(m / 4.0).err((e - own) / 4.0);
                let a = self.float(n, sub);
                let b = self.float(n, sub);
                let bound = 2.0 * (a.r.mag() + b.r.mag());
                let err = 2.0 * (a.r.err + b.r.err) + 4.0 * (REL + ULP) * bound;
                call("distance", vec![a, b], Range::new(0.0, bound).with_err(err))
            }
            3 => {
                if child.depth < 2 {
                    return None;
                }
                let m1 = (m / 2.0).sqrt().max(0.5);
                let a = self.float(3, child.mag(m1).err(0.2 * e / (m / 2.0 / m1).max(1.0)));
                let ma = a.r.mag().max(1.0 / 1024.0);
                let mut mb = m / (2.0 * ma);
                if a.r.err > 0.0 {
                    mb = mb.min(0.2 * e / a.r.err);
                }
                let b = self.float(3, child.mag(mb).err(0.2 * e / ma));
                let r = self.fused_range(a.r.mul(b.r).scaled(2.0), 2.0);
                call("cross", vec![a, b], r)
            }
            _ => return None,
        };
        self.fits(ex.r, req).then_some(ex)
    }
}
