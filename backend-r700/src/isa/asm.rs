//! The disassembler: typed instructions and programs → readable assembly
//! (syntax in `docs/isa-r700.md` §4).
//!
//! Every field whose value differs from its all-zero encoding is printed,
//! so two different instructions never print alike; a few fields are
//! printed even at zero because they are the point of the instruction
//! (clause addresses and sizes, ALU destinations and sources).

use std::fmt::Write as _;

use super::alu::{AluForm, AluGroup, AluInst, PreferVector, Unit, assign_units};
use super::cf::{CfAllocIo, CfFlags, CfInst, Kcache};
use super::enums::{
    BankSwizzle, Chan, CoordType, EndianSwap, FetchType, FormatComp, IndexMode, NumFormat, Omod,
    PredSel, Sel, SrfMode,
};
use super::fetch::{FetchClause, FetchFormat, MemRdInst, TexInst, VtxClauseInst, VtxDst, VtxInst};
use super::opcodes::CfAddr;
use super::operand::{AluSrc, AluSrcSel, Gpr};
use super::program::{Clause, FETCH_QWORDS, Program};

/// Append ` name` for each set flag.
fn flag_words(out: &mut String, flags: &[(bool, &str)]) {
    for &(on, name) in flags {
        if on {
            let _ = write!(out, " {name}");
        }
    }
}

fn flags(out: &mut String, f: CfFlags) {
    flag_words(
        out,
        &[
            (f.end_of_program, "eop"),
            (f.valid_pixel_mode, "vpm"),
            (f.whole_quad_mode, "wqm"),
            (f.barrier, "barrier"),
        ],
    );
}

/// `R5`, or `R5[aL]` if aL-relative (fetch and export operands).
fn gpr_al(gpr: Gpr, rel: bool) -> String {
    if rel {
        format!("R{gpr}[aL]")
    } else {
        format!("R{gpr}")
    }
}

fn sels(sel: &[Sel; 4]) -> String {
    sel.iter().map(|s| s.mnemonic()).collect()
}

/// Format one CF instruction (no address prefix).
///
/// ```
/// use ctm_backend_r700::isa::{decode_cf, format_cf};
/// let inst = decode_cf([0x0000_0004, 0xa008_0000]).unwrap();
/// assert_eq!(format_cf(&inst), "ALU @4 slots:3 barrier");
/// ```
pub fn format_cf(inst: &CfInst) -> String {
    let mut out = String::from(inst.mnemonic());
    match inst {
        CfInst::Cf(c) => {
            let is_clause = matches!(c.op.addr_meaning(), CfAddr::Clause(_));
            if is_clause || c.addr != 0 {
                let _ = write!(out, " @{}", c.addr);
            }
            if is_clause || c.count.get() != 1 {
                let _ = write!(out, " count:{}", c.count);
            }
            if c.pop_count.get() != 0 {
                let _ = write!(out, " pop:{}", c.pop_count);
            }
            if c.cf_const.get() != 0 {
                let _ = write!(out, " const:{}", c.cf_const);
            }
            if c.cond.code() != 0 {
                let _ = write!(out, " cond:{}", c.cond);
            }
            if c.call_count.get() != 0 {
                let _ = write!(out, " call_count:{}", c.call_count);
            }
            flags(&mut out, c.flags);
        }
        CfInst::Alu(a) => {
            let _ = write!(out, " @{} slots:{}", a.addr, a.count);
            for (set, k) in a.kcache.iter().enumerate() {
                if *k != Kcache::default() {
                    let _ = write!(out, " kc{set}({},cb{},line{})", k.mode, k.bank, k.line);
                }
            }
            flag_words(
                &mut out,
                &[
                    (a.alt_const, "alt_const"),
                    (a.whole_quad_mode, "wqm"),
                    (a.barrier, "barrier"),
                ],
            );
        }
        CfInst::Export(e) => {
            let _ = write!(
                out,
                " {}{} {}.{}",
                e.export_type,
                e.io.array_base,
                gpr_al(e.io.rw_gpr, e.io.rw_rel),
                sels(&e.swizzle)
            );
            alloc_io(&mut out, &e.io);
        }
        CfInst::Mem(m) => {
            let mask: String = Chan::ALL
                .iter()
                .map(|c| {
                    if m.comp_mask.get() & (1 << c.index()) != 0 {
                        c.mnemonic()
                    } else {
                        "_"
                    }
                })
                .collect();
            let _ = write!(
                out,
                " {} {}.{mask}",
                m.access,
                gpr_al(m.io.rw_gpr, m.io.rw_rel)
            );
            if m.io.array_base.get() != 0 {
                let _ = write!(out, " base:{}", m.io.array_base);
            }
            if m.array_size.get() != 0 {
                let _ = write!(out, " size:{}", m.array_size);
            }
            alloc_io(&mut out, &m.io);
        }
    }
    out
}

