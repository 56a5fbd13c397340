//! Gammas and thetas: `IF`/`ELSE`/`ENDIF` and `REP`/`LOOP` (CTM §3.5.4).
//!
//! A gamma's outputs that both branches pass through from the same entry
//! need nothing; the others get a register (a "phi") written by a move at
//! the end of each branch. A theta's loop-carried values get phis too,
//! initialised before the loop and updated by a parallel copy at the end
//! of the body (loop-invariant values are read in place). The continue
//! predicate is split into conjuncts: the `for` counter test `k + 1 < end`
//! is the hardware loop count (an integer constant with the ABI recipe,
//! `docs/abi-x1k.md` §3) and disappears; the others become one conditional
//! `BREAK` at the end of the body. Loops with no known bound count 255
//! (the front end warned: CK0067).
//!
//! [`liveness`] keeps dead loop counters (whose only use was the dropped
//! test) and dead ports of gammas and thetas out of the program.

use super::loops::{bound_source, dependencies, early_exit_ok, guard_only, has_effects};
use super::{BoolVal, Selector, Val};
use crate::abi::IntSource;
use crate::codegen::CodegenError;
use crate::codegen::mir::{LoopCount, Node, Operand, RegClass, Src, Unit, VReg};
use ctm_frontend::Code;
use ctm_frontend::value::Value as Constant;
use ctm_ir::analysis::for_loop;
use ctm_ir::fasthash::FastSet as HashSet;
use ctm_ir::graph::{Module, NodeId, Value};
use ctm_ir::op::{BinOp, Gamma, Op, Theta, UnOp};
use ctm_ir::types::Ty;

