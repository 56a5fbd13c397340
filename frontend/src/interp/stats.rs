//! Operation counting for [`RefStats`]: one counter per operation kind in a
//! fixed array, bumped by the walker on its own thread and merged at the
//! end, so that counting costs one add per operation and never contends.
//!
//! The kinds and their names are stable: tools and tests key on them.

use super::RefStats;
use crate::ast::{BinaryOp, UnaryOp};
use crate::builtins::{BUILTINS, Builtin};

/// The operation kinds that are not built-ins. Built-ins follow them in the
/// counter array, in the order of [`BUILTINS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum OpKind {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogicAnd,
    LogicOr,
    Neg,
    Not,
    Cast,
    Swizzle,
    Construct,
    Splat,
    MatVec,
    VecMat,
    Input,
    Gather,
    Uniform,
    Output,
    Scatter,
    Call,
}

/// Names of [`OpKind`]s, indexed by the kind.
const FIXED_NAMES: [&str; FIXED_KINDS] = [
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "shl",
    "shr",
    "and",
    "or",
    "xor",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logic_and",
    "logic_or",
    "neg",
    "not",
    "cast",
    "swizzle",
    "construct",
    "splat",
    "mat_vec",
    "vec_mat",
    "input",
    "gather",
    "uniform",
    "output",
    "scatter",
    "call",
];

/// Number of [`OpKind`]s.
const FIXED_KINDS: usize = OpKind::Call as usize + 1;

/// Number of counters: the fixed kinds, then one per built-in.
const KINDS: usize = FIXED_KINDS + BUILTINS.len();

impl OpKind {
    /// The kind of a binary operator.
    pub(crate) fn binary(op: BinaryOp) -> OpKind {
        match op {
            BinaryOp::Add => OpKind::Add,
            BinaryOp::Sub => OpKind::Sub,
            BinaryOp::Mul => OpKind::Mul,
            BinaryOp::Div => OpKind::Div,
            BinaryOp::Rem => OpKind::Rem,
            BinaryOp::Shl => OpKind::Shl,
            BinaryOp::Shr => OpKind::Shr,
            BinaryOp::BitAnd => OpKind::And,
            BinaryOp::BitOr => OpKind::Or,
            BinaryOp::BitXor => OpKind::Xor,
            BinaryOp::Eq => OpKind::Eq,
            BinaryOp::Ne => OpKind::Ne,
            BinaryOp::Lt => OpKind::Lt,
            BinaryOp::Le => OpKind::Le,
            BinaryOp::Gt => OpKind::Gt,
            BinaryOp::Ge => OpKind::Ge,
            BinaryOp::And => OpKind::LogicAnd,
            BinaryOp::Or => OpKind::LogicOr,
        }
    }

    /// The kind of a unary operator.
    pub(crate) fn unary(op: UnaryOp) -> OpKind {
        match op {
            UnaryOp::Neg => OpKind::Neg,
            UnaryOp::Not => OpKind::Not,
        }
    }
}

/// Per-thread operation counters.
#[derive(Clone, Debug)]
pub(crate) struct Counts {
    by_kind: [u64; KINDS],
}

impl Default for Counts {
    fn default() -> Counts {
        Counts {
            by_kind: [0; KINDS],
        }
    }
}

impl Counts {
    /// Counts one operation of `kind`.
    #[inline]
    pub(crate) fn bump(&mut self, kind: OpKind) {
        self.by_kind[kind as usize] += 1;
    }

    /// Counts one evaluation of built-in `func`.
    #[inline]
    pub(crate) fn bump_builtin(&mut self, func: Builtin) {
        // `Builtin as usize` is its row in `BUILTINS` (checked by the
        // built-in table's own test), so the index is below `KINDS`.
        if let Some(c) = self.by_kind.get_mut(FIXED_KINDS + func as usize) {
            *c += 1;
        }
    }

    /// Adds `other`'s counts to these.
    pub(crate) fn merge(&mut self, other: &Counts) {
        for (a, b) in self.by_kind.iter_mut().zip(&other.by_kind) {
            *a += b;
        }
    }

    /// Adds the counts to `stats`: the total and every kind seen at least
    /// once.
    pub(crate) fn add_to(&self, stats: &mut RefStats) {
        for (k, &n) in self.by_kind.iter().enumerate() {
            if n == 0 {
                continue;
            }
            stats.operations += n;
            *stats.by_kind.entry(kind_name(k)).or_insert(0) += n;
        }
    }
}

/// The name of counter `k`.
fn kind_name(k: usize) -> &'static str {
    match FIXED_NAMES.get(k) {
        Some(name) => name,
        None => BUILTINS.get(k - FIXED_KINDS).map_or("?", |b| b.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_cover_every_kind() {
        let names: Vec<&str> = (0..KINDS).map(kind_name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), KINDS, "duplicate kind names: {names:?}");
        assert_eq!(kind_name(OpKind::LogicAnd as usize), "logic_and");
        assert_eq!(kind_name(OpKind::Call as usize), "call");
        assert_eq!(kind_name(FIXED_KINDS + Builtin::Sin as usize), "sin");
        assert_eq!(kind_name(FIXED_KINDS + Builtin::Domain as usize), "domain");
    }

    #[test]
    fn counts_merge_and_report_only_seen_kinds() {
        let mut a = Counts::default();
        a.bump(OpKind::binary(BinaryOp::BitAnd));
        a.bump_builtin(Builtin::Dot);
        let mut b = Counts::default();
        b.bump(OpKind::unary(UnaryOp::Neg));
        b.bump(OpKind::And);
        a.merge(&b);
        let mut stats = RefStats::default();
        a.add_to(&mut stats);
        assert_eq!(stats.operations, 4);
        assert_eq!(stats.by_kind.len(), 3);
        assert_eq!(stats.by_kind["and"], 2);
        assert_eq!(stats.by_kind["dot"], 1);
        assert_eq!(stats.by_kind["neg"], 1);
    }
}