fn alloc_io(out: &mut String, io: &CfAllocIo) {
    if io.burst_count.get() != 1 {
        let _ = write!(out, " burst:{}", io.burst_count);
    }
    if io.index_gpr.get() != 0 {
        let _ = write!(out, " index:R{}", io.index_gpr);
    }
    if io.elem_size.get() != 0 {
        let _ = write!(out, " elem_size:{}", io.elem_size);
    }
    flags(out, io.flags);
}

fn alu_src(src: &AluSrc, abs: bool) -> String {
    let mut base = src.sel.to_string();
    if src.rel {
        base.push_str("[rel]");
    }
    let chan_matters = !matches!(src.sel, AluSrcSel::Inline(_) | AluSrcSel::Ps);
    if chan_matters || src.chan != Chan::X {
        let _ = write!(base, ".{}", src.chan);
    }
    if abs {
        base = format!("|{base}|");
    }
    if src.neg {
        base.insert(0, '-');
    }
    base
}

/// Format one ALU instruction (no unit or address prefix). `unit` names
/// the bank swizzle: Trans-slot codes print as `SCL_*`.
///
/// ```
/// use ctm_backend_r700::isa::{decode_alu, format_alu};
/// let (inst, _) = decode_alu([0x801f_acfe, 0x4020_0110]).unwrap();
/// assert_eq!(format_alu(&inst, None), "MUL_IEEE R1.z, PV.w, L.x");
/// ```
pub fn format_alu(inst: &AluInst, unit: Option<Unit>) -> String {
    let mut out = String::from(inst.mnemonic());
    let mut dst = format!("R{}", inst.dst.gpr);
    if inst.dst.rel {
        dst.push_str("[rel]");
    }
    let _ = write!(dst, ".{}", inst.dst.chan);
    if !inst.writes_gpr() {
        dst = format!("({dst})");
    }
    let _ = write!(out, " {dst}");
    let abs = match &inst.form {
        AluForm::Op2(f) => f.abs,
        AluForm::Op3(_) => [false; 2],
    };
    let fields = inst.source_fields();
    for (k, src) in fields.iter().enumerate() {
        let a = abs.get(k).copied().unwrap_or(false);
        let text = alu_src(src, a);
        if k < inst.src_count() {
            let _ = write!(out, ", {text}");
        } else if *src != AluSrc::default() || a {
            let _ = write!(out, " src{k}:{text}");
        }
    }
    if inst.clamp {
        out.push_str(" clamp");
    }
    if let AluForm::Op2(f) = &inst.form {
        if f.omod != Omod::Off {
            let _ = write!(out, " omod:{}", f.omod);
        }
        if f.update_pred {
            out.push_str(" update_pred");
        }
        if f.update_exec_mask {
            out.push_str(" update_exec");
        }
    }
    if inst.pred_sel != PredSel::Off {
        let _ = write!(out, " pred:{}", inst.pred_sel);
    }
    if inst.bank_swizzle != BankSwizzle::Vec012 {
        let name = match unit {
            Some(Unit::Trans) => inst
                .bank_swizzle
                .scalar_mnemonic()
                .map_or_else(|| inst.bank_swizzle.code().to_string(), str::to_string),
            _ => inst.bank_swizzle.mnemonic().to_string(),
        };
        let _ = write!(out, " bs:{name}");
    }
    if inst.index_mode != IndexMode::ArX {
        let _ = write!(out, " index:{}", inst.index_mode);
    }
    out
}

fn fetch_format(out: &mut String, f: &FetchFormat) {
    if f.data_format.code() != 0 {
        let _ = write!(out, " fmt:{}", f.data_format);
    }
    if f.num_format != NumFormat::Norm {
        let _ = write!(out, " num:{}", f.num_format);
    }
    if f.format_comp == FormatComp::Signed {
        out.push_str(" signed");
    }
    if f.srf_mode == SrfMode::NoZero {
        out.push_str(" srf:NO_ZERO");
    }
}

