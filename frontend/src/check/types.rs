//! Resolving written types ([`ast::TypeExpr`]) and item signatures.

use super::{Checker, FnSig, suggest};
use crate::ast::{self, TypeExprKind};
use crate::diag::{Code, Diagnostic};
use crate::types::{ArrayType, OutputType, ScalarOrVector, StreamType, Type};
use crate::value::Value;

/// What a written type denotes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Resolved {
    /// A value type, `()` included; also `mat4` and arrays (uniform-only).
    Type(Type),
    /// `In<T>`.
    Input(StreamType),
    /// `Out<T>`.
    Output(OutputType),
    /// `Scatter<f32>`.
    Scatter,
    /// `unorm8x4` or `u16` outside `In<..>`.
    StreamElement(StreamType),
}

const TYPE_NAMES: &[&str] = &[
    "f32", "i32", "bool", "vec2", "vec3", "vec4", "mat4", "unorm8x4", "u16", "In", "Out", "Scatter",
];

/// A help line for type names people coming from other languages write.
fn foreign_type_help(name: &str) -> Option<&'static str> {
    Some(match name {
        "float" | "f64" | "double" | "f16" | "half" => "the language's float type is `f32`",
        "int" | "u32" | "i64" | "u64" | "usize" | "isize" | "i16" | "u8" | "i8" | "uint" => {
            "the language's integer type is `i32`"
        }
        "float2" | "vec2f" | "Vec2" => "write `vec2`",
        "float3" | "vec3f" | "Vec3" => "write `vec3`",
        "float4" | "vec4f" | "Vec4" => "write `vec4`",
        "mat4x4" | "float4x4" | "Mat4" => "write `mat4`",
        "Input" | "Stream" => "input streams are `In<T>`",
        "Output" => "output streams are `Out<T>`",
        _ => return None,
    })
}

impl<'a> Checker<'a> {
    /// Resolves a written type, reporting unknown names and malformed
    /// stream and array types. `None` after an error.
    pub(super) fn resolve_type(&mut self, t: &ast::TypeExpr) -> Option<Resolved> {
        match &t.kind {
            TypeExprKind::Error => None,
            TypeExprKind::Unit => Some(Resolved::Type(Type::Unit)),
            TypeExprKind::Named(id) => {
                let r = match id.name.as_str() {
                    "f32" => Resolved::Type(Type::F32),
                    "i32" => Resolved::Type(Type::I32),
                    "bool" => Resolved::Type(Type::Bool),
                    "vec2" => Resolved::Type(Type::Vec2),
                    "vec3" => Resolved::Type(Type::Vec3),
                    "vec4" => Resolved::Type(Type::Vec4),
                    "mat4" => Resolved::Type(Type::Mat4),
                    "unorm8x4" => Resolved::StreamElement(StreamType::Unorm8x4),
                    "u16" => Resolved::StreamElement(StreamType::U16),
                    "In" | "Out" | "Scatter" => {
                        self.error(
                            Diagnostic::new(
                                Code::InvalidStreamType,
                                id.span,
                                format!("`{}` needs an element type", id.name),
                            )
                            .with_label("missing `<T>`")
                            .with_help(format!("write e.g. `{}<f32>`", id.name)),
                        );
                        return None;
                    }
                    other => {
                        let mut d = Diagnostic::new(
                            Code::UnknownType,
                            id.span,
                            format!("unknown type `{other}`"),
                        )
                        .with_label("not a type of the language");
                        if let Some(h) = foreign_type_help(other) {
                            d = d.with_help(h);
                        } else if let Some(s) = suggest::closest(other, TYPE_NAMES.iter().copied())
                        {
                            d = d.with_help(format!("did you mean `{s}`?"));
                        } else {
                            d = d.with_help(
                                "the types are f32, i32, bool, vec2, vec3, vec4, mat4, [T; N], In<T>, Out<T>, Scatter<f32>",
                            );
                        }
                        self.error(d);
                        return None;
                    }
                };
                Some(r)
            }
            TypeExprKind::Generic { name, arg } => {
                let inner = self.resolve_type(arg)?;
                let elem = match inner {
                    Resolved::Type(t) => Some(t),
                    Resolved::StreamElement(_) => None,
                    _ => {
                        self.error(
                            Diagnostic::new(
                                Code::InvalidStreamType,
                                arg.span,
                                "streams cannot be nested",
                            )
                            .with_label("a stream type inside a stream type"),
                        );
                        return None;
                    }
                };
                match name.name.as_str() {
                    "In" => {
                        let st = match (inner, elem) {
                            (Resolved::StreamElement(s), _) => Some(s),
                            (_, Some(Type::F32)) => Some(StreamType::F32),
                            (_, Some(Type::Vec2)) => Some(StreamType::Vec2),
                            (_, Some(Type::Vec4)) => Some(StreamType::Vec4),
                            _ => None,
                        };
                        match st {
                            Some(s) => Some(Resolved::Input(s)),
                            None => {
                                let help = match elem {
                                    Some(Type::Vec3) => "use `In<vec4>` and `.xyz`",
                                    Some(Type::I32) => {
                                        "integer data streams in as `In<u16>` (read as an integer-valued f32) or `In<f32>`"
                                    }
                                    _ => "input streams hold f32, vec2, vec4, unorm8x4 or u16",
                                };
                                self.error(
                                    Diagnostic::new(
                                        Code::InvalidStreamType,
                                        arg.span,
                                        "invalid input stream element type",
                                    )
                                    .with_label("not allowed in `In<..>`")
                                    .with_help(help),
                                );
                                None
                            }
                        }
                    }
                    "Out" => match elem {
                        Some(Type::F32) => Some(Resolved::Output(OutputType::F32)),
                        Some(Type::Vec2) => Some(Resolved::Output(OutputType::Vec2)),
                        Some(Type::Vec4) => Some(Resolved::Output(OutputType::Vec4)),
                        _ => {
                            let help = if elem == Some(Type::Vec3) {
                                "use `Out<vec4>` and write `vec4(v, 0.0)`"
                            } else {
                                "output streams hold f32, vec2 or vec4"
                            };
                            self.error(
                                Diagnostic::new(
                                    Code::InvalidStreamType,
                                    arg.span,
                                    "invalid output stream element type",
                                )
                                .with_label("not allowed in `Out<..>`")
                                .with_help(help),
                            );
                            None
                        }
                    },
                    "Scatter" => {
                        if elem == Some(Type::F32) {
                            Some(Resolved::Scatter)
                        } else {
                            self.error(
                                Diagnostic::new(
                                    Code::InvalidStreamType,
                                    arg.span,
                                    "scatter streams hold f32 only",
                                )
                                .with_label("not allowed in `Scatter<..>`")
                                .with_help("write `Scatter<f32>` and scatter each lane separately"),
                            );
                            None
                        }
                    }
                    other => {
                        let mut d = Diagnostic::new(
                            Code::UnknownType,
                            name.span,
                            format!("unknown generic type `{other}`"),
                        )
                        .with_label("not a stream kind");
                        if let Some(s) = suggest::closest(other, ["In", "Out", "Scatter"]) {
                            d = d.with_help(format!("did you mean `{s}`?"));
                        } else {
                            d = d.with_help("the stream kinds are In<T>, Out<T> and Scatter<f32>");
                        }
                        self.error(d);
                        None
                    }
                }
            }
            TypeExprKind::Array { elem, len } => {
                let elem_ty = self.resolve_type(elem);
                let len_value = self.eval_const_expr(len, Type::I32);
                let elem = match elem_ty? {
                    Resolved::Type(Type::F32) => ScalarOrVector::F32,
                    Resolved::Type(Type::Vec2) => ScalarOrVector::Vec2,
                    Resolved::Type(Type::Vec4) => ScalarOrVector::Vec4,
                    Resolved::Type(Type::I32) => ScalarOrVector::I32,
                    _ => {
                        self.error(
                            Diagnostic::new(
                                Code::UnknownType,
                                elem.span,
                                "invalid array element type",
                            )
                            .with_label("not allowed in an array")
                            .with_help("uniform arrays hold f32, vec2, vec4 or i32"),
                        );
                        return None;
                    }
                };
                match len_value? {
                    Value::I32(n) if (1..=256).contains(&n) => {
                        Some(Resolved::Type(Type::Array(ArrayType {
                            elem,
                            len: n as u16,
                        })))
                    }
                    Value::I32(n) => {
                        self.error(
                            Diagnostic::new(
                                Code::InvalidArrayLength,
                                len.span,
                                format!("array length {n} is out of range"),
                            )
                            .with_label("must be 1 to 256")
                            .with_help("uniform arrays hold at most 256 elements (spec §3)"),
                        );
                        None
                    }
                    _ => None,
                }
            }
        }
    }

