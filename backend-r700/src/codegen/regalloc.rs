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

use super::CodegenError;
use super::mir::{Item, Mir, VReg};
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
    /// GPRs used: highest + 1.
    pub num_gprs: u32,
}

#[derive(Default)]
struct Walk {
    pos: u32,
    first: Vec<u32>,
    last: Vec<u32>,
    loops: Vec<(u32, u32)>,
}

impl Walk {
    fn touch(&mut self, v: VReg, half: u32) {
        let i = v.0 as usize;
        self.first[i] = self.first[i].min(half);
        self.last[i] = self.last[i].max(half);
    }

    fn items(&mut self, items: &[SItem]) {
        for it in items {
            match it {
                SItem::Seg(s) => {
                    for g in &s.groups {
                        self.pos += 1;
                        let p = self.pos;
                        for &(i, _) in g {
                            let op = &s.ops[i];
                            for src in &op.srcs {
                                if let Some(v) = src.vreg() {
                                    self.touch(v, 2 * p);
                                }
                            }
                            if let Some(d) = op.dst {
                                self.touch(d, 2 * p + 1);
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
                            }
                            for v in f.dst.iter().flatten() {
                                self.touch(*v, 2 * p + 1);
                            }
                        }
                        Item::Export { lanes, .. } => {
                            for v in lanes.iter().filter_map(|l| l.vreg()) {
                                self.touch(v, 2 * p);
                            }
                        }
                        Item::MemExport { value, index } => {
                            self.touch(*value, 2 * p);
                            self.touch(*index, 2 * p);
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

/// Allocates GPRs for the scheduled program `items`.
///
/// # Errors
/// [`CodegenError::Limit`] past 128 GPRs.
pub fn allocate(
    mir: &Mir,
    chans: &Channels,
    items: &[SItem],
    kernel: &str,
) -> Result<Allocation, CodegenError> {
    let n = mir.regs.len();
    let mut w = Walk {
        pos: 0,
        first: vec![u32::MAX; n],
        last: vec![0; n],
        loops: Vec::new(),
    };
    // The position is written before the program starts.
    for (i, r) in mir.regs.iter().enumerate() {
        if r.gpr.is_some() {
            w.first[i] = 0;
            w.last[i] = w.last[i].max(1);
        }
    }
    w.items(items);
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
        });
    }
    for (i, &tupled) in in_tuple.iter().enumerate() {
        if !tupled && w.first[i] != u32::MAX {
            units.push(Unit {
                regs: vec![VReg(i as u32)],
                start: w.first[i],
                end: w.last[i],
                fixed: mir.regs[i].gpr,
            });
        }
    }
    units.sort_by_key(|u| (u.fixed.is_none(), u.start, u.end));
    // busy[g][c]: the end of the last interval in (g, c); free if < start.
    let mut busy: Vec<[Option<u32>; 4]> = vec![[None; 4]; 128];
    let mut gpr = vec![None; n];
    let mut max = 0u32;
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
        max = max.max(g as u32 + 1);
    }
    Ok(Allocation {
        gpr,
        num_gprs: max.max(1),
    })
}
