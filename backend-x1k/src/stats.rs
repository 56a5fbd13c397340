//! Static code metrics of an X1K program: what `ctmc --emit stats` prints
//! (`shared/spec/language.md` §9) — `instructions`, `alu`, `tex`, `fc`,
//! `coissued`, `temps`, `consts` — as one JSON object.

use serde::Serialize;

use crate::Program;
use crate::isa::{AlphaOp, AluInst, AluResultSel, AluWrites, Inst, RgbOp};
use crate::validate;

/// Static metrics of a program.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize)]
pub struct StaticMetrics {
    /// Instruction slots.
    pub instructions: usize,
    /// ALU and OUTPUT instructions.
    pub alu: usize,
    /// Texture instructions.
    pub tex: usize,
    /// Flow-control instructions.
    pub fc: usize,
    /// ALU/OUT instructions in which both the RGB and the alpha unit do
    /// work whose result is used (see [`coissued`]).
    pub coissued: usize,
    /// Temporary registers: the register frame, highest temporary used + 1
    /// (0 if none) — what `US_PIXSIZE` reserves per element.
    pub temps: usize,
    /// Distinct float constants read.
    pub consts: usize,
}

impl StaticMetrics {
    /// The JSON object of `--emit stats`, keys in the spec's order.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Whether the RGB unit's result is used: written to a temporary, an
/// output or predicate bits, the ALU result (red), or copied by alpha DP.
fn rgb_used(a: &AluInst) -> bool {
    let omask = match a.writes {
        AluWrites::Predicate(p) => !p.rgb_mask.is_empty(),
        AluWrites::Output(o) => !o.rgb_mask.is_empty(),
    };
    !a.rgb.write_mask.is_empty()
        || omask
        || a.alu_result.is_some_and(|r| r.sel == AluResultSel::Red)
        || a.alpha.op == AlphaOp::Dp
}

/// Whether the alpha unit's result is used: written to a temporary, an
/// output, W or a predicate bit, the ALU result (alpha), or copied by RGB
/// SOP.
fn alpha_used(a: &AluInst) -> bool {
    let omask = match a.writes {
        AluWrites::Predicate(p) => p.alpha_mask.is_on(),
        AluWrites::Output(o) => o.alpha_mask.is_on() || o.w.is_on(),
    };
    a.alpha.write_mask.is_on()
        || omask
        || a.alu_result.is_some_and(|r| r.sel == AluResultSel::Alpha)
        || a.rgb.op == RgbOp::Sop
}

/// Whether an ALU/OUT instruction uses both units meaningfully.
pub fn coissued(a: &AluInst) -> bool {
    rgb_used(a) && alpha_used(a)
}

/// The static metrics of `program`.
///
/// ```
/// use ctm_backend_x1k::{Program, abi::Bindings, isa, stats};
/// let insts = isa::parse_program(
///     "alu r1.rgb = mad(r0.rgb, c0.rgb, c1.rgb) ; r1.a = rcp(r0.a)
///      out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1 sem_wait",
/// ).unwrap();
/// let p = Program { insts, us_config: 0, us_pixsize: 1, us_fc_ctrl: 0, bindings: Bindings::default() };
/// let m = stats::static_metrics(&p);
/// assert_eq!(m.to_json(), r#"{"instructions":2,"alu":2,"tex":0,"fc":0,"coissued":1,"temps":2,"consts":2}"#);
/// ```
pub fn static_metrics(program: &Program) -> StaticMetrics {
    let facts = validate::facts(program);
    let mut m = StaticMetrics {
        instructions: program.insts.len(),
        temps: facts.max_temp().map_or(0, |t| usize::from(t) + 1),
        consts: facts.float_constants.len(),
        ..StaticMetrics::default()
    };
    for inst in &program.insts {
        match inst {
            Inst::Alu(a) => {
                m.alu += 1;
                m.coissued += usize::from(coissued(a));
            }
            Inst::Tex(_) => m.tex += 1,
            Inst::Fc(_) => m.fc += 1,
        }
    }
    m
}
