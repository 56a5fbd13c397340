//! ALU clauses and instruction groups: kcache locking, operand fetch (GPR,
//! kcache, constant file, literals, PV/PS, relative addressing with AR and
//! aL), input modifiers, the predicate and PRED_SEL, output modifiers and
//! CLAMP, GPR/PV/PS writes with the Trans unit winning collisions, and the
//! deferred execute-mask update (manual §4.3-4.11, digest §5.5). Groups
//! the validator rejects fault with its rule.

use ctm_backend_r700::isa::{CfAlu, IndexMode, KcacheMode, Omod, PredSel};

use super::WAVE;
use super::alu::{self, Lanes, float_result, float_src, is_reduction};
use super::double;
use super::fault::{FaultKind, FaultLoc};
use super::prepare::{PGroup, PSlot, PSrc, Prepared};
use super::wavefront::{Event, Wave};

/// Out-of-range constant reads (L1348-1350).
const CONST_OUT_OF_RANGE: u32 = 0x7FFF_FFFF;

/// One kcache set's locked window: bank, first constant, constants locked.
#[derive(Clone, Copy, Debug, Default)]
struct KcWindow {
    bank: usize,
    first: i64,
    len: i64,
}

/// Run the ALU clause `a` (started by CF instruction `pc`) on `w`.
pub fn run_clause(
    w: &mut Wave<'_>,
    p: &Prepared,
    pc: u32,
    a: &CfAlu,
) -> Result<(), super::cf::Stop> {
    let addr = a.addr.get();
    let Some(clause) = p.alu.get(&addr) else {
        return Err(FaultKind::MissingClause { addr }.into());
    };
    w.out.counters.alu_clauses += 1;
    let mut kc = [KcWindow::default(); 2];
    for (k, set) in a.kcache.iter().enumerate() {
        let lines = match set.mode {
            KcacheMode::Nop => 0,
            KcacheMode::Lock1 => 1,
            KcacheMode::Lock2 | KcacheMode::LockLoopIndex => 2,
        };
        let mut line = i64::from(set.line);
        if set.mode == KcacheMode::LockLoopIndex {
            line += i64::from(w.lp.al) / 16;
        }
        kc[k] = KcWindow {
            bank: set.bank.get() as usize,
            first: line * 16,
            len: lines * 16,
        };
    }
    let mut mask = w.active;
    if a.whole_quad_mode {
        mask = Wave::quads(mask) & w.lanes;
    }
    // The predicate starts as the active mask (L2014); the execute mask
    // changes become visible after the clause (L2002).
    w.pred = mask;
    let mut new_active = w.active;
    let mut ctx = Ctx {
        kc,
        mask,
        new_active: &mut new_active,
    };
    // The wavefront's scratch buffers (allocated once per wavefront).
    let mut scratch = w.scratch.take().unwrap_or_else(Scratch::new);
    let result = run_groups(w, clause, pc, addr, &mut ctx, &mut scratch);
    w.scratch = Some(scratch);
    let groups = result?;
    if let Some(Event::Alu { groups: g }) = w.out.events.last_mut() {
        *g = groups;
    }
    w.active = new_active & w.lanes;
    Ok(())
}

fn run_groups(
    w: &mut Wave<'_>,
    clause: &super::prepare::PClause,
    pc: u32,
    addr: u32,
    ctx: &mut Ctx<'_>,
    scratch: &mut Scratch,
) -> Result<u32, super::cf::Stop> {
    let mask = ctx.mask;
    let mut groups = 0u32;
    for (gi, g) in clause.groups.iter().enumerate() {
        if let Some((rule, detail, slot)) = &g.illegal {
            let loc = FaultLoc::Alu {
                cf: pc,
                clause: addr,
                group: gi as u32,
                slot: *slot,
            };
            return Err(w
                .fault(
                    loc,
                    FaultKind::IllegalGroup {
                        rule: *rule,
                        detail: detail.clone(),
                    },
                )
                .into());
        }
        exec_group(w, g, ctx, scratch).map_err(|(slot, kind)| {
            w.fault(
                FaultLoc::Alu {
                    cf: pc,
                    clause: addr,
                    group: gi as u32,
                    slot,
                },
                kind,
            )
        })?;
        groups += 1;
        let n = g.slots.len();
        let c = &mut w.out.counters;
        c.alu_groups += 1;
        c.alu_slots += n as u64;
        if (1..=5).contains(&n) {
            c.vliw[n - 1] += 1;
        }
        c.lane_ops += n as u64 * u64::from(mask.count_ones());
    }
    Ok(groups)
}

