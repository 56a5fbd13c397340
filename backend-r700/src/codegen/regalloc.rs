//! Register allocation per channel: a register's element is fixed by the
//! unit that writes it (the scheduler's choice, or a tuple's or merge
//! register's constraint), so allocation only picks the GPR number, per
//! element independently — a GPR whose X is taken can still hold a value
//! in Y. Live ranges are intervals over the program in CF order (a group
//! reads at `2p` and writes at `2p + 1`, so a value dying in a group frees
//! its element for a value written by that group); a value live into a
//! loop stays live to the loop's end (it is read again by the next
//! iteration). Linear scan in order of start is optimal per element for
//! interval graphs; a value dying in a group does not pass its element to
//! a value that group writes, so groups stay splittable; tuples (fetch
//! coordinates and results, exports) take
//! the lowest GPR free in all their elements. The position arrives in R0
//! (ABI §2). Over 128 GPRs is a diagnostic (spec §4).
//!
//! Clause temporaries (manual §4.6 L1299-1309, §2.6.1.2 L612; ABI §2): a
//! value written once, unpredicated, and read only inside its own
//! straight-line segment (no fetch, export, other segment or loop
//! back-edge touches it; not a tuple or fixed register) may live in
//! GPR 124..127 (T0..T3), which NUM_GPRS does not count — if its write
//! and its last read fall in one ALU clause of every clause layout in
//! [`Temps::InClauses`] (a temporary is "not preserved past the end of a
//! clause", L1299, L1301; a segment over 128 slots is cut into several
//! clauses, `clause.rs`). Allocation precedes clause formation, so the
//! caller (`mod.rs`) passes the layout an allocation without temporaries
//! gave, adds the new layout when the one with temporaries cut the
//! clauses elsewhere, and keeps the result only when it lowers the GPR
//! count and the validator's `clause-temp` rule finds every temporary
//! written earlier in its clause.

use super::CodegenError;
use super::clause::ClauseMap;
use super::mir::{Item, Mir, Role, VReg};
use super::sched::{Channels, Segment};

/// An item after scheduling.
#[derive(Clone, Debug)]
pub enum SItem {
    /// A scheduled ALU segment.
    Seg(Segment),
    /// Any other item (fetch, export, memory export).
    Other(Item),
    /// `if`.
    If(Vec<SItem>, Vec<SItem>),
    /// `loop`.
    Loop(Vec<SItem>),
}

/// The allocation.
#[derive(Clone, Debug)]
pub struct Allocation {
    /// GPR of each register (`None`: never used).
    pub gpr: Vec<Option<u8>>,
    /// GPRs used: highest ordinary GPR + 1 (clause temporaries excluded).
    pub num_gprs: u32,
    /// Clause temporaries the loader must program (0 or [`CLAUSE_TEMPS`]).
    pub clause_temps: u32,
}

/// The clause temporaries ctm's loader programs when a program uses any
/// (`SQ_GPR_RESOURCE_MGMT_1.NUM_CLAUSE_TEMP_GPRS`): 4, the manual's
/// "typical setting" (L1309) and Mesa r600's `num_temp_gprs` on every
/// R6xx/R7xx family (ABI §2).
pub const CLAUSE_TEMPS: u32 = 4;

/// The first clause-temporary GPR address: T0 = GPR 128 − N (L1309, L612).
pub const FIRST_TEMP: u8 = (128 - CLAUSE_TEMPS) as u8;

/// The most ordinary GPRs a program with N clause temporaries may use:
/// 127 − 2N (manual Table 2.6 L541; L1344 alone would allow 124).
pub const MAX_GPRS_WITH_TEMPS: u32 = 127 - 2 * CLAUSE_TEMPS;

#[derive(Default)]
struct Walk {
    pos: u32,
    first: Vec<u32>,
    last: Vec<u32>,
    loops: Vec<(u32, u32)>,
    /// Segment of every touch (`NONE`: untouched, `MANY`: several or a
    /// non-ALU touch).
    seg: Vec<u32>,
    /// Writes per register, and whether one is predicated or a MOVA.
    writes: Vec<u32>,
    odd_write: Vec<bool>,
    segs: u32,
}

const NONE: u32 = u32::MAX;
const MANY: u32 = u32::MAX - 1;

