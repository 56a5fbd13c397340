//! Launch constants: values a kernel computes from its uniforms and
//! literals alone, which the pass [`crate::passes::launch_const`] takes out
//! of the per-element code and the loader computes once per launch (D3D9's
//! "preshaders").
//!
//! A [`LaunchConstant`] is a hidden value-uniform parameter of the module
//! (named `launch.N`, which no user parameter can be called) together with
//! the [`LaunchExpr`] that computes it. The expression is self-contained:
//! it names the uniforms it reads by *parameter name*, so a loader that has
//! only an ELF file and the launch's named values can evaluate it. Its
//! nodes are a subset of the IR's simple operations, and each is evaluated
//! with [`crate::interp::fold`], the constant folder's arithmetic, i.e.
//! the language's numerics (spec §7): a launch constant has exactly the
//! bits the reference interpreter computes for that subexpression.
//!
//! The text form ([`LaunchExpr::to_text`], [`LaunchExpr::parse`]) is what
//! the backends store in their bindings: nodes separated by `; `, each an
//! operation name as [`Op::name`] prints it followed by its operands
//! `%k` (the k-th node, always an earlier one); constants keep their f32
//! bit patterns so that NaN, infinities and `-0.0` survive:
//!
//! ```text
//! uniform light; dot %0 %0; rsqrt %1; splat3 %2; fmul %0 %3
//! const vec2 0x3f800000,0x80000000; uniform_element weights 3; fadd %0 %1
//! ```

use crate::op::{BinOp, CmpOp, LaneCond, Op, UnOp};
use crate::types::Ty;
use ctm_frontend::data::UniformValue;
use ctm_frontend::tast::{ParamId, Swizzle};
use ctm_frontend::value::Value;
use smallvec::SmallVec;
use std::fmt::Write as _;

/// A launch constant of a module: hidden uniform `param` holds the value
/// of `expr`.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchConstant {
    /// The hidden value-uniform parameter (`f32` or `vec2..4`).
    pub param: ParamId,
    /// What the loader computes for it.
    pub expr: LaunchExpr,
}

impl LaunchConstant {
    /// The hidden parameter's name and type (`f32`, `vec2`, ...) in `m`.
    pub fn name_and_type(&self, m: &crate::graph::Module) -> (String, String) {
        match m.params.get(self.param.index()) {
            Some(p) => (p.name.clone(), p.kind_type_name()),
            None => (String::new(), String::new()),
        }
    }

    /// What a code generator records for the loader: the hidden
    /// parameter's name, its type and the expression's text form.
    pub fn binding(&self, m: &crate::graph::Module) -> (String, String, String) {
        let (param, ty) = self.name_and_type(m);
        (param, ty, self.expr.to_text())
    }
}

/// The prefix of the hidden parameters' names: `launch.0`, `launch.1`, ...
/// A `.` cannot appear in an identifier (spec §1), so these names never
/// clash with a user's parameter and no `--uniform` can name them.
pub const HIDDEN_PREFIX: &str = "launch.";

/// `true` if `name` is the name of a hidden launch-constant parameter.
pub fn is_hidden_name(name: &str) -> bool {
    name.starts_with(HIDDEN_PREFIX)
}

/// One node of a [`LaunchExpr`].
#[derive(Clone, Debug, PartialEq)]
pub enum ExprNode {
    /// A constant (`f32`, `vecN`, `i32` or `bool`).
    Const(Value),
    /// The value of the value uniform of this name.
    Uniform(String),
    /// Element `index` of the array (or column of the `mat4`) uniform of
    /// this name, clamped to its length as `Op::UniformElement` is.
    UniformElement(String, i32),
    /// A simple operation ([`LaunchExpr::allows`]) on earlier nodes.
    Apply(Op, SmallVec<[u32; 3]>),
}

/// A self-contained expression over uniforms and literals: its last node
/// is the value.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct LaunchExpr {
    /// The nodes; operands name earlier nodes.
    pub nodes: Vec<ExprNode>,
}

