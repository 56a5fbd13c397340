//! ALU and OUTPUT instructions over a whole group (CTM §3.3), the fast
//! engine: the RGB and alpha operations, output modifiers and clamp
//! (operands in [`super::operands`], writes in [`super::writes`]).
//!
//! How it is fast without changing a result (the reference it must match
//! bit for bit is [`super::reference`]):
//!
//! * what each unit computes and where every input channel comes from are
//!   decided at preparation ([`super::operands::FastAlu`]); each source address is resolved
//!   once per instruction, in the reference's order (so the same fault
//!   wins), and the texture-hazard checks are skipped when no lookup is
//!   outstanding (none can fail);
//! * an unmodified temporary is read in place, not copied; a constant is
//!   one value for the MAD kernel, built into scratch lanes for the others;
//! * only the result channels something reads are computed
//!   (`AluPlan::rgb_out_need`), a dot product or transcendental once;
//! * the arithmetic runs in the vectorised kernels of [`super::lanes`].

use ctm_backend_x1k::isa::AluSource;

use super::Engine;
use super::fault::{Access, FaultKind};
use super::lanes::{self, DotInputs, DotOp, In};
use super::operands::{
    AlphaKind, BoundAlu, Operand, RgbKind, View, presub_operand, resolve_sources,
};
use super::prepare::AluPlan;
use super::sources::{check_tex_ready, relative};
use super::state::{Group, MAX_GROUP_SIZE};
use super::writes::write_results;

/// One value per processor of a group.
pub(crate) type Lanes = [f32; MAX_GROUP_SIZE];

/// Zero lanes, for inputs an operation does not read.
static ZEROS: Lanes = [0.0; MAX_GROUP_SIZE];

/// Per-group scratch buffers of the ALU, reused by every instruction
/// (allocated once per group, never zeroed between instructions: every
/// buffer is written for the lanes read).
#[derive(Clone, Debug)]
pub(crate) struct Scratch {
    /// The presubtract vector.
    pub srcp: [Lanes; 4],
    /// RGB inputs A, B, C, channels R, G, B.
    pub rgb_in: [[Lanes; 3]; 3],
    /// Alpha inputs A, B, C.
    pub alpha_in: [Lanes; 3],
    /// The dot product.
    pub dot: [f64; MAX_GROUP_SIZE],
    /// The transcendental.
    pub trans: Lanes,
    /// RGB results.
    pub rgb_out: [Lanes; 3],
    /// Alpha results.
    pub alpha_out: Lanes,
}

impl Scratch {
    /// Zeroed buffers.
    pub fn new() -> Box<Self> {
        Box::new(Scratch {
            srcp: [[0.0; MAX_GROUP_SIZE]; 4],
            rgb_in: [[[0.0; MAX_GROUP_SIZE]; 3]; 3],
            alpha_in: [[0.0; MAX_GROUP_SIZE]; 3],
            dot: [0.0; MAX_GROUP_SIZE],
            trans: [0.0; MAX_GROUP_SIZE],
            rgb_out: [[0.0; MAX_GROUP_SIZE]; 3],
            alpha_out: [0.0; MAX_GROUP_SIZE],
        })
    }
}

/// Execute one ALU/OUT instruction for the group with `engine`.
///
/// `bound` is the instruction's operands bound once for the run, if its
/// sources are all absolute ([`BoundAlu::bind_static`]).
pub(crate) fn execute(
    group: &mut Group,
    plan: &AluPlan,
    bound: Option<&BoundAlu>,
    consts: &[[f32; 4]],
    zero_times_anything: bool,
    engine: Engine,
) -> Result<(), FaultKind> {
    let mut scratch = group.scratch.take().unwrap_or_else(Scratch::new);
    let result = match engine {
        Engine::Fast => execute_fast(
            group,
            plan,
            bound,
            consts,
            zero_times_anything,
            &mut scratch,
        ),
        Engine::Reference => {
            super::reference::execute(group, plan, consts, zero_times_anything, &mut scratch)
        }
    };
    group.scratch = Some(scratch);
    result
}

