//! The constant files of a program (`docs/abi-x1k.md` §3): float constants
//! for uniforms (in parameter order), `domain()`, `bool` values and the
//! literal pool; boolean constants for `bool` uniforms; integer constants
//! for loop counts. Also the inline-constant choice (CTM §3.3.1: 7-bit
//! unsigned floats, with NEG and the 0/0.5/1 swizzles for the rest).

use super::CodegenError;
use super::mir::{Lane, Operand, Src};
use crate::abi::{IntConstBinding, IntSource, LiteralBinding};
use crate::isa::{InputModifier, inline_constant_code};
use ctm_frontend::Code;
use ctm_frontend::tast::ParamId;

/// The float, boolean and integer constants a program reads.
#[derive(Clone, Debug, Default)]
pub struct ConstTable {
    /// Next free float constant.
    next: u16,
    /// First float constant of each uniform parameter (by parameter index).
    pub uniform_base: Vec<Option<u8>>,
    /// Boolean constant of each `bool` uniform (by parameter index).
    pub bool_const: Vec<Option<u8>>,
    /// Float constant holding a `bool` uniform as 1.0/0.0, if read.
    pub bool_float: Vec<Option<u8>>,
    /// The `domain()` constant, if read.
    pub domain: Option<u8>,
    /// Literal registers: index and the four channels (`None` = free).
    literals: Vec<(u8, [Option<f32>; 4])>,
    /// Integer constants.
    pub ints: Vec<IntConstBinding>,
    /// Kernel name (for diagnostics).
    kernel: String,
    /// Float constants holding one value in every channel (scalar
    /// uniforms, `bool` values).
    replicated: Vec<u8>,
}

/// How many float constants a uniform of this type takes.
pub fn uniform_size(ty: ctm_frontend::types::Type) -> u16 {
    use ctm_frontend::types::Type;
    match ty {
        Type::Mat4 => 4,
        Type::Array(a) => a.len,
        _ => 1,
    }
}

impl ConstTable {
    /// Lays out the uniforms of `params` (`docs/abi-x1k.md` §3).
    pub fn new(kernel: &str, params: &[ctm_ir::graph::Param]) -> Result<ConstTable, CodegenError> {
        use ctm_frontend::tast::ParamKind;
        use ctm_frontend::types::Type;
        let mut t = ConstTable {
            kernel: kernel.to_string(),
            uniform_base: vec![None; params.len()],
            bool_const: vec![None; params.len()],
            bool_float: vec![None; params.len()],
            ..ConstTable::default()
        };
        let mut bools = 0u8;
        for (i, p) in params.iter().enumerate() {
            match p.kind {
                ParamKind::Uniform(Type::Bool) => {
                    if bools >= 32 {
                        return Err(t.limit(Code::TooManyBoolConstants, "32 boolean constants"));
                    }
                    t.bool_const[i] = Some(bools);
                    bools += 1;
                }
                ParamKind::Uniform(ty) => {
                    let base = t.alloc(uniform_size(ty))?;
                    t.uniform_base[i] = Some(base);
                    if matches!(ty, Type::F32 | Type::I32) {
                        t.replicated.push(base);
                    }
                }
                _ => {}
            }
        }
        Ok(t)
    }

    fn limit(&self, code: Code, what: &str) -> CodegenError {
        CodegenError::Limit {
            code,
            kernel: self.kernel.clone(),
            message: format!("`{}` needs more than the x1k's {what}", self.kernel),
        }
    }

    fn alloc(&mut self, n: u16) -> Result<u8, CodegenError> {
        if self.next + n > 256 {
            return Err(self.limit(Code::TooManyConstants, "256 float constants"));
        }
        let base = self.next as u8;
        self.next += n;
        Ok(base)
    }

    /// `true` if constant `index` holds one value in all four channels.
    pub fn is_replicated(&self, index: u8) -> bool {
        self.replicated.contains(&index)
    }

    /// Float constants used so far.
    pub fn float_count(&self) -> u16 {
        self.next
    }

    /// The `domain()` constant (allocated on first use).
    pub fn domain(&mut self) -> Result<u8, CodegenError> {
        if let Some(d) = self.domain {
            return Ok(d);
        }
        let d = self.alloc(1)?;
        self.domain = Some(d);
        Ok(d)
    }

    /// The float constant of `bool` uniform `p` (allocated on first use).
    pub fn bool_value(&mut self, p: ParamId) -> Result<u8, CodegenError> {
        if let Some(c) = self.bool_float[p.index()] {
            return Ok(c);
        }
        let c = self.alloc(1)?;
        self.bool_float[p.index()] = Some(c);
        self.replicated.push(c);
        Ok(c)
    }

    /// An integer constant with the given recipe; equal recipes share one.
    pub fn int_const(
        &mut self,
        count: IntSource,
        init: IntSource,
        step: i32,
    ) -> Result<u8, CodegenError> {
        if let Some(b) = self
            .ints
            .iter()
            .find(|b| b.count == count && b.init == init && b.step == step)
        {
            return Ok(b.int_constant);
        }
        if self.ints.len() >= 32 {
            return Err(self.limit(Code::TooManyIntConstants, "32 integer constants"));
        }
        let n = self.ints.len() as u8;
        self.ints.push(IntConstBinding {
            int_constant: n,
            count,
            init,
            step,
        });
        Ok(n)
    }

