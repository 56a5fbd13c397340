//! Local value numbering on the MIR, between selection and scheduling: an
//! ALU op that computes what an earlier op of the same block already
//! computed (the same operation on the same operand views) is removed, and
//! its readers read the earlier result.
//!
//! Selection makes some equal values visible that the IR does not: `abs`
//! and `neg` are input modifiers (CTM §3.3.3), so `abs(-x)` and `abs(x)`
//! select the same operand, and a product's operand signs can be pulled
//! out: `(−a)·b + 0` is `−(a·b + 0)`, a read of the earlier product with
//! the NEG modifier (rounding is symmetric in sign). Black-Scholes'
//! `cnd(d)` and `cnd(−d)` share their polynomial and exponential this way.
//!
//! Only plain ops take part (no fetch, output, predicate or ALU-result
//! write), each the only writer of its whole destination register; the
//! earlier op's operands must not be redefined in between. A negated
//! reuse is made only where every reader can take an input modifier (an
//! ALU operand; not a presubtract source or texture coordinate). Signed
//! zero may then differ from the op it replaces (`docs/backend-x1k.md`
//! §3: "the sign of zero may differ").

use std::collections::HashMap;

use smallvec::SmallVec;

use super::mir::{AluKind, Lane, Mir, MirOp, OpId, Operand, Special, Src, VReg};
use crate::isa::InputModifier;

/// Runs value numbering over every block of `mir`.
pub fn run(mir: &mut Mir) {
    let mut defs = vec![0u32; mir.vregs.len()];
    for op in &mir.ops {
        if let Some((v, _)) = op.dest {
            defs[v.0 as usize] += 1;
        }
    }
    // repl[v] = (w, negated): reads of v read w (negated).
    let mut repl: Vec<Option<(VReg, bool)>> = vec![None; mir.vregs.len()];
    let mut changed = false;
    let mut state = Numbering {
        defs: &defs,
        negatable: negatable_reads(mir),
        version: vec![0; mir.vregs.len()],
    };
    mir.each_block(|mir, ops| block(mir, ops, &mut state, &mut repl, &mut changed));
    if changed {
        for op in &mut mir.ops {
            rename(op, &repl);
        }
    }
}

/// The canonical form of an op for comparison: its operands with the
/// signs of a product's factors pulled out, and the sign pulled out.
fn canonical(op: &MirOp) -> (MirOp, bool) {
    let mut c = op.clone();
    let mut neg = false;
    if c.alu == Some(AluKind::Mad) && c.presub.is_none() && c.args.len() == 3 && zero(&c.args[2]) {
        for a in c.args.iter_mut().take(2) {
            let (m, flipped) = strip(a.modifier);
            a.modifier = m;
            neg ^= flipped;
        }
        c.args[2].modifier = InputModifier::None;
    }
    (c, neg)
}

/// Whether every lane of `o` the op could read is the constant 0.
fn zero(o: &Operand) -> bool {
    o.src == Src::None && o.lanes.iter().all(|l| *l == Lane::Zero)
}

/// A modifier without its negation, and whether it had one.
fn strip(m: InputModifier) -> (InputModifier, bool) {
    match m {
        InputModifier::None => (InputModifier::None, false),
        InputModifier::Neg => (InputModifier::None, true),
        InputModifier::Abs => (InputModifier::Abs, false),
        InputModifier::NegAbs => (InputModifier::Abs, true),
    }
}

/// `m` applied to a negated value.
fn flip(m: InputModifier) -> InputModifier {
    match m {
        InputModifier::None => InputModifier::Neg,
        InputModifier::Neg => InputModifier::None,
        // |−x| = |x|.
        a => a,
    }
}

/// Applies the replacements to the operands of `op`.
pub(super) fn rename(op: &mut MirOp, repl: &[Option<(VReg, bool)>]) {
    let fix = |o: &mut Operand| {
        if let Src::Reg(v) = o.src
            && let Some((w, neg)) = repl[v.0 as usize]
        {
            o.src = Src::Reg(w);
            if neg {
                o.modifier = flip(o.modifier);
            }
        }
    };
    for a in op.args.iter_mut() {
        fix(a);
    }
    if let Some((_, a, b)) = &mut op.presub {
        fix(a);
        fix(b);
    }
}

