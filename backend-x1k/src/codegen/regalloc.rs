//! Register allocation over the 128 temporaries, channel by channel.
//!
//! A temporary is an RGB vector plus an alpha scalar (CTM §3.3.1), written
//! by different units, so the RGB part of a register may hold one value
//! while its alpha holds an unrelated scalar, and scalars and vec2s pack
//! into free RGB channels. Each virtual register gets a live interval over
//! the linearised program (slot positions; a read at `2p`, a write at
//! `2p + 1`, so an instruction may reuse the channels its sources free);
//! intervals live into a loop, or read before written inside it, cover the
//! whole loop. Intervals are then coloured in order of their start with
//! the lowest register that has enough free channels of the class (RGB
//! lanes: any of r, g, b; alpha: a; vec4: all four), which keeps
//! `US_PIXSIZE` (the highest register used) small: it bounds the threads
//! in flight. A group of registers the scheduler joined ([`Mir::groups`]:
//! their reads share one source address) is placed together when its
//! first member starts, in one register, each member in its own RGB
//! channels free from the member's start (conservative: the channels stay
//! reserved from the group's start). A register written by a
//! bit-exact copy of another (same class and width) takes the copied
//! register's place when it is free by then (the copy's source ends
//! there, as a branch result copied from a loop register does); such
//! copies then move nothing and [`drop_identity_copies`] removes them.
//! A register whose lanes' channels are pinned ([`super::mir::VRegInfo::channels`])
//! takes the lowest register where those channels are free.
//! Spilling does not exist on this chip: more than 128
//! registers is CK0071.

use super::CodegenError;
use super::mir::{Lane, Special, Src};
use super::mir::{Mir, Node, OpId, RegClass, VReg};
use super::sched::Bundle;
use ctm_frontend::Code;
use smallvec::SmallVec;

/// Where each virtual register lives.
#[derive(Clone, Debug)]
pub struct Allocation {
    /// Register and channel of each lane, by virtual register.
    pub place: Vec<Option<(u8, [u8; 4])>>,
    /// The highest register used.
    pub max_reg: u8,
}

impl Allocation {
    /// The register and lane channels of `v`.
    pub fn of(&self, v: VReg) -> Option<(u8, [u8; 4])> {
        self.place.get(v.0 as usize).copied().flatten()
    }
}

/// Live ranges: first and last position of each virtual register.
/// Extends a value's live interval to cover a position.
type Touch = dyn Fn(&mut Vec<Option<(u32, u32)>>, VReg, u32);

