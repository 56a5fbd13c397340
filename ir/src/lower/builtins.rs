//! Expansion of the language's built-ins into IR operations, exactly as
//! [`ctm_frontend::numerics`] defines them, so that lowering never changes
//! a result. Done once here for both targets.

use super::{Cx, Lowerer};
use crate::graph::Value;
use crate::op::{BinOp, CmpOp, LaneCond, Op, UnOp};
use crate::types::Ty;
use ctm_frontend::builtins::Builtin;
use ctm_frontend::tast::Swizzle;
use ctm_frontend::value::Value as Constant;

impl Lowerer<'_> {
    fn un(&mut self, cx: &mut Cx, u: UnOp, a: Value) -> Value {
        self.op(cx, Op::Unary(u), &[a])
    }

    fn bin(&mut self, cx: &mut Cx, b: BinOp, x: Value, y: Value) -> Value {
        self.op(cx, Op::Binary(b), &[x, y])
    }

    /// A built-in applied to lowered arguments (already broadcast by the
    /// checker where the built-in works per lane).
    pub(super) fn lower_builtin(&mut self, cx: &mut Cx, f: Builtin, a: &[Value]) -> Value {
        use Builtin::*;
        let int = a.first().is_some_and(|v| self.m.ty(*v) == Ty::I32);
        let width = a.first().and_then(|v| self.m.ty(*v).width()).unwrap_or(1);
        match f {
            Abs if int => self.un(cx, UnOp::IAbs, a[0]),
            Abs => self.un(cx, UnOp::FAbs, a[0]),
            Min if int => self.bin(cx, BinOp::IMin, a[0], a[1]),
            Min => self.bin(cx, BinOp::FMin, a[0], a[1]),
            Max if int => self.bin(cx, BinOp::IMax, a[0], a[1]),
            Max => self.bin(cx, BinOp::FMax, a[0], a[1]),
            Clamp if int => {
                let m = self.bin(cx, BinOp::IMax, a[0], a[1]);
                self.bin(cx, BinOp::IMin, m, a[2])
            }
            Clamp => {
                let m = self.bin(cx, BinOp::FMax, a[0], a[1]);
                self.bin(cx, BinOp::FMin, m, a[2])
            }
            Saturate => self.un(cx, UnOp::FSaturate, a[0]),
            Sign if int => {
                let zero = self.constant(cx, Constant::I32(0));
                let one = self.constant(cx, Constant::I32(1));
                let minus = self.constant(cx, Constant::I32(-1));
                let neg = self.op(cx, Op::Compare(CmpOp::Lt), &[a[0], zero]);
                let inner = self.op(cx, Op::Select, &[neg, minus, zero]);
                let pos = self.op(cx, Op::Compare(CmpOp::Gt), &[a[0], zero]);
                self.op(cx, Op::Select, &[pos, one, inner])
            }
            Sign => {
                // -x >= 0 ? (x >= 0 ? x : -1) : (x >= 0 ? 1 : x): only
                // `>= 0` tests, which every target has (x1k CMP, r700
                // CNDGE) and which are false for NaN, so NaN reaches the
                // last `x` on every target (the x1k has no strict `> 0`
                // test: with `c > 0` selects, sign(NaN) came out 1 there).
                // The two inner selects are independent.
                let one = self.float_const(cx, 1.0, width);
                let minus = self.float_const(cx, -1.0, width);
                let neg = self.un(cx, UnOp::FNeg, a[0]);
                let le0 = self.op(cx, Op::LaneSelect(LaneCond::Ge0), &[a[0], a[0], minus]);
                let gt0 = self.op(cx, Op::LaneSelect(LaneCond::Ge0), &[a[0], one, a[0]]);
                self.op(cx, Op::LaneSelect(LaneCond::Ge0), &[neg, le0, gt0])
            }
            Floor => self.un(cx, UnOp::FFloor, a[0]),
            Ceil => self.un(cx, UnOp::FCeil, a[0]),
            Fract => self.un(cx, UnOp::FFract, a[0]),
            Trunc => self.un(cx, UnOp::FTrunc, a[0]),
            Round => self.un(cx, UnOp::FRound, a[0]),
            Step => self.bin(cx, BinOp::FStep, a[0], a[1]),
            Mix => {
                let d = self.bin(cx, BinOp::FSub, a[1], a[0]);
                let s = self.bin(cx, BinOp::FMul, d, a[2]);
                self.bin(cx, BinOp::FAdd, a[0], s)
            }
            Smoothstep => {
                let num = self.bin(cx, BinOp::FSub, a[2], a[0]);
                let den = self.bin(cx, BinOp::FSub, a[1], a[0]);
                let q = self.bin(cx, BinOp::FDiv, num, den);
                let t = self.un(cx, UnOp::FSaturate, q);
                let tt = self.bin(cx, BinOp::FMul, t, t);
                let two = self.float_const(cx, 2.0, width);
                let three = self.float_const(cx, 3.0, width);
                let t2 = self.bin(cx, BinOp::FMul, two, t);
                let k = self.bin(cx, BinOp::FSub, three, t2);
                self.bin(cx, BinOp::FMul, tt, k)
            }
            Select => self.op(cx, Op::Select, &[a[0], a[1], a[2]]),
            Sqrt => self.un(cx, UnOp::FSqrt, a[0]),
            Rsqrt => self.un(cx, UnOp::FRsqrt, a[0]),
            Rcp => self.un(cx, UnOp::FRcp, a[0]),
            Exp2 => self.un(cx, UnOp::FExp2, a[0]),
            Log2 => self.un(cx, UnOp::FLog2, a[0]),
            Exp => {
                let k = self.float_const(cx, std::f32::consts::LOG2_E, width);
                let x = self.bin(cx, BinOp::FMul, a[0], k);
                self.un(cx, UnOp::FExp2, x)
            }
            Log => {
                let l = self.un(cx, UnOp::FLog2, a[0]);
                let k = self.float_const(cx, std::f32::consts::LN_2, width);
                self.bin(cx, BinOp::FMul, l, k)
            }
            Pow => {
                let l = self.un(cx, UnOp::FLog2, a[0]);
                let p = self.bin(cx, BinOp::FMul, a[1], l);
                self.un(cx, UnOp::FExp2, p)
            }
            Sin => self.un(cx, UnOp::FSin, a[0]),
            Cos => self.un(cx, UnOp::FCos, a[0]),
            Tan => {
                let s = self.un(cx, UnOp::FSin, a[0]);
                let c = self.un(cx, UnOp::FCos, a[0]);
                self.bin(cx, BinOp::FDiv, s, c)
            }
            Dot => self.op(cx, Op::Dot, &[a[0], a[1]]),
            Cross => {
                let sw = |l: &mut Self, cx: &mut Cx, v: Value, s: &[u8]| {
                    l.op(cx, Op::Swizzle(Swizzle::new(s)), &[v])
                };
                let a_yzx = sw(self, cx, a[0], &[1, 2, 0]);
                let b_zxy = sw(self, cx, a[1], &[2, 0, 1]);
                let a_zxy = sw(self, cx, a[0], &[2, 0, 1]);
                let b_yzx = sw(self, cx, a[1], &[1, 2, 0]);
                let p = self.bin(cx, BinOp::FMul, a_yzx, b_zxy);
                let q = self.bin(cx, BinOp::FMul, a_zxy, b_yzx);
                self.bin(cx, BinOp::FSub, p, q)
            }
            Length => {
                let d = self.op(cx, Op::Dot, &[a[0], a[0]]);
                self.un(cx, UnOp::FSqrt, d)
            }
            Distance => {
                let d = self.bin(cx, BinOp::FSub, a[0], a[1]);
                let dd = self.op(cx, Op::Dot, &[d, d]);
                self.un(cx, UnOp::FSqrt, dd)
            }
            Normalize => {
                let d = self.op(cx, Op::Dot, &[a[0], a[0]]);
                let inv = self.un(cx, UnOp::FRsqrt, d);
                let s = if width > 1 {
                    self.op(cx, Op::Splat(width), &[inv])
                } else {
                    inv
                };
                self.bin(cx, BinOp::FMul, a[0], s)
            }
            Index => self.op(cx, Op::Index, &[]),
            Domain => self.op(cx, Op::Domain, &[]),
        }
    }
}
