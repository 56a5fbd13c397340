//! What a program uses: registers, constants, inputs, outputs, the
//! flow-control mode it needs and its nesting — the facts the ELF writer
//! turns into the CTM notes (CTM §4.1.4) and the static metrics count.

use std::collections::BTreeSet;

use crate::Program;
use crate::abi::Bindings;
use crate::isa::operand::Addressing;
use crate::isa::program_regs::FcMode;
use crate::isa::{AluSource, AluWrites, FcOp, Inst, TempAddr, TexOp};

use super::flow::Flow;
use super::reads::{alu_sources, jump_inputs, needs_full_mode, tex_reads_texture, tex_temp_reads};

/// What a program uses (all instructions, reachable or not).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Facts {
    /// Temporaries referenced (read or written); for an aL-relative
    /// address, its base register.
    pub temps: BTreeSet<u8>,
    /// Some temporary is addressed relative to aL.
    pub relative_temps: bool,
    /// Float constants read. An aL-relative read `c[N+aL]` counts N up to
    /// the end of the uniform binding that holds N (`mat4`: 4 constants,
    /// `[T; K]`: K), or up to c255 if no binding holds N.
    pub float_constants: BTreeSet<u8>,
    /// Integer (loop) constants read by LOOP/REP/ENDLOOP/ENDREP.
    pub int_constants: BTreeSet<u8>,
    /// Boolean constants read by a `JUMP_FUNC`.
    pub bool_constants: BTreeSet<u8>,
    /// CTM inputs (`TEX_ID`s) read by texture lookups.
    pub inputs: BTreeSet<u8>,
    /// CTM outputs written (render targets; output 0 for UMRT writes).
    pub outputs: BTreeSet<u8>,
    /// An OUTPUT instruction writes W (the conditional value).
    pub conditional_output: bool,
    /// The program can kill (TEXKILL): the early-exit note.
    pub early_exit: bool,
    /// The program performs uncached (UMRT) writes.
    pub uncached_writes: bool,
    /// The flow-control mode the program needs (CTM §3.5).
    pub fc_mode_needed: FcMode,
    /// Deepest nesting of conditional blocks.
    pub max_branch_depth: u32,
    /// Deepest loop nesting.
    pub max_loop_depth: u32,
    /// Deepest subroutine-call nesting.
    pub max_call_depth: u32,
}

impl Facts {
    /// The highest temporary referenced (what `US_PIXSIZE` must cover).
    pub fn max_temp(&self) -> Option<u8> {
        self.temps.last().copied()
    }
}

/// How many float constants a uniform of type `ty` occupies
/// (`docs/abi-x1k.md` §3).
pub(crate) fn constants_of(ty: &str) -> u32 {
    let ty = ty.trim();
    if ty == "mat4" {
        return 4;
    }
    if let Some(inner) = ty.strip_prefix('[').and_then(|t| t.strip_suffix(']'))
        && let Some((elem, count)) = inner.rsplit_once(';')
        && let Ok(count) = count.trim().parse::<u32>()
    {
        return count.saturating_mul(constants_of(elem));
    }
    1
}

/// The float constants an aL-relative read based at `base` may reach.
fn relative_range(bindings: &Bindings, base: u8) -> std::ops::RangeInclusive<u8> {
    let b = u32::from(base);
    for u in &bindings.uniforms {
        let start = u32::from(u.float_constant);
        let end = start + constants_of(&u.ty);
        if (start..end).contains(&b) {
            return base..=u8::try_from(end - 1).unwrap_or(u8::MAX);
        }
    }
    base..=u8::MAX
}

fn temp(facts: &mut Facts, t: TempAddr) {
    facts.temps.insert(t.reg.get() as u8);
    facts.relative_temps |= t.addressing == Addressing::LoopRelative;
}

/// Collect the facts of `p`, given its flow analysis.
pub(crate) fn collect(p: &Program, umrt: bool, flow: &Flow) -> Facts {
    let mut f = Facts {
        max_branch_depth: flow.max_branch_depth,
        max_loop_depth: flow.max_loop_depth,
        max_call_depth: flow.max_call_depth,
        ..Facts::default()
    };
    let mut full = flow.max_branch_depth > 4;
    for inst in &p.insts {
        match inst {
            Inst::Alu(a) => {
                for source in alu_sources(a) {
                    match source {
                        AluSource::Temp(t) => temp(&mut f, t),
                        AluSource::Const(c) => {
                            let base = c.reg.get() as u8;
                            if c.addressing == Addressing::LoopRelative {
                                f.float_constants.extend(relative_range(&p.bindings, base));
                            } else {
                                f.float_constants.insert(base);
                            }
                        }
                        AluSource::Inline(_) => {}
                    }
                }
                if !a.rgb.write_mask.is_empty() {
                    temp(&mut f, a.rgb.dest);
                }
                if a.alpha.write_mask.is_on() {
                    temp(&mut f, a.alpha.dest);
                }
                if let AluWrites::Output(o) = a.writes {
                    let rgb = !o.rgb_mask.is_empty();
                    let alpha = o.alpha_mask.is_on();
                    if umrt {
                        if rgb || alpha {
                            f.outputs.insert(0);
                            f.uncached_writes = true;
                        }
                    } else {
                        if rgb {
                            f.outputs.insert(o.rgb_target.code() as u8);
                        }
                        if alpha {
                            f.outputs.insert(o.alpha_target.code() as u8);
                        }
                    }
                    f.conditional_output |= o.w.is_on();
                }
            }
            Inst::Tex(t) => {
                if !tex_temp_reads(t).is_empty() {
                    temp(&mut f, t.src.addr);
                }
                if let TexOp::Dxdy { dx, dy } = t.op {
                    temp(&mut f, dx.addr);
                    temp(&mut f, dy.addr);
                }
                if tex_reads_texture(&t.op) {
                    f.inputs.insert(t.tex_id.get() as u8);
                    if !t.rgb_write_mask.is_empty() || t.alpha_write_mask.is_on() {
                        temp(&mut f, t.dst);
                    }
                }
                f.early_exit |= t.op == TexOp::TexKill;
            }
            Inst::Fc(fc) => {
                full |= needs_full_mode(fc);
                if matches!(fc.op, FcOp::Loop | FcOp::Rep | FcOp::EndLoop | FcOp::EndRep) {
                    f.int_constants.insert(fc.int_addr.get() as u8);
                }
                if jump_inputs(fc).boolean {
                    f.bool_constants.insert(fc.bool_addr.get() as u8);
                }
            }
        }
    }
    f.fc_mode_needed = if full { FcMode::Full } else { FcMode::Partial };
    f
}