impl Selector<'_> {
    /// Selects a gamma.
    pub(super) fn gamma(&mut self, n: NodeId, g: Gamma) -> Result<(), CodegenError> {
        let m = self.m;
        let inputs = m.inputs(n);
        let entries: Vec<Val> = inputs[1..]
            .iter()
            .map(|v| self.get_live(*v))
            .collect::<Result<_, _>>()?;
        let pred = match self.get(inputs[0])? {
            Val::Bool(b) => *b,
            other => BoolVal::Value(other),
        };
        let live = &self.live.values;
        let guard = guard_only(m, n, &|v| live.contains(&v));
        let known = pred.known();
        if guard || known.is_some() {
            // A constant condition (`!false` at -O0 too), or the `start <
            // end` guard of a loop whose count already skips it (CTM
            // §3.5.3).
            let t = guard || known == Some(true);
            let r = g.branches[if t { 0 } else { 1 }];
            let results = self.inline_region(r, &entries)?;
            for (k, v) in results.into_iter().enumerate() {
                self.bind(m.output(n, k), v);
            }
            return Ok(());
        }
        let (cond, invert) = self.branch_cond(pred)?;
        // Outputs: pass-through, or a phi.
        let outs = &m.node(n).outputs;
        let mut phis: Vec<Option<(VReg, Ty)>> = Vec::new();
        for (k, &ty) in outs.iter().enumerate() {
            let arg = |b| match m.node(m.result(b, k).node).op {
                Op::Argument(j) => Some(j),
                _ => None,
            };
            let a0 = arg(g.branches[0]);
            if !self.live.values.contains(&m.output(n, k)) {
                // A dead port: no phi, no copies.
                self.bind(m.output(n, k), Val::State);
                phis.push(None);
            } else if (a0.is_some() && a0 == arg(g.branches[1])) || ty == Ty::State {
                let v = match a0 {
                    Some(j) => entries[j as usize].clone(),
                    None => Val::State,
                };
                self.bind(m.output(n, k), v);
                phis.push(None);
            } else {
                let w = ty.width().unwrap_or(1);
                let class = self.phi_class(w);
                phis.push(Some((self.mir.new_vreg(w, class), ty)));
            }
        }
        self.if_depth += 1;
        self.frames_in_loop += 1;
        self.max_if_depth = self.max_if_depth.max(self.if_depth);
        let mut branches = Vec::new();
        for &r in &g.branches {
            let body = self.nested(|s| {
                let results = s.inline_region(r, &entries)?;
                let copies: Vec<(VReg, Val)> = phis
                    .iter()
                    .zip(results)
                    .filter_map(|(p, v)| p.map(|(reg, _)| (reg, v)))
                    .collect();
                s.parallel_copy(copies, Coalesce::Yes)
            })?;
            branches.push(body);
        }
        self.if_depth -= 1;
        self.frames_in_loop -= 1;
        let else_ = branches.pop().unwrap_or_default();
        let then = branches.pop().unwrap_or_default();
        self.push_node(Node::If {
            cond,
            invert,
            then,
            else_,
        });
        for (k, p) in phis.iter().enumerate() {
            if let Some((reg, ty)) = p {
                self.bind(m.output(n, k), phi_val(*reg, *ty));
            }
        }
        Ok(())
    }

    /// Binds the arguments of region `r` to `args`, selects it and returns
    /// its results.
    fn inline_region(
        &mut self,
        r: ctm_ir::RegionId,
        args: &[Val],
    ) -> Result<Vec<Val>, CodegenError> {
        let m = self.m;
        for (i, a) in args.iter().enumerate() {
            self.bind(m.argument(r, i), a.clone());
        }
        self.region_body(r)?;
        m.results(r)
            .iter()
            .map(|v| {
                if self.live.values.contains(v) || matches!(m.node(v.node).op, Op::Argument(_)) {
                    self.get(*v)
                } else {
                    Ok(Val::State)
                }
            })
            .collect()
    }

    /// The register class of a phi of `w` lanes: scalars alternate between
    /// the alpha and RGB units (alpha first) so that their updates and
    /// initial moves can pair.
    fn phi_class(&mut self, w: u8) -> RegClass {
        match w {
            4 => RegClass::Rgba,
            1 => {
                self.scalar_phis += 1;
                if self.scalar_phis % 2 == 1 {
                    RegClass::Alpha
                } else {
                    RegClass::Rgb
                }
            }
            _ => RegClass::Rgb,
        }
    }

    /// Moves each value into its phi, as a parallel copy (a copy reading a
    /// phi another copy writes goes first; a cycle goes through a
    /// temporary).
    fn parallel_copy(
        &mut self,
        copies: Vec<(VReg, Val)>,
        coalesce: Coalesce,
    ) -> Result<(), CodegenError> {
        let mut pending: Vec<(VReg, Val)> = Vec::new();
        for (dest, v) in copies {
            let v = match v {
                Val::Bool(b) => self.bool_value(*b, false)?,
                Val::State => continue,
                v => v,
            };
            // Copying a phi onto itself is nothing.
            if let Val::View {
                src: Src::Reg(r),
                lanes,
                modifier: crate::isa::InputModifier::None,
                width,
            } = &v
                && *r == dest
                && lanes[..*width as usize]
                    .iter()
                    .enumerate()
                    .all(|(i, l)| *l == crate::codegen::mir::Lane::Of(i as u8))
            {
                continue;
            }
            pending.push((dest, v));
        }
        let reads = |v: &Val, d: VReg| matches!(v, Val::View { src: Src::Reg(r), .. } if *r == d);
        if coalesce == Coalesce::Yes {
            // The op computing a value writes its phi directly when no
            // other copy still reads the phi's old value.
            let mut i = 0;
            while i < pending.len() {
                let dest = pending[i].0;
                let src = Self::whole_register(&pending[i].1);
                let read_elsewhere = pending
                    .iter()
                    .enumerate()
                    .any(|(j, (_, v))| j != i && reads(v, dest));
                if let Some(src) = src
                    && self.mir.vreg(src).width == self.mir.vreg(dest).width
                    && !read_elsewhere
                    && self.retarget(src, dest, 0)
                {
                    pending.remove(i);
                    for (_, v) in pending.iter_mut() {
                        if let Val::View { src: s, .. } = v
                            && *s == Src::Reg(src)
                        {
                            *s = Src::Reg(dest);
                        }
                    }
                } else {
                    i += 1;
                }
            }
        }
        while !pending.is_empty() {
            let ready = (0..pending.len()).find(|&i| {
                let d = pending[i].0;
                !pending
                    .iter()
                    .enumerate()
                    .any(|(j, (_, v))| j != i && reads(v, d))
            });
            match ready {
                Some(i) => {
                    let (dest, v) = pending.remove(i);
                    self.copy_into(dest, &v)?;
                }
                None => {
                    // Break a cycle: save the first destination's value.
                    let d = pending[0].0;
                    let info = self.mir.vreg(d).clone();
                    let tmp = self.mir.new_vreg(info.width, info.class);
                    self.copy_into(tmp, &Val::reg(d, info.width))?;
                    for (_, v) in pending.iter_mut() {
                        if let Val::View { src, .. } = v
                            && *src == Src::Reg(d)
                        {
                            *src = Src::Reg(tmp);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// `dest = v` (bit-exact moves on the units `dest`'s class needs).
    fn copy_into(&mut self, dest: VReg, v: &Val) -> Result<(), CodegenError> {
        let info = self.mir.vreg(dest).clone();
        let op = self.operand(v)?;
        let w = info.width;
        match info.class {
            RegClass::Alpha => {
                self.emit(super::arith::mov(op, Unit::Alpha, (dest, 0), 1));
            }
            RegClass::Rgba => {
                self.emit(super::arith::mov(op, Unit::Both, (dest, 0), 4));
            }
            _ => {
                self.emit(super::arith::mov(op, Unit::Rgb, (dest, 0), w));
            }
        }
        Ok(())
    }

    /// Selects a theta.
    pub(super) fn theta(&mut self, n: NodeId, t: Theta) -> Result<(), CodegenError> {
        let m = self.m;
        let body = t.body;
        let inputs = m.inputs(n);
        // Inputs of dead loop values (a counter whose only use was the
        // test the loop count replaces) were never selected.
        let inits: Vec<Val> = inputs
            .iter()
            .map(|v| self.get_live(*v))
            .collect::<Result<_, _>>()?;
        let results = m.results(body);
        let mut phis: Vec<Option<(VReg, Ty)>> = Vec::new();
        let mut args: Vec<Val> = Vec::new();
        let mut init_copies = Vec::new();
        // A `LOOP` sets aL (CTM §3.5.2), so a value read relative to an
        // outer loop's aL cannot enter its body as an operand: it is
        // copied to a register before the loop (seed 926125: `c[2 + aL]`
        // of the outer loop read inside an inner `LOOP` read the inner
        // counter's element).
        let sets_al = self.arrays.loops.contains_key(&n);
        for (k, init) in inits.iter().enumerate() {
            let ty = m.ty(inputs[k]);
            let invariant = results[k + 1] == m.argument(body, k);
            let used = self.live.values.contains(&m.output(n, k));
            if sets_al && ty != Ty::State && reads_al(init) {
                let w = ty.width().unwrap_or(1);
                let class = self.phi_class(w);
                let reg = self.mir.new_vreg(w, class);
                init_copies.push((reg, init.clone()));
                args.push(phi_val(reg, ty));
                phis.push((!invariant && used).then_some((reg, ty)));
                continue;
            }
            if invariant || ty == Ty::State || !used {
                args.push(init.clone());
                phis.push(None);
                continue;
            }
            let w = ty.width().unwrap_or(1);
            let class = self.phi_class(w);
            let phi = self.mir.new_vreg(w, class);
            init_copies.push((phi, init.clone()));
            phis.push(Some((phi, ty)));
            args.push(phi_val(phi, ty));
        }
        let (kept, counter) = loop_conjuncts(m, n, &t);
        // A loop with more trips than one hardware loop counts runs as
        // nested REPs (`split_levels`); a register `cont` carries the
        // continue test out of the inner loops.
        let levels = match (&counter, t.info.max_trips) {
            (None, Some(trips)) if i64::from(trips) > MAX_REP_COUNT => split_levels(i64::from(
                trips,
            ))
            .ok_or_else(|| CodegenError::Limit {
                code: Code::X1kLoopTooLong,
                kernel: m.name.clone(),
                message: format!(
                    "a loop of `{}` runs {trips} times; the x1k counts at most {MAX_SPLIT_TRIPS} \
                         iterations of one loop (three nested 8-bit loop counters, CTM §3.5.4)",
                    m.name
                ),
            })?,
            _ => Vec::new(),
        };
        let split = !levels.is_empty();
        let cont = split.then(|| {
            let class = self.phi_class(1);
            self.mir.new_vreg(1, class)
        });
        if let Some(c) = cont {
            init_copies.push((c, Val::scalar(1.0)));
        }
        self.parallel_copy(init_copies, Coalesce::No)?;
        let count = match &counter {
            Some((start, end)) => {
                let count = match (start, end) {
                    (IntSource::Const(a), IntSource::Const(b)) => {
                        IntSource::Const((*b as i64 - *a as i64).clamp(0, 255) as i32)
                    }
                    _ => IntSource::UniformRange(Box::new(start.clone()), Box::new(end.clone())),
                };
                (count, start.clone())
            }
            None if split => (IntSource::Const(MAX_REP_COUNT as i32), IntSource::Const(0)),
            None => {
                let trips = t.info.max_trips.unwrap_or(255).min(255) as i32;
                (IntSource::Const(trips), IntSource::Const(0))
            }
        };
        // Uniform-array reads through aL: LOOP with aL's init and step
        // (`arrays`).
        let al = self.arrays.loops.get(&n).cloned();
        let is_loop = al.is_some();
        let int_const = match al {
            Some(a) => self.consts.int_const(count.0, a.init, a.step)?,
            None => self.consts.int_const(count.0, count.1, 1)?,
        };
        let extra_levels = levels.len().saturating_sub(1) as u32;
        self.loop_depth += 1 + extra_levels;
        self.max_loop_depth = self.max_loop_depth.max(self.loop_depth);
        let saved_frames = std::mem::replace(&mut self.frames_in_loop, 0);
        // Conjuncts whose break may happen as soon as they are computed.
        let effects = has_effects(m, body);
        let live = &self.live.values;
        let early: Vec<bool> = kept
            .iter()
            .map(|&c| !split && !effects && early_exit_ok(m, n, &t, c, &|v| live.contains(&v)))
            .collect();
        let body_nodes = self.nested(|s| {
            for (i, a) in args.iter().enumerate() {
                s.bind(m.argument(body, i), a.clone());
            }
            for (&c, _) in kept.iter().zip(&early).filter(|(_, e)| **e) {
                s.select_nodes(&dependencies(m, body, c))?;
                let b = match s.get(c)? {
                    Val::Bool(b) => *b,
                    other => BoolVal::Value(other),
                };
                let (cond, inv) = s.branch_cond(b)?;
                s.push_node(Node::Break { cond, invert: !inv });
                // Processors still looping have `c` true from here on.
                s.bind(c, Val::Bool(Box::new(BoolVal::Lit(true))));
                if let Op::Unary(UnOp::BNot) = m.node(c.node).op {
                    s.bind(
                        m.inputs(c.node)[0],
                        Val::Bool(Box::new(BoolVal::Lit(false))),
                    );
                }
            }
            s.region_body(body)?;
            // The continue test (before the copies overwrite the phis).
            let mut test: Option<BoolVal> = None;
            for (c, _) in kept.iter().zip(&early).filter(|(_, e)| !**e) {
                let b = match s.get(*c)? {
                    Val::Bool(b) => *b,
                    other => BoolVal::Value(other),
                };
                test = Some(match test {
                    None => b,
                    Some(t) => BoolVal::And(Box::new(t), Box::new(b)),
                });
            }
            let mut copies = Vec::new();
            let brk = match (test, cont) {
                (Some(b), Some(c)) => {
                    // Split loop: `cont` keeps the test for the outer
                    // loops; the break tests it after the copies.
                    let v = s.bool_value(b, false)?;
                    copies.push((c, v));
                    None
                }
                (None, Some(_)) => {
                    return Err(CodegenError::internal(
                        "split-loop",
                        "a loop over 255 trips without a continue test".to_string(),
                    ));
                }
                (Some(b), None) => Some(s.branch_cond(b)?),
                (None, None) => None,
            };
            for (k, p) in phis.iter().enumerate() {
                if let Some((reg, _)) = p {
                    copies.push((*reg, s.get(results[k + 1])?));
                }
            }
            s.parallel_copy(copies, Coalesce::Yes)?;
            let brk = match cont {
                Some(c) => Some(s.branch_cond(BoolVal::Value(Val::reg(c, 1)))?),
                None => brk,
            };
            if let Some((cond, inv)) = brk {
                s.push_node(Node::Break { cond, invert: !inv });
            }
            Ok(())
        })?;
        self.frames_in_loop = saved_frames;
        self.loop_depth -= 1 + extra_levels;
        let mut node = Node::Loop {
            count: if is_loop {
                LoopCount::Loop(int_const)
            } else {
                LoopCount::Rep(int_const)
            },
            body: body_nodes,
        };
        // Outer levels of a split loop: run the inner one, stop once its
        // continue test failed.
        if let Some(c) = cont {
            for &trips in &levels[1..] {
                let ic = self
                    .consts
                    .int_const(IntSource::Const(trips), IntSource::Const(0), 1)?;
                let body = self.nested(|s| {
                    s.push_node(node);
                    let (cond, inv) = s.branch_cond(BoolVal::Value(Val::reg(c, 1)))?;
                    s.push_node(Node::Break { cond, invert: !inv });
                    Ok(())
                })?;
                node = Node::Loop {
                    count: LoopCount::Rep(ic),
                    body,
                };
            }
        }
        self.push_node(node);
        for (k, p) in phis.iter().enumerate() {
            let v = match p {
                Some((reg, ty)) => phi_val(*reg, *ty),
                None => args[k].clone(),
            };
            self.bind(m.output(n, k), v);
        }
        Ok(())
    }
}

/// Whether a parallel copy may make the ops computing its values write
/// the destinations directly (not before a loop: the initial values may
/// be read again after it).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Coalesce {
    Yes,
    No,
}

/// The most iterations one `REP`/`LOOP` counts: the integer constant's
/// count is 8 bits (CTM §3.5.4; `x1k-encoding.md` §6, `docs/abi-x1k.md` §3).
pub(super) const MAX_REP_COUNT: i64 = 255;

/// The most iterations of one loop: three nested `REP`s. The counter is
/// an f32 (exact below 2^24 = 16,777,216), and 255^3 = 16,581,375 stays
/// below that.
pub const MAX_SPLIT_TRIPS: i64 = MAX_REP_COUNT * MAX_REP_COUNT * MAX_REP_COUNT;

/// The counts of the nested `REP`s running `trips` iterations, innermost
/// first: every inner level counts 255, the outermost enough to reach
/// `trips`; `None` past [`MAX_SPLIT_TRIPS`].
fn split_levels(trips: i64) -> Option<Vec<i32>> {
    if trips > MAX_SPLIT_TRIPS {
        return None;
    }
    let mut levels = vec![MAX_REP_COUNT as i32];
    let mut covered = MAX_REP_COUNT;
    while covered < trips {
        let outer = (trips + covered - 1) / covered;
        if outer <= MAX_REP_COUNT {
            levels.push(outer as i32);
            covered *= outer;
        } else {
            levels.push(MAX_REP_COUNT as i32);
            covered *= MAX_REP_COUNT;
        }
    }
    Some(levels)
}

/// The value a phi holds.
/// Whether `v` reads a constant relative to aL (an aL-relative
/// uniform-array read, `arrays`), directly or inside a boolean.
fn reads_al(v: &Val) -> bool {
    fn in_bool(b: &BoolVal) -> bool {
        match b {
            BoolVal::Lit(_) | BoolVal::Uniform(_) => false,
            BoolVal::Cmp(_, x, y) => reads_al(x) || reads_al(y),
            BoolVal::Value(x) => reads_al(x),
            BoolVal::Not(x) => in_bool(x),
            BoolVal::And(x, y) | BoolVal::Or(x, y) => in_bool(x) || in_bool(y),
        }
    }
    match v {
        Val::View {
            src: Src::Const { relative, .. },
            ..
        } => *relative,
        Val::Bool(b) => in_bool(b),
        _ => false,
    }
}

fn phi_val(reg: VReg, ty: Ty) -> Val {
    match ty {
        Ty::Bool => Val::Bool(Box::new(BoolVal::Value(Val::reg(reg, 1)))),
        _ => Val::reg(reg, ty.width().unwrap_or(1)),
    }
}

/// The continue predicate's conjuncts other than the `for` counter test,
/// and the counter's (start, end) when that test was recognised.
pub(super) fn loop_conjuncts(
    m: &Module,
    theta: NodeId,
    t: &Theta,
) -> (Vec<Value>, Option<(IntSource, IntSource)>) {
    let body = t.body;
    let all = for_loop::conjuncts(m, m.result(body, 0));
    let inputs = m.inputs(theta);
    let mut counter = None;
    let mut kept = Vec::new();
    for c in all {
        match for_loop::counter_test(m, t, c) {
            Some(end_arg) if counter.is_none() => {
                let start = t
                    .info
                    .counter
                    .and_then(|k| bound_source(m, inputs[k as usize]));
                let end = bound_source(m, end_arg);
                match (start, end) {
                    // More trips than one loop counts (CTM §3.5.4: an 8-bit
                    // count): the test stays and the loop is split
                    // (`Selector::theta`).
                    (Some(IntSource::Const(s)), Some(IntSource::Const(e)))
                        if i64::from(e) - i64::from(s) > MAX_REP_COUNT =>
                    {
                        kept.push(c)
                    }
                    (Some(s), Some(e)) => counter = Some((s, e)),
                    _ => kept.push(c),
                }
            }
            _ => kept.push(c),
        }
    }
    (kept, counter)
}

/// The nodes whose values the program needs: root results, scatters, and
/// what they depend on, through gammas (per output) and thetas (per loop
/// value, with the counter test that the loop count replaces left out).
pub fn liveness(m: &Module, arrays: &super::arrays::ArrayPlan) -> Liveness {
    let mut needed: HashSet<NodeId> = HashSet::default();
    let mut values: HashSet<Value> = HashSet::default();
    let mut work: Vec<Value> = m.results(m.root);
    for r in m.region_ids() {
        for n in m.nodes(r) {
            if matches!(m.node(n).op, Op::Scatter(_)) {
                work.push(m.output(n, 0));
            }
        }
    }
    while let Some(v) = work.pop() {
        if !values.insert(v) {
            continue;
        }
        let n = v.node;
        let first = needed.insert(n);
        match &m.node(n).op {
            Op::Argument(i) => {
                let region = m.region(n.region);
                let Some(owner) = region.owner else { continue };
                let ins = m.inputs(owner);
                match m.node(owner).op {
                    Op::Gamma(_) => work.push(ins[*i as usize + 1]),
                    Op::Theta(_) => {
                        work.push(ins[*i as usize]);
                        work.push(m.result(n.region, *i as usize + 1));
                        work.push(m.output(owner, *i as usize));
                    }
                    _ => {}
                }
            }
            Op::Gamma(g) => {
                if first {
                    work.push(m.inputs(n)[0]);
                }
                for b in g.branches {
                    work.push(m.result(b, v.port as usize));
                }
            }
            Op::Theta(t) => {
                work.push(m.inputs(n)[v.port as usize]);
                work.push(m.result(t.body, v.port as usize + 1));
                if first {
                    let (kept, _) = loop_conjuncts(m, n, t);
                    work.extend(kept);
                    // The body's effects.
                    for b in m.nodes(t.body) {
                        if matches!(m.node(b).op, Op::Scatter(_)) {
                            work.push(m.output(b, 0));
                        }
                    }
                }
            }
            // An array read through aL: the index value is not needed.
            Op::UniformElement(_) if arrays.is_relative(n) => {}
            _ => work.extend(m.inputs(n)),
        }
    }
    Liveness {
        nodes: needed,
        values,
    }
}

/// What the program needs: nodes (some output is needed) and values
/// (per output port: a gamma or theta may have dead ports).
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    /// Nodes with a needed output.
    pub nodes: HashSet<NodeId>,
    /// Needed values.
    pub values: HashSet<Value>,
}

/// `true` if `v` is integer-valued on every run (so a coordinate needs no
/// rounding).
pub fn integral(m: &Module, v: Value) -> bool {
    fn go(m: &Module, v: Value, depth: u32) -> bool {
        if depth > 16 {
            return false;
        }
        if m.ty(v) == Ty::I32 {
            return true;
        }
        let ins = m.inputs(v.node);
        let all = |d| ins.iter().all(|&i| go(m, i, d));
        match &m.node(v.node).op {
            Op::Index => true,
            Op::Const(Constant::Float { lanes, .. }) => lanes.iter().all(|x| x.fract() == 0.0),
            Op::Unary(UnOp::FFloor | UnOp::FCeil | UnOp::FTrunc | UnOp::FRound | UnOp::I2F) => true,
            Op::Unary(UnOp::FNeg | UnOp::FAbs) => all(depth + 1),
            Op::Binary(BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FMin | BinOp::FMax) => {
                all(depth + 1)
            }
            Op::Mad | Op::Splat(_) | Op::Swizzle(_) | Op::Construct => all(depth + 1),
            _ => false,
        }
    }
    go(m, v, 0)
}

#[allow(dead_code)]
fn unused(_: Operand) {}