fn intervals(mir: &Mir, body: &[Node], blocks: &[Vec<Bundle>]) -> Vec<Option<(u32, u32)>> {
    let mut iv: Vec<Option<(u32, u32)>> = vec![None; mir.vregs.len()];
    let mut loops: Vec<(u32, u32)> = Vec::new();
    let mut first_def: Vec<Option<u32>> = vec![None; mir.vregs.len()];
    let mut reads_before_def: Vec<Vec<(u32, u32)>> = vec![Vec::new(); mir.vregs.len()];
    let mut pos = 0u32;
    let mut block = 0usize;
    let mut stack: Vec<u32> = Vec::new();
    let touch = |iv: &mut Vec<Option<(u32, u32)>>, v: VReg, p: u32| {
        let e = &mut iv[v.0 as usize];
        *e = Some(match *e {
            None => (p, p),
            Some((a, b)) => (a.min(p), b.max(p)),
        });
    };
    #[allow(clippy::too_many_arguments)]
    fn go(
        mir: &Mir,
        nodes: &[Node],
        blocks: &[Vec<Bundle>],
        pos: &mut u32,
        block: &mut usize,
        iv: &mut Vec<Option<(u32, u32)>>,
        loops: &mut Vec<(u32, u32)>,
        first_def: &mut Vec<Option<u32>>,
        stack: &mut Vec<u32>,
        reads_before_def: &mut Vec<Vec<(u32, u32)>>,
        touch: &Touch,
    ) {
        for n in nodes {
            match n {
                Node::Block(_) => {
                    for b in &blocks[*block] {
                        let p = *pos;
                        let ids: Vec<OpId> =
                            [b.rgb, b.alpha, b.tex].into_iter().flatten().collect();
                        for id in &ids {
                            for r in mir.op(*id).reads() {
                                touch(iv, r, 2 * p);
                                if first_def[r.0 as usize].is_none()
                                    && let Some(&ls) = stack.last()
                                {
                                    reads_before_def[r.0 as usize].push((ls, 2 * p));
                                }
                            }
                        }
                        for id in &ids {
                            if let Some((d, _)) = mir.op(*id).dest {
                                touch(iv, d, 2 * p + 1);
                                first_def[d.0 as usize].get_or_insert(2 * p + 1);
                            }
                        }
                        *pos += 1;
                    }
                    *block += 1;
                }
                Node::If { then, else_, .. } => {
                    *pos += 1;
                    go(
                        mir,
                        then,
                        blocks,
                        pos,
                        block,
                        iv,
                        loops,
                        first_def,
                        stack,
                        reads_before_def,
                        touch,
                    );
                    *pos += 1;
                    go(
                        mir,
                        else_,
                        blocks,
                        pos,
                        block,
                        iv,
                        loops,
                        first_def,
                        stack,
                        reads_before_def,
                        touch,
                    );
                    *pos += 1;
                }
                Node::Loop { body, .. } => {
                    *pos += 1;
                    let start = 2 * *pos;
                    stack.push(start);
                    go(
                        mir,
                        body,
                        blocks,
                        pos,
                        block,
                        iv,
                        loops,
                        first_def,
                        stack,
                        reads_before_def,
                        touch,
                    );
                    stack.pop();
                    // The ENDREP/ENDLOOP at `pos` is the last instruction a
                    // value carried around the back edge must survive.
                    loops.push((start, 2 * *pos + 1));
                    *pos += 1;
                }
                Node::Break { .. } => *pos += 1,
            }
        }
    }
    go(
        mir,
        body,
        blocks,
        &mut pos,
        &mut block,
        &mut iv,
        &mut loops,
        &mut first_def,
        &mut stack,
        &mut reads_before_def,
        &touch,
    );
    // Values live around a loop's back edge cover the whole loop.
    let mut changed = true;
    while changed {
        changed = false;
        for &(ls, le) in &loops {
            for (k, e) in iv.iter_mut().enumerate() {
                let Some((a, b)) = *e else { continue };
                let into = a < ls && b >= ls && b < le;
                let carried = reads_before_def[k].iter().any(|&(l, _)| l >= ls && l <= le)
                    && (a > ls || b < le);
                if into || carried {
                    *e = Some((a.min(ls), b.max(le)));
                    changed = true;
                }
            }
        }
    }
    iv
}

