//! `ctmc run FILE.elf`: the entry point an ELF describes, rebuilt from the
//! parameter [`Interface`] its target reads from its bindings note
//! (`docs/abi-x1k.md` §3, `docs/abi-r700.md`), so that the same
//! `--input`/`--uniform`/`--output` binding and checking as for a source
//! file apply, on every target.
//!
//! The rebuilt entry has the parameters but no body (it is never
//! interpreted). A kernel's parameters come in this order: inputs,
//! uniforms (in the interface's order), outputs, the scatter stream.
//! Uniforms the program never reads are not in the note, so they cannot be
//! given. A reduction's
//! pass program (uniforms `block`, `offsets01`, `offsets23`, one input,
//! one output named after the reduction, kernel `NAME_pass`) is run as the
//! reduction: its input is the pass's input parameter (`src`), its result
//! the reduction's name.

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

/// The parameters of a program as its bindings note names them: what
/// each target's reader gives [`entry_of`]. Formats and types are spelled
/// as in the language (`f32`, `unorm8x4`, `[vec4; 8]`, `bool`, ...).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Interface {
    /// The kernel (a reduction's pass program: `NAME_pass`).
    pub kernel: String,
    /// Input streams: (parameter, stream format), in input order.
    pub inputs: Vec<(String, String)>,
    /// Uniforms the program reads: (parameter, type).
    pub uniforms: Vec<(String, String)>,
    /// Output streams: (parameter, format), in output order.
    pub outputs: Vec<(String, String)>,
    /// The scatter streams' parameters.
    pub scatters: Vec<String>,
}

/// Whether `b` describes a reduction's pass program; its value type.
fn reduction_type(b: &Interface) -> Option<Type> {
    let ([input], [output]) = (b.inputs.as_slice(), b.outputs.as_slice()) else {
        return None;
    };
    let pass_like = b.scatters.is_empty()
        && !b.uniforms.is_empty()
        && b.uniforms
            .iter()
            .all(|(name, ty)| PASS_UNIFORMS.contains(&name.as_str()) && ty == "vec4")
        && b.kernel == format!("{}_pass", output.0);
    if !pass_like {
        return None;
    }
    // The first pass may read a packed format (`unorm8x4` as `vec4`, `u16`
    // as `f32`): the input's value type, not its format, must match.
    let ty = output_type(&output.1).ok()?.value_type();
    (stream_type(&input.1).ok()?.value_type() == ty).then_some(ty)
}

/// The entry point an ELF's interface describes.
///
/// # Errors
/// A message naming what in the bindings is not understood.
pub fn entry_of(b: &Interface) -> Result<ElfEntry, String> {
    if let Some(ty) = reduction_type(b) {
        let local = |name: &str| Local {
            name: name.to_string(),
            ty,
            mutable: false,
            span: Span::default(),
        };
        return Ok(ElfEntry::Reduction(Reduction {
            name: b.outputs[0].0.clone(),
            ty,
            params: [LocalId(0), LocalId(1)],
            locals: vec![local(&b.inputs[0].0), local("b")],
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
    for (name, format) in &b.inputs {
        add(param(name, ParamKind::Input(stream_type(format)?)))?;
    }
    for (name, ty) in &b.uniforms {
        let ty =
            parse_type(ty).ok_or_else(|| format!("uniform `{name}` has an unknown type `{ty}`"))?;
        add(param(name, ParamKind::Uniform(ty)))?;
    }
    for (name, format) in &b.outputs {
        add(param(name, ParamKind::Output(output_type(format)?)))?;
    }
    for s in &b.scatters {
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

    fn pair(a: &str, b: &str) -> (String, String) {
        (a.to_string(), b.to_string())
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
        let b = Interface {
            kernel: "matmul".into(),
            inputs: vec![pair("a", "f32")],
            outputs: vec![pair("c", "f32")],
            uniforms: vec![pair("s", "[f32; 4]"), pair("k", "i32")],
            scatters: Vec::new(),
        };
        let ElfEntry::Kernel(k) = entry_of(&b).unwrap() else {
            panic!("a kernel")
        };
        let names: Vec<&str> = k.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "s", "k", "c"]);
        assert_eq!(k.params[2].kind, ParamKind::Uniform(Type::I32));
        let mut twice = b.clone();
        twice.uniforms.push(pair("a", "f32"));
        assert!(entry_of(&twice).unwrap_err().contains("bound twice"));
    }

    #[test]
    fn a_pass_program_is_a_reduction() {
        let b = Interface {
            kernel: "sum_pass".into(),
            inputs: vec![pair("src", "f32")],
            outputs: vec![pair("sum", "f32")],
            uniforms: PASS_UNIFORMS.iter().map(|u| pair(u, "vec4")).collect(),
            scatters: Vec::new(),
        };
        let ElfEntry::Reduction(r) = entry_of(&b).unwrap() else {
            panic!("a reduction")
        };
        assert_eq!((r.name.as_str(), r.ty), ("sum", Type::F32));
        assert_eq!(r.locals[0].name, "src");
        // A first pass may read a packed stream of the same value type.
        let mut packed = b.clone();
        packed.inputs[0].1 = "u16".into();
        assert!(matches!(entry_of(&packed), Ok(ElfEntry::Reduction(_))));
        let mut bad = b.clone();
        bad.inputs[0].1 = "vec2".into();
        assert!(matches!(entry_of(&bad), Ok(ElfEntry::Kernel(_))));
        bad.inputs[0].1 = "f64".into();
        assert!(entry_of(&bad).is_err());
    }
}