    /// Resolves a helper's parameter and result types.
    pub(super) fn resolve_fn_signature(&mut self, f: &'a ast::FnItem) -> Option<FnSig> {
        let mut params = Vec::new();
        let mut ok = true;
        let mut seen: Vec<(&str, crate::span::Span)> = Vec::new();
        for p in &f.params {
            if let Some((_, prev)) = seen.iter().find(|(n, _)| *n == p.name.name) {
                self.error(
                    Diagnostic::new(
                        Code::DuplicateParameter,
                        p.name.span,
                        format!("parameter `{}` is declared twice", p.name.name),
                    )
                    .with_label("second declaration")
                    .with_secondary(*prev, "first declaration"),
                );
                ok = false;
            }
            seen.push((&p.name.name, p.name.span));
            match self.resolve_type(&p.ty) {
                Some(Resolved::Type(t)) if t.is_value() && t != Type::Unit => {
                    params.push((p.name.name.clone(), t, p.mutable, p.name.span));
                }
                Some(r) => {
                    let what = match r {
                        Resolved::Input(_) | Resolved::Output(_) | Resolved::Scatter => {
                            "helper functions are pure: streams are kernel parameters only"
                        }
                        _ => "helper parameters are values: f32, i32, bool, vec2, vec3 or vec4",
                    };
                    let code = match r {
                        Resolved::Input(_) | Resolved::Output(_) | Resolved::Scatter => {
                            Code::KernelOnly
                        }
                        _ => Code::InvalidParameterType,
                    };
                    self.error(
                        Diagnostic::new(
                            code,
                            p.ty.span,
                            "invalid parameter type for a helper function",
                        )
                        .with_label("not allowed here")
                        .with_help(what),
                    );
                    ok = false;
                }
                None => ok = false,
            }
        }
        let ret = match &f.ret {
            None => Type::Unit,
            Some(t) => match self.resolve_type(t) {
                Some(Resolved::Type(t)) if t.is_value() => t,
                Some(_) => {
                    self.error(
                        Diagnostic::new(Code::InvalidParameterType, t.span, "invalid result type")
                            .with_label("not a value type")
                            .with_help("helpers return f32, i32, bool, vec2, vec3 or vec4"),
                    );
                    return None;
                }
                None => return None,
            },
        };
        ok.then(|| FnSig {
            name: f.name.name.clone(),
            params,
            ret,
        })
    }
}
