//! Loops, every one bounded: `for` over constant, `const`-item or `i32`
//! uniform bounds (uniform bounds lie in `[0, LOOP_BOUND_MAX]` by the
//! argument contract), and `while`/`loop` guarded by a counter that is
//! incremented first thing in the body, so that `continue` cannot skip
//! it. The trips of nested loops multiply up to
//! [`GenOptions::max_total_trips`](super::GenOptions::max_total_trips).

use super::build;
use super::ctx::{Gen, LoopFrame, Role};
use super::range::{LOOP_BOUND_MAX, Range};
use ctm_frontend::ast::{BinaryOp, Expr, Stmt};
use ctm_frontend::types::Type;

impl Gen<'_> {
    /// The most iterations a new loop may have here.
    fn trip_room(&self) -> u64 {
        let room = u64::from(self.o.max_total_trips) / self.total_trips().max(1);
        room.min(u64::from(self.o.max_loop_trips))
    }

    /// Runs `body` as the body of a loop of at most `trips` iterations.
    fn loop_body(&mut self, trips: u64, first: Vec<Stmt>) -> Vec<Stmt> {
        self.loops.push(LoopFrame { trips });
        self.loop_nesting_seen = self.loop_nesting_seen.max(self.loops.len() as u32);
        self.trips_seen = self.trips_seen.max(self.total_trips());
        self.enter();
        self.push_scope();
        let mut body = first;
        let max = self.budget.clamp(1, 4);
        body.extend(self.stmts(max));
        if self.rng.percent(70) {
            body.extend(self.sink());
        }
        self.pop_scope();
        self.leave();
        self.loops.pop();
        body
    }

    /// `for k in a..b { .. }`.
    pub fn for_stmt(&mut self) -> Option<Vec<Stmt>> {
        let room = self.trip_room();
        if room < 1 {
            return None;
        }
        let uniforms: Vec<String> = self
            .env
            .iter()
            .flat_map(|e| e.uniforms.iter())
            .filter(|u| u.ty == Type::I32)
            .map(|u| u.name.clone())
            .collect();
        let consts: Vec<(String, i64)> = self
            .consts
            .iter()
            .filter_map(|c| c.int_value.map(|v| (c.name.clone(), v)))
            .filter(|(_, v)| v.abs() <= 1000)
            .collect();
        let lo_uniform: i64 = if self.robust { 0 } else { -2 };
        let hi_uniform = i64::from(LOOP_BOUND_MAX);
        let room_i = room as i64;
        let weights = [
            5,                                       // literals
            if uniforms.is_empty() { 0 } else { 3 }, // 0..u
            if uniforms.is_empty() { 0 } else { 1 }, // u..c
            if consts.is_empty() { 0 } else { 2 },   // a..K (+ c)
        ];
        let (start, end, lo, hi) = match self.rng.weighted(&weights)? {
            1 => {
                let u = self.rng.pick(&uniforms)?.clone();
                let s = (hi_uniform - room_i).max(0);
                (build::int(s), build::name(&u), s, hi_uniform - 1)
            }
            2 => {
                let u = self.rng.pick(&uniforms)?.clone();
                let e = lo_uniform + self.rng.range_i64(1, room_i);
                (build::name(&u), build::int(e), lo_uniform, e - 1)
            }
            3 => {
                let (k, v) = self.rng.pick(&consts)?.clone();
                let t = self.rng.range_i64(1, room_i);
                if self.rng.percent(50) {
                    (build::int(v - t), build::name(&k), v - t, v - 1)
                } else {
                    let c = self.rng.range_i64(0, 3);
                    let end = build::binary(BinaryOp::Add, build::name(&k), build::int(c));
                    (build::int(v + c - t), end, v + c - t, v + c - 1)
                }
            }
            _ => {
                let s = *self.rng.pick(&[0i64, 0, 0, 1, 2, -2, 3])?;
                let t = if self.rng.percent(3) {
                    0
                } else {
                    self.rng.range_i64(1, room_i)
                };
                (build::int(s), build::int(s + t), s, (s + t - 1).max(s))
            }
        };
        let trips = (hi - lo + 1).max(0) as u64;
        let name = self.fresh("k");
        self.push_scope();
        let var = self.simple_var(
            name.clone(),
            Type::I32,
            false,
            Role::ForCounter,
            Range::new(lo as f64, hi as f64),
        );
        let trips = trips.min(room);
        self.declare(var);
        let body = self.loop_body(trips, Vec::new());
        self.pop_scope();
        Some(vec![build::for_(
            &name,
            start,
            end,
            build::block(body, None),
        )])
    }

    /// A counter `let mut w = 0;` for a loop of at most `trips` iterations
    /// and its increment `w += 1;`.
    fn counter(&mut self, trips: u64) -> (String, Stmt, Stmt) {
        let name = self.fresh("w");
        let var = self.simple_var(
            name.clone(),
            Type::I32,
            false,
            Role::Counter,
            Range::new(0.0, trips as f64 + 1.0),
        );
        self.declare(var);
        let decl = build::let_(true, &name, None, build::int(0));
        let inc = build::assign(build::name(&name), Some(BinaryOp::Add), build::int(1));
        (name, decl, inc)
    }

    /// `let mut w = 0; while w < N && c { w += 1; .. }`.
    pub fn while_stmt(&mut self) -> Option<Vec<Stmt>> {
        let room = self.trip_room();
        if room < 1 || self.budget < 3 {
            return None;
        }
        self.budget -= 2;
        let trips = self.rng.range_i64(1, room as i64) as u64;
        let (name, decl, inc) = self.counter(trips);
        let bound = build::binary(BinaryOp::Lt, build::name(&name), build::int(trips as i64));
        let cond: Expr = match self.rng.below(3) {
            0 => bound,
            1 => build::binary(BinaryOp::And, bound, self.sub_condition().e),
            _ => build::binary(BinaryOp::And, self.sub_condition().e, bound),
        };
        let body = self.loop_body(trips, vec![inc]);
        Some(vec![decl, build::while_(cond, build::block(body, None))])
    }

    /// `let mut w = 0; loop { w += 1; if w > N { break; } .. }`.
    pub fn loop_stmt(&mut self) -> Option<Vec<Stmt>> {
        let room = self.trip_room();
        if room < 1 || self.budget < 5 {
            return None;
        }
        self.budget -= 4;
        let trips = self.rng.range_i64(1, room as i64) as u64;
        let (name, decl, inc) = self.counter(trips);
        let over = build::binary(BinaryOp::Gt, build::name(&name), build::int(trips as i64));
        // The condition is generated inside the loop (for the nesting and
        // scope of its names), but before the body's statements.
        self.loops.push(LoopFrame { trips });
        self.enter();
        let cond = if self.rng.percent(50) {
            build::binary(BinaryOp::Or, over, self.sub_condition().e)
        } else {
            over
        };
        self.leave();
        self.loops.pop();
        let exit = build::expr_stmt(build::if_expr(
            cond,
            build::block(vec![build::break_()], None),
            None,
        ));
        let body = self.loop_body(trips, vec![inc, exit]);
        Some(vec![decl, build::loop_(build::block(body, None))])
    }
}