    /// An operand reading the literal lanes `values` (lanes 0..width):
    /// swizzle constants and inline constants where they are exact, else
    /// a pooled constant register (deduplicated, up to four values per
    /// register).
    pub fn literal(&mut self, values: &[f32]) -> Result<Operand, CodegenError> {
        if let Some(o) = inline_operand(values) {
            return Ok(o);
        }
        // Distinct values needed (bitwise, so -0.0 and NaNs stay exact).
        let mut need: Vec<f32> = Vec::new();
        for &v in values {
            if !need.iter().any(|n| n.to_bits() == v.to_bits()) {
                need.push(v);
            }
        }
        let find = |chans: &[Option<f32>; 4], v: f32| {
            chans
                .iter()
                .position(|c| c.is_some_and(|c| c.to_bits() == v.to_bits()))
        };
        // A register holding them all, or the one with room that already
        // holds the most of them.
        let mut best: Option<(usize, usize)> = None;
        for (k, (_, chans)) in self.literals.iter().enumerate() {
            let have = need.iter().filter(|&&v| find(chans, v).is_some()).count();
            let free = chans.iter().filter(|c| c.is_none()).count();
            if have + free >= need.len() && best.is_none_or(|(_, h)| have > h) {
                best = Some((k, have));
            }
        }
        let k = match best {
            Some((k, _)) => k,
            None => {
                let index = self.alloc(1)?;
                self.literals.push((index, [None; 4]));
                self.literals.len() - 1
            }
        };
        let (index, chans) = &mut self.literals[k];
        let mut lanes = [Lane::Zero; 4];
        for (i, &v) in values.iter().enumerate() {
            let c = match find(chans, v) {
                Some(c) => c,
                None => {
                    let c = chans.iter().position(|c| c.is_none()).unwrap_or(0);
                    chans[c] = Some(v);
                    c
                }
            };
            lanes[i] = Lane::Of(c as u8);
        }
        Ok(Operand {
            src: Src::Const {
                index: *index,
                relative: false,
            },
            lanes,
            modifier: InputModifier::None,
        })
    }

    /// The literal in channel `ch` of float constant `index`, if that
    /// constant is a literal register.
    pub fn literal_value(&self, index: u8, ch: u8) -> Option<f32> {
        let (_, c) = self.literals.iter().find(|(i, _)| *i == index)?;
        c.get(ch as usize).copied().flatten()
    }

    /// The literal registers for the bindings.
    pub fn literal_bindings(&self) -> Vec<LiteralBinding> {
        self.literals
            .iter()
            .map(|(i, c)| LiteralBinding {
                float_constant: *i,
                value: c.map(|v| v.unwrap_or(0.0)),
            })
            .collect()
    }
}

/// The swizzle constant for `v`, if there is one (0, 0.5, 1).
fn swizzle_const(v: f32) -> Option<Lane> {
    match v {
        0.0 => Some(Lane::Zero),
        0.5 => Some(Lane::Half),
        1.0 => Some(Lane::One),
        _ => None,
    }
}

/// `values` as swizzle constants and at most one inline constant, with NEG
/// when every non-zero value is negative (CTM §3.3.1, §3.3.3). Only codes
/// with exponent field 1..15 are chosen (`docs/isa-x1k.md` §4).
fn inline_operand(values: &[f32]) -> Option<Operand> {
    if values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let negative = values.iter().any(|&v| v < 0.0);
    if negative && values.iter().any(|&v| v > 0.0) {
        return None;
    }
    let mut code: Option<u8> = None;
    let mut lanes = [Lane::Zero; 4];
    for (i, &v) in values.iter().enumerate() {
        let m = v.abs();
        lanes[i] = match swizzle_const(m) {
            Some(l) => l,
            None => {
                let c = inline_constant_code(m)?;
                if code.is_some_and(|k| k != c) {
                    return None;
                }
                code = Some(c);
                Lane::Of(0)
            }
        };
    }
    Some(Operand {
        src: match code {
            Some(c) => Src::Inline(c),
            None => Src::None,
        },
        lanes,
        modifier: if negative {
            InputModifier::Neg
        } else {
            InputModifier::None
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzle_and_inline_constants_need_no_constant_register() {
        let mut t = ConstTable::default();
        let o = t.literal(&[0.0, 0.5, 1.0]).unwrap();
        assert_eq!(o.src, Src::None);
        let o = t.literal(&[-2.0, -2.0]).unwrap();
        assert!(matches!(o.src, Src::Inline(_)));
        assert_eq!(o.modifier, InputModifier::Neg);
        let o = t.literal(&[3.0, 1.0, 0.0]).unwrap();
        assert!(matches!(o.src, Src::Inline(_)));
        assert_eq!(t.float_count(), 0);
    }

    #[test]
    fn literals_pack_four_to_a_register_and_deduplicate() {
        let mut t = ConstTable::default();
        let a = t.literal(&[0.3]).unwrap();
        let b = t.literal(&[0.7]).unwrap();
        let c = t.literal(&[0.3, 0.7]).unwrap();
        let d = t.literal(&[0.1, 0.2]).unwrap();
        assert_eq!(t.float_count(), 1);
        assert_eq!(a.src, c.src);
        assert_eq!(b.src, d.src);
        let e = t.literal(&[0.9]).unwrap();
        assert_ne!(e.src, a.src);
        assert_eq!(t.float_count(), 2);
        // Mixed signs that no single modifier covers go to the pool.
        assert!(matches!(
            t.literal(&[2.0, -2.0]).unwrap().src,
            Src::Const { .. }
        ));
    }
}
