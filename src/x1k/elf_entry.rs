//! `ctmc run FILE.elf`: the entry point an X1K ELF describes, rebuilt from
//! the bindings in its `"ctm"` note (`docs/abi-x1k.md` §3), so that the
//! same `--input`/`--uniform`/`--output` binding and checking as for a
//! source file apply.
//!
//! The rebuilt entry has the parameters but no body (it is never
//! interpreted). A kernel's parameters come in this order: inputs,
//! uniforms (float, boolean, then `i32` loop bounds the note names only in
//! its loop recipes), outputs, the scatter stream. Uniforms the program
//! never reads are not in the note, so they cannot be given. A reduction's
//! pass program (uniforms `block`, `offsets01`, `offsets23`, one input,
//! one output named after the reduction, kernel `NAME_pass`) is run as the
//! reduction: its input is the pass's input parameter (`src`), its result
//! the reduction's name.

use ctm_backend_x1k::abi::{Bindings, IntSource};
use ctm_frontend::Span;
use ctm_frontend::tast::{Block, Kernel, KernelParam, Local, LocalId, ParamKind, Reduction};
use ctm_frontend::types::{ArrayType, OutputType, ScalarOrVector, StreamType, Type};

/// The entry point of an ELF.
#[derive(Clone, Debug, PartialEq)]
pub enum ElfEntry {
    /// A kernel.
    Kernel(Kernel),
    /// A reduction run through its pass program.
    Reduction(Reduction),
}

impl ElfEntry {
    /// The front end's view of it, for binding data.
    pub fn entry(&self) -> ctm_frontend::Entry<'_> {
        match self {
            ElfEntry::Kernel(k) => ctm_frontend::Entry::Kernel(k),
            ElfEntry::Reduction(r) => ctm_frontend::Entry::Reduction(r),
        }
    }
}

/// The uniforms of a reduction's pass program.
const PASS_UNIFORMS: [&str; 3] = ["block", "offsets01", "offsets23"];

fn stream_type(format: &str) -> Result<StreamType, String> {
    Ok(match format {
        "f32" => StreamType::F32,
        "vec2" => StreamType::Vec2,
        "vec4" => StreamType::Vec4,
        "unorm8x4" => StreamType::Unorm8x4,
        "u16" => StreamType::U16,
        other => return Err(format!("unknown input format `{other}`")),
    })
}

fn output_type(format: &str) -> Result<OutputType, String> {
    Ok(match format {
        "f32" => OutputType::F32,
        "vec2" => OutputType::Vec2,
        "vec4" => OutputType::Vec4,
        other => return Err(format!("unknown output format `{other}`")),
    })
}

/// Parses a uniform type as the bindings write it (`f32`, `vec3`, `mat4`,
/// `[vec4; 8]`, ...).
pub fn parse_type(text: &str) -> Option<Type> {
    let text = text.trim();
    Some(match text {
        "bool" => Type::Bool,
        "i32" => Type::I32,
        "f32" => Type::F32,
        "vec2" => Type::Vec2,
        "vec3" => Type::Vec3,
        "vec4" => Type::Vec4,
        "mat4" => Type::Mat4,
        _ => {
            let inner = text.strip_prefix('[')?.strip_suffix(']')?;
            let (elem, len) = inner.rsplit_once(';')?;
            let elem = match elem.trim() {
                "f32" => ScalarOrVector::F32,
                "vec2" => ScalarOrVector::Vec2,
                "vec4" => ScalarOrVector::Vec4,
                "i32" => ScalarOrVector::I32,
                _ => return None,
            };
            let len = len
                .trim()
                .parse::<u16>()
                .ok()
                .filter(|n| (1..=256).contains(n))?;
            Type::Array(ArrayType { elem, len })
        }
    })
}

fn param(name: &str, kind: ParamKind) -> KernelParam {
    KernelParam {
        name: name.to_string(),
        kind,
        span: Span::default(),
    }
}

fn empty_block() -> Block {
    Block {
        stmts: Vec::new(),
        tail: None,
        span: Span::default(),
    }
}

/// The uniforms named by a loop recipe.
fn loop_uniforms<'b>(s: &'b IntSource, out: &mut Vec<&'b str>) {
    match s {
        IntSource::Const(_) => {}
        IntSource::Uniform(name) => out.push(name),
        IntSource::UniformRange(a, b) => {
            loop_uniforms(a, out);
            loop_uniforms(b, out);
        }
    }
}

/// Whether `b` describes a reduction's pass program; its value type.
fn reduction_type(b: &Bindings) -> Option<Type> {
    let ([input], [output]) = (b.inputs.as_slice(), b.outputs.as_slice()) else {
        return None;
    };
    let pass_like = b.scatter.is_none()
        && b.bool_uniforms.is_empty()
        && b.int_constants.is_empty()
        && !b.uniforms.is_empty()
        && b.uniforms
            .iter()
            .all(|u| PASS_UNIFORMS.contains(&u.param.as_str()) && u.ty == "vec4")
        && input.format == output.format
        && b.kernel == format!("{}_pass", output.param);
    if !pass_like {
        return None;
    }
    output_type(&output.format).ok().map(OutputType::value_type)
}

