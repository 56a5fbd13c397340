//! The `"ctm"` bindings note against the code and the ATI notes
//! (`docs/abi-x1k.md` §3, issue 13 "ELF images whose notes disagree with
//! their code"): every resource the code uses is bound; every output,
//! constant and loop-count binding names a resource the code uses (an
//! input may go unread, and an unused bool uniform may name b0); loop
//! counts read existing `i32` uniforms; and every binding fits the hardware (16
//! inputs, 4 outputs, 256 float constants, 32 integer and 32 boolean
//! constants: CTM §3.3.1, §3.4.1, §3.5.3, §4.1.4).
//!
//! The notes themselves are checked against the code by `image.rs`, so
//! comparing the bindings with the code's [`Facts`] compares them with the
//! notes too.

use std::collections::BTreeMap;

use crate::abi::{Bindings, IntSource};

use super::facts::{Facts, constants_of};

/// CTM inputs (`TEX_ID` 0..=15, CTM §3.4.1).
const INPUTS: u32 = 16;
/// CTM outputs (render targets A..D, CTM §3.3.8).
const OUTPUTS: u32 = 4;
/// Float constants `c0..c255` (CTM §3.3.1).
const FLOAT_CONSTANTS: u32 = 256;
/// Integer constants `i0..i31` and boolean constants `b0..b31` (CTM §3.5.3).
const FC_CONSTANTS: u32 = 32;

/// One way the bindings disagree with the code or the hardware.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum BindingError {
    /// A binding names a resource the hardware does not have.
    #[error("{what} `{param}` is bound to {resource} {index}, but the hardware has {limit}")]
    OutOfRange {
        /// The kind of binding (`input`, `uniform`, ...).
        what: &'static str,
        /// The parameter (or `literal`, `domain()`).
        param: String,
        /// The resource kind (`CTM input`, `float constant`, ...).
        resource: &'static str,
        /// The first index it needs beyond the limit.
        index: u32,
        /// How many the hardware has.
        limit: u32,
    },
    /// A binding names a resource the code never uses: its value would be
    /// silently ignored.
    #[error("{what} `{param}` is bound to {resource} {index}, which the code never {verb}")]
    Unused {
        /// The kind of binding.
        what: &'static str,
        /// The parameter.
        param: String,
        /// The resource kind.
        resource: &'static str,
        /// Its index.
        index: u32,
        /// `reads` or `writes`.
        verb: &'static str,
    },
    /// The code uses a resource no binding provides: it would hold garbage.
    #[error("the code {verb} {resource} {index}, which no parameter is bound to")]
    Unbound {
        /// The resource kind.
        resource: &'static str,
        /// Its index.
        index: u32,
        /// `reads` or `writes`.
        verb: &'static str,
    },
    /// Two bindings share one resource.
    #[error("{resource} {index} is bound twice (`{first}` and `{second}`)")]
    BoundTwice {
        /// The resource kind.
        resource: &'static str,
        /// Its index.
        index: u32,
        /// The first binding.
        first: String,
        /// The second binding.
        second: String,
    },
    /// A loop count or start names a uniform that does not exist or is not
    /// an `i32` uniform.
    #[error(
        "integer constant {int_constant} reads uniform `{name}`, which is not an i32 uniform of the kernel"
    )]
    UnknownLoopUniform {
        /// The integer constant.
        int_constant: u8,
        /// The name it gives.
        name: String,
    },
    /// A scatter binding without uncached writes, or uncached writes
    /// without a scatter binding (`docs/abi-x1k.md` §3).
    #[error("the scatter binding says {bound} but the code {}", if *.uncached { "writes uncached" } else { "does not write uncached" })]
    ScatterMismatch {
        /// Whether a scatter parameter is bound.
        bound: bool,
        /// Whether the code performs uncached writes.
        uncached: bool,
    },
}

/// Records who claimed each index of one resource, reporting doubles.
struct Claims {
    resource: &'static str,
    by: BTreeMap<u32, String>,
}