impl Walk {
    fn touch(&mut self, v: VReg, half: u32) {
        let i = v.0 as usize;
        self.first[i] = self.first[i].min(half);
        self.last[i] = self.last[i].max(half);
    }

    fn in_seg(&mut self, v: VReg, seg: u32) {
        let i = v.0 as usize;
        self.seg[i] = match self.seg[i] {
            NONE => seg,
            s if s == seg => seg,
            _ => MANY,
        };
    }

    fn items(&mut self, items: &[SItem]) {
        for it in items {
            match it {
                SItem::Seg(s) => {
                    self.segs += 1;
                    let id = self.segs;
                    for g in &s.groups {
                        self.pos += 1;
                        let p = self.pos;
                        for &(i, _) in g {
                            let op = &s.ops[i];
                            for src in &op.srcs {
                                if let Some(v) = src.vreg() {
                                    self.touch(v, 2 * p);
                                    self.in_seg(v, id);
                                }
                            }
                            if let Some(d) = op.dst {
                                self.touch(d, 2 * p + 1);
                                self.in_seg(d, id);
                                let i = d.0 as usize;
                                self.writes[i] += 1;
                                if matches!(op.role, Role::IfTrue | Role::IfFalse | Role::Mova) {
                                    self.odd_write[i] = true;
                                }
                            }
                        }
                    }
                }
                SItem::Other(item) => {
                    self.pos += 1;
                    let p = self.pos;
                    match item {
                        Item::Fetch(f) => {
                            for v in f.coord {
                                self.touch(v, 2 * p);
                                self.seg[v.0 as usize] = MANY;
                            }
                            for v in f.dst.iter().flatten() {
                                self.touch(*v, 2 * p + 1);
                                self.seg[v.0 as usize] = MANY;
                            }
                        }
                        Item::Export { lanes, .. } => {
                            for v in lanes.iter().filter_map(|l| l.vreg()) {
                                self.touch(v, 2 * p);
                                self.seg[v.0 as usize] = MANY;
                            }
                        }
                        Item::MemExport { value, index } => {
                            self.touch(*value, 2 * p);
                            self.touch(*index, 2 * p);
                            self.seg[value.0 as usize] = MANY;
                            self.seg[index.0 as usize] = MANY;
                        }
                        _ => {}
                    }
                }
                SItem::If(t, e) => {
                    self.items(t);
                    self.items(e);
                }
                SItem::Loop(body) => {
                    let start = 2 * (self.pos + 1);
                    self.items(body);
                    let end = 2 * self.pos + 1;
                    self.loops.push((start, end));
                }
            }
        }
    }
}

/// Whether values may live in clause temporaries.
#[derive(Clone, Copy, Debug)]
pub enum Temps<'a> {
    /// No clause temporaries.
    No,
    /// Values whose write and last read are in one ALU clause of each of
    /// these layouts (`clause::emit_mapped`) may.
    InClauses(&'a [ClauseMap]),
}

