//! Typing of calls: vector constructors, built-ins (per their
//! [`Signature`]) and helper functions.

use super::body::{BodyKind, Cx, Found};
use super::expr::{int_literal, node};
use super::suggest;
use crate::ast;
use crate::builtins::{BUILTINS, Builtin, Signature};
use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use crate::tast;
use crate::types::Type;

impl Cx<'_, '_> {
    pub fn check_call(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<tast::Expr> {
        let name = callee.name.as_str();
        if let Some(width) = match name {
            "vec2" => Some(2),
            "vec3" => Some(3),
            "vec4" => Some(4),
            _ => None,
        } {
            return self.check_constructor(width, args, span);
        }
        match self.lookup(name) {
            Found::Fn(f) => return self.check_helper_call(f, callee, args, span),
            Found::Entry => {
                self.check_args_anyway(args);
                self.error(
                    Diagnostic::new(
                        Code::UnknownFunction,
                        callee.span,
                        format!("`{name}` is a kernel or reduction and cannot be called"),
                    )
                    .with_label("not a helper function")
                    .with_help("move the shared code into a `fn` helper"),
                );
                return None;
            }
            Found::Local(_) | Found::Param(_) | Found::Const(_)
                if Builtin::from_name(name).is_none() =>
            {
                self.check_args_anyway(args);
                self.error(
                    Diagnostic::new(
                        Code::UnknownFunction,
                        callee.span,
                        format!("`{name}` is a value, not a function"),
                    )
                    .with_label("called here"),
                );
                return None;
            }
            _ => {}
        }
        let Some(func) = Builtin::from_name(name) else {
            self.check_args_anyway(args);
            let mut d = Diagnostic::new(
                Code::UnknownFunction,
                callee.span,
                format!("cannot find function `{name}`"),
            )
            .with_label("not a built-in or helper");
            let mut candidates: Vec<String> = BUILTINS.iter().map(|b| b.name.to_string()).collect();
            candidates.extend(["vec2", "vec3", "vec4"].map(String::from));
            candidates.extend(self.ck.fns.iter().map(|f| f.name.name.clone()));
            if let Some(s) = suggest::closest(name, candidates.iter().map(String::as_str)) {
                d = d.with_help(format!("did you mean `{s}`?"));
            } else if let Some(h) = foreign_function_help(name) {
                d = d.with_help(h);
            }
            self.error(d);
            return None;
        };
        self.check_builtin(func, callee, args, span)
    }

    /// Types arguments of a call that already failed, to report their errors.
    fn check_args_anyway(&mut self, args: &[ast::Expr]) {
        for a in args {
            let _ = self.check_expr(a);
        }
    }

    fn arity_error(&mut self, callee: &ast::Ident, expected: usize, found: usize, span: Span) {
        self.error(
            Diagnostic::new(
                Code::ArgumentCount,
                span,
                format!(
                    "`{}` takes {expected} argument{}, but {found} {} given",
                    callee.name,
                    if expected == 1 { "" } else { "s" },
                    if found == 1 { "was" } else { "were" }
                ),
            )
            .with_label(format!("expected {expected}, found {found}")),
        );
    }

    fn check_constructor(
        &mut self,
        width: u8,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<tast::Expr> {
        let ty = Type::float(width);
        let mut typed = Vec::new();
        let mut ok = true;
        for a in args {
            match self.check_value(a) {
                Some(t) if t.ty.is_float() => typed.push(t),
                Some(t) => {
                    ok = false;
                    if t.ty == Type::I32 && int_literal(a).is_some() {
                        self.report_mismatch(Type::F32, t.ty, a);
                    } else {
                        self.error(
                            Diagnostic::new(
                                Code::TypeMismatch,
                                a.span,
                                format!("`{ty}(..)` takes floats, found `{}`", t.ty),
                            )
                            .with_label(format!("this is `{}`", t.ty))
                            .with_help("convert integers with `as f32`"),
                        );
                    }
                }
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        if typed.len() == 1 && typed[0].ty == Type::F32 {
            let arg = typed.pop()?;
            return Some(node(tast::ExprKind::Splat(Box::new(arg)), ty, span));
        }
        let lanes: u32 = typed
            .iter()
            .map(|t| t.ty.float_width().unwrap_or(0) as u32)
            .sum();
        if lanes != width as u32 {
            self.error(
                Diagnostic::new(
                    Code::ArgumentCount,
                    span,
                    format!("`{ty}(..)` needs {width} lanes, the arguments give {lanes}"),
                )
                .with_label("wrong number of lanes")
                .with_help(format!(
                    "pass {width} lanes in total (arguments concatenate), or one f32 to splat"
                )),
            );
            return None;
        }
        if typed.len() == 1 {
            // `vec3(v)` with `v: vec3` is `v`.
            let t = typed.pop()?;
            return Some(tast::Expr { span, ..t });
        }
        Some(node(tast::ExprKind::Construct(typed), ty, span))
    }

    fn check_helper_call(
        &mut self,
        f: tast::FuncId,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<tast::Expr> {
        if self.kind == BodyKind::Const {
            self.check_args_anyway(args);
            self.error(
                Diagnostic::new(
                    Code::NotConstant,
                    span,
                    "helper functions cannot be called in constant expressions",
                )
                .with_label("not a constant expression")
                .with_help("write the value out, or compute it in the kernel"),
            );
            return None;
        }
        let Some(sig) = self.ck.sigs[f.index()].clone() else {
            self.check_args_anyway(args);
            return None;
        };
        if args.len() != sig.params.len() {
            self.check_args_anyway(args);
            self.arity_error(callee, sig.params.len(), args.len(), span);
            return None;
        }
        let mut typed = Vec::new();
        let mut ok = true;
        for (a, (_, ty, _, _)) in args.iter().zip(&sig.params) {
            match self.check_value(a).and_then(|t| self.coerce(t, a, *ty)) {
                Some(t) => typed.push(t),
                None => ok = false,
            }
        }
        let _ = &sig.name;
        ok.then(|| {
            node(
                tast::ExprKind::Call {
                    func: f,
                    args: typed,
                },
                sig.ret,
                span,
            )
        })
    }

    fn check_builtin(
        &mut self,
        func: Builtin,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<tast::Expr> {
        let info = func.info();
        if args.len() != info.arity {
            self.check_args_anyway(args);
            self.arity_error(callee, info.arity, args.len(), span);
            return None;
        }
        if info.signature == Signature::Position {
            if self.kind != BodyKind::Kernel {
                let (code, help) = if self.kind == BodyKind::Const {
                    (Code::NotConstant, "constants cannot depend on the element")
                } else {
                    (Code::KernelOnly, "pass it from the kernel as an argument")
                };
                self.error(
                    Diagnostic::new(
                        code,
                        span,
                        format!("`{}()` is only available in kernels", info.name),
                    )
                    .with_label("outside a kernel")
                    .with_help(help),
                );
                return None;
            }
            return Some(node(
                tast::ExprKind::Builtin {
                    func,
                    args: Vec::new(),
                },
                Type::Vec2,
                span,
            ));
        }
        let mut typed = Vec::new();
        for a in args {
            typed.push(self.check_value(a));
        }
        let typed: Vec<tast::Expr> = typed.into_iter().collect::<Option<_>>()?;
        let bad = |cx: &mut Self, i: usize, why: String, help: &str| {
            cx.error(
                Diagnostic::new(Code::BuiltinArguments, args[i].span, why)
                    .with_label(format!("this is `{}`", typed_ty(&typed, i)))
                    .with_help(help.to_string()),
            );
            None
        };
        match info.signature {
            Signature::FloatLanes | Signature::FloatOrIntLanes => {
                let all_int = typed.iter().all(|t| t.ty == Type::I32);
                if all_int && info.signature == Signature::FloatOrIntLanes {
                    return Some(node(
                        tast::ExprKind::Builtin { func, args: typed },
                        Type::I32,
                        span,
                    ));
                }
                let width = typed
                    .iter()
                    .filter_map(|t| t.ty.float_width())
                    .max()
                    .unwrap_or(1);
                for (i, t) in typed.iter().enumerate() {
                    match t.ty.float_width() {
                        Some(w) if w == 1 || w == width => {}
                        Some(_) => {
                            self.error(
                                Diagnostic::new(
                                    Code::VectorWidthMismatch,
                                    args[i].span,
                                    format!("`{}` arguments have different widths", info.name),
                                )
                                .with_label(format!(
                                    "this is `{}`, others are `{}`",
                                    t.ty,
                                    Type::float(width)
                                ))
                                .with_help("vectors of different widths never mix: use a swizzle"),
                            );
                            return None;
                        }
                        None => {
                            if t.ty == Type::I32 && int_literal(&args[i]).is_some() {
                                self.report_mismatch(Type::float(width), t.ty, &args[i]);
                                return None;
                            }
                            let help = if info.signature == Signature::FloatOrIntLanes {
                                "pass floats (f32 or vectors), or all i32"
                            } else {
                                "this built-in works on f32 and vectors"
                            };
                            return bad(
                                self,
                                i,
                                format!("`{}` does not accept `{}`", info.name, t.ty),
                                help,
                            );
                        }
                    }
                }
                let ty = Type::float(width);
                let args = typed
                    .into_iter()
                    .map(|t| {
                        if t.ty == Type::F32 && width > 1 {
                            let s = t.span;
                            node(tast::ExprKind::Splat(Box::new(t)), ty, s)
                        } else {
                            t
                        }
                    })
                    .collect();
                Some(node(tast::ExprKind::Builtin { func, args }, ty, span))
            }
            Signature::PairToScalar => {
                let (a, b) = (typed[0].ty, typed[1].ty);
                if !a.is_float() {
                    return bad(
                        self,
                        0,
                        format!("`{}` takes vectors, found `{a}`", info.name),
                        "pass f32 or vectors",
                    );
                }
                if a != b {
                    if b == Type::I32 && int_literal(&args[1]).is_some() {
                        self.report_mismatch(a, b, &args[1]);
                        return None;
                    }
                    return bad(
                        self,
                        1,
                        format!(
                            "`{}` takes two values of the same type, found `{a}` and `{b}`",
                            info.name
                        ),
                        "both arguments must have the same width",
                    );
                }
                Some(node(
                    tast::ExprKind::Builtin { func, args: typed },
                    Type::F32,
                    span,
                ))
            }
            Signature::ToScalar => {
                if !typed[0].ty.is_float() {
                    return bad(
                        self,
                        0,
                        format!("`{}` takes a vector, found `{}`", info.name, typed[0].ty),
                        "pass f32 or a vector",
                    );
                }
                Some(node(
                    tast::ExprKind::Builtin { func, args: typed },
                    Type::F32,
                    span,
                ))
            }
            Signature::Cross => {
                if let Some(i) = typed.iter().position(|t| t.ty != Type::Vec3) {
                    let found = typed[i].ty;
                    return bad(
                        self,
                        i,
                        format!("`cross` takes two vec3, found `{found}`"),
                        "use `.xyz` to take three lanes",
                    );
                }
                Some(node(
                    tast::ExprKind::Builtin { func, args: typed },
                    Type::Vec3,
                    span,
                ))
            }
            Signature::Select => {
                if typed[0].ty != Type::Bool {
                    return bad(
                        self,
                        0,
                        format!(
                            "the condition of `select` must be `bool`, found `{}`",
                            typed[0].ty
                        ),
                        "`select(c, a, b)` is `c ? a : b`; compare to get a bool",
                    );
                }
                let (a, b) = (typed[1].ty, typed[2].ty);
                if a != b {
                    if a.is_float() && b == Type::I32 && int_literal(&args[2]).is_some() {
                        self.report_mismatch(a, b, &args[2]);
                        return None;
                    }
                    if b.is_float() && a == Type::I32 && int_literal(&args[1]).is_some() {
                        self.report_mismatch(b, a, &args[1]);
                        return None;
                    }
                    return bad(
                        self,
                        2,
                        format!(
                            "`select` needs two values of the same type, found `{a}` and `{b}`"
                        ),
                        "make both choices the same type",
                    );
                }
                Some(node(tast::ExprKind::Builtin { func, args: typed }, a, span))
            }
            Signature::Position => None,
        }
    }
}

fn typed_ty(typed: &[tast::Expr], i: usize) -> Type {
    typed.get(i).map_or(Type::Unit, |t| t.ty)
}

/// Help for function names from other shading languages.
fn foreign_function_help(name: &str) -> Option<&'static str> {
    Some(match name {
        "lerp" => "the language calls it `mix(a, b, t)`",
        "frac" => "the language calls it `fract`",
        "atan" | "atan2" | "asin" | "acos" | "sinh" | "cosh" | "tanh" => {
            "inverse and hyperbolic trigonometry are not built in; write a helper `fn`"
        }
        "inversesqrt" => "the language calls it `rsqrt`",
        "mad" | "fma" => "write `a * b + c`; the compiler forms multiply-adds itself",
        "ln" => "the language calls it `log`",
        "powf" => "the language calls it `pow`",
        "float" | "int" => "convert with `as f32` / `as i32`",
        "float2" | "float3" | "float4" => {
            "vectors are built with `vec2(..)`, `vec3(..)`, `vec4(..)`"
        }
        _ => return None,
    })
}