fn endian(out: &mut String, e: EndianSwap) {
    if e != EndianSwap::None {
        let _ = write!(out, " endian:{e}");
    }
}

/// Format one texture fetch.
pub fn format_tex(inst: &TexInst) -> String {
    let src_sel: String = inst.src_sel.iter().map(|s| s.mnemonic()).collect();
    let mut out = format!(
        "{} {}.{}, {}.{src_sel}, t{}, s{}",
        inst.op,
        gpr_al(inst.dst_gpr, inst.dst_rel),
        sels(&inst.dst_sel),
        gpr_al(inst.src_gpr, inst.src_rel),
        inst.resource_id,
        inst.sampler_id
    );
    if inst.coord_type.contains(&CoordType::Normalized) {
        let ct: String = inst.coord_type.iter().map(|c| c.mnemonic()).collect();
        let _ = write!(out, " ct:{ct}");
    }
    if inst.offset.iter().any(|o| o.get() != 0) {
        let [x, y, z] = inst.offset.map(|o| o.get());
        let _ = write!(out, " offset:({x},{y},{z})");
    }
    if inst.lod_bias.raw() != 0 {
        let _ = write!(out, " lod_bias:{}", inst.lod_bias.value());
    }
    flag_words(
        &mut out,
        &[
            (inst.fetch_whole_quad, "fwq"),
            (inst.bc_frac_mode, "bc_frac"),
            (inst.alt_const, "alt_const"),
        ],
    );
    out
}

fn format_vtx(inst: &VtxInst) -> String {
    let (op, dst) = match inst.dst {
        VtxDst::Gpr { gpr, rel } => ("FETCH", gpr_al(gpr, rel)),
        VtxDst::Semantic { id } => ("SEMANTIC", format!("sem{id}")),
    };
    let mut out = format!(
        "{op} {dst}.{}, {}.{}, b{}",
        sels(&inst.dst_sel),
        gpr_al(inst.src_gpr, inst.src_rel),
        inst.src_sel_x,
        inst.buffer_id
    );
    fetch_format(&mut out, &inst.format);
    if inst.use_const_fields {
        out.push_str(" const_fields");
    }
    if inst.fetch_type != FetchType::VertexData {
        let _ = write!(out, " type:{}", inst.fetch_type);
    }
    if inst.mega_fetch_count.get() != 0 {
        let _ = write!(out, " mfc:{}", inst.mega_fetch_count);
    }
    if inst.offset != 0 {
        let _ = write!(out, " offset:{}", inst.offset);
    }
    endian(&mut out, inst.endian_swap);
    flag_words(
        &mut out,
        &[
            (inst.const_buf_no_stride, "no_stride"),
            (inst.mega_fetch, "mega"),
            (inst.fetch_whole_quad, "fwq"),
            (inst.alt_const, "alt_const"),
        ],
    );
    out
}

fn format_mem_rd(inst: &MemRdInst) -> String {
    let mut out = format!(
        "MEM_RD_{} {}.{}, {}.{}",
        inst.op,
        gpr_al(inst.dst_gpr, inst.dst_rel),
        sels(&inst.dst_sel),
        gpr_al(inst.src_gpr, inst.src_rel),
        inst.src_sel_x
    );
    if inst.array_base.get() != 0 {
        let _ = write!(out, " base:{}", inst.array_base);
    }
    if inst.array_size.get() != 0 {
        let _ = write!(out, " size:{}", inst.array_size);
    }
    if inst.elem_size.get() != 0 {
        let _ = write!(out, " elem_size:{}", inst.elem_size);
    }
    if inst.burst_count.get() != 1 {
        let _ = write!(out, " burst:{}", inst.burst_count);
    }
    fetch_format(&mut out, &inst.format);
    endian(&mut out, inst.endian_swap);
    flag_words(
        &mut out,
        &[
            (inst.uncached, "uncached"),
            (inst.indexed, "indexed"),
            (inst.mega_fetch, "mega"),
            (inst.fetch_whole_quad, "fwq"),
        ],
    );
    out
}

/// Format one instruction of a VTX clause.
pub fn format_vtx_clause_inst(inst: &VtxClauseInst) -> String {
    match inst {
        VtxClauseInst::Fetch(v) => format_vtx(v),
        VtxClauseInst::MemRead(m) => format_mem_rd(m),
    }
}