/// Why a launch expression's text does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The text has no node.
    #[error("a launch expression has no node")]
    Empty,
    /// A node's operation is not one a launch expression may use.
    #[error("node {node}: unknown operation `{op}`")]
    UnknownOp {
        /// The node's index.
        node: usize,
        /// The operation as written.
        op: String,
    },
    /// A node's operand is malformed or not an earlier node.
    #[error("node {node}: bad operand `{operand}`")]
    BadOperand {
        /// The node's index.
        node: usize,
        /// The operand as written.
        operand: String,
    },
    /// A constant, a uniform name or an element index is malformed.
    #[error("node {node}: {what}")]
    Malformed {
        /// The node's index.
        node: usize,
        /// What is wrong.
        what: String,
    },
}

/// Why a launch expression cannot be evaluated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// A uniform it reads has no value.
    #[error("no value for uniform `{0}`")]
    MissingUniform(String),
    /// A uniform it reads has the wrong kind of value (a value where an
    /// array is read, or the reverse).
    #[error("uniform `{0}` does not have the kind of value the launch expression reads")]
    WrongKind(String),
    /// A node's operands do not fit its operation, or an operand is not an
    /// earlier node.
    #[error("node {node}: {what}")]
    Type {
        /// The node's index.
        node: usize,
        /// What does not fit.
        what: String,
    },
    /// The expression has no node.
    #[error("a launch expression has no node")]
    Empty,
}

/// The operations a launch expression may apply, with the names they
/// print as.
fn op_table() -> Vec<Op> {
    let mut ops: Vec<Op> = Vec::new();
    ops.extend(UnOp::ALL.iter().map(|&u| Op::Unary(u)));
    ops.extend(BinOp::ALL.iter().map(|&b| Op::Binary(b)));
    ops.extend(CmpOp::ALL.iter().map(|&c| Op::Compare(c)));
    ops.extend(LaneCond::ALL.iter().map(|&c| Op::LaneSelect(c)));
    ops.extend([Op::Mad, Op::Dot, Op::Select, Op::Construct]);
    ops.extend((2..=4).map(Op::Splat));
    ops
}

impl LaunchExpr {
    /// `true` for the simple operations a launch expression may apply:
    /// those the constant folder evaluates ([`crate::interp::folds`]), since
    /// the loader evaluates each node with it (constants and uniform reads
    /// are nodes of their own).
    pub fn allows(op: &Op) -> bool {
        crate::interp::folds(op)
    }

    /// The uniforms the expression reads, by name, in first-read order.
    pub fn uniforms(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for n in &self.nodes {
            if let ExprNode::Uniform(name) | ExprNode::UniformElement(name, _) = n
                && !names.contains(&name.as_str())
            {
                names.push(name);
            }
        }
        names
    }

