//! Decode once: the program's ALU clauses flattened into [`PGroup`]s of
//! [`PSlot`]s with operands resolved (literals and inline constants to
//! values, units assigned by the manual's algorithm, digest R3), and every
//! group that breaks a hardware rule marked with the validator's
//! violation, so executing it faults (`docs/sim-r700.md` §2.4).

use std::collections::BTreeMap;

use ctm_backend_r700::isa::{
    AluForm, AluGroup, AluSrcSel, CfInst, Clause, FetchClause, IndexMode, Omod, Op2, Op3, PredSel,
    PreferVector, Program, Unit, VtxClauseInst, VtxDst, assign_units,
};
use ctm_backend_r700::validate::{self, Loc, Rule};
use smallvec::SmallVec;

use super::Config;

/// An ALU opcode of either encoding.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    /// OP2.
    O2(Op2),
    /// OP3.
    O3(Op3),
}

impl Op {
    /// The manual mnemonic.
    pub const fn mnemonic(self) -> &'static str {
        match self {
            Op::O2(o) => o.mnemonic(),
            Op::O3(o) => o.mnemonic(),
        }
    }
}

/// A resolved source operand.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PSrc {
    /// GPR element (`rel`: add the INDEX_MODE index).
    Gpr {
        /// Address.
        gpr: u8,
        /// Element.
        chan: u8,
        /// Relative.
        rel: bool,
    },
    /// Kcache set `set`, constant `idx`.
    Kc {
        /// 0 or 1.
        set: u8,
        /// Index within the locked lines.
        idx: u8,
        /// Element.
        chan: u8,
        /// Relative (loop index).
        rel: bool,
    },
    /// Constant file entry.
    Cfile {
        /// Index.
        idx: u8,
        /// Element.
        chan: u8,
        /// Relative.
        rel: bool,
    },
    /// A literal or inline constant.
    Const(u32),
    /// PV element.
    Pv(u8),
    /// PS.
    Ps,
}

/// One prepared ALU instruction.
#[derive(Clone, Copy, Debug)]
pub struct PSlot {
    /// Opcode.
    pub op: Op,
    /// Runs on ALU.Trans (else on the vector unit `unit_chan`).
    pub trans: bool,
    /// The vector unit's element.
    pub unit_chan: u8,
    /// Sources (only `nsrc` are read).
    pub src: [PSrc; 3],
    /// Sources the opcode reads.
    pub nsrc: u8,
    /// ABS per source.
    pub abs: [bool; 3],
    /// NEG per source.
    pub neg: [bool; 3],
    /// DST_GPR.
    pub dst_gpr: u8,
    /// DST_REL.
    pub dst_rel: bool,
    /// DST_ELEM.
    pub dst_chan: u8,
    /// Writes the GPR (WRITE_MASK, always for OP3).
    pub write: bool,
    /// CLAMP.
    pub clamp: bool,
    /// OMOD.
    pub omod: Omod,
    /// INDEX_MODE.
    pub index_mode: IndexMode,
    /// PRED_SEL.
    pub pred_sel: PredSel,
    /// UPDATE_PRED.
    pub update_pred: bool,
    /// UPDATE_EXECUTE_MASK.
    pub update_exec: bool,
}

/// A prepared instruction group.
#[derive(Clone, Debug, Default)]
pub struct PGroup {
    /// The instructions.
    pub slots: SmallVec<[PSlot; 5]>,
    /// The first broken hardware rule: rule, detail, slot.
    pub illegal: Option<(Rule, String, Option<u32>)>,
    /// Whether any slot uses relative addressing (slow path).
    pub relative: bool,
}

/// A prepared ALU clause.
#[derive(Clone, Debug, Default)]
pub struct PClause {
    /// Its groups.
    pub groups: Vec<PGroup>,
    /// Its `PRED_SET*` instructions (`AluClause::pred_set_count`, what
    /// `CfAluOp::pushes` needs).
    pub pred_sets: usize,
}

/// The prepared program.
#[derive(Clone, Debug, Default)]
pub struct Prepared {
    /// The CF program.
    pub cf: Vec<CfInst>,
    /// ALU clauses by address.
    pub alu: BTreeMap<u32, PClause>,
    /// Fetch clauses by address.
    pub fetch: BTreeMap<u32, FetchClause>,
    /// Highest GPR named anywhere, plus one.
    pub gprs_used: u32,
}

/// Rules the validator checks per group that the simulator enforces at
/// run time. Left out: the flow-dependent aL rule (checked dynamically:
/// aL outside a loop reads 0) and the adjacent-group aliasing hazard,
/// which the hardware executes with a defined (if surprising) result.
fn enforced(rule: Rule) -> bool {
    !matches!(
        rule,
        Rule::LoopIndexOutsideLoop | Rule::AdjacentRelativeHazard
    )
}

