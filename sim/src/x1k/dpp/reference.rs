//! The reference engine ([`super::Engine::Reference`]): the straightforward
//! implementation of ALU/OUT instructions, kept as the yardstick of the
//! fast path in [`super::alu`]. Operands are assembled channel by channel
//! ([`super::sources`]), each lane of each channel goes through the scalar
//! rule functions of [`super::fp`] and [`super::transcendental`], and the
//! writes are made lane by lane. The equivalence tests run every program
//! through both engines and compare every bit.

use ctm_backend_x1k::isa::{AlphaOp, AluWrites, RgbOp};
use smallvec::SmallVec;

use super::alu::{Lanes, Scratch, check_presub_hazard};
use super::fault::{Access, FaultKind};
use super::fp;
use super::prepare::AluPlan;
use super::sources::{Sources, check_tex_ready, relative};
use super::state::{Group, LaneMask};
use super::transcendental::Eval;
use super::writes::{predicate_mask, write_alu_result, write_predicates, write_umrt};

/// Execute one ALU/OUT instruction for the group, lane by lane.
pub(crate) fn execute(
    group: &mut Group,
    plan: &AluPlan,
    consts: &[[f32; 4]],
    zero_times_anything: bool,
    scratch: &mut Scratch,
) -> Result<(), FaultKind> {
    let Scratch {
        srcp,
        rgb_in,
        alpha_in,
        dot,
        trans,
        rgb_out,
        alpha_out,
    } = scratch;
    let n = group.n;
    let inst = &plan.inst;
    let mut temp_reads = SmallVec::<[usize; 12]>::new();
    let sources = Sources::assemble(group, plan, consts, &mut temp_reads, srcp)?;
    for &idx in &temp_reads {
        let r = check_tex_ready(group, idx, Access::Read);
        group.hazard(r)?;
    }
    let r = check_presub_hazard(group, plan);
    group.hazard(r)?;

    // Inputs (CTM §3.3.3).
    let rgb_used_inputs = match inst.rgb.op {
        RgbOp::Sop => 0,
        RgbOp::Frc => 1,
        RgbOp::Dp3 | RgbOp::Dp4 | RgbOp::Min | RgbOp::Max => 2,
        _ => 3,
    };
    for (k, input) in inst.rgb.inputs.iter().enumerate().take(rgb_used_inputs) {
        for (i, lanes) in rgb_in[k].iter_mut().enumerate() {
            sources.rgb_input(group, input, i, &mut lanes[..n]);
        }
    }
    for (k, input) in inst.alpha.inputs.iter().enumerate() {
        sources.alpha_input(
            group,
            input.sel,
            input.swizzle,
            input.modifier,
            &mut alpha_in[k][..n],
        );
    }

    // The dot product and the transcendental are shared between the units
    // (RGB SOP, alpha DP; CTM §3.3.4).
    let is_dot = matches!(inst.rgb.op, RgbOp::Dp3 | RgbOp::Dp4 | RgbOp::D2a);
    if is_dot {
        let [a, b, c] = &*rgb_in;
        for (l, d) in dot[..n].iter_mut().enumerate() {
            let p = |x: f32, y: f32| fp::product(x, y, zero_times_anything);
            *d = match inst.rgb.op {
                RgbOp::Dp3 => fp::dot_sum(&[
                    p(a[0][l], b[0][l]),
                    p(a[1][l], b[1][l]),
                    p(a[2][l], b[2][l]),
                ]),
                // DP4's fourth component comes from the alpha inputs A and B.
                RgbOp::Dp4 => fp::dot_sum(&[
                    p(a[0][l], b[0][l]),
                    p(a[1][l], b[1][l]),
                    p(a[2][l], b[2][l]),
                    p(alpha_in[0][l], alpha_in[1][l]),
                ]),
                _ => fp::dot_sum(&[
                    p(a[0][l], b[0][l]),
                    p(a[1][l], b[1][l]),
                    f64::from(fp::flush(c[2][l])),
                ]),
            };
        }
    }
    if let Some(t) = plan.transcendental {
        for (out, a) in trans[..n].iter_mut().zip(&alpha_in[0][..n]) {
            *out = t.eval(*a);
        }
    }

    // RGB operation + output modifier + clamp.
    let rgb_scale = plan.rgb_scale;
    let rgb_s = rgb_scale.unwrap_or(1.0);
    let rgb_clamp = inst.rgb.clamp;
    for (c, out) in rgb_out.iter_mut().enumerate() {
        let (a, b, cc) = (&rgb_in[0][c], &rgb_in[1][c], &rgb_in[2][c]);
        let out = &mut out[..n];
        match inst.rgb.op {
            RgbOp::Mad | RgbOp::Mdh | RgbOp::Mdv => {
                for (l, o) in out.iter_mut().enumerate() {
                    *o = fp::finish(
                        fp::mad(a[l], b[l], cc[l], zero_times_anything),
                        rgb_s,
                        rgb_clamp,
                    );
                }
            }
            RgbOp::Dp3 | RgbOp::Dp4 | RgbOp::D2a => {
                for (o, d) in out.iter_mut().zip(&dot[..n]) {
                    *o = fp::finish(*d, rgb_s, rgb_clamp);
                }
            }
            RgbOp::Min => select(out, a, b, cc, fp_min, rgb_scale, rgb_clamp),
            RgbOp::Max => select(out, a, b, cc, fp_max, rgb_scale, rgb_clamp),
            RgbOp::Cnd => select(out, a, b, cc, fp::cnd, rgb_scale, rgb_clamp),
            RgbOp::Cmp => select(out, a, b, cc, fp::cmp, rgb_scale, rgb_clamp),
            RgbOp::Frc => {
                for (o, x) in out.iter_mut().zip(&a[..n]) {
                    *o = fp::finish(fp::frc(*x), rgb_s, rgb_clamp);
                }
            }
            RgbOp::Sop => {
                for (o, t) in out.iter_mut().zip(&trans[..n]) {
                    *o = fp::finish(f64::from(*t), rgb_s, rgb_clamp);
                }
            }
        }
    }

    // Alpha operation.
    {
        let alpha_scale = plan.alpha_scale;
        let s = alpha_scale.unwrap_or(1.0);
        let clamp = inst.alpha.clamp;
        let [a, b, c] = &*alpha_in;
        let out = &mut alpha_out[..n];
        match inst.alpha.op {
            AlphaOp::Mad | AlphaOp::Mdh | AlphaOp::Mdv => {
                for (l, o) in out.iter_mut().enumerate() {
                    *o = fp::finish(fp::mad(a[l], b[l], c[l], zero_times_anything), s, clamp);
                }
            }
            AlphaOp::Dp => {
                for (o, d) in out.iter_mut().zip(&dot[..n]) {
                    *o = fp::finish(*d, s, clamp);
                }
            }
            AlphaOp::Min => select(out, a, b, c, fp_min, alpha_scale, clamp),
            AlphaOp::Max => select(out, a, b, c, fp_max, alpha_scale, clamp),
            AlphaOp::Cnd => select(out, a, b, c, fp::cnd, alpha_scale, clamp),
            AlphaOp::Cmp => select(out, a, b, c, fp::cmp, alpha_scale, clamp),
            AlphaOp::Frc => {
                for (o, x) in out.iter_mut().zip(&a[..n]) {
                    *o = fp::finish(fp::frc(*x), s, clamp);
                }
            }
            AlphaOp::Ex2
            | AlphaOp::Ln2
            | AlphaOp::Rcp
            | AlphaOp::Rsq
            | AlphaOp::Sin
            | AlphaOp::Cos => {
                for (o, t) in out.iter_mut().zip(&trans[..n]) {
                    *o = fp::finish(f64::from(*t), s, clamp);
                }
            }
        }
    }

    write_results(group, plan, rgb_out, alpha_out)
}