impl Claims {
    fn new(resource: &'static str) -> Self {
        Claims {
            resource,
            by: BTreeMap::new(),
        }
    }

    fn claim(&mut self, index: u32, who: &str, out: &mut Vec<BindingError>) {
        if let Some(first) = self.by.get(&index) {
            out.push(BindingError::BoundTwice {
                resource: self.resource,
                index,
                first: first.clone(),
                second: who.to_string(),
            });
        } else {
            self.by.insert(index, who.to_string());
        }
    }
}

/// Check `bindings` against what the code uses (`facts`).
pub(crate) fn check(bindings: &Bindings, facts: &Facts, out: &mut Vec<BindingError>) {
    check_streams(bindings, facts, out);
    check_float_constants(bindings, facts, out);
    check_int_constants(bindings, facts, out);
    // Several bool uniforms may name b0 when only one (or none) is used for
    // branching (the compiler binds an unused one to b0), so bools are not
    // claimed exclusively.
    for b in &bindings.bool_uniforms {
        let index = u32::from(b.bool_constant);
        if index >= FC_CONSTANTS {
            out.push(BindingError::OutOfRange {
                what: "bool uniform",
                param: b.param.clone(),
                resource: "boolean constant",
                index,
                limit: FC_CONSTANTS,
            });
        }
    }
    for &b in &facts.bool_constants {
        if !bindings.bool_uniforms.iter().any(|u| u.bool_constant == b) {
            out.push(BindingError::Unbound {
                resource: "boolean constant",
                index: u32::from(b),
                verb: "reads",
            });
        }
    }
}

fn check_streams(b: &Bindings, facts: &Facts, out: &mut Vec<BindingError>) {
    let mut inputs = Claims::new("CTM input");
    for i in &b.inputs {
        let index = u32::from(i.input);
        if index >= INPUTS {
            out.push(BindingError::OutOfRange {
                what: "input",
                param: i.param.clone(),
                resource: "CTM input",
                index,
                limit: INPUTS,
            });
        }
        // An input the code does not read is allowed: a kernel may ignore
        // a stream (its data is then never fetched).
        inputs.claim(index, &i.param, out);
    }
    for &i in &facts.inputs {
        if !inputs.by.contains_key(&u32::from(i)) {
            out.push(BindingError::Unbound {
                resource: "CTM input",
                index: u32::from(i),
                verb: "reads",
            });
        }
    }
    if b.scatter.is_some() != facts.uncached_writes {
        out.push(BindingError::ScatterMismatch {
            bound: b.scatter.is_some(),
            uncached: facts.uncached_writes,
        });
    }
    let mut outputs = Claims::new("CTM output");
    if let Some(s) = &b.scatter {
        outputs.claim(0, s, out);
    }
    for o in &b.outputs {
        let index = u32::from(o.output);
        if index >= OUTPUTS {
            out.push(BindingError::OutOfRange {
                what: "output",
                param: o.param.clone(),
                resource: "CTM output",
                index,
                limit: OUTPUTS,
            });
        } else if !facts.outputs.contains(&o.output) {
            out.push(BindingError::Unused {
                what: "output",
                param: o.param.clone(),
                resource: "CTM output",
                index,
                verb: "writes",
            });
        }
        outputs.claim(index, &o.param, out);
    }
    for &o in &facts.outputs {
        if !outputs.by.contains_key(&u32::from(o)) {
            out.push(BindingError::Unbound {
                resource: "CTM output",
                index: u32::from(o),
                verb: "writes",
            });
        }
    }
}