struct Ctx<'a> {
    kc: [KcWindow; 2],
    mask: u64,
    new_active: &'a mut u64,
}

type GroupError = (Option<u32>, FaultKind);

fn index_of(w: &Wave<'_>, mode: IndexMode, lane: usize) -> Result<i64, FaultKind> {
    Ok(match mode {
        IndexMode::ArX => i64::from(w.ar[0][lane]),
        IndexMode::ArY => i64::from(w.ar[1][lane]),
        IndexMode::ArZ => i64::from(w.ar[2][lane]),
        IndexMode::ArW => i64::from(w.ar[3][lane]),
        IndexMode::Loop => i64::from(w.lp.al),
        IndexMode::Global | IndexMode::GlobalArX => {
            return Err(FaultKind::Unimplemented {
                what: "INDEX_MODE GLOBAL (SIMD-global GPRs)".into(),
            });
        }
    })
}

fn kcache_value(w: &Wave<'_>, win: KcWindow, idx: i64, chan: usize) -> u32 {
    if idx < 0 || idx >= win.len {
        return CONST_OUT_OF_RANGE;
    }
    let e = win.first + idx;
    w.launch
        .const_buffers
        .get(win.bank)
        .and_then(|b| b.get(e as usize))
        .map_or(0, |v| v[chan & 3])
}

fn cfile_value(w: &Wave<'_>, idx: i64, chan: usize) -> u32 {
    if !(0..256).contains(&idx) {
        return CONST_OUT_OF_RANGE;
    }
    w.launch.cfile.get(idx as usize).map_or(0, |v| v[chan & 3])
}

fn read_src(
    w: &Wave<'_>,
    ctx: &Ctx<'_>,
    s: &PSlot,
    src: PSrc,
    out: &mut Lanes,
) -> Result<(), FaultKind> {
    match src {
        PSrc::Gpr { gpr, chan, rel } => {
            if rel {
                for (lane, o) in out.iter_mut().enumerate() {
                    let g = i64::from(gpr) + index_of(w, s.index_mode, lane)?;
                    // Out of range: GPR0 (L1346).
                    let g = if (0..128).contains(&g) { g as usize } else { 0 };
                    *o = w.get(g, chan as usize, lane);
                }
            } else {
                out.copy_from_slice(w.lanes_of(gpr as usize, chan as usize));
            }
        }
        PSrc::Kc {
            set,
            idx,
            chan,
            rel,
        } => {
            let i = if rel {
                i64::from(idx) + i64::from(w.lp.al)
            } else {
                i64::from(idx)
            };
            out.fill(kcache_value(w, ctx.kc[set as usize & 1], i, chan as usize));
        }
        PSrc::Cfile { idx, chan, rel } => {
            if rel {
                for (lane, o) in out.iter_mut().enumerate() {
                    let i = i64::from(idx) + index_of(w, s.index_mode, lane)?;
                    *o = cfile_value(w, i, chan as usize);
                }
            } else {
                out.fill(cfile_value(w, i64::from(idx), chan as usize));
            }
        }
        PSrc::Const(v) => out.fill(v),
        PSrc::Pv(c) => out.copy_from_slice(&w.pv[c as usize & 3]),
        PSrc::Ps => out.copy_from_slice(&w.ps),
    }
    Ok(())
}

fn lane_mask(pred: u64, mask: u64, sel: PredSel) -> u64 {
    match sel {
        PredSel::Off => mask,
        PredSel::Zero => mask & !pred,
        PredSel::One => mask & pred,
    }
}

/// Per-clause scratch buffers for a group's operands and results, reused
/// group after group (every lane a group reads is written first).
pub struct Scratch {
    srcs: [[Lanes; 3]; 5],
    res: [Lanes; 5],
    ars: [[i32; WAVE]; 5],
}