/// Allocates every virtual register.
pub fn allocate(
    mir: &Mir,
    blocks: &[Vec<Bundle>],
    kernel: &str,
) -> Result<Allocation, CodegenError> {
    let iv = intervals(mir, &mir.body, blocks);
    let mut order: Vec<usize> = (0..mir.vregs.len()).filter(|&v| iv[v].is_some()).collect();
    order.sort_by_key(|&v| (mir.vregs[v].fixed.is_none(), iv[v].map(|(a, _)| a)));
    // busy[reg][channel] = end of the current occupant's interval.
    let mut busy: Vec<[Option<u32>; 4]> = vec![[None; 4]; 128];
    let mut place = vec![None; mir.vregs.len()];
    let mut max_reg = 0u8;
    let mut group_of: Vec<Option<usize>> = vec![None; mir.vregs.len()];
    for (g, members) in mir.groups.iter().enumerate() {
        for m in members {
            if let Some(e) = group_of.get_mut(m.0 as usize) {
                *e = Some(g);
            }
        }
    }
    let hints = copy_hints(mir);
    for v in order {
        if place[v].is_some() {
            continue;
        }
        if let Some(g) = group_of[v] {
            let Some(placed) = place_group(&mir.groups[g], mir, &iv, &mut busy) else {
                return Err(too_many(kernel));
            };
            for (m, reg, chans) in placed {
                max_reg = max_reg.max(reg);
                place[m.0 as usize] = Some((reg, chans));
            }
            continue;
        }
        let Some((start, end)) = iv[v] else { continue };
        let info = &mir.vregs[v];
        let free = |busy: &[Option<u32>; 4], c: usize| busy[c].is_none_or(|e| e < start);
        let lanes_of = |chans: [u8; 4]| -> SmallVec<[u8; 4]> {
            match info.class {
                RegClass::Alpha => SmallVec::from_slice(&[3]),
                RegClass::Rgba => SmallVec::from_slice(&[0, 1, 2, 3]),
                _ => SmallVec::from_slice(&chans[..info.width as usize]),
            }
        };
        // Pinned channels (a register whose writer also writes a render
        // target, `out_reg`): the lanes' channels are given, any register.
        let pinned = info.channels.filter(|_| info.class == RegClass::Rgb);
        let hinted = hints[v]
            .and_then(|s| place[s.0 as usize])
            .filter(|&(r, chans)| {
                lanes_of(chans)
                    .iter()
                    .all(|&c| free(&busy[r as usize], c as usize))
                    && pinned
                        .is_none_or(|p| p[..info.width as usize] == chans[..info.width as usize])
            });
        let chosen: Option<(u8, [u8; 4])> = if let Some((reg, chans)) = info.fixed {
            Some((reg, chans))
        } else if hinted.is_some() {
            hinted
        } else {
            (0..128u8).find_map(|r| {
                let b = &busy[r as usize];
                match info.class {
                    RegClass::Alpha => free(b, 3).then_some((r, [3, 3, 3, 3])),
                    RegClass::Rgba => (0..4).all(|c| free(b, c)).then_some((r, [0, 1, 2, 3])),
                    _ if pinned.is_some() => pinned
                        .filter(|p| {
                            p[..info.width as usize]
                                .iter()
                                .all(|&c| c < 3 && free(b, c as usize))
                        })
                        .map(|p| (r, p)),
                    _ => {
                        let chans: Vec<u8> = (0..3u8).filter(|&c| free(b, c as usize)).collect();
                        (chans.len() >= info.width as usize).then(|| {
                            let mut out = [0u8; 4];
                            for (i, c) in chans.iter().take(info.width as usize).enumerate() {
                                out[i] = *c;
                            }
                            (r, out)
                        })
                    }
                }
            })
        };
        let Some((reg, chans)) = chosen else {
            return Err(too_many(kernel));
        };
        let lanes = match info.class {
            RegClass::Alpha => 1,
            _ => info.width as usize,
        };
        for &c in &chans[..lanes] {
            let slot = &mut busy[reg as usize][c as usize];
            *slot = Some(slot.map_or(end, |e| e.max(end)));
        }
        max_reg = max_reg.max(reg);
        place[v] = Some((reg, chans));
    }
    Ok(Allocation { place, max_reg })
}

/// CK0071.
fn too_many(kernel: &str) -> CodegenError {
    CodegenError::Limit {
        code: Code::TooManyRegisters,
        kernel: kernel.to_string(),
        message: format!("`{kernel}` needs more than the x1k's 128 temporary registers"),
    }
}

/// Places a group of RGB-class registers in the lowest register where
/// each member gets distinct RGB channels free at its start; marks them
/// busy to each member's end. `None` when no register has room.
fn place_group(
    members: &[VReg],
    mir: &Mir,
    iv: &[Option<(u32, u32)>],
    busy: &mut [[Option<u32>; 4]],
) -> Option<Vec<(VReg, u8, [u8; 4])>> {
    let mut live: Vec<(VReg, u32, u32, usize)> = members
        .iter()
        .filter_map(|&m| {
            let (a, b) = iv.get(m.0 as usize).copied().flatten()?;
            Some((m, a, b, mir.vreg(m).width as usize))
        })
        .collect();
    live.sort_by_key(|&(_, a, _, _)| a);
    for (r, regs) in busy.iter_mut().enumerate() {
        let b = *regs;
        let mut used = [false; 3];
        let mut out = Vec::with_capacity(live.len());
        for &(m, start, _, width) in &live {
            let chans: Vec<u8> = (0..3u8)
                .filter(|&c| !used[c as usize] && b[c as usize].is_none_or(|e| e < start))
                .take(width)
                .collect();
            if chans.len() < width {
                break;
            }
            let mut place = [0u8; 4];
            for (i, &c) in chans.iter().enumerate() {
                used[c as usize] = true;
                place[i] = c;
            }
            out.push((m, r as u8, place));
        }
        if out.len() < live.len() {
            continue;
        }
        for (&(_, _, end, width), &(_, _, place)) in live.iter().zip(&out) {
            for &c in &place[..width] {
                let slot = &mut regs[c as usize];
                *slot = Some(slot.map_or(end, |e| e.max(end)));
            }
        }
        return Some(out);
    }
    None
}

