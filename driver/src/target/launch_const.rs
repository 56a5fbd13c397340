//! Launch constants at launch time, for every target (`docs/abi-x1k.md`
//! and `docs/abi-r700.md`, "Launch constants"): a program's bindings list
//! hidden uniforms (`launch.N`) with the expression computing each from
//! the user's uniforms ([`ctm_ir::launch`]); before every launch — a
//! kernel, each reduction pass, `ctmc run FILE.elf`, the host API and
//! `ctm_kernel!` launches all reach [`crate::target::Session::launch`] —
//! [`bind`] evaluates them from the launch's named values and binds them
//! like any uniform. The hidden names are not part of a program's
//! interface ([`crate::target::ElfEntry`]), so a user can neither need nor
//! set them: a value given under such a name is replaced.

use crate::target::{Launch, LaunchError, LaunchValue, MachineProgram};
use ctm_frontend::data::UniformValue;
use ctm_frontend::types::Type;
use ctm_ir::launch::{EvalError, LaunchExpr, is_hidden_name};

/// A launch constant as a program's bindings describe it, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct HiddenUniform {
    /// The hidden uniform's name (`launch.N`).
    pub param: String,
    /// Its type (`f32`, `vec2`, `vec3` or `vec4`).
    pub ty: Type,
    /// What computes it.
    pub expr: LaunchExpr,
}

/// Parses the launch constants of a program's bindings: (parameter,
/// type, expression text) each, and the names of the uniforms the
/// bindings bind (each launch constant must be one of them).
///
/// # Errors
/// A sentence naming the launch constant that is malformed (a damaged or
/// foreign file: `ctmc` exits 2).
pub fn parse<'b>(
    constants: impl IntoIterator<Item = (&'b str, &'b str, &'b str)>,
    bound: &[&str],
) -> Result<Vec<HiddenUniform>, String> {
    let mut out: Vec<HiddenUniform> = Vec::new();
    for (param, ty, expr) in constants {
        let bad = |why: String| format!("launch constant `{param}`: {why}");
        if !is_hidden_name(param) {
            return Err(bad("its name is not a hidden uniform's (`launch.N`)".into()));
        }
        if !bound.contains(&param) || out.iter().any(|c| c.param == param) {
            return Err(bad("it is not bound as a uniform exactly once".into()));
        }
        let ty = match ty {
            "f32" => Type::F32,
            "vec2" => Type::Vec2,
            "vec3" => Type::Vec3,
            "vec4" => Type::Vec4,
            other => return Err(bad(format!("unknown type `{other}`"))),
        };
        let expr = LaunchExpr::parse(expr).map_err(|e| bad(e.to_string()))?;
        if let Some(u) = expr.uniforms().into_iter().find(|u| is_hidden_name(u)) {
            return Err(bad(format!("it reads the hidden uniform `{u}`")));
        }
        out.push(HiddenUniform {
            param: param.to_string(),
            ty,
            expr,
        });
    }
    Ok(out)
}

/// The value of each of `program`'s launch constants for `launch`, by
/// name.
///
/// # Errors
/// [`LaunchError::Unfit`]: a uniform an expression reads has no value
/// (the same message as any missing uniform), or a value of the wrong
/// kind or type; [`LaunchError::Internal`] if the program's launch
/// constants do not parse (its ELF reader checked them).
pub fn evaluate(
    program: &dyn MachineProgram,
    launch: &Launch<'_>,
) -> Result<Vec<(String, UniformValue)>, LaunchError> {
    let constants = program.launch_constants().map_err(|why| {
        LaunchError::Internal(crate::target::InternalError::Driver(format!(
            "the program of `{}`: {why}",
            program.kernel()
        )))
    })?;
    let lookup = |name: &str| match launch.values.get(name) {
        Some(LaunchValue::Uniform(u)) if !is_hidden_name(name) => Some(*u),
        _ => None,
    };
    let mut out = Vec::with_capacity(constants.len());
    for c in constants {
        let v = c.expr.evaluate(&lookup).map_err(|e| match e {
            EvalError::MissingUniform(name) => {
                LaunchError::Unfit(format!("no value for uniform `{name}`"))
            }
            e => LaunchError::Unfit(format!("launch constant `{}`: {e}", c.param)),
        })?;
        if v.ty() != c.ty {
            return Err(LaunchError::Unfit(format!(
                "launch constant `{}` evaluates to a {}, not a {}",
                c.param,
                v.ty(),
                c.ty
            )));
        }
        out.push((c.param, UniformValue::Value(v)));
    }
    Ok(out)
}

/// Runs `run` on `launch` with `program`'s launch constants evaluated and
/// bound (replacing any value given under a hidden name).
///
/// # Errors
/// As [`evaluate`], and whatever `run` returns.
pub fn bind<R>(
    program: &dyn MachineProgram,
    launch: &Launch<'_>,
    run: impl FnOnce(&Launch<'_>) -> Result<R, LaunchError>,
) -> Result<R, LaunchError> {
    let constants = evaluate(program, launch)?;
    if constants.is_empty() {
        return run(launch);
    }
    let mut values: std::collections::HashMap<String, LaunchValue<'_>> = launch
        .values
        .iter()
        .filter(|(name, _)| !is_hidden_name(name))
        .map(|(name, v)| (name.clone(), *v))
        .collect();
    for (name, v) in &constants {
        values.insert(name.clone(), LaunchValue::Uniform(v));
    }
    run(&Launch {
        domain: launch.domain,
        values,
    })
}
