//! ALU rules: each group (units, operands, constants, read ports, relative
//! addressing), adjacent groups (PV/PS, hazards) and each clause (size,
//! KILL placement, kcache locks); fetch clause sizes.

use std::collections::BTreeSet;

use super::flow::Facts;
use super::{Config, Loc, Rule, Violation};
use crate::isa::{
    AluClause, AluForm, AluGroup, AluInst, AluSrc, AluSrcSel, CfInst, Chan, Clause, FetchClause,
    IndexMode, KcacheMode, Program, Unit, UnitClass, VtxClauseInst, assign_units,
};

/// Memory-read clause limit (L2169).
const MEM_READ_LIMIT: usize = 16;
/// ALU clause limit in slots (L816).
const ALU_CLAUSE_LIMIT: usize = 128;

pub(super) fn check(p: &Program, config: &Config, facts: &Facts, out: &mut Vec<Violation>) {
    let mut uses_cfile = None;
    let mut uses_kcache = None;
    for (&addr, clause) in &p.clauses {
        match clause {
            Clause::Alu(alu) => {
                check_alu_clause(p, addr, alu, config, facts, out);
                for (g, group) in alu.groups.iter().enumerate() {
                    for inst in &group.insts {
                        for s in read_sources(inst) {
                            let loc = Loc::Alu {
                                clause: addr,
                                group: g,
                                slot: None,
                            };
                            match s.sel {
                                AluSrcSel::Cfile(_) => uses_cfile = uses_cfile.or(Some(loc)),
                                AluSrcSel::Kcache0(_) | AluSrcSel::Kcache1(_) => {
                                    uses_kcache = uses_kcache.or(Some(loc));
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
            Clause::Fetch(f) => check_fetch_clause(addr, f, config, out),
        }
    }
    if let (Some(loc), Some(_)) = (uses_cfile, uses_kcache) {
        out.push(Violation::new(
            Rule::ConstantModeMix,
            loc,
            "the program reads both the constant file and kcache",
        ));
    }
}

fn check_fetch_clause(addr: u32, f: &FetchClause, config: &Config, out: &mut Vec<Violation>) {
    let loc = Loc::Fetch {
        clause: addr,
        inst: None,
    };
    match f {
        FetchClause::Tex(insts) => {
            if insts.len() > config.fetch_clause_limit {
                out.push(Violation::new(
                    Rule::FetchClauseSize,
                    loc,
                    format!(
                        "TEX clause of {} instructions (limit {})",
                        insts.len(),
                        config.fetch_clause_limit
                    ),
                ));
            }
        }
        FetchClause::Vtx(insts) => {
            let reads = insts
                .iter()
                .filter(|i| matches!(i, VtxClauseInst::MemRead(_)))
                .count();
            if reads == 0 {
                if insts.len() > config.fetch_clause_limit {
                    out.push(Violation::new(
                        Rule::FetchClauseSize,
                        loc,
                        format!(
                            "VTX clause of {} instructions (limit {})",
                            insts.len(),
                            config.fetch_clause_limit
                        ),
                    ));
                }
            } else if reads != insts.len() {
                out.push(Violation::new(
                    Rule::MemReadClause,
                    loc,
                    "memory-read clause mixes MEM_RD and vertex-fetch instructions",
                ));
            } else if insts.len() > MEM_READ_LIMIT {
                out.push(Violation::new(
                    Rule::MemReadClause,
                    loc,
                    format!(
                        "memory-read clause of {} instructions (limit {MEM_READ_LIMIT})",
                        insts.len()
                    ),
                ));
            }
        }
    }
}

/// The source operands the opcode reads.
fn read_sources(inst: &AluInst) -> &[AluSrc] {
    let fields = inst.source_fields();
    &fields[..inst.src_count().min(fields.len())]
}

fn is_mova(inst: &AluInst) -> bool {
    matches!(inst.mnemonic(), "MOVA" | "MOVA_FLOOR" | "MOVA_INT")
}

fn is_kill(inst: &AluInst) -> bool {
    inst.mnemonic().starts_with("KILL")
}

fn is_pred_set(inst: &AluInst) -> bool {
    inst.mnemonic().starts_with("PRED_SET")
}

fn is_const(s: &AluSrc) -> bool {
    matches!(
        s.sel,
        AluSrcSel::Cfile(_)
            | AluSrcSel::Kcache0(_)
            | AluSrcSel::Kcache1(_)
            | AluSrcSel::Literal
            | AluSrcSel::Inline(_)
    )
}

/// How a relative access is indexed.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Index {
    /// Not relative (or GLOBAL without AR).
    Abs,
    /// The loop index aL.
    Loop,
    /// AR element 0..=3.
    Ar(usize),
    /// GLOBAL: an absolute address in the SIMD's register file (a
    /// different space from the thread's GPRs).
    Global,
}

/// The index a GPR access uses (Table 4.2): AR.X for any AR mode.
fn gpr_index(rel: bool, mode: IndexMode) -> Index {
    match mode {
        IndexMode::GlobalArX => Index::Ar(0),
        IndexMode::Global => Index::Global,
        _ if !rel => Index::Abs,
        IndexMode::Loop => Index::Loop,
        _ => Index::Ar(0),
    }
}

/// The index a constant-file access uses: AR.X/Y/Z/W per mode.
fn cfile_index(rel: bool, mode: IndexMode) -> Index {
    if !rel {
        return Index::Abs;
    }
    match mode {
        IndexMode::ArX | IndexMode::GlobalArX => Index::Ar(0),
        IndexMode::ArY => Index::Ar(1),
        IndexMode::ArZ => Index::Ar(2),
        IndexMode::ArW => Index::Ar(3),
        IndexMode::Loop => Index::Loop,
        IndexMode::Global => Index::Abs,
    }
}

/// Every index a source or destination of `inst` uses.
fn indices(inst: &AluInst) -> Vec<Index> {
    let mut v = Vec::new();
    for s in read_sources(inst) {
        match s.sel {
            AluSrcSel::Gpr(_) => v.push(gpr_index(s.rel, inst.index_mode)),
            AluSrcSel::Cfile(_) => v.push(cfile_index(s.rel, inst.index_mode)),
            AluSrcSel::Kcache0(_) | AluSrcSel::Kcache1(_) if s.rel => {
                v.push(cfile_index(true, inst.index_mode));
            }
            _ => {}
        }
    }
    if inst.writes_gpr() {
        v.push(gpr_index(inst.dst.rel, inst.index_mode));
    }
    v
}

fn check_alu_clause(
    p: &Program,
    addr: u32,
    clause: &AluClause,
    config: &Config,
    facts: &Facts,
    out: &mut Vec<Violation>,
) {
    let at = |group: usize, slot: Option<usize>| Loc::Alu {
        clause: addr,
        group,
        slot,
    };
    let slots = clause.slots();
    if slots == 0 || slots > ALU_CLAUSE_LIMIT {
        out.push(Violation::new(
            Rule::AluClauseSize,
            at(0, None),
            format!("ALU clause of {slots} slots (1..={ALU_CLAUSE_LIMIT})"),
        ));
    }
    let kcaches: Vec<_> =
        p.cf.iter()
            .filter_map(|c| match c {
                CfInst::Alu(a) if a.addr.get() == addr => Some(a.kcache),
                _ => None,
            })
            .collect();
    let in_loop = !facts.alu_outside_loop.contains(&addr);
    let mut mova_seen = false;
    let mut prev: Option<(Vec<Option<Unit>>, &AluGroup)> = None;
    let last = clause.groups.len().saturating_sub(1);
    for (g, group) in clause.groups.iter().enumerate() {
        let units = assign_units(&group.insts, config.prefer_vector);
        check_group(group, &units, &|s| at(g, s), out);
        check_ports(group, &units, &|s| at(g, s), out);
        // Kcache locks, aL.
        for (i, inst) in group.insts.iter().enumerate() {
            for s in read_sources(inst) {
                let (set, idx) = match s.sel {
                    AluSrcSel::Kcache0(k) => (0, k.get()),
                    AluSrcSel::Kcache1(k) => (1, k.get()),
                    _ => continue,
                };
                if s.rel && inst.index_mode != IndexMode::Loop {
                    out.push(Violation::new(
                        Rule::KcacheRelativeIndex,
                        at(g, Some(i)),
                        format!(
                            "relative kcache operand with INDEX_MODE {}",
                            inst.index_mode.mnemonic()
                        ),
                    ));
                }
                for kc in &kcaches {
                    let k = kc[set];
                    let bad = match k.mode {
                        KcacheMode::Nop => true,
                        KcacheMode::Lock1 => idx >= 16,
                        KcacheMode::Lock2 | KcacheMode::LockLoopIndex => false,
                    };
                    if bad {
                        out.push(Violation::new(
                            Rule::KcacheUnlocked,
                            at(g, Some(i)),
                            format!(
                                "kcache set {set} constant {idx} with mode {}",
                                k.mode.mnemonic()
                            ),
                        ));
                    }
                }
            }
            if !in_loop && indices(inst).contains(&Index::Loop) {
                out.push(Violation::new(
                    Rule::LoopIndexOutsideLoop,
                    at(g, Some(i)),
                    "aL-relative access in a clause not run inside a loop",
                ));
            }
        }
        if !in_loop
            && kcaches
                .iter()
                .any(|k| k.iter().any(|k| k.mode == KcacheMode::LockLoopIndex))
            && g == 0
        {
            out.push(Violation::new(
                Rule::LoopIndexOutsideLoop,
                at(0, None),
                "LOCK_LOOP_INDEX kcache for a clause not run inside a loop",
            ));
        }
        // AR.
        let group_mova = group.insts.iter().any(is_mova);
        let mut ar_elems = BTreeSet::new();
        for (i, inst) in group.insts.iter().enumerate() {
            for ix in indices(inst) {
                if let Index::Ar(e) = ix {
                    ar_elems.insert(e);
                    if !mova_seen {
                        out.push(Violation::new(
                            Rule::ArNotLoaded,
                            at(g, Some(i)),
                            "AR-relative access before any MOVA* of this clause",
                        ));
                    }
                    if group_mova {
                        out.push(Violation::new(
                            Rule::RelativeInMovaGroup,
                            at(g, Some(i)),
                            "AR-relative access in a group with a MOVA*",
                        ));
                    }
                }
            }
            if is_mova(inst) && inst.writes_gpr() {
                out.push(Violation::new(
                    Rule::MovaWritesGpr,
                    at(g, Some(i)),
                    format!("{} with WRITE_MASK set", inst.mnemonic()),
                ));
            }
        }
        if ar_elems.len() > 1 {
            out.push(Violation::new(
                Rule::ArElementMix,
                at(g, None),
                format!("group uses {} AR elements", ar_elems.len()),
            ));
        }
        // KILL placement.
        if g != last
            && let Some(i) = group.insts.iter().position(is_kill)
        {
            out.push(Violation::new(
                Rule::KillNotLast,
                at(g, Some(i)),
                "KILL* before the clause's last group",
            ));
        }
        // PV / PS and adjacent hazards.
        for (i, inst) in group.insts.iter().enumerate() {
            for s in read_sources(inst) {
                let problem = match (s.sel, &prev) {
                    (AluSrcSel::Pv | AluSrcSel::Ps, None) => {
                        Some("PV/PS in the first group of a clause".to_string())
                    }
                    (AluSrcSel::Pv, Some((pu, pg))) => {
                        let e = s.chan;
                        match pu.iter().position(|u| *u == Some(Unit::Vector(e))) {
                            None => Some(format!(
                                "PV.{} but the previous group did not run unit {}",
                                e.mnemonic(),
                                e.mnemonic()
                            )),
                            Some(j) if is_mova(&pg.insts[j]) => {
                                Some(format!("PV.{} is a MOVA* result", e.mnemonic()))
                            }
                            Some(_) => None,
                        }
                    }
                    (AluSrcSel::Ps, Some((pu, _))) => (!pu.contains(&Some(Unit::Trans)))
                        .then(|| "PS but the previous group had no Trans instruction".into()),
                    _ => None,
                };
                if let Some(d) = problem {
                    out.push(Violation::new(Rule::PreviousResult, at(g, Some(i)), d));
                }
            }
        }
        if let Some((_, pg)) = &prev {
            check_adjacent(pg, group, &|s| at(g, s), out);
        }
        if group_mova {
            mova_seen = true;
        }
        prev = Some((units, group));
    }
}

/// R30: a write in the previous group and a read in this one, one
/// AR-relative and the other not.
fn check_adjacent(
    prev: &AluGroup,
    group: &AluGroup,
    at: &dyn Fn(Option<usize>) -> Loc,
    out: &mut Vec<Violation>,
) {
    for w in prev.insts.iter().filter(|w| w.writes_gpr()) {
        let wi = gpr_index(w.dst.rel, w.index_mode);
        for (i, inst) in group.insts.iter().enumerate() {
            for s in read_sources(inst) {
                if !matches!(s.sel, AluSrcSel::Gpr(_)) || s.chan != w.dst.chan {
                    continue;
                }
                let ri = gpr_index(s.rel, inst.index_mode);
                let hazard = matches!(
                    (wi, ri),
                    (Index::Abs | Index::Loop, Index::Ar(_))
                        | (Index::Ar(_), Index::Abs | Index::Loop)
                );
                if hazard {
                    out.push(Violation::new(
                        Rule::AdjacentRelativeHazard,
                        at(Some(i)),
                        format!(
                            "reads a .{} GPR the previous group writes, one AR-relative and one not",
                            s.chan.mnemonic()
                        ),
                    ));
                }
            }
        }
    }
}

/// Unit assignment, order, reductions, doubles, predicates, duplicate
/// writes, literals, constant counts.
fn check_group(
    group: &AluGroup,
    units: &[Option<Unit>],
    at: &dyn Fn(Option<usize>) -> Loc,
    out: &mut Vec<Violation>,
) {
    let n = group.insts.len();
    if n == 0 || n > 5 {
        out.push(Violation::new(
            Rule::GroupSize,
            at(None),
            format!("group of {n} instructions (1..=5)"),
        ));
    }
    let rank = |u: Unit| match u {
        Unit::Vector(c) => c.index(),
        Unit::Trans => 4,
    };
    let mut last_rank = None;
    for (i, (inst, unit)) in group.insts.iter().zip(units).enumerate() {
        let Some(unit) = *unit else {
            out.push(Violation::new(
                Rule::UnitTaken,
                at(Some(i)),
                format!(
                    "{} on .{}: its unit is already taken",
                    inst.mnemonic(),
                    inst.dst.chan.mnemonic()
                ),
            ));
            continue;
        };
        if last_rank.is_some_and(|r| rank(unit) <= r) || (unit == Unit::Trans && i + 1 != n) {
            out.push(Violation::new(
                Rule::UnitOrder,
                at(Some(i)),
                "instructions not in unit order X, Y, Z, W, Trans",
            ));
        }
        last_rank = Some(rank(unit));
    }
    // Reductions and doubles: the op on each vector unit.
    let mut by_unit: [Option<&AluInst>; 4] = [None; 4];
    for (inst, unit) in group.insts.iter().zip(units) {
        if let Some(Unit::Vector(c)) = unit {
            by_unit[c.index()] = Some(inst);
        }
    }
    let same = |a: &AluInst, b: Option<&AluInst>| b.is_some_and(|b| b.mnemonic() == a.mnemonic());
    for (i, inst) in group.insts.iter().enumerate() {
        match inst.unit_class() {
            UnitClass::Reduction => {
                let ok = by_unit.iter().all(|b| {
                    b.is_some_and(|b| {
                        b.mnemonic() == inst.mnemonic()
                            && b.clamp == inst.clamp
                            && omod(b) == omod(inst)
                    })
                });
                if !ok {
                    out.push(Violation::new(
                        Rule::ReductionSlots,
                        at(Some(i)),
                        format!(
                            "{} does not fill X..W with one opcode, OMOD and CLAMP",
                            inst.mnemonic()
                        ),
                    ));
                }
            }
            UnitClass::DoublePair => {
                let e = inst.dst.chan.index() & 2;
                if !(same(inst, by_unit[e]) && same(inst, by_unit[e + 1])) {
                    out.push(Violation::new(
                        Rule::DoubleSlots,
                        at(Some(i)),
                        format!("{} does not fill X+Y or Z+W", inst.mnemonic()),
                    ));
                }
            }
            UnitClass::DoubleQuad if !by_unit.iter().all(|b| same(inst, *b)) => {
                out.push(Violation::new(
                    Rule::DoubleSlots,
                    at(Some(i)),
                    format!("{} does not fill X..W", inst.mnemonic()),
                ));
            }
            _ => {}
        }
    }
    // Predicates and kills. A two-slot PRED_SET*_64 is one instruction
    // in two slots (§4.12 L2085): its slots count once per pair.
    let pair = |i: &&AluInst| i.unit_class() == UnitClass::DoublePair;
    let updates = |i: &&AluInst| match &i.form {
        AluForm::Op2(f) => f.update_pred || f.update_exec_mask,
        AluForm::Op3(_) => false,
    };
    let count = |f: &dyn Fn(&&AluInst) -> bool| {
        let single = group.insts.iter().filter(|i| !pair(i) && f(i)).count();
        let paired = group.insts.iter().filter(|i| pair(i) && f(i)).count();
        single + paired.div_ceil(2)
    };
    let updaters = count(&updates);
    let pred_sets = count(&|i| is_pred_set(i));
    let kills = group.insts.iter().filter(|i| is_kill(i)).count();
    let stray = group.insts.iter().any(|i| {
        !is_pred_set(i) && matches!(&i.form, AluForm::Op2(f) if f.update_pred || f.update_exec_mask)
    });
    if stray || updaters > 1 || pred_sets > 1 || kills > 1 || (kills > 0 && pred_sets > 0) {
        out.push(Violation::new(
            Rule::PredicateUpdates,
            at(None),
            format!("{updaters} predicate/exec-mask updates (outside PRED_SET*: {stray}), {pred_sets} PRED_SET*, {kills} KILL*"),
        ));
    }
    // Literals and constants.
    if group.literals.len() > 4 {
        out.push(Violation::new(
            Rule::LiteralLimit,
            at(None),
            format!("{} literal dwords (at most 4)", group.literals.len()),
        ));
    }
    for (i, (inst, unit)) in group.insts.iter().zip(units).enumerate() {
        for s in read_sources(inst) {
            if s.sel == AluSrcSel::Literal && group.literal(s.chan).is_none() {
                out.push(Violation::new(
                    Rule::LiteralLimit,
                    at(Some(i)),
                    format!("literal .{} is not in the group", s.chan.mnemonic()),
                ));
            }
        }
        let fields = inst.source_fields();
        if fields[inst.src_count().min(fields.len())..]
            .iter()
            .any(|s| s.sel == AluSrcSel::Literal)
        {
            out.push(Violation::new(
                Rule::UnusedLiteralSelect,
                at(Some(i)),
                "an unread source field selects the literal",
            ));
        }
        if *unit == Some(Unit::Trans) {
            let n = read_sources(inst).iter().filter(|s| is_const(s)).count();
            if n > 2 {
                out.push(Violation::new(
                    Rule::ConstantCount,
                    at(Some(i)),
                    format!("Trans instruction with {n} constant operands (at most 2)"),
                ));
            }
        }
    }
}

fn omod(inst: &AluInst) -> Option<crate::isa::Omod> {
    match &inst.form {
        AluForm::Op2(f) => Some(f.omod),
        AluForm::Op3(_) => None,
    }
}

/// A GPR read address: base, and the index it is relative to.
type GprKey = (u32, Index);

/// The manual's read-port checker (L1639-1744, R16-R20).
pub(super) fn check_ports(
    group: &AluGroup,
    units: &[Option<Unit>],
    at: &dyn Fn(Option<usize>) -> Loc,
    out: &mut Vec<Violation>,
) {
    let mut hw: [[Option<GprKey>; 4]; 3] = [[None; 4]; 3];
    let mut cfile: Vec<(u32, Index, usize)> = Vec::new();
    let mut reserve_gpr = |key: GprKey, e: Chan, c: usize| -> bool {
        match hw[c][e.index()] {
            None => {
                hw[c][e.index()] = Some(key);
                true
            }
            Some(k) => k == key,
        }
    };
    let mut reserve_cfile = |sel: u32, ix: Index, e: Chan| -> bool {
        let key = (sel, ix, e.index() / 2);
        if cfile.contains(&key) {
            true
        } else if cfile.len() < 2 {
            cfile.push(key);
            true
        } else {
            false
        }
    };
    let port_fail = |out: &mut Vec<Violation>, i: usize, k: usize, what: &str| {
        out.push(Violation::new(
            Rule::GprReadPort,
            at(Some(i)),
            format!("src{k}: {what}"),
        ));
    };
    let mut trans = None;
    for (i, (inst, unit)) in group.insts.iter().zip(units).enumerate() {
        match unit {
            Some(Unit::Vector(_)) => {}
            Some(Unit::Trans) => {
                trans = Some(i);
                continue;
            }
            None => continue,
        }
        let swz = inst.bank_swizzle.vector_cycles();
        let srcs = read_sources(inst);
        for (k, s) in srcs.iter().enumerate() {
            match s.sel {
                AluSrcSel::Gpr(g) => {
                    if k == 1 && same_read(s, &srcs[0]) {
                        continue;
                    }
                    let key = (g.get(), gpr_index(s.rel, inst.index_mode));
                    if !reserve_gpr(key, s.chan, usize::from(swz[k])) {
                        port_fail(
                            out,
                            i,
                            k,
                            &format!(
                                "bank {} already read on cycle {}",
                                s.chan.mnemonic(),
                                swz[k]
                            ),
                        );
                    }
                }
                AluSrcSel::Cfile(c)
                    if !reserve_cfile(
                        u32::from(c),
                        cfile_index(s.rel, inst.index_mode),
                        s.chan,
                    ) =>
                {
                    out.push(Violation::new(
                        Rule::CfilePorts,
                        at(Some(i)),
                        "a third constant-file address/element pair",
                    ));
                }
                _ => {}
            }
        }
    }
    let Some(i) = trans else { return };
    let inst = &group.insts[i];
    let Some(swz) = inst.bank_swizzle.scalar_cycles() else {
        out.push(Violation::new(
            Rule::TransBankSwizzle,
            at(Some(i)),
            format!(
                "bank swizzle {} is not defined for the Trans slot",
                inst.bank_swizzle.mnemonic()
            ),
        ));
        return;
    };
    let srcs = read_sources(inst);
    let mut n = 0usize;
    for s in srcs {
        if is_const(s) {
            n += 1;
            if let AluSrcSel::Cfile(c) = s.sel
                && !reserve_cfile(u32::from(c), cfile_index(s.rel, inst.index_mode), s.chan)
            {
                out.push(Violation::new(
                    Rule::CfilePorts,
                    at(Some(i)),
                    "a third constant-file address/element pair",
                ));
            }
        }
    }
    for (k, s) in srcs.iter().enumerate() {
        if let AluSrcSel::Gpr(g) = s.sel {
            let c = usize::from(swz[k]);
            if c < n {
                out.push(Violation::new(
                    Rule::TransConstantCycle,
                    at(Some(i)),
                    format!("src{k} read on cycle {c} with {n} constant operands"),
                ));
            }
            let key = (g.get(), gpr_index(s.rel, inst.index_mode));
            if !reserve_gpr(key, s.chan, c) {
                port_fail(
                    out,
                    i,
                    k,
                    &format!("bank {} already read on cycle {c}", s.chan.mnemonic()),
                );
            }
        }
    }
}

/// src1 reuses src0's read when it names the same GPR and element.
fn same_read(a: &AluSrc, b: &AluSrc) -> bool {
    a.sel == b.sel && a.chan == b.chan && a.rel == b.rel
}