/// The source of a whole-register bit-exact copy `d = s` (MAX with the
/// output modifier off, CTM §3.3.5; same width and class, lanes in
/// order), if `op` is one.
fn full_copy(mir: &Mir, op: &super::mir::MirOp) -> Option<(VReg, VReg)> {
    let (d, 0) = op.dest? else {
        return None;
    };
    let a = op.copy_source()?;
    let Src::Reg(s) = a.src else {
        return None;
    };
    let (di, si) = (mir.vreg(d), mir.vreg(s));
    let plain = op.special == Special::None;
    let shape = op.width == di.width
        && di.width == si.width
        && di.class == si.class
        && di.fixed.is_none()
        && si.fixed.is_none()
        && (0..op.width).all(|i| a.lanes[i as usize] == Lane::Of(i));
    (plain && shape).then_some((d, s))
}

/// For each register, the register a full copy writing it reads (the
/// first found).
fn copy_hints(mir: &Mir) -> Vec<Option<VReg>> {
    let mut hints = vec![None; mir.vregs.len()];
    for id in mir.live_ops() {
        if let Some((d, s)) = full_copy(mir, mir.op(id))
            && d != s
            && hints[d.0 as usize].is_none()
        {
            hints[d.0 as usize] = Some(s);
        }
    }
    hints
}

/// Removes full copies whose source and destination got the same place,
/// renaming the destination to the source everywhere (they share every
/// channel, so no other value lives there in between; the post-allocation
/// checker proves the result). Bundles left empty go.
pub fn drop_identity_copies(mir: &mut Mir, alloc: &Allocation, blocks: &mut [Vec<Bundle>]) {
    let mut rename: Vec<Option<VReg>> = vec![None; mir.vregs.len()];
    let root = |rename: &[Option<VReg>], mut v: VReg| {
        while let Some(w) = rename[v.0 as usize] {
            v = w;
        }
        v
    };
    let mut dropped: Vec<OpId> = Vec::new();
    for b in blocks.iter().flatten() {
        for id in [b.rgb, b.alpha].into_iter().flatten() {
            if dropped.contains(&id) {
                continue;
            }
            let Some((d, s)) = full_copy(mir, mir.op(id)) else {
                continue;
            };
            let (Some(pd), Some(ps)) = (alloc.of(d), alloc.of(s)) else {
                continue;
            };
            let w = mir.vreg(d).width as usize;
            let same = pd.0 == ps.0
                && match mir.vreg(d).class {
                    RegClass::Alpha => true,
                    _ => pd.1[..w] == ps.1[..w],
                };
            if !same {
                continue;
            }
            let rs = root(&rename, s);
            if rs != d {
                rename[d.0 as usize] = Some(rs);
            }
            dropped.push(id);
        }
    }
    if dropped.is_empty() {
        return;
    }
    let renamed: Vec<Option<VReg>> = (0..mir.vregs.len() as u32)
        .map(|v| {
            let r = root(&rename, VReg(v));
            (r != VReg(v)).then_some(r)
        })
        .collect();
    let fix = |v: &mut VReg| {
        if let Some(r) = renamed[v.0 as usize] {
            *v = r;
        }
    };
    for op in &mut mir.ops {
        if let Some((d, _)) = &mut op.dest {
            fix(d);
        }
        for a in op.args.iter_mut() {
            if let Src::Reg(v) = &mut a.src {
                fix(v);
            }
        }
        if let Some((_, a, b)) = &mut op.presub {
            for o in [a, b] {
                if let Src::Reg(v) = &mut o.src {
                    fix(v);
                }
            }
        }
    }
    for block in blocks.iter_mut() {
        for b in block.iter_mut() {
            if b.rgb.is_some_and(|id| dropped.contains(&id)) {
                b.rgb = None;
            }
            if b.alpha.is_some_and(|id| dropped.contains(&id)) {
                b.alpha = None;
            }
        }
        block.retain(|b| b.rgb.is_some() || b.alpha.is_some() || b.tex.is_some());
    }
}