fn fp_min(a: f32, b: f32, _c: f32) -> f32 {
    fp::min(a, b)
}

fn fp_max(a: f32, b: f32, _c: f32) -> f32 {
    fp::max(a, b)
}

/// A MIN/MAX/CND/CMP over the lanes, finished bit-exactly or through the
/// output modifier (CTM §3.3.5).
#[inline(always)]
fn select(
    out: &mut [f32],
    a: &Lanes,
    b: &Lanes,
    c: &Lanes,
    f: fn(f32, f32, f32) -> f32,
    scale: Option<f64>,
    clamp: bool,
) {
    for (l, o) in out.iter_mut().enumerate() {
        *o = fp::finish_select(f(a[l], b[l], c[l]), scale, clamp);
    }
}

/// Write the results: temporaries, predicates or outputs, the ALU result.
fn write_results(
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
                store(
                    group,
                    reg,
                    c,
                    writers & predicate_mask(group, inst.rgb.predicate, c),
                    &lanes[..n],
                )?;
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
        store(
            group,
            reg,
            3,
            writers & predicate_mask(group, inst.alpha.predicate, 3),
            &alpha_out[..n],
        )?;
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
            for lane in 0..n {
                let bit = 1u64 << lane;
                if writers & bit == 0 {
                    continue;
                }
                if cached && !o.rgb_mask.is_empty() {
                    let t = o.rgb_target.code() as usize;
                    for (c, lanes) in rgb_out.iter().enumerate() {
                        if o.rgb_mask.has(c)
                            && predicate_mask(group, inst.rgb.predicate, c) & bit != 0
                        {
                            group.outputs[lane].values[t][c] = lanes[lane];
                            group.outputs[lane].masks[t] |= 1 << c;
                        }
                    }
                }
                let alpha_pass = predicate_mask(group, inst.alpha.predicate, 3) & bit != 0;
                if cached && o.alpha_mask.is_on() && alpha_pass {
                    let t = o.alpha_target.code() as usize;
                    group.outputs[lane].values[t][3] = alpha_out[lane];
                    group.outputs[lane].masks[t] |= 8;
                }
                if o.w.is_on() && alpha_pass {
                    group.outputs[lane].conditional = Some(alpha_out[lane]);
                }
            }
        }
    }

    write_alu_result(group, plan, writers, rgb_out, alpha_out);
    Ok(())
}

/// Store `values` into channel `ch` of `reg` for the processors in `mask`.
#[inline]
fn store(
    group: &mut Group,
    reg: usize,
    ch: usize,
    mask: LaneMask,
    values: &[f32],
) -> Result<(), FaultKind> {
    let idx = reg * 4 + ch;
    let r = check_tex_ready(group, idx, Access::Write);
    group.hazard(r)?;
    group.sync.mark_alu_dirty(idx);
    let off = group.offset(reg, ch);
    let dst = &mut group.regs[off..off + values.len()];
    if mask & group.present == group.present {
        dst.copy_from_slice(values);
    } else {
        for (l, (d, v)) in dst.iter_mut().zip(values).enumerate() {
            if mask & (1 << l) != 0 {
                *d = *v;
            }
        }
    }
    Ok(())
}