    /// `true` if the value's sign bits are clear in every lane by
    /// construction, with the rules code generators use on the IR (the
    /// X1K's `RSQ` of a value known not to be `-0`, `isel/arith.rs`
    /// `sign_clear`): constants with clear signs, `fabs`, `exp2`, a
    /// product or dot product of a value with itself or of two such
    /// values, sums and maxima of two, `mad` of such, and swizzles and
    /// splats of one. So a launch constant says what the subexpression
    /// it replaced said.
    pub fn sign_clear(&self) -> bool {
        let mut clear: Vec<bool> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let c = match n {
                ExprNode::Const(Value::Float { lanes, width }) => lanes
                    [..usize::from(*width).min(4)]
                    .iter()
                    .all(|l| l.is_sign_positive()),
                ExprNode::Apply(op, args) => {
                    let arg = |i: usize| {
                        args.get(i)
                            .and_then(|&a| clear.get(a as usize))
                            .copied()
                            .unwrap_or(false)
                    };
                    let same = args.len() >= 2 && args[0] == args[1];
                    match op {
                        Op::Unary(UnOp::FAbs | UnOp::FExp2) => true,
                        Op::Swizzle(_) | Op::Splat(_) => arg(0),
                        Op::Dot | Op::Binary(BinOp::FMul) => same || (arg(0) && arg(1)),
                        Op::Binary(BinOp::FAdd | BinOp::FMax) => arg(0) && arg(1),
                        Op::Mad => (same || (arg(0) && arg(1))) && arg(2),
                        _ => false,
                    }
                }
                _ => false,
            };
            clear.push(c);
        }
        clear.last().copied().unwrap_or(false)
    }

    /// The text form (module doc).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if i > 0 {
                s.push_str("; ");
            }
            match n {
                ExprNode::Const(v) => {
                    let _ = write!(s, "const {}", const_text(v));
                }
                ExprNode::Uniform(name) => {
                    let _ = write!(s, "uniform {name}");
                }
                ExprNode::UniformElement(name, k) => {
                    let _ = write!(s, "uniform_element {name} {k}");
                }
                ExprNode::Apply(op, args) => {
                    s.push_str(&op.name());
                    for a in args {
                        let _ = write!(s, " %{a}");
                    }
                }
            }
        }
        s
    }

    /// Parses the text form.
    ///
    /// # Errors
    /// [`ParseError`] naming the first node that does not parse; never
    /// panics.
    pub fn parse(text: &str) -> Result<LaunchExpr, ParseError> {
        let table = op_table();
        let mut nodes = Vec::new();
        for (i, part) in text.split(';').enumerate() {
            let mut words = part.split_whitespace();
            let Some(head) = words.next() else {
                return Err(if text.trim().is_empty() {
                    ParseError::Empty
                } else {
                    ParseError::Malformed {
                        node: i,
                        what: "an empty node".into(),
                    }
                });
            };
            let rest: Vec<&str> = words.collect();
            let malformed = |what: &str| ParseError::Malformed {
                node: i,
                what: what.to_string(),
            };
            let node = match head {
                "const" => {
                    let [ty, payload] = rest.as_slice() else {
                        return Err(malformed("`const` takes a type and a value"));
                    };
                    ExprNode::Const(
                        parse_const(ty, payload)
                            .ok_or_else(|| malformed(&format!("bad constant `{ty} {payload}`")))?,
                    )
                }
                "uniform" => {
                    let [name] = rest.as_slice() else {
                        return Err(malformed("`uniform` takes a name"));
                    };
                    ExprNode::Uniform(name.to_string())
                }
                "uniform_element" => {
                    let [name, k] = rest.as_slice() else {
                        return Err(malformed("`uniform_element` takes a name and an index"));
                    };
                    let k = k
                        .parse::<i32>()
                        .map_err(|_| malformed(&format!("bad element index `{k}`")))?;
                    ExprNode::UniformElement(name.to_string(), k)
                }
                _ => {
                    let op = if let Some(lanes) = head.strip_prefix("swizzle.") {
                        Op::Swizzle(parse_swizzle(lanes).ok_or_else(|| ParseError::UnknownOp {
                            node: i,
                            op: head.to_string(),
                        })?)
                    } else {
                        table
                            .iter()
                            .find(|op| op.name() == head)
                            .cloned()
                            .ok_or_else(|| ParseError::UnknownOp {
                                node: i,
                                op: head.to_string(),
                            })?
                    };
                    let mut args = SmallVec::new();
                    for a in rest {
                        let k = a
                            .strip_prefix('%')
                            .and_then(|k| k.parse::<u32>().ok())
                            .filter(|&k| (k as usize) < i)
                            .ok_or_else(|| ParseError::BadOperand {
                                node: i,
                                operand: a.to_string(),
                            })?;
                        args.push(k);
                    }
                    ExprNode::Apply(op, args)
                }
            };
            nodes.push(node);
        }
        if nodes.is_empty() {
            return Err(ParseError::Empty);
        }
        Ok(LaunchExpr { nodes })
    }

    /// Evaluates the expression with the language's numerics
    /// ([`crate::interp::fold`] per node), reading uniforms by name from
    /// `uniform`.
    ///
    /// # Errors
    /// [`EvalError`]: a uniform without a value or with the wrong kind of
    /// value, or operands that do not fit an operation (a malformed
    /// expression from a damaged file). Never panics.
    pub fn evaluate<'u>(
        &self,
        uniform: &dyn Fn(&str) -> Option<&'u UniformValue>,
    ) -> Result<Value, EvalError> {
        let mut values: Vec<Value> = Vec::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            let v = match n {
                ExprNode::Const(v) => *v,
                ExprNode::Uniform(name) => match uniform(name) {
                    Some(UniformValue::Value(v)) if !matches!(v, Value::Unit) => *v,
                    Some(_) => return Err(EvalError::WrongKind(name.clone())),
                    None => return Err(EvalError::MissingUniform(name.clone())),
                },
                ExprNode::UniformElement(name, k) => match uniform(name) {
                    Some(UniformValue::Array(items)) if !items.is_empty() => {
                        items[((*k).max(0) as usize).min(items.len() - 1)]
                    }
                    Some(UniformValue::Mat4(m)) => {
                        let c = (*k).clamp(0, 3) as usize;
                        Value::floats(&m[4 * c..4 * c + 4])
                    }
                    Some(_) => return Err(EvalError::WrongKind(name.clone())),
                    None => return Err(EvalError::MissingUniform(name.clone())),
                },
                ExprNode::Apply(op, args) => {
                    let type_error = |what: String| EvalError::Type { node: i, what };
                    if !Self::allows(op) {
                        return Err(type_error(format!("`{}` is not allowed", op.name())));
                    }
                    let mut inputs: SmallVec<[Value; 4]> = SmallVec::new();
                    let mut types: SmallVec<[Ty; 4]> = SmallVec::new();
                    for &a in args {
                        let v = *values
                            .get(a as usize)
                            .filter(|_| (a as usize) < i)
                            .ok_or_else(|| type_error(format!("operand %{a} is not earlier")))?;
                        types.push(
                            Ty::from_type(v.ty())
                                .ok_or_else(|| type_error(format!("operand %{a} has no type")))?,
                        );
                        inputs.push(v);
                    }
                    op.result_type(&types, |_| None).map_err(type_error)?;
                    crate::interp::fold(op, &inputs)
                        .ok_or_else(|| type_error(format!("`{}` does not fold", op.name())))?
                }
            };
            values.push(v);
        }
        values.pop().ok_or(EvalError::Empty)
    }
}

