//! The R700 hardware validator: checks every checkable rule of digest §4
//! (group formation and units, operands and constants, GPR read ports and
//! bank swizzles, relative addressing, adjacent-group hazards, clause and
//! CF rules) and the stack accounting of §5.2 on a decoded [`Program`],
//! and reports each broken rule as a [`Violation`] naming the [`Rule`],
//! where ([`Loc`]) and what is wrong. It never panics: any program
//! [`decode_program`](crate::isa::decode_program) accepts (and any program
//! built by hand) gives `Ok` or violations.
//!
//! * `group.rs`: per-group and per-clause ALU rules.
//! * `flow.rs`: CF rules, clause references and layout, stack depth.
//!
//! `docs/validator-r700.md` lists every rule with its manual reference and
//! the rules left unchecked.

mod flow;
mod group;
mod rule;
mod temps;

pub use rule::{Loc, Rule, Violation};
pub use temps::clause_temp_violations;

use crate::isa::{PreferVector, Program};

/// Host-side settings the rules depend on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Config {
    /// `SQ_CONFIG.ALU_INST_PREFER_VECTOR` (unit assignment, R3). LLVM and
    /// Mesa assume `Yes`.
    pub prefer_vector: PreferVector,
    /// Maximum instructions in a TEX/VTX clause: 8 per the manual's Table
    /// 3.2 (digest R34; the COUNT field allows 16, and LLVM uses 16 on
    /// R700).
    pub fetch_clause_limit: usize,
    /// STACK_SIZE in entries (host register; §5.2).
    pub stack_size: usize,
    /// Physical thread-group width: 16, 32, 48 or 64 (§5.2: subentries per
    /// entry 8, 8, 4, 4; CALL takes 2 subentries at width 16).
    pub wavefront_width: usize,
    /// How many (CF instruction, stack) states the flow analysis explores
    /// before giving up with [`Rule::FlowAnalysisLimit`].
    pub max_flow_states: usize,
    /// `SQ_GPR_RESOURCE_MGMT_1.NUM_CLAUSE_TEMP_GPRS` (host register; 0:
    /// none, GPR 124..127 are ordinary): the `clause-temp` rule.
    pub clause_temps: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            prefer_vector: PreferVector::Yes,
            fetch_clause_limit: 8,
            stack_size: 16,
            wavefront_width: 64,
            max_flow_states: 100_000,
            clause_temps: 0,
        }
    }
}

impl Config {
    fn subentries_per_entry(&self) -> usize {
        if self.wavefront_width <= 32 { 8 } else { 4 }
    }
}

/// Check every rule on `program` with the default [`Config`].
///
/// # Errors
/// Every [`Violation`] found, sorted by location and rule.
pub fn validate(program: &Program) -> Result<(), Vec<Violation>> {
    validate_with(program, &Config::default())
}

/// Check every rule on `program` under `config`.
///
/// # Errors
/// Every [`Violation`] found, sorted by location and rule.
pub fn validate_with(program: &Program, config: &Config) -> Result<(), Vec<Violation>> {
    let mut out = Vec::new();
    let facts = flow::check(program, config, &mut out);
    group::check(program, config, &facts, &mut out);
    temps::check(program, config.clause_temps, &mut out);
    out.sort_by_key(|a| (a.loc, a.rule));
    out.dedup_by(|a, b| a.loc == b.loc && a.rule == b.rule);
    if out.is_empty() { Ok(()) } else { Err(out) }
}

/// The read-port rules of one ALU group alone (`gpr-read-port`,
/// `cfile-ports`, `trans-bank-swizzle`, `trans-constant-cycle`; manual
/// §4.7.4-4.7.9), with the units assigned as [`Config::default`] does. The
/// code generator's bank-swizzle search asks this for each candidate, so
/// the search and the validator cannot disagree.
pub fn group_port_violations(group: &crate::isa::AluGroup) -> Vec<Violation> {
    let units = crate::isa::assign_units(&group.insts, PreferVector::Yes);
    let mut out = Vec::new();
    let at = |slot: Option<usize>| Loc::Alu {
        clause: 0,
        group: 0,
        slot,
    };
    group::check_ports(group, &units, &at, &mut out);
    out
}
