//! Texture instructions over a group (CTM §3.4): NOP, lookups (plain,
//! projected, with LOD/bias/gradients, uncached), KILL, the destination
//! swizzle and masks, and the bookkeeping of the texture semaphore
//! (CTM §3.4.2).
//!
//! Lookup model (CTM inputs are single-level 2-D arrays, `docs/sim-x1k.md`
//! §2.6): nearest texel, coordinates clamped to the edge; scaled
//! coordinates (UNSCALED = 0) are multiplied by the input's size first.
//! LODBIAS/LOD/DXDY therefore read the same texel as LD. NaN coordinates
//! become +inf and denormals zero (CTM §3.6.4). An unbound input reads 0.

use ctm_backend_x1k::isa::{Channel, TexInst, TexOp};

use super::Engine;
use super::fault::{Access, AluDependency, FaultKind};
use super::fp::flush;
use super::lanes::any_denormal;
use super::sources::{check_tex_ready, relative};
use super::state::{Group, Held, LaneMask};
use super::timing::Costs;
use super::writes::{predicate_bits, predicate_mask};
use crate::x1k::interface::DppMemory;

fn channel_index(c: Channel) -> usize {
    c.code() as usize
}

/// One coordinate to a texel index in `0..size` (CTM §3.4, §3.6.4).
#[inline]
pub(crate) fn texel_index(v: f32, size: u32, unscaled: bool) -> u32 {
    let v = if v.is_nan() { f32::INFINITY } else { flush(v) };
    let u = if unscaled { v } else { v * size as f32 };
    let f = u.floor();
    if f >= size as f32 {
        size.saturating_sub(1)
    } else if f >= 0.0 {
        f as u32
    } else {
        0
    }
}

/// Which source channels (bit mask over R, G, B, A of the source register)
/// the op reads: the ISA's opcode table (`TexInst::coordinate_channels`).
fn coordinate_channels(tex: &TexInst) -> u8 {
    tex.coordinate_channels()
}

/// Check the reads of `reg`'s channels `mask`: texture results must be
/// waited for, ALU results need `ALU_WAIT` (CTM §3.2.1).
fn check_reads(group: &mut Group, reg: usize, mask: u8, alu_wait: bool) -> Result<(), FaultKind> {
    for ch in 0..4 {
        if mask & (1 << ch) == 0 {
            continue;
        }
        let idx = reg * 4 + ch;
        let r = check_tex_ready(group, idx, Access::Read);
        group.hazard(r)?;
        if !alu_wait && group.sync.is_alu_dirty(idx) {
            group.hazard(Err(FaultKind::MissingAluWait {
                what: AluDependency::Temp {
                    reg: reg as u8,
                    channel: ch as u8,
                },
            }))?;
        }
    }
    Ok(())
}