impl Scratch {
    /// Zeroed buffers.
    pub fn new() -> Box<Scratch> {
        Box::new(Scratch {
            srcs: [[[0; WAVE]; 3]; 5],
            res: [[0; WAVE]; 5],
            ars: [[0; WAVE]; 5],
        })
    }
}

fn exec_group(
    w: &mut Wave<'_>,
    g: &PGroup,
    ctx: &mut Ctx<'_>,
    scratch: &mut Scratch,
) -> Result<(), GroupError> {
    let n = g.slots.len();
    let Scratch { srcs, res, ars } = scratch;
    let mut sides = [alu::Side::default(); 5];
    let mut masks = [0u64; 5];
    // 1. Read every operand (GPRs as before the group, PV/PS of the
    //    previous group), apply ABS then NEG to float operands.
    for (i, s) in g.slots.iter().enumerate() {
        masks[i] = lane_mask(w.pred, ctx.mask, s.pred_sel);
        // Doubles take input modifiers only in the slots holding the high
        // dwords (X or Z of a pair; X, Y, Z of a quad: ADD_64, MUL_64 pages).
        let fsrc = float_src(s.op)
            && match double::slots(s.op) {
                Some(2) => s.unit_chan % 2 == 0,
                Some(_) => s.unit_chan != 3,
                None => true,
            };
        for (k, buf) in srcs[i].iter_mut().enumerate().take(s.nsrc as usize) {
            read_src(w, ctx, s, s.src[k], buf).map_err(|e| (Some(i as u32), e))?;
            if fsrc && (s.abs[k] || s.neg[k]) {
                let (and, xor) = (
                    if s.abs[k] { 0x7FFF_FFFF } else { u32::MAX },
                    if s.neg[k] { 0x8000_0000 } else { 0 },
                );
                for v in buf.iter_mut() {
                    *v = (*v & and) ^ xor;
                }
            }
        }
    }
    // 2. Compute.
    let mut done = [false; 5];
    for i in 0..n {
        if done[i] {
            continue;
        }
        let s = g.slots[i];
        if let Some(n) = double::slots(s.op) {
            let mut idx = [usize::MAX; 4];
            for (j, t) in g.slots.iter().enumerate() {
                if t.op == s.op && !t.trans {
                    idx[t.unit_chan as usize & 3] = j;
                }
            }
            let missing = |what: &str| {
                (
                    Some(i as u32),
                    FaultKind::Unimplemented {
                        what: format!("{} without {what}", s.op.mnemonic()),
                    },
                )
            };
            if n == 4 {
                if idx.contains(&usize::MAX) {
                    return Err(missing("all four vector slots"));
                }
                let out = double::quad(s.op, &srcs[idx[0]], &srcs[idx[3]])
                    .map_err(|e| (Some(i as u32), e))?;
                for (c, &j) in idx.iter().enumerate() {
                    res[j] = out[c];
                    done[j] = true;
                }
            } else {
                for first in [0usize, 2] {
                    let (a, b) = (idx[first], idx[first + 1]);
                    if a == usize::MAX && b == usize::MAX {
                        continue;
                    }
                    if a == usize::MAX || b == usize::MAX {
                        return Err(missing("its slot pair (X, Y) or (Z, W)"));
                    }
                    let (lo, hi, side) =
                        double::pair(s.op, &srcs[a], &srcs[b]).map_err(|e| (Some(i as u32), e))?;
                    res[a] = lo;
                    res[b] = hi;
                    sides[a] = side;
                    sides[b] = side;
                    done[a] = true;
                    done[b] = true;
                }
            }
            if !done[i] {
                return Err(missing("a vector slot"));
            }
        } else if is_reduction(s.op) {
            let mut idx = [usize::MAX; 4];
            for (j, t) in g.slots.iter().enumerate() {
                if t.op == s.op && !t.trans {
                    idx[t.unit_chan as usize & 3] = j;
                }
            }
            if idx.contains(&usize::MAX) {
                return Err((
                    Some(i as u32),
                    FaultKind::Unimplemented {
                        what: format!("{} without all four vector slots", s.op.mnemonic()),
                    },
                ));
            }
            let s0 = idx.map(|j| &srcs[j][0]);
            let s1 = idx.map(|j| &srcs[j][1]);
            let mut out = [[0u32; WAVE]; 4];
            alu::reduction(s.op, s0, s1, &mut out);
            for (c, &j) in idx.iter().enumerate() {
                res[j] = out[c];
                done[j] = true;
            }
        } else {
            sides[i] = alu::exec(s.op, &srcs[i], &mut res[i], &mut ars[i])
                .map_err(|e| (Some(i as u32), e))?;
            done[i] = true;
        }
    }
    // 3. Output modifier, then clamp (float results only).
    for (i, s) in g.slots.iter().enumerate() {
        if (s.omod != Omod::Off || s.clamp) && float_result(s.op) {
            let scale = match s.omod {
                Omod::Off => 1.0f32,
                Omod::M2 => 2.0,
                Omod::M4 => 4.0,
                Omod::D2 => 0.5,
            };
            for v in res[i].iter_mut() {
                let mut x = alu::flush(f32::from_bits(*v) * scale);
                if s.clamp {
                    // NaN clamps to 0 (DX rules).
                    x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
                }
                *v = x.to_bits();
            }
        }
    }
    // 4. Commit: PV/PS, GPRs (vector units first, Trans wins), predicate,
    //    execute mask, kills, AR.
    let mut new_pred = w.pred;
    for pass in [false, true] {
        for (i, s) in g.slots.iter().enumerate() {
            if s.trans != pass {
                continue;
            }
            let m = masks[i];
            if m == 0 {
                continue;
            }
            let nop = matches!(
                s.op,
                super::prepare::Op::O2(ctm_backend_r700::isa::Op2::Nop)
            );
            if !nop {
                let pv: &mut Lanes = if s.trans {
                    &mut w.ps
                } else {
                    &mut w.pv[s.unit_chan as usize & 3]
                };
                if m == u64::MAX {
                    pv.copy_from_slice(&res[i]);
                } else {
                    for (lane, v) in pv.iter_mut().enumerate() {
                        if m >> lane & 1 == 1 {
                            *v = res[i][lane];
                        }
                    }
                }
            }
            if s.write && !nop && !sides[i].mova {
                write_gpr(w, s, m, &res[i]).map_err(|e| (Some(i as u32), e))?;
            }
            let side = sides[i];
            if side.pred_set {
                if s.update_pred {
                    new_pred = (new_pred & !m) | (side.exec & m);
                }
                if s.update_exec {
                    *ctx.new_active = (*ctx.new_active & !m) | (side.exec & m);
                }
            }
            if side.kill != 0 {
                w.valid &= !(side.kill & m);
            }
            if side.mova {
                let c = s.dst_chan as usize & 3;
                for (lane, (a, &v)) in w.ar[c].iter_mut().zip(&ars[i]).enumerate() {
                    if m >> lane & 1 == 1 {
                        *a = v;
                    }
                }
            }
        }
    }
    w.pred = new_pred;
    Ok(())
}

fn write_gpr(w: &mut Wave<'_>, s: &PSlot, m: u64, r: &Lanes) -> Result<(), FaultKind> {
    let c = s.dst_chan as usize;
    if s.dst_rel {
        for (lane, &v) in r.iter().enumerate() {
            if m >> lane & 1 == 1 {
                let g = i64::from(s.dst_gpr) + index_of(w, s.index_mode, lane)?;
                // Relative writes out of range are inhibited (L1346).
                if w.writable(g) {
                    w.set(g as usize, c, lane, v);
                }
            }
        }
        return Ok(());
    }
    let g = i64::from(s.dst_gpr);
    if !w.writable(g) {
        return Ok(());
    }
    let at = (g as usize * 4 + c) * WAVE;
    let dst = &mut w.regs[at..at + WAVE];
    if m == u64::MAX {
        dst.copy_from_slice(r);
    } else {
        for (lane, d) in dst.iter_mut().enumerate() {
            if m >> lane & 1 == 1 {
                *d = r[lane];
            }
        }
    }
    Ok(())
}