/// Prepare `program`.
pub fn prepare(program: &Program, _config: &Config) -> Prepared {
    let mut illegal: BTreeMap<(u32, usize), (Rule, String, Option<u32>)> = BTreeMap::new();
    let vconfig = validate::Config {
        fetch_clause_limit: 16,
        stack_size: 64,
        ..validate::Config::default()
    };
    if let Err(violations) = validate::validate_with(program, &vconfig) {
        for v in violations {
            if let Loc::Alu {
                clause,
                group,
                slot,
            } = v.loc
                && enforced(v.rule)
            {
                illegal.entry((clause, group)).or_insert((
                    v.rule,
                    v.detail,
                    slot.map(|s| s as u32),
                ));
            }
        }
    }
    let mut gprs = 0u32;
    let mut note = |g: u32| gprs = gprs.max(g + 1);
    let mut alu = BTreeMap::new();
    let mut fetch = BTreeMap::new();
    for (&addr, clause) in &program.clauses {
        match clause {
            Clause::Alu(c) => {
                let groups = c
                    .groups
                    .iter()
                    .enumerate()
                    .map(|(gi, g)| {
                        let mut pg = prepare_group(g, &mut note);
                        pg.illegal = illegal.remove(&(addr, gi));
                        pg
                    })
                    .collect();
                alu.insert(
                    addr,
                    PClause {
                        groups,
                        pred_sets: c.pred_set_count(),
                    },
                );
            }
            Clause::Fetch(f) => {
                match f {
                    FetchClause::Tex(insts) => {
                        for t in insts {
                            note(t.src_gpr.get());
                            note(t.dst_gpr.get());
                        }
                    }
                    FetchClause::Vtx(insts) => {
                        for i in insts {
                            match i {
                                VtxClauseInst::Fetch(v) => {
                                    note(v.src_gpr.get());
                                    if let VtxDst::Gpr { gpr, .. } = v.dst {
                                        note(gpr.get());
                                    }
                                }
                                VtxClauseInst::MemRead(m) => {
                                    note(m.src_gpr.get());
                                    note(m.dst_gpr.get());
                                }
                            }
                        }
                    }
                }
                fetch.insert(addr, f.clone());
            }
        }
    }
    for inst in &program.cf {
        match inst {
            CfInst::Export(e) => {
                note(e.io.rw_gpr.get() + e.io.burst_count.get() - 1);
            }
            CfInst::Mem(m) => {
                note(m.io.rw_gpr.get() + m.io.burst_count.get() - 1);
                note(m.io.index_gpr.get());
            }
            _ => {}
        }
    }
    Prepared {
        cf: program.cf.clone(),
        alu,
        fetch,
        gprs_used: gprs.min(128),
    }
}

fn prepare_group(g: &AluGroup, note: &mut impl FnMut(u32)) -> PGroup {
    let units = assign_units(&g.insts, PreferVector::Yes);
    let mut out = PGroup::default();
    for (inst, unit) in g.insts.iter().zip(units) {
        let (op, fields, abs, write, omod, update_pred, update_exec, nsrc) = match &inst.form {
            AluForm::Op2(f) => (
                Op::O2(f.op),
                f.src.as_slice(),
                [f.abs[0], f.abs[1], false],
                f.write_mask,
                f.omod,
                f.update_pred,
                f.update_exec_mask,
                f.op.src_count(),
            ),
            AluForm::Op3(f) => (
                Op::O3(f.op),
                f.src.as_slice(),
                [false; 3],
                true,
                Omod::Off,
                false,
                false,
                f.op.src_count(),
            ),
        };
        let mut src = [PSrc::Const(0); 3];
        let mut neg = [false; 3];
        for (i, s) in fields.iter().enumerate() {
            neg[i] = s.neg;
            let chan = s.chan.index() as u8;
            src[i] = match s.sel {
                AluSrcSel::Gpr(gpr) => {
                    if i < nsrc {
                        note(gpr.get());
                    }
                    PSrc::Gpr {
                        gpr: gpr.get() as u8,
                        chan,
                        rel: s.rel,
                    }
                }
                AluSrcSel::Kcache0(k) => PSrc::Kc {
                    set: 0,
                    idx: k.get() as u8,
                    chan,
                    rel: s.rel,
                },
                AluSrcSel::Kcache1(k) => PSrc::Kc {
                    set: 1,
                    idx: k.get() as u8,
                    chan,
                    rel: s.rel,
                },
                AluSrcSel::Cfile(c) => PSrc::Cfile {
                    idx: c,
                    chan,
                    rel: s.rel,
                },
                AluSrcSel::Inline(c) => PSrc::Const(c.bits()),
                AluSrcSel::Literal => PSrc::Const(g.literal(s.chan).unwrap_or(0)),
                AluSrcSel::Pv => PSrc::Pv(chan),
                AluSrcSel::Ps => PSrc::Ps,
            };
            if s.rel {
                out.relative = true;
            }
        }
        if inst.dst.rel {
            out.relative = true;
        }
        if write {
            note(inst.dst.gpr.get());
        }
        let (trans, unit_chan) = match unit {
            Some(Unit::Trans) => (true, inst.dst.chan.index() as u8),
            Some(Unit::Vector(c)) => (false, c.index() as u8),
            None => (true, inst.dst.chan.index() as u8),
        };
        out.slots.push(PSlot {
            op,
            trans,
            unit_chan,
            src,
            nsrc: nsrc as u8,
            abs,
            neg,
            dst_gpr: inst.dst.gpr.get() as u8,
            dst_rel: inst.dst.rel,
            dst_chan: inst.dst.chan.index() as u8,
            write,
            clamp: inst.clamp,
            omod,
            index_mode: inst.index_mode,
            pred_sel: inst.pred_sel,
            update_pred,
            update_exec,
        });
    }
    out
}
