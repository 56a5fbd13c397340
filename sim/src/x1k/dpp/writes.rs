//! The writes of an ALU/OUT instruction (CTM §3.3.6–§3.3.10), fast
//! engine: temporaries (write masks, predication, aL-relative
//! destination, the denormal bits of [`Group::denormal`]), predicate bits,
//! the ALU result, cached render targets, UMRT writes and the `W_OMASK`
//! conditional value. Lane masks are computed once per channel, not per
//! lane.

use ctm_backend_x1k::isa::{
    AluResultSel, AluWrites, PredSel, Predicate, PredicateWrites, UmrtTarget,
};

use super::alu::Lanes;
use super::fault::{Access, FaultKind};
use super::fp;
use super::lanes;
use super::prepare::AluPlan;
use super::sources::{check_tex_ready, relative};
use super::state::{Group, LaneMask};
use crate::x1k::interface::UmrtWrite;

/// The processors whose channel `ch` passes predicate `p` (CTM §3.3.6):
/// NONE passes all; RGBA uses bit `ch` (bit A for the alpha unit); the
/// replicate selects use one bit; INV inverts.
#[inline]
pub(crate) fn predicate_mask(group: &Group, p: Option<Predicate>, ch: usize) -> LaneMask {
    match p {
        None => LaneMask::MAX,
        Some(p) => {
            let bit = match p.sel {
                PredSel::Rgba => ch,
                PredSel::Rrrr => 0,
                PredSel::Gggg => 1,
                PredSel::Bbbb => 2,
                PredSel::Aaaa => 3,
            };
            let m = group.pred[bit];
            if p.invert { !m } else { m }
        }
    }
}

/// The predicate bits predicate `p` reads for channels `channels` (bit mask).
pub(crate) fn predicate_bits(p: Option<Predicate>, channels: u8) -> u8 {
    match p {
        None => 0,
        Some(p) => match p.sel {
            PredSel::Rgba => channels,
            PredSel::Rrrr => 1,
            PredSel::Gggg => 2,
            PredSel::Bbbb => 4,
            PredSel::Aaaa => 8,
        },
    }
}

/// Write the results: temporaries, predicates or outputs, the ALU result.
pub(crate) fn write_results(
    group: &mut Group,
    plan: &AluPlan,
    rgb_out: &[Lanes; 3],
    alpha_out: &Lanes,
) -> Result<(), FaultKind> {
    let n = group.n;
    let inst = &plan.inst;
    // CTM §3.3.6 WRITE_INACTIVE: ignore the flow-control mask when writing.
    let writers = if inst.write_inactive {
        group.present
    } else {
        group.exec()
    };
    let mut prev_writes = [(0u32, 0u8); 2];
    // Only a select op with OMOD_DISABLED returns unflushed bits.
    let rgb_raw = plan.rgb_scale.is_none();
    let alpha_raw = plan.alpha_scale.is_none();

    // Temporaries (CTM §3.3.7): predicated by the *old* predicate bits
    // (CTM §3.3.9), so before any predicate update.
    if !inst.rgb.write_mask.is_empty() {
        let reg = relative(
            group,
            inst.rgb.dest.reg.get(),
            inst.rgb.dest.addressing,
            127,
        )?;
        let reg = group.check_temp(reg)?;
        for (c, lanes) in rgb_out.iter().enumerate() {
            if inst.rgb.write_mask.has(c) {
                let mask = writers & predicate_mask(group, inst.rgb.predicate, c);
                store(group, reg, c, mask, &lanes[..n], rgb_raw)?;
            }
        }
        prev_writes[0] = (reg as u32, inst.rgb.write_mask.bits() as u8);
    }
    if inst.alpha.write_mask.is_on() {
        let reg = relative(
            group,
            inst.alpha.dest.reg.get(),
            inst.alpha.dest.addressing,
            127,
        )?;
        let reg = group.check_temp(reg)?;
        let mask = writers & predicate_mask(group, inst.alpha.predicate, 3);
        store(group, reg, 3, mask, &alpha_out[..n], alpha_raw)?;
        prev_writes[1] = (reg as u32, 8);
    }
    group.sync.prev_alu_writes = if inst.nop { [(0, 0); 2] } else { prev_writes };

    match &inst.writes {
        AluWrites::Predicate(p) => write_predicates(group, p, writers, rgb_out, alpha_out),
        AluWrites::Output(o) => {
            if let Some(kind) = plan.umrt {
                write_umrt(group, plan, kind, writers, rgb_out, alpha_out)?;
            }
            // A UMRT program has no cached targets (CTM §3.3.8).
            let cached = !plan.uncached;
            let alpha_pass = writers & predicate_mask(group, inst.alpha.predicate, 3);
            if cached {
                let t = o.rgb_target.code() as usize & 3;
                for (c, lanes) in rgb_out.iter().enumerate() {
                    if o.rgb_mask.has(c) {
                        let mask = writers & predicate_mask(group, inst.rgb.predicate, c);
                        for lane in set_lanes(mask, n) {
                            let out = &mut group.outputs[lane];
                            out.values[t][c] = lanes[lane];
                            out.masks[t] |= 1 << c;
                        }
                    }
                }
                if o.alpha_mask.is_on() {
                    let t = o.alpha_target.code() as usize & 3;
                    for lane in set_lanes(alpha_pass, n) {
                        let out = &mut group.outputs[lane];
                        out.values[t][3] = alpha_out[lane];
                        out.masks[t] |= 8;
                    }
                }
            }
            if o.w.is_on() {
                for lane in set_lanes(alpha_pass, n) {
                    group.outputs[lane].conditional = Some(alpha_out[lane]);
                }
            }
        }
    }

    write_alu_result(group, plan, writers, rgb_out, alpha_out);
    Ok(())
}