/// Allocates GPRs for the scheduled program `items`; with `temps`,
/// clause-local values go to clause temporaries where one is free.
///
/// # Errors
/// [`CodegenError::Limit`] past 128 GPRs.
pub fn allocate(
    mir: &Mir,
    chans: &Channels,
    items: &[SItem],
    kernel: &str,
    temps: Temps<'_>,
) -> Result<Allocation, CodegenError> {
    let layouts = match temps {
        Temps::No => None,
        Temps::InClauses(l) => Some(l),
    };
    let temps = layouts.is_some();
    let n = mir.regs.len();
    let mut w = Walk {
        pos: 0,
        first: vec![u32::MAX; n],
        last: vec![0; n],
        loops: Vec::new(),
        seg: vec![NONE; n],
        writes: vec![0; n],
        odd_write: vec![false; n],
        segs: 0,
    };
    // The position is written before the program starts.
    for (i, r) in mir.regs.iter().enumerate() {
        if r.gpr.is_some() {
            w.first[i] = 0;
            w.last[i] = w.last[i].max(1);
        }
    }
    w.items(items);
    let last_touch = w.last.clone();
    // Values live into a loop live through it.
    let mut changed = true;
    while changed {
        changed = false;
        for &(s, e) in &w.loops {
            for i in 0..n {
                if w.first[i] != u32::MAX && w.first[i] < s && w.last[i] >= s && w.last[i] < e {
                    w.last[i] = e;
                    changed = true;
                }
            }
        }
    }
    // Allocation units: tuples, then single registers.
    struct Unit {
        regs: Vec<VReg>,
        start: u32,
        end: u32,
        fixed: Option<u8>,
        temp: bool,
    }
    let mut units: Vec<Unit> = Vec::new();
    let mut in_tuple = vec![false; n];
    for t in &mir.tuples {
        let live: Vec<VReg> = t
            .iter()
            .copied()
            .filter(|v| w.first[v.0 as usize] != u32::MAX)
            .collect();
        for v in t {
            in_tuple[v.0 as usize] = true;
        }
        if live.is_empty() {
            continue;
        }
        let start = live
            .iter()
            .map(|v| w.first[v.0 as usize])
            .min()
            .unwrap_or(0);
        let end = live.iter().map(|v| w.last[v.0 as usize]).max().unwrap_or(0);
        let fixed = live.iter().find_map(|v| mir.regs[v.0 as usize].gpr);
        units.push(Unit {
            regs: live,
            start,
            end,
            fixed,
            temp: false,
        });
    }
    for (i, &tupled) in in_tuple.iter().enumerate() {
        if !tupled && w.first[i] != u32::MAX {
            // Written once (unpredicated) before any read, every touch in
            // one segment, not stretched over a loop back-edge.
            let temp = temps
                && mir.regs[i].gpr.is_none()
                && w.seg[i] < MANY
                && w.writes[i] == 1
                && !w.odd_write[i]
                && w.first[i] % 2 == 1
                && w.last[i] == last_touch[i]
                && layouts.is_some_and(|ls| {
                    ls.iter()
                        .all(|m| m.same_clause(w.first[i] / 2, w.last[i] / 2))
                });
            units.push(Unit {
                regs: vec![VReg(i as u32)],
                start: w.first[i],
                end: w.last[i],
                fixed: mir.regs[i].gpr,
                temp,
            });
        }
    }
    units.sort_by_key(|u| (u.fixed.is_none(), u.start, u.end));
    // busy[g][c]: the end of the last interval in (g, c); free if < start.
    let mut busy: Vec<[Option<u32>; 4]> = vec![[None; 4]; 128];
    let mut gpr = vec![None; n];
    let mut max = 0u32;
    let mut used_temps = false;
    for u in &units {
        let cs: Vec<usize> = u
            .regs
            .iter()
            .map(|v| chans.chan[v.0 as usize].unwrap_or(0) as usize)
            .collect();
        let free = |g: usize, busy: &Vec<[Option<u32>; 4]>| {
            // A value read by a group does not hand its element to a value
            // that group writes (`e + 1 < start`, not `e < start`): then
            // no op reads what another op of its group writes, so any
            // group can be split when no bank swizzle fits (clause.rs).
            cs.iter()
                .all(|&c| busy[g][c].is_none_or(|e| e + 1 < u.start))
        };
        let g = match u.fixed {
            Some(g) => Some(g as usize),
            None if u.temp => (FIRST_TEMP as usize..128)
                .find(|&g| free(g, &busy))
                .or_else(|| (0..FIRST_TEMP as usize).find(|&g| free(g, &busy))),
            None if temps => (0..FIRST_TEMP as usize).find(|&g| free(g, &busy)),
            None => (0..128).find(|&g| free(g, &busy)),
        };
        let Some(g) = g else {
            return Err(CodegenError::limit(
                ctm_frontend::Code::TooManyRegisters,
                kernel,
                format!("`{kernel}` needs more than the 128 registers the r700 has"),
            ));
        };
        for &c in &cs {
            busy[g][c] = Some(busy[g][c].map_or(u.end, |e| e.max(u.end)));
        }
        for v in &u.regs {
            gpr[v.0 as usize] = Some(g as u8);
        }
        if temps && g >= FIRST_TEMP as usize {
            used_temps = true;
        } else {
            max = max.max(g as u32 + 1);
        }
    }
    Ok(Allocation {
        gpr,
        num_gprs: max.max(1),
        clause_temps: if used_temps { CLAUSE_TEMPS } else { 0 },
    })
}