/// Execute one TEX instruction (its `ALU_WAIT`/`TEX_SEM_WAIT` already
/// handled by the caller).
pub(crate) fn execute(
    group: &mut Group,
    tex: &TexInst,
    slot: u16,
    memory: &dyn DppMemory,
    costs: &Costs,
    engine: Engine,
) -> Result<(), FaultKind> {
    let n = group.n;
    // WRITE_INACTIVE: also inactive processors; IGNORE_UNCOVERED: not killed ones.
    let mut lanes: LaneMask = if tex.write_inactive {
        group.present
    } else {
        group.exec()
    };
    if tex.ignore_uncovered {
        lanes &= group.covered;
    }

    // Predicates read (CTM §3.4: RGB results by RGB_PRED_*, alpha by ALPHA_PRED_*).
    let pred_read = predicate_bits(tex.rgb_predicate, tex.rgb_write_mask.bits() as u8)
        | if tex.alpha_write_mask.is_on() {
            predicate_bits(tex.alpha_predicate, 8)
        } else {
            0
        };
    if !tex.alu_wait && pred_read & group.sync.pred_dirty != 0 {
        let channel = (pred_read & group.sync.pred_dirty).trailing_zeros() as u8;
        group.hazard(Err(FaultKind::MissingAluWait {
            what: AluDependency::Predicate { channel },
        }))?;
    }

    let src_reg = relative(group, tex.src.addr.reg.get(), tex.src.addr.addressing, 127)?;
    let read_mask = coordinate_channels(tex);
    let src_reg = if read_mask != 0 {
        let r = group.check_temp(src_reg)?;
        check_reads(group, r, read_mask, tex.alu_wait)?;
        r
    } else {
        0
    };
    if let TexOp::Dxdy { dx, dy } = tex.op {
        for g in [dx, dy] {
            let r = relative(group, g.addr.reg.get(), g.addr.addressing, 127)?;
            let r = group.check_temp(r)?;
            let mask = (1u8 << g.swizzle[0].code()) | (1u8 << g.swizzle[1].code());
            check_reads(group, r, mask, tex.alu_wait)?;
        }
    }

    match tex.op {
        TexOp::Nop => {}
        TexOp::TexKill => {
            // CTM §3.4.1: kill if any examined channel is < 0 (-0, denormals
            // and NaN are not); the masks and predicates choose the channels.
            let mut killed = 0;
            for lane in 0..n {
                let bit = 1u64 << lane;
                if lanes & bit == 0 {
                    continue;
                }
                let negative = (0..4).any(|ch| {
                    let enabled = if ch < 3 {
                        tex.rgb_write_mask.has(ch)
                            && predicate_mask(group, tex.rgb_predicate, ch) & bit != 0
                    } else {
                        tex.alpha_write_mask.is_on()
                            && predicate_mask(group, tex.alpha_predicate, 3) & bit != 0
                    };
                    enabled && flush(group.regs[group.offset(src_reg, ch) + lane]) < 0.0
                });
                if negative && group.covered & bit != 0 {
                    group.covered &= !bit;
                    killed += 1;
                }
            }
            group.profile.counters.killed += killed;
            group
                .profile
                .fetch(u64::from(lanes.count_ones()).div_ceil(costs.tmus));
        }
        _ => {
            let uncached = tex.op == TexOp::LdUncached;
            if uncached && group.sync.umrt_seq > group.sync.umrt_done {
                group.hazard(Err(FaultKind::UncachedReadNotSynchronised {
                    write_slot: group.sync.umrt_slot,
                }))?;
            }
            let write_any = !tex.rgb_write_mask.is_empty() || tex.alpha_write_mask.is_on();
            let dst = relative(group, tex.dst.reg.get(), tex.dst.addressing, 127)?;
            let dst = if write_any { group.check_temp(dst)? } else { 0 };
            let id = tex.tex_id.get() as u8;
            let size = memory.input_size(id).filter(|&(w, h)| w > 0 && h > 0);
            let mut masks = [0u64; 4];
            for (ch, m) in masks.iter_mut().enumerate() {
                let enabled = if ch < 3 {
                    tex.rgb_write_mask.has(ch)
                } else {
                    tex.alpha_write_mask.is_on()
                };
                if enabled {
                    let p = if ch < 3 {
                        tex.rgb_predicate
                    } else {
                        tex.alpha_predicate
                    };
                    *m = lanes & predicate_mask(group, p, ch);
                }
            }
            let lookup = Lookup {
                tex,
                lanes,
                masks,
                src_reg,
                dst,
                id,
                size,
                uncached,
            };
            match engine {
                Engine::Fast => lookup_fast(group, &lookup, memory),
                Engine::Reference => lookup_reference(group, &lookup, memory),
            }
            group.sync.tex_seq += 1;
            let seq = group.sync.tex_seq;
            if write_any {
                for ch in 0..4 {
                    let enabled = if ch < 3 {
                        tex.rgb_write_mask.has(ch)
                    } else {
                        tex.alpha_write_mask.is_on()
                    };
                    if enabled {
                        group.sync.tex_pending[dst * 4 + ch] = (seq, slot);
                        // Texels are arbitrary bits: look for denormals.
                        let off = group.offset(dst, ch);
                        let any = any_denormal(&group.regs[off..off + n]);
                        group.set_denormal(dst * 4 + ch, any);
                    }
                }
            }
            let fetching = u64::from(lanes.count_ones());
            group.profile.counters.texels_fetched += fetching;
            group.profile.counters.texel_bytes += fetching * u64::from(memory.texel_bytes(id));
            group.profile.fetch(fetching.div_ceil(costs.tmus));
        }
    }
    if tex.sem_acquire {
        // The semaphore covers this lookup and all earlier ones (CTM §3.4.2).
        group.sync.held = Some(Held::Tex {
            seq: group.sync.tex_seq,
            slot,
        });
    }
    Ok(())
}

/// One lookup instruction's operands, resolved.
struct Lookup<'a> {
    tex: &'a TexInst,
    /// Processors that look up.
    lanes: LaneMask,
    /// Per destination channel, the processors that write it.
    masks: [LaneMask; 4],
    src_reg: usize,
    dst: usize,
    id: u8,
    /// The input's size; `None` for an unbound (or empty) input.
    size: Option<(u32, u32)>,
    uncached: bool,
}