/// A literal dword as hex, with its value as a float when that reads well
/// and as a signed integer otherwise.
fn literal(bits: u32) -> String {
    let f = f32::from_bits(bits);
    let reads_as_float = f.is_finite() && f != 0.0 && (1e-4..1e7).contains(&f.abs());
    if reads_as_float {
        format!("{bits:#010x} ({f}f)")
    } else {
        format!("{bits:#010x} ({})", bits as i32)
    }
}

fn unit_name(unit: Option<Unit>) -> &'static str {
    match unit {
        Some(Unit::Vector(c)) => c.mnemonic(),
        Some(Unit::Trans) => "t",
        None => "?",
    }
}

fn format_group(out: &mut String, group: &AluGroup, index: usize, addr: &mut u64) {
    let units = assign_units(&group.insts, PreferVector::Yes);
    for (i, (inst, unit)) in group.insts.iter().zip(units).enumerate() {
        let number = if i == 0 {
            index.to_string()
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{addr:>5} {number:>3} {}: {}",
            unit_name(unit),
            format_alu(inst, unit)
        );
        *addr += 1;
    }
    for pair in group.literals.chunks(2) {
        let text: Vec<String> = pair.iter().map(|&b| literal(b)).collect();
        let _ = writeln!(out, "{addr:>5}     L: {}", text.join(", "));
        *addr += 1;
    }
}

/// `1 slot`, `3 slots`.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// [`format_program`] for a program run with `temps` clause temporaries
/// (`SQ_GPR_RESOURCE_MGMT_1.NUM_CLAUSE_TEMP_GPRS`): in ALU lines GPR
/// 128 − temps + i prints as `Ti` (manual §2.6.1.2 L612).
pub fn format_program_with_temps(program: &Program, temps: u32) -> String {
    let text = format_program(program);
    if temps == 0 || temps > 128 {
        return text;
    }
    let first = 128 - temps;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        // ALU lines: `addr group unit: ...`; fetch and CF lines keep R names.
        let is_alu = line
            .split_whitespace()
            .nth(1)
            .is_some_and(|w| w.ends_with(':') || w.chars().all(|c| c.is_ascii_digit()))
            && !line.starts_with(';')
            && line.contains(": ");
        if !is_alu {
            out.push_str(line);
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find('R') {
            let (head, tail) = rest.split_at(i);
            out.push_str(head);
            let digits: String = tail[1..].chars().take_while(char::is_ascii_digit).collect();
            let prev_ok = !head.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
            let next_dot = tail[1 + digits.len()..].starts_with('.');
            match digits.parse::<u32>() {
                Ok(g) if prev_ok && next_dot && g >= first && g < 128 && !digits.is_empty() => {
                    let _ = write!(out, "T{}", g - first);
                }
                _ => out.push_str(&tail[..1 + digits.len()]),
            }
            rest = &tail[1 + digits.len()..];
        }
        out.push_str(rest);
    }
    out
}

/// Format a whole program: the CF program, then each clause, every line
/// prefixed by its qword address (ALU lines also by group number and unit,
/// assigned with PREFER_VECTOR set, as Mesa configures the chip).
pub fn format_program(program: &Program) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "; CF program: {}",
        counted(program.cf.len(), "instruction")
    );
    for (i, inst) in program.cf.iter().enumerate() {
        let _ = writeln!(out, "{i:>5}  {}", format_cf(inst));
    }
    for (&addr, clause) in &program.clauses {
        let mut at = u64::from(addr);
        match clause {
            Clause::Alu(alu) => {
                let _ = writeln!(
                    out,
                    "; ALU clause @{addr}: {}, {}",
                    counted(alu.slots(), "slot"),
                    counted(alu.groups.len(), "group")
                );
                for (index, group) in alu.groups.iter().enumerate() {
                    format_group(&mut out, group, index, &mut at);
                }
            }
            Clause::Fetch(FetchClause::Tex(insts)) => {
                let _ = writeln!(
                    out,
                    "; TEX clause @{addr}: {}",
                    counted(insts.len(), "instruction")
                );
                for inst in insts {
                    let _ = writeln!(out, "{at:>5}  {}", format_tex(inst));
                    at += FETCH_QWORDS;
                }
            }
            Clause::Fetch(FetchClause::Vtx(insts)) => {
                let _ = writeln!(
                    out,
                    "; VTX clause @{addr}: {}",
                    counted(insts.len(), "instruction")
                );
                for inst in insts {
                    let _ = writeln!(out, "{at:>5}  {}", format_vtx_clause_inst(inst));
                    at += FETCH_QWORDS;
                }
            }
        }
    }
    out
}
