//! Static metrics of an R700 executable (`ctmc --emit stats`, spec §9):
//! counted from the program itself, so they describe any image, also one
//! ctm did not compile.

use crate::Executable;
use crate::isa::{Clause, FetchClause};

/// The nine keys of spec §9 for the R700.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StaticMetrics {
    /// CF instructions (padding NOPs included: they are fetched too).
    pub cf_instructions: usize,
    /// ALU clauses.
    pub alu_clauses: usize,
    /// TEX and VTX clauses.
    pub fetch_clauses: usize,
    /// ALU instruction groups.
    pub alu_groups: usize,
    /// ALU instructions (slots taken by instructions, literals excluded).
    pub alu_slots: usize,
    /// Literal dwords carried by the groups.
    pub literals: usize,
    /// Fetch instructions.
    pub fetches: usize,
    /// GPRs per thread (`SQ_PGM_RESOURCES_PS.NUM_GPRS`).
    pub gprs: usize,
    /// Stack entries (`SQ_PGM_RESOURCES_PS.STACK_SIZE`).
    pub stack: usize,
}

impl StaticMetrics {
    /// One JSON object with the keys in spec order.
    pub fn to_json(&self) -> String {
        format!(
            "{{\"cf_instructions\":{},\"alu_clauses\":{},\"fetch_clauses\":{},\"alu_groups\":{},\"alu_slots\":{},\"literals\":{},\"fetches\":{},\"gprs\":{},\"stack\":{}}}",
            self.cf_instructions,
            self.alu_clauses,
            self.fetch_clauses,
            self.alu_groups,
            self.alu_slots,
            self.literals,
            self.fetches,
            self.gprs,
            self.stack
        )
    }

    /// Average instructions per group (VLIW fill), 0 without groups.
    pub fn slots_per_group(&self) -> f64 {
        if self.alu_groups == 0 {
            0.0
        } else {
            self.alu_slots as f64 / self.alu_groups as f64
        }
    }
}

/// The metrics of `exe`.
pub fn static_metrics(exe: &Executable) -> StaticMetrics {
    let mut s = StaticMetrics {
        cf_instructions: exe.program.cf.len(),
        gprs: exe.resources.num_gprs as usize,
        stack: exe.resources.stack_size as usize,
        ..StaticMetrics::default()
    };
    for clause in exe.program.clauses.values() {
        match clause {
            Clause::Alu(a) => {
                s.alu_clauses += 1;
                s.alu_groups += a.groups.len();
                for g in &a.groups {
                    s.alu_slots += g.insts.len();
                    s.literals += g.literals.len();
                }
            }
            Clause::Fetch(f) => {
                s.fetch_clauses += 1;
                s.fetches += match f {
                    FetchClause::Tex(t) => t.len(),
                    FetchClause::Vtx(v) => v.len(),
                };
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_the_nine_keys_in_order() {
        let m = StaticMetrics {
            cf_instructions: 1,
            alu_clauses: 2,
            fetch_clauses: 3,
            alu_groups: 4,
            alu_slots: 5,
            literals: 6,
            fetches: 7,
            gprs: 8,
            stack: 9,
        };
        let v: serde_json::Value = serde_json::from_str(&m.to_json()).expect("json");
        let keys = [
            "cf_instructions",
            "alu_clauses",
            "fetch_clauses",
            "alu_groups",
            "alu_slots",
            "literals",
            "fetches",
            "gprs",
            "stack",
        ];
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(v[k], i + 1, "{k}");
        }
        assert!((m.slots_per_group() - 1.25).abs() < 1e-9);
    }
}