fn const_text(v: &Value) -> String {
    match v {
        Value::Float { .. } => {
            let bits: Vec<String> = v
                .lanes()
                .iter()
                .map(|x| format!("{:#010x}", x.to_bits()))
                .collect();
            format!("{} {}", v.ty(), bits.join(","))
        }
        Value::I32(k) => format!("i32 {k}"),
        Value::Bool(b) => format!("bool {b}"),
        Value::Unit => "unit ()".into(),
    }
}

fn parse_const(ty: &str, payload: &str) -> Option<Value> {
    match ty {
        "i32" => payload.parse().ok().map(Value::I32),
        "bool" => payload.parse().ok().map(Value::Bool),
        "f32" | "vec2" | "vec3" | "vec4" => {
            let width = match ty {
                "f32" => 1,
                t => t.strip_prefix("vec")?.parse::<usize>().ok()?,
            };
            let lanes: Option<Vec<f32>> = payload
                .split(',')
                .map(|b| {
                    u32::from_str_radix(b.strip_prefix("0x")?, 16)
                        .ok()
                        .map(f32::from_bits)
                })
                .collect();
            let lanes = lanes?;
            (lanes.len() == width).then(|| Value::floats(&lanes))
        }
        _ => None,
    }
}

fn parse_swizzle(text: &str) -> Option<Swizzle> {
    if text.is_empty() || text.len() > 4 {
        return None;
    }
    let lanes: Option<Vec<u8>> = text
        .chars()
        .map(|c| match c {
            'x' => Some(0),
            'y' => Some(1),
            'z' => Some(2),
            'w' => Some(3),
            _ => None,
        })
        .collect();
    Some(Swizzle::new(&lanes?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_names_are_unique() {
        let table = op_table();
        for (i, a) in table.iter().enumerate() {
            for b in &table[i + 1..] {
                assert_ne!(a.name(), b.name());
            }
        }
        // No table name collides with the node keywords or swizzles.
        for op in &table {
            let name = op.name();
            assert!(!["const", "uniform", "uniform_element"].contains(&name.as_str()));
            assert!(!name.starts_with("swizzle."));
        }
    }

    #[test]
    fn text_round_trips_special_floats() {
        let e = LaunchExpr {
            nodes: vec![
                ExprNode::Const(Value::floats(&[f32::NAN, -0.0, f32::INFINITY])),
                ExprNode::Uniform("light".into()),
                ExprNode::Apply(Op::Binary(BinOp::FAdd), SmallVec::from_slice(&[0, 1])),
            ],
        };
        let text = e.to_text();
        assert_eq!(
            text,
            "const vec3 0x7fc00000,0x80000000,0x7f800000; uniform light; fadd %0 %1"
        );
        assert_eq!(LaunchExpr::parse(&text).unwrap().to_text(), text);
    }

    #[test]
    fn bad_text_is_a_typed_error() {
        assert_eq!(LaunchExpr::parse(""), Err(ParseError::Empty));
        assert_eq!(LaunchExpr::parse("  "), Err(ParseError::Empty));
        assert!(matches!(
            LaunchExpr::parse("uniform a; fadd %0 %1"),
            Err(ParseError::BadOperand { node: 1, .. })
        ));
        assert!(matches!(
            LaunchExpr::parse("gather a"),
            Err(ParseError::UnknownOp { node: 0, .. })
        ));
        assert!(matches!(
            LaunchExpr::parse("swizzle.xyzwx %0"),
            Err(ParseError::UnknownOp { .. })
        ));
        assert!(matches!(
            LaunchExpr::parse("const vec2 0x0"),
            Err(ParseError::Malformed { .. })
        ));
        assert!(matches!(
            LaunchExpr::parse("uniform a;; fneg %0"),
            Err(ParseError::Malformed { node: 1, .. })
        ));
    }

    #[test]
    fn evaluation_checks_types_instead_of_panicking() {
        let u = UniformValue::Value(Value::f32(2.0));
        let v3 = UniformValue::Value(Value::floats(&[1.0, 2.0, 3.0]));
        let look = |name: &str| match name {
            "a" => Some(&u),
            "v" => Some(&v3),
            _ => None,
        };
        let e = LaunchExpr::parse("uniform a; uniform v; fadd %0 %1").unwrap();
        assert!(matches!(
            e.evaluate(&look),
            Err(EvalError::Type { node: 2, .. })
        ));
        let e = LaunchExpr::parse("uniform b").unwrap();
        assert_eq!(
            e.evaluate(&look),
            Err(EvalError::MissingUniform("b".into()))
        );
        let e = LaunchExpr::parse("uniform_element a 0").unwrap();
        assert_eq!(e.evaluate(&look), Err(EvalError::WrongKind("a".into())));
        let e = LaunchExpr::parse("uniform v; dot %0 %0; rsqrt %1").unwrap();
        let got = e.evaluate(&look).unwrap();
        assert_eq!(got.lanes(), &[ctm_frontend::numerics::rsqrt(14.0)]);
        assert!(
            LaunchExpr::parse("uniform v; dot %0 %0")
                .unwrap()
                .sign_clear()
        );
        assert!(
            !LaunchExpr::parse("uniform v; dot %0 %0; fneg %1")
                .unwrap()
                .sign_clear()
        );
        assert!(
            LaunchExpr::parse("uniform a; fmul %0 %0")
                .unwrap()
                .sign_clear()
        );
        assert!(
            !LaunchExpr::parse("uniform a; uniform b; fmul %0 %1")
                .unwrap()
                .sign_clear()
        );
        let e = LaunchExpr::parse("uniform a; splat3 %0; swizzle.zyx %1; construct %0 %2").unwrap();
        assert_eq!(e.evaluate(&look).unwrap().lanes(), &[2.0; 4]);
    }
}