/// Whether `op` may be numbered: a plain ALU op, the only writer of all
/// of its destination.
fn candidate(mir: &Mir, op: &MirOp, defs: &[u32]) -> Option<VReg> {
    let (v, lane) = op.dest?;
    let info = mir.vreg(v);
    let ok = op.alu.is_some()
        && op.tex.is_none()
        && op.special == Special::None
        && lane == 0
        && op.width == info.width
        && info.fixed.is_none()
        && defs[v.0 as usize] == 1;
    ok.then_some(v)
}

/// For every register, whether every reader takes it as an ALU operand
/// (which has an input modifier): not a presubtract source, not a texture
/// coordinate. Computed once; renaming never adds readers to a register
/// before its own definition is visited.
pub(super) fn negatable_reads(mir: &Mir) -> Vec<bool> {
    let mut ok = vec![true; mir.vregs.len()];
    for op in &mir.ops {
        if let Some((_, a, b)) = &op.presub {
            for v in [a.vreg(), b.vreg()].into_iter().flatten() {
                ok[v.0 as usize] = false;
            }
        }
        if op.alu.is_none() {
            for v in op.args.iter().filter_map(Operand::vreg) {
                ok[v.0 as usize] = false;
            }
        }
    }
    ok
}

/// An earlier op of the block: its canonical form and sign, its register,
/// and the versions (definitions seen) of that register and of every
/// register it reads when it was recorded. It stands for its value while
/// none of them has been redefined.
struct Entry {
    canonical: MirOp,
    neg: bool,
    reg: VReg,
    version: u32,
    reads: SmallVec<[(VReg, u32); 4]>,
}

impl Entry {
    fn valid(&self, version: &[u32]) -> bool {
        version[self.reg.0 as usize] == self.version
            && self.reads.iter().all(|&(r, n)| version[r.0 as usize] == n)
    }
}

/// The hashed part of a canonical form; [`block`] compares the rest.
type Key = (Option<AluKind>, u8, SmallVec<[Operand; 3]>);

/// The per-run state of the numbering.
struct Numbering<'a> {
    defs: &'a [u32],
    negatable: Vec<bool>,
    /// Definitions of each register seen so far.
    version: Vec<u32>,
}

fn block(
    mir: &mut Mir,
    ops: &mut Vec<OpId>,
    state: &mut Numbering<'_>,
    repl: &mut [Option<(VReg, bool)>],
    changed: &mut bool,
) {
    // Earlier ops of this block, by operation and operands (a hash table,
    // so a block of n ops costs about n lookups: issue 13).
    let mut seen: HashMap<Key, Vec<Entry>> = HashMap::new();
    let mut keep = Vec::with_capacity(ops.len());
    for &id in ops.iter() {
        rename(mir.op_mut(id), repl);
        let op = mir.op(id);
        // The canonical form and key of a numbered op, made once: looked
        // up here, recorded below if the op stays.
        let numbered = candidate(mir, op, state.defs).map(|v| {
            let (c, neg) = canonical(op);
            let key: Key = (c.alu, c.width, c.args.clone());
            (v, c, neg, key)
        });
        if let Some((v, c, neg, key)) = &numbered {
            let same = seen.get(key).and_then(|entries| {
                entries.iter().find(|e| {
                    e.valid(&state.version)
                        && mir.vreg(e.reg).class == mir.vreg(*v).class
                        && e.canonical.unit == c.unit
                        && e.canonical.presub == c.presub
                        && e.canonical.omod_off == c.omod_off
                        && e.canonical.clamp == c.clamp
                })
            });
            if let Some(e) = same {
                let negated = e.neg != *neg;
                if !negated || state.negatable[v.0 as usize] {
                    repl[v.0 as usize] = Some((e.reg, negated));
                    *changed = true;
                    continue;
                }
            }
        }
        // The versions it reads, before its own definition counts.
        let reads: SmallVec<[(VReg, u32); 4]> = match numbered {
            Some(_) => op
                .reads()
                .map(|r| (r, state.version[r.0 as usize]))
                .collect(),
            None => SmallVec::new(),
        };
        // A definition makes the entries of its register, and those
        // reading it, stale (their versions no longer match).
        if let Some((d, _)) = op.dest {
            state.version[d.0 as usize] += 1;
        }
        if let Some((v, canonical, neg, key)) = numbered {
            let bucket = seen.entry(key).or_default();
            bucket.retain(|e| e.valid(&state.version));
            bucket.push(Entry {
                neg,
                reg: v,
                version: state.version[v.0 as usize],
                reads,
                canonical,
            });
        }
        keep.push(id);
    }
    *ops = keep;
}