/// The ALU result (CTM §3.3.10): the compare of the selected unit's result
/// for the processors in `writers`; marks it for `ALU_WAIT`.
pub(crate) fn write_alu_result(
    group: &mut Group,
    plan: &AluPlan,
    writers: LaneMask,
    rgb_out: &[Lanes; 3],
    alpha_out: &Lanes,
) {
    let Some(r) = plan.inst.alu_result else {
        return;
    };
    let n = group.n;
    let lanes = match r.sel {
        AluResultSel::Red => &rgb_out[0][..n],
        AluResultSel::Alpha => &alpha_out[..n],
    };
    let bits = compare_mask(lanes, r.op);
    group.alu_result = (group.alu_result & !writers) | (bits & writers);
    group.alu_result_valid = true;
    // Bit 4 of `pred_dirty` tracks the ALU result for `ALU_WAIT`.
    group.sync.pred_dirty |= 0x10;
}

/// The lanes below `n` whose bit is set in `mask`, in order.
fn set_lanes(mask: LaneMask, n: usize) -> impl Iterator<Item = usize> {
    let mut m = if n >= 64 { mask } else { mask & ((1 << n) - 1) };
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

/// Predicate writes (CTM §3.3.9): not predicated themselves; the results
/// are compared after clamp, for the processors in `writers`.
pub(crate) fn write_predicates(
    group: &mut Group,
    p: &PredicateWrites,
    writers: LaneMask,
    rgb_out: &[Lanes; 3],
    alpha_out: &Lanes,
) {
    let n = group.n;
    for (c, lanes) in rgb_out.iter().enumerate() {
        if p.rgb_mask.has(c) {
            let bits = compare_mask(&lanes[..n], p.rgb_op);
            group.pred[c] = (group.pred[c] & !writers) | (bits & writers);
            group.sync.pred_dirty |= 1 << c;
        }
    }
    if p.alpha_mask.is_on() {
        let bits = compare_mask(&alpha_out[..n], p.alpha_op);
        group.pred[3] = (group.pred[3] & !writers) | (bits & writers);
        group.sync.pred_dirty |= 8;
    }
}

/// UMRT writes (CTM §3.3.8): R = value, G = x, B = y, A must be 0.
pub(crate) fn write_umrt(
    group: &mut Group,
    plan: &AluPlan,
    kind: UmrtTarget,
    writers: LaneMask,
    rgb_out: &[Lanes; 3],
    alpha_out: &Lanes,
) -> Result<(), FaultKind> {
    let inst = &plan.inst;
    let mask = writers & group.covered & predicate_mask(group, inst.rgb.predicate, 0);
    for lane in set_lanes(mask, group.n) {
        if fp::flush(alpha_out[lane]) != 0.0 {
            return Err(FaultKind::UmrtAlphaNotZero {
                value: alpha_out[lane],
            });
        }
        group.umrt[lane].push(UmrtWrite {
            target: kind.target().code() as u8,
            x: rgb_out[1][lane],
            y: rgb_out[2][lane],
            value: rgb_out[0][lane],
        });
        group.profile.counters.umrt_writes += 1;
    }
    Ok(())
}

/// One bit per lane: `compare(x, op)` (CTM §3.6.1 table).
#[inline]
pub(crate) fn compare_mask(lanes: &[f32], op: ctm_backend_x1k::isa::CompareOp) -> LaneMask {
    lanes.iter().enumerate().fold(
        0,
        |m, (l, x)| if fp::compare(*x, op) { m | (1 << l) } else { m },
    )
}

/// Store `values` into channel `ch` of `reg` for the processors in `mask`,
/// keeping the channel's denormal bit: `raw` values (a select op's
/// unflushed bits) may be denormal, any other result is flushed.
#[inline]
fn store(
    group: &mut Group,
    reg: usize,
    ch: usize,
    mask: LaneMask,
    values: &[f32],
    raw: bool,
) -> Result<(), FaultKind> {
    let idx = reg * 4 + ch;
    if group.sync.tex_seq > group.sync.tex_done {
        let r = check_tex_ready(group, idx, Access::Write);
        group.hazard(r)?;
    }
    group.sync.mark_alu_dirty(idx);
    let off = group.offset(reg, ch);
    let full = mask & group.present == group.present;
    let was_denormal = group.may_be_denormal(idx);
    let dst = &mut group.regs[off..off + values.len()];
    if full {
        dst.copy_from_slice(values);
    } else {
        lanes::masked_store(dst, values, mask);
    }
    let denormal = if raw && lanes::any_denormal(values) {
        true
    } else if full {
        false
    } else {
        was_denormal && lanes::any_denormal(dst)
    };
    group.set_denormal(idx, denormal);
    Ok(())
}