fn execute_fast(
    group: &mut Group,
    plan: &AluPlan,
    bound: Option<&BoundAlu>,
    consts: &[[f32; 4]],
    zta: bool,
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

    // Operands and the hazards on reading them, in the reference's order.
    let mut relative = None;
    let bound = match bound {
        Some(b) => b,
        None => &*relative.insert(bind_relative(group, plan, consts)?).1,
    };
    let refs = &bound.refs;
    if group.sync.tex_seq > group.sync.tex_done {
        for (k, row) in refs.iter().enumerate() {
            for (ch, r) in row.iter().enumerate() {
                if plan.src_need[k] & (1 << ch) != 0
                    && let Operand::Reg(idx) = *r
                {
                    let r = check_tex_ready(group, idx, Access::Read);
                    group.hazard(r)?;
                }
            }
        }
    }
    let r = check_presub_hazard(group, plan);
    group.hazard(r)?;

    let fast = &plan.fast;
    let regs = &group.regs[..];
    // The presubtract vector (from src0/src1, never srcp itself).
    for (ch, out) in srcp.iter_mut().enumerate() {
        if plan.srcp_need & (1 << ch) == 0 {
            continue;
        }
        let op = if ch < 3 {
            inst.rgb.presub
        } else {
            inst.alpha.presub
        };
        let [b0, b1, _] = &mut rgb_in[0];
        let s0 = presub_operand(regs, n, refs[0][ch], b0);
        let s1 = presub_operand(regs, n, refs[1][ch], b1);
        lanes::presub(&mut out[..n], op, s0, s1);
    }
    let view = View {
        regs,
        denormal: &group.denormal,
        srcp: &*srcp,
        n,
    };

    // Inputs (CTM §3.3.3): flushed for the arithmetic kernels, constants
    // as one value for MAD.
    let (rgb_flushed, rgb_splat) = match fast.rgb {
        RgbKind::Mad => (true, true),
        RgbKind::Dot => (true, false),
        _ => (false, false),
    };
    let alpha_mad = fast.alpha == AlphaKind::Mad;
    let zeros = In::Lanes(&ZEROS[..n]);
    let mut a_in: [[In<'_>; 3]; 3] = [[zeros; 3]; 3];
    for (k, (row, bufs)) in a_in.iter_mut().zip(rgb_in.iter_mut()).enumerate() {
        for (i, (slot, buf)) in row.iter_mut().zip(bufs.iter_mut()).enumerate() {
            if let Some(b) = bound.rgb_inputs[k][i] {
                // Input A of MAD always as lanes (B and C may be uniform).
                *slot = view.input(b, rgb_flushed, !(rgb_splat && k > 0), buf);
            }
        }
    }
    // DP4's fourth term reads the alpha inputs A and B as lanes.
    let dp4 = fast.dot == Some(DotOp::Dp4) && fast.dot_needed;
    let mut al_in: [In<'_>; 3] = [zeros; 3];
    for (k, (slot, buf)) in al_in.iter_mut().zip(alpha_in.iter_mut()).enumerate() {
        if let Some(b) = bound.alpha_inputs[k] {
            let materialize = !(alpha_mad && k > 0) || (dp4 && k < 2);
            *slot = view.input(b, alpha_mad, materialize, buf);
        }
    }

    // Shared between the units: the dot product and the transcendental.
    let dot = &mut dot[..n];
    if let (Some(op), true) = (fast.dot, fast.dot_needed) {
        let inputs = DotInputs {
            a: std::array::from_fn(|i| lanes_or_zeros(a_in[0][i], n)),
            b: std::array::from_fn(|i| lanes_or_zeros(a_in[1][i], n)),
            alpha: [lanes_or_zeros(al_in[0], n), lanes_or_zeros(al_in[1], n)],
            c: lanes_or_zeros(a_in[2][2], n),
        };
        lanes::dot(dot, op, &inputs, zta);
    }
    let trans = &mut trans[..n];
    if let (Some(t), true) = (plan.transcendental, fast.trans_needed) {
        lanes::transcendental(trans, t, lanes_or_zeros(al_in[0], n));
    }

    // RGB operation + output modifier + clamp, needed channels only.
    let rgb_s = plan.rgb_scale.unwrap_or(1.0);
    let clamp = inst.rgb.clamp;
    let mut first: Option<usize> = None;
    #[allow(clippy::needless_range_loop)] // `c` indexes the inputs' channels
    for c in 0..3 {
        if plan.rgb_out_need & (1 << c) == 0 {
            continue;
        }
        let [a, b, cc] = [a_in[0][c], a_in[1][c], a_in[2][c]];
        let (out, done) = split_channel(rgb_out, c, first);
        let out = &mut out[..n];
        match (fast.rgb, done) {
            (RgbKind::Dot | RgbKind::Sop, Some(done)) => out.copy_from_slice(&done[..n]),
            (RgbKind::Dot, None) => lanes::finish_f64(out, dot, rgb_s, clamp),
            (RgbKind::Sop, None) => lanes::finish_f32(out, trans, rgb_s, clamp),
            (RgbKind::Mad, _) => lanes::mad(out, lanes_or_zeros(a, n), b, cc, rgb_s, clamp, zta),
            (RgbKind::Frc, _) => lanes::frc(out, lanes_or_zeros(a, n), rgb_s, clamp),
            (RgbKind::Select(op), _) => lanes::select(
                out,
                op,
                lanes_or_zeros(a, n),
                lanes_or_zeros(b, n),
                lanes_or_zeros(cc, n),
                plan.rgb_scale,
                clamp,
            ),
        }
        first = first.or(Some(c));
    }

    // Alpha operation.
    if plan.alpha_out_need {
        let s = plan.alpha_scale.unwrap_or(1.0);
        let clamp = inst.alpha.clamp;
        let out = &mut alpha_out[..n];
        let [a, b, c] = al_in;
        match fast.alpha {
            AlphaKind::Mad => lanes::mad(out, lanes_or_zeros(a, n), b, c, s, clamp, zta),
            AlphaKind::Dp => lanes::finish_f64(out, dot, s, clamp),
            AlphaKind::Select(op) => lanes::select(
                out,
                op,
                lanes_or_zeros(a, n),
                lanes_or_zeros(b, n),
                lanes_or_zeros(c, n),
                plan.alpha_scale,
                clamp,
            ),
            AlphaKind::Frc => lanes::frc(out, lanes_or_zeros(a, n), s, clamp),
            AlphaKind::Transcendental => lanes::finish_f32(out, trans, s, clamp),
        }
    }

    let r = write_results(group, plan, rgb_out, alpha_out);
    if let Some((Some(al), b)) = relative {
        let slot = usize::from(group.slot);
        group.relative_bound.put(slot, al, b);
    }
    r
}

/// The operands of an instruction whose sources are not all absolute,
/// bound for the current aL (`None` outside loops): kept from an earlier
/// execution for the same aL (taken from [`Group::relative_bound`]; the
/// caller puts it back), else bound afresh.
fn bind_relative(
    group: &mut Group,
    plan: &AluPlan,
    consts: &[[f32; 4]],
) -> Result<(Option<i32>, Box<BoundAlu>), FaultKind> {
    let al = group.al().ok();
    if let Some(al) = al
        && let Some(b) = group.relative_bound.take(usize::from(group.slot), al)
    {
        return Ok((Some(al), b));
    }
    let b = BoundAlu::bind(resolve_sources(group, plan, consts)?, &plan.fast);
    Ok((al, Box::new(b)))
}

/// The lanes of a materialised input (a uniform one, which the callers
/// never ask for, reads as zeros).
fn lanes_or_zeros<'a>(i: In<'a>, n: usize) -> &'a [f32] {
    match i {
        In::Lanes(s) => s,
        In::Splat(_) => &ZEROS[..n],
    }
}

/// Channel `c` of `out` to write, and channel `first` (already computed)
/// to read, if any.
fn split_channel(
    out: &mut [Lanes; 3],
    c: usize,
    first: Option<usize>,
) -> (&mut Lanes, Option<&Lanes>) {
    match first {
        Some(f) if f < c => {
            let (lo, hi) = out.split_at_mut(c);
            (&mut hi[0], Some(&lo[f]))
        }
        _ => (&mut out[c], None),
    }
}

/// The NOP rule of CTM §3.3.2: a presubtract operand written by the
/// immediately preceding ALU/OUT instruction needs `NOP` on that instruction.
pub(crate) fn check_presub_hazard(group: &Group, plan: &AluPlan) -> Result<(), FaultKind> {
    if plan.srcp_need == 0 {
        return Ok(());
    }
    for (k, &need) in plan.presub_need.iter().enumerate() {
        for ch in 0..4 {
            if need & (1 << ch) == 0 {
                continue;
            }
            let src = if ch < 3 {
                plan.inst.rgb.sources[k]
            } else {
                plan.inst.alpha.sources[k]
            };
            if let AluSource::Temp(t) = src {
                let reg = relative(group, t.reg.get(), t.addressing, 127)?;
                for &(wreg, wmask) in &group.sync.prev_alu_writes {
                    if wmask & (1 << ch) != 0 && wreg == reg {
                        return Err(FaultKind::MissingNop {
                            reg: reg as u8,
                            channel: ch as u8,
                        });
                    }
                }
            }
        }
    }
    Ok(())
}
