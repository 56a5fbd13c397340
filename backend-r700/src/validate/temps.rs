//! The clause-temporary rule (`clause-temp`): with N clause temporaries
//! (GPR 128 − N..127, `Config::clause_temps`) a temporary element is
//! written by an earlier group of the same ALU clause before a group
//! reads it (they "persist only for one ALU clause", manual Table 2.6
//! L541, §4.6 L1299-1301), is never indexed relatively (L1334, L1346) and
//! is never touched by a fetch or an export ("not accessible to fetch and
//! export units", L541). With N = 0 the rule checks nothing.

use super::rule::{Loc, Rule, Violation};
use crate::isa::{AluSrcSel, CfInst, Clause, FetchClause, PredSel, Program, VtxClauseInst, VtxDst};

/// Every `clause-temp` violation of `program` with `temps` clause
/// temporaries.
pub fn clause_temp_violations(program: &Program, temps: usize) -> Vec<Violation> {
    let mut out = Vec::new();
    check(program, temps, &mut out);
    out
}

pub(super) fn check(p: &Program, temps: usize, out: &mut Vec<Violation>) {
    if temps == 0 {
        return;
    }
    let first = 128u32.saturating_sub(temps.min(128) as u32);
    let is_temp = |g: u32| g >= first && g < 128;
    for (&addr, clause) in &p.clauses {
        match clause {
            Clause::Alu(alu) => {
                let mut written = [[false; 4]; 128];
                for (gi, group) in alu.groups.iter().enumerate() {
                    let loc = |slot: usize| Loc::Alu {
                        clause: addr,
                        group: gi,
                        slot: Some(slot),
                    };
                    for (si, inst) in group.insts.iter().enumerate() {
                        let fields = inst.source_fields();
                        for s in &fields[..inst.src_count().min(fields.len())] {
                            if let AluSrcSel::Gpr(r) = s.sel
                                && is_temp(r.get())
                            {
                                if s.rel {
                                    out.push(Violation::new(
                                        Rule::ClauseTemp,
                                        loc(si),
                                        format!("clause temporary R{} read relatively", r.get()),
                                    ));
                                } else if !written[r.get() as usize][s.chan.index()] {
                                    out.push(Violation::new(
                                        Rule::ClauseTemp,
                                        loc(si),
                                        format!(
                                            "clause temporary T{}.{:?} read before this clause writes it",
                                            r.get() - first,
                                            s.chan
                                        ),
                                    ));
                                }
                            }
                        }
                        if inst.writes_gpr() && is_temp(inst.dst.gpr.get()) && inst.dst.rel {
                            out.push(Violation::new(
                                Rule::ClauseTemp,
                                loc(si),
                                "clause temporary written relatively",
                            ));
                        }
                    }
                    // A group's writes are seen by later groups only.
                    for inst in &group.insts {
                        let g = inst.dst.gpr.get();
                        if inst.writes_gpr()
                            && !inst.dst.rel
                            && inst.pred_sel == PredSel::Off
                            && is_temp(g)
                        {
                            written[g as usize][inst.dst.chan.index()] = true;
                        }
                    }
                }
            }
            Clause::Fetch(f) => {
                let mut gprs: Vec<(usize, u32)> = Vec::new();
                match f {
                    FetchClause::Tex(v) => {
                        for (i, t) in v.iter().enumerate() {
                            gprs.push((i, t.src_gpr.get()));
                            gprs.push((i, t.dst_gpr.get()));
                        }
                    }
                    FetchClause::Vtx(v) => {
                        for (i, x) in v.iter().enumerate() {
                            match x {
                                VtxClauseInst::Fetch(f) => {
                                    gprs.push((i, f.src_gpr.get()));
                                    if let VtxDst::Gpr { gpr, .. } = f.dst {
                                        gprs.push((i, gpr.get()));
                                    }
                                }
                                VtxClauseInst::MemRead(m) => {
                                    gprs.push((i, m.src_gpr.get()));
                                    gprs.push((i, m.dst_gpr.get()));
                                }
                            }
                        }
                    }
                }
                for (i, g) in gprs {
                    if is_temp(g) {
                        out.push(Violation::new(
                            Rule::ClauseTemp,
                            Loc::Fetch {
                                clause: addr,
                                inst: Some(i),
                            },
                            format!("fetch uses clause temporary R{g}"),
                        ));
                    }
                }
            }
        }
    }
    for (i, inst) in p.cf.iter().enumerate() {
        let (lo, hi, index) = match inst {
            CfInst::Export(e) => (
                e.io.rw_gpr.get(),
                e.io.rw_gpr.get() + e.io.burst_count.get().saturating_sub(1),
                None,
            ),
            CfInst::Mem(m) => (
                m.io.rw_gpr.get(),
                m.io.rw_gpr.get() + m.io.burst_count.get().saturating_sub(1),
                Some(m.io.index_gpr.get()),
            ),
            _ => continue,
        };
        if (lo..=hi).any(is_temp) || index.is_some_and(is_temp) {
            out.push(Violation::new(
                Rule::ClauseTemp,
                Loc::Cf(i),
                "export reads a clause temporary",
            ));
        }
    }
}