/// The entry point the bindings of an ELF describe.
///
/// # Errors
/// A message naming what in the bindings is not understood.
pub fn entry_of(b: &Bindings) -> Result<ElfEntry, String> {
    if let Some(ty) = reduction_type(b) {
        let local = |name: &str| Local {
            name: name.to_string(),
            ty,
            mutable: false,
            span: Span::default(),
        };
        return Ok(ElfEntry::Reduction(Reduction {
            name: b.outputs[0].param.clone(),
            ty,
            params: [LocalId(0), LocalId(1)],
            locals: vec![local(&b.inputs[0].param), local("b")],
            body: empty_block(),
            span: Span::default(),
        }));
    }
    let mut params: Vec<KernelParam> = Vec::new();
    let mut add = |p: KernelParam| -> Result<(), String> {
        if params.iter().any(|q| q.name == p.name) {
            return Err(format!("parameter `{}` is bound twice", p.name));
        }
        params.push(p);
        Ok(())
    };
    for i in &b.inputs {
        add(param(&i.param, ParamKind::Input(stream_type(&i.format)?)))?;
    }
    for u in &b.uniforms {
        let ty = parse_type(&u.ty)
            .ok_or_else(|| format!("uniform `{}` has an unknown type `{}`", u.param, u.ty))?;
        add(param(&u.param, ParamKind::Uniform(ty)))?;
    }
    for u in &b.bool_uniforms {
        add(param(&u.param, ParamKind::Uniform(Type::Bool)))?;
    }
    let mut bounds = Vec::new();
    for ic in &b.int_constants {
        loop_uniforms(&ic.count, &mut bounds);
        loop_uniforms(&ic.init, &mut bounds);
    }
    for name in bounds {
        let known = b.uniforms.iter().any(|u| u.param == name)
            || b.bool_uniforms.iter().any(|u| u.param == name);
        if !known && !b.inputs.iter().any(|i| i.param == name) {
            // A bound read only by loops: an i32 uniform (given once).
            let _ = add(param(name, ParamKind::Uniform(Type::I32)));
        }
    }
    for o in &b.outputs {
        add(param(&o.param, ParamKind::Output(output_type(&o.format)?)))?;
    }
    if let Some(s) = &b.scatter {
        add(param(s, ParamKind::Scatter))?;
    }
    Ok(ElfEntry::Kernel(Kernel {
        name: b.kernel.clone(),
        params,
        locals: Vec::new(),
        body: empty_block(),
        span: Span::default(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctm_backend_x1k::abi::{InputBinding, IntConstBinding, OutputBinding, UniformBinding};

    fn input(param: &str, format: &str) -> InputBinding {
        InputBinding {
            param: param.into(),
            input: 0,
            format: format.into(),
        }
    }

    fn output(param: &str, format: &str) -> OutputBinding {
        OutputBinding {
            param: param.into(),
            output: 0,
            format: format.into(),
        }
    }

    fn uniform(param: &str, ty: &str) -> UniformBinding {
        UniformBinding {
            param: param.into(),
            ty: ty.into(),
            float_constant: 0,
        }
    }

    #[test]
    fn types_parse() {
        assert_eq!(parse_type("mat4"), Some(Type::Mat4));
        assert_eq!(
            parse_type("[f32; 9]").map(|t| t.to_string()).as_deref(),
            Some("[f32; 9]")
        );
        assert_eq!(parse_type("[vec3; 2]"), None);
        assert_eq!(parse_type("[f32; 0]"), None);
        assert_eq!(parse_type("f64"), None);
    }

    #[test]
    fn a_kernel_with_a_loop_bound() {
        let b = Bindings {
            kernel: "matmul".into(),
            inputs: vec![input("a", "f32")],
            outputs: vec![output("c", "f32")],
            uniforms: vec![uniform("s", "[f32; 4]")],
            int_constants: vec![IntConstBinding {
                int_constant: 0,
                count: IntSource::UniformRange(
                    Box::new(IntSource::Const(0)),
                    Box::new(IntSource::Uniform("k".into())),
                ),
                init: IntSource::Const(0),
                step: 1,
            }],
            ..Bindings::default()
        };
        let ElfEntry::Kernel(k) = entry_of(&b).unwrap() else {
            panic!("a kernel")
        };
        let names: Vec<&str> = k.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "s", "k", "c"]);
        assert_eq!(k.params[2].kind, ParamKind::Uniform(Type::I32));
    }

    #[test]
    fn a_pass_program_is_a_reduction() {
        let b = Bindings {
            kernel: "sum_pass".into(),
            inputs: vec![input("src", "f32")],
            outputs: vec![output("sum", "f32")],
            uniforms: PASS_UNIFORMS.iter().map(|u| uniform(u, "vec4")).collect(),
            ..Bindings::default()
        };
        let ElfEntry::Reduction(r) = entry_of(&b).unwrap() else {
            panic!("a reduction")
        };
        assert_eq!((r.name.as_str(), r.ty), ("sum", Type::F32));
        assert_eq!(r.locals[0].name, "src");
        let mut bad = b.clone();
        bad.inputs[0].format = "u16".into();
        assert!(matches!(entry_of(&bad), Ok(ElfEntry::Kernel(_))));
        bad.inputs[0].format = "f64".into();
        assert!(entry_of(&bad).is_err());
    }
}