fn check_float_constants(b: &Bindings, facts: &Facts, out: &mut Vec<BindingError>) {
    let mut claims = Claims::new("float constant");
    // An `i32` uniform that a loop count reads is used through the integer
    // constant, whether or not the code also reads its float constant (the
    // compiler binds it either way).
    let mut loop_uniforms = Vec::new();
    for ic in &b.int_constants {
        uniform_names(&ic.count, &mut loop_uniforms);
        uniform_names(&ic.init, &mut loop_uniforms);
    }
    let read = |c: u32| u8::try_from(c).is_ok_and(|c| facts.float_constants.contains(&c));
    // (what, param, first constant, count)
    let mut all: Vec<(&'static str, String, u32, u32)> = Vec::new();
    for u in &b.uniforms {
        all.push((
            "uniform",
            u.param.clone(),
            u32::from(u.float_constant),
            constants_of(&u.ty),
        ));
    }
    for u in &b.bool_uniforms {
        if let Some(c) = u.float_constant {
            all.push(("bool uniform", u.param.clone(), u32::from(c), 1));
        }
    }
    if let Some(c) = b.domain_constant {
        all.push(("domain", "domain()".into(), u32::from(c), 1));
    }
    for l in &b.literals {
        all.push(("literal", "literal".into(), u32::from(l.float_constant), 1));
    }
    for (what, param, first, count) in all {
        let end = first.saturating_add(count);
        if end > FLOAT_CONSTANTS {
            out.push(BindingError::OutOfRange {
                what,
                param: param.clone(),
                resource: "float constant",
                index: FLOAT_CONSTANTS.max(first),
                limit: FLOAT_CONSTANTS,
            });
        }
        let end = end.min(FLOAT_CONSTANTS);
        let counts_loops = what == "uniform" && loop_uniforms.contains(&param.as_str());
        if first < end && !counts_loops && !(first..end).any(read) {
            out.push(BindingError::Unused {
                what,
                param: param.clone(),
                resource: "float constant",
                index: first,
                verb: "reads",
            });
        }
        for c in first..end {
            claims.claim(c, &param, out);
        }
    }
    for &c in &facts.float_constants {
        if !claims.by.contains_key(&u32::from(c)) {
            out.push(BindingError::Unbound {
                resource: "float constant",
                index: u32::from(c),
                verb: "reads",
            });
        }
    }
}

fn check_int_constants(b: &Bindings, facts: &Facts, out: &mut Vec<BindingError>) {
    let mut claims = Claims::new("integer constant");
    let is_i32_uniform = |name: &str| {
        b.uniforms
            .iter()
            .any(|u| u.param == name && u.ty.trim() == "i32")
    };
    for ic in &b.int_constants {
        let index = u32::from(ic.int_constant);
        let who = format!("i{index}");
        if index >= FC_CONSTANTS {
            out.push(BindingError::OutOfRange {
                what: "loop count",
                param: who.clone(),
                resource: "integer constant",
                index,
                limit: FC_CONSTANTS,
            });
        } else if !facts.int_constants.contains(&ic.int_constant) {
            out.push(BindingError::Unused {
                what: "loop count",
                param: who.clone(),
                resource: "integer constant",
                index,
                verb: "reads",
            });
        }
        claims.claim(index, &who, out);
        let mut names = Vec::new();
        uniform_names(&ic.count, &mut names);
        uniform_names(&ic.init, &mut names);
        for name in names {
            if !is_i32_uniform(name) {
                out.push(BindingError::UnknownLoopUniform {
                    int_constant: ic.int_constant,
                    name: name.to_string(),
                });
            }
        }
    }
    for &i in &facts.int_constants {
        if !claims.by.contains_key(&u32::from(i)) {
            out.push(BindingError::Unbound {
                resource: "integer constant",
                index: u32::from(i),
                verb: "reads",
            });
        }
    }
}

/// The uniform names a loop-count recipe reads.
fn uniform_names<'a>(s: &'a IntSource, out: &mut Vec<&'a str>) {
    match s {
        IntSource::Const(_) => {}
        IntSource::Uniform(name) => out.push(name),
        IntSource::UniformRange(a, b) => {
            uniform_names(a, out);
            uniform_names(b, out);
        }
    }
}