/// The reference engine's lookups, lane by lane.
fn lookup_reference(group: &mut Group, l: &Lookup<'_>, memory: &dyn DppMemory) {
    let tex = l.tex;
    let channel_of = |group: &Group, c: Channel, lane: usize| {
        group.regs[group.offset(l.src_reg, channel_index(c)) + lane]
    };
    let s = tex.src.swizzle;
    let projected = tex.op == TexOp::Proj;
    for lane in 0..group.n {
        if l.lanes & (1 << lane) == 0 {
            continue;
        }
        let texel = match l.size {
            None => [0.0; 4],
            Some((w, h)) => {
                let mut u = channel_of(group, s[0], lane);
                let mut v = channel_of(group, s[1], lane);
                if projected {
                    let q = flush(channel_of(group, s[3], lane));
                    u = flush(flush(u) / q);
                    v = flush(flush(v) / q);
                }
                let x = texel_index(u, w, tex.unscaled);
                let y = texel_index(v, h, tex.unscaled);
                if l.uncached {
                    memory.read_uncached(l.id, x, y)
                } else {
                    memory.read_input(l.id, x, y)
                }
            }
        };
        for (ch, m) in l.masks.iter().enumerate() {
            if m & (1 << lane) != 0 {
                let off = group.offset(l.dst, ch);
                group.regs[off + lane] = texel[channel_index(tex.dst_swizzle[ch])];
            }
        }
    }
}

/// [`texel_index`] without `floor` (a library call on the baseline x86-64
/// target). `u` is never NaN (NaN became +inf), and the size `s` as f32
/// is a whole number, so `floor(u) >= s` exactly when `u >= s`, and for
/// `0 <= u < s` the truncation `u as u32` is the floor (for `-1 < u < 0`
/// both give 0).
#[inline]
fn texel_index_fast(v: f32, size: u32, unscaled: bool) -> u32 {
    let v = if v.is_nan() { f32::INFINITY } else { flush(v) };
    let u = if unscaled { v } else { v * size as f32 };
    if u >= size as f32 {
        size.saturating_sub(1)
    } else if u >= 0.0 {
        u as u32
    } else {
        0
    }
}

/// The fast engine's lookups: register offsets and the destination
/// swizzle computed once, only the looking-up lanes visited.
fn lookup_fast(group: &mut Group, l: &Lookup<'_>, memory: &dyn DppMemory) {
    let tex = l.tex;
    let n = group.n;
    let offset = |reg: usize, c: Channel| (reg * 4 + channel_index(c)) * n;
    let s = tex.src.swizzle;
    let (su, sv, sq) = (
        offset(l.src_reg, s[0]),
        offset(l.src_reg, s[1]),
        offset(l.src_reg, s[3]),
    );
    let dst: [usize; 4] = std::array::from_fn(|ch| (l.dst * 4 + ch) * n);
    let select: [usize; 4] = std::array::from_fn(|ch| channel_index(tex.dst_swizzle[ch]));
    let projected = tex.op == TexOp::Proj;
    let mut rest = l.lanes & group.present;
    while rest != 0 {
        let lane = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let texel = match l.size {
            None => [0.0; 4],
            Some((w, h)) => {
                let regs = &group.regs;
                let (mut u, mut v) = (regs[su + lane], regs[sv + lane]);
                if projected {
                    let q = flush(regs[sq + lane]);
                    u = flush(flush(u) / q);
                    v = flush(flush(v) / q);
                }
                let x = texel_index_fast(u, w, tex.unscaled);
                let y = texel_index_fast(v, h, tex.unscaled);
                if l.uncached {
                    memory.read_uncached(l.id, x, y)
                } else {
                    memory.read_input(l.id, x, y)
                }
            }
        };
        for ch in 0..4 {
            if l.masks[ch] & (1 << lane) != 0 {
                group.regs[dst[ch] + lane] = texel[select[ch]];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texel_index_without_floor_is_the_same() {
        let mut values: Vec<f32> = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-40,
            -1e-40,
        ];
        for k in 0..4000 {
            let x = k as f32 / 7.0 - 100.0;
            values.extend([x, x.next_up(), x.next_down(), x * 1e6]);
        }
        for size in [
            1u32,
            2,
            3,
            16,
            255,
            256,
            4096,
            1 << 24,
            (1 << 24) + 1,
            u32::MAX,
        ] {
            for &v in &values {
                for sz in [size as f32, size as f32 - 1.0, (size as f32).next_down()] {
                    for u in [v, sz, sz.next_up()] {
                        for unscaled in [false, true] {
                            assert_eq!(
                                texel_index_fast(u, size, unscaled),
                                texel_index(u, size, unscaled),
                                "{u} {size} {unscaled}"
                            );
                        }
                    }
                }
            }
        }
    }
}
