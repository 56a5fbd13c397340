//! The disassembler: [`Inst`] → one line of assembly (syntax in
//! [`super`] and `docs/isa-x1k.md`).
//!
//! Every field that differs from its default (the all-zero encoding, or the
//! documented default of the syntax) is printed, so nothing is hidden and
//! [`super::parse_inst`] gives back the same [`Inst`].

use std::fmt::Write as _;

use crate::isa::decode::decode;
use crate::isa::encode::WORDS_PER_SLOT;
use crate::isa::enums::{
    AddrStackOp, BranchOp, Channel, CompareOp, InputModifier, InputSelect, OutputModifier,
    PresubOp, RenderTarget,
};
use crate::isa::fc_statements::FcStatement;
use crate::isa::fields::slot_layout;
use crate::isa::inst::{
    AlphaHalf, AlphaInput, AluInst, AluWrites, FcInst, Inst, JumpAddressing, Predicate, RgbHalf,
    RgbInput, TexInst, TexOp, TexOperand,
};
use crate::isa::operand::{AlphaMask, AluSource, RgbMask, TempAddr};

use super::{IDENTITY_DST_SWIZZLE, alpha_arity, jump_func_name, rgb_arity};

/// Format one instruction as one line of assembly (no slot number).
///
/// ```
/// use ctm_backend_x1k::isa::{decode, format_inst};
/// let inst = decode(&[0x00007807, 0x02400000, 0xE400F400, 0, 0, 0]).unwrap();
/// assert_eq!(format_inst(&inst), "tex r0.rgba = ld(t0, r0.rgaa) acquire sem_wait");
/// ```
pub fn format_inst(inst: &Inst) -> String {
    let mut out = String::new();
    match inst {
        Inst::Alu(a) => format_alu(&mut out, a),
        Inst::Fc(f) => format_fc(&mut out, f),
        Inst::Tex(t) => format_tex(&mut out, t),
    }
    out
}

/// Format a program, one instruction per line, each prefixed by its slot
/// number (`  3: alu ...`); an FC instruction that is one of the CTM §3.5.4
/// statements gets a comment naming it (`# if p.r`, `# call`).
/// [`super::parse_program`] reads it back (comments are ignored).
pub fn format_program(insts: &[Inst]) -> String {
    let mut out = String::new();
    for (slot, inst) in insts.iter().enumerate() {
        let _ = writeln!(out, "{slot:>3}: {}{}", format_inst(inst), annotation(inst));
    }
    out
}

/// `  # <statement>` for an FC instruction matching a CTM §3.5.4 row.
fn annotation(inst: &Inst) -> String {
    match inst {
        Inst::Fc(f) => FcStatement::classify(f)
            .map(|s| format!("  # {s}"))
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// Disassemble raw program words: like [`format_program`], but a slot that
/// does not decode is printed as a comment listing every non-zero field of
/// its words (the field table walk) and the decode error.
pub fn disassemble_words(words: &[u32]) -> String {
    let mut out = String::new();
    for (slot, chunk) in words.chunks(WORDS_PER_SLOT).enumerate() {
        let mut slot_words = [0u32; WORDS_PER_SLOT];
        slot_words[..chunk.len()].copy_from_slice(chunk);
        if chunk.len() < WORDS_PER_SLOT {
            let _ = writeln!(
                out,
                "# {slot:>3}: partial slot of {} words: {chunk:08x?}",
                chunk.len()
            );
            continue;
        }
        match decode(&slot_words) {
            Ok(inst) => {
                let _ = writeln!(
                    out,
                    "{slot:>3}: {}{}",
                    format_inst(&inst),
                    annotation(&inst)
                );
            }
            Err(e) => {
                let _ = writeln!(out, "# {slot:>3}: {}  # {e}", format_raw_slot(&slot_words));
            }
        }
    }
    out
}

/// Every non-zero field of a slot's words, by name, for its `TYPE`, walking
/// the field table: `US_CMN_INST{TYPE=3 TEX_SEM_WAIT=1 ...} US_TEX_INST{...}`.
/// Bits of unused words or reserved bits are printed as `word3=0x...`.
pub fn format_raw_slot(words: &[u32; WORDS_PER_SLOT]) -> String {
    let mut out = String::new();
    let layout = slot_layout(words[0] & 3);
    for (i, (word, usage)) in words.iter().zip(layout).enumerate() {
        if *word == 0 {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        match usage.register {
            None => {
                let _ = write!(out, "word{i}={word:#010x}");
            }
            Some(register) => {
                let _ = write!(out, "{register}{{");
                let mut first = true;
                for field in usage.fields {
                    let value = field.extract(*word);
                    if value != 0 {
                        let _ = write!(
                            out,
                            "{}{}={value:#x}",
                            if first { "" } else { " " },
                            field.name
                        );
                        first = false;
                    }
                }
                let reserved = word & usage.zero_mask;
                if reserved != 0 {
                    let _ = write!(
                        out,
                        "{}reserved={reserved:#010x}",
                        if first { "" } else { " " }
                    );
                }
                out.push('}');
            }
        }
    }
    out
}

fn predicate(p: Predicate) -> String {
    format!("{}{}", if p.invert { "!" } else { "" }, p.sel.mnemonic())
}

fn temp(addr: TempAddr) -> String {
    addr.to_string()
}

fn source(s: AluSource) -> String {
    match s {
        AluSource::Temp(t) => t.to_string(),
        AluSource::Const(c) => c.to_string(),
        AluSource::Inline(_) if s == AluSource::UNUSED => "_".to_string(),
        AluSource::Inline(k) => k.to_string(),
    }
}

fn with_modifier(modifier: InputModifier, body: &str) -> String {
    match modifier {
        InputModifier::None => body.to_string(),
        InputModifier::Neg => format!("-{body}"),
        InputModifier::Abs => format!("|{body}|"),
        InputModifier::NegAbs => format!("-|{body}|"),
    }
}

fn rgb_input(input: RgbInput) -> String {
    let swizzle: String = input.swizzle.iter().map(|s| s.mnemonic()).collect();
    with_modifier(
        input.modifier,
        &format!("{}.{swizzle}", input.sel.mnemonic()),
    )
}

fn alpha_input(input: AlphaInput) -> String {
    with_modifier(
        input.modifier,
        &format!("{}.{}", input.sel.mnemonic(), input.swizzle.mnemonic()),
    )
}

/// How many inputs to print: the op's arity, or more if a later input is
/// not the all-zero default (so nothing is hidden).
fn printed_inputs<T: PartialEq + Default>(inputs: &[T; 3], arity: usize) -> usize {
    let last_non_default = inputs
        .iter()
        .rposition(|i| *i != T::default())
        .map_or(0, |i| i + 1);
    arity.max(last_non_default)
}

fn half_attrs(
    out: &mut String,
    omod: OutputModifier,
    clamp: bool,
    presub: PresubOp,
    uses_srcp: bool,
    pred: Option<Predicate>,
) {
    if omod != OutputModifier::Mul1 {
        let _ = write!(out, " {}", omod.mnemonic());
    }
    if clamp {
        out.push_str(" sat");
    }
    if presub != PresubOp::Bias || uses_srcp {
        let _ = write!(out, " srcp={}", presub.mnemonic());
    }
    if let Some(p) = pred {
        let _ = write!(out, " pred={}", predicate(p));
    }
}

fn rgb_mask_dest(prefix: &str, mask: RgbMask) -> String {
    format!("{prefix}.{mask}")
}

fn alpha_mask_text(mask: AlphaMask) -> &'static str {
    if mask.is_on() { "a" } else { "_" }
}

/// Whether everything a half prints (all but its sources) is the default:
/// the half is then printed as a bare `_`.
fn rgb_half_is_default(h: &RgbHalf, writes: &AluWrites) -> bool {
    let writes_default = match writes {
        AluWrites::Output(o) => o.rgb_mask.is_empty() && o.rgb_target == RenderTarget::A,
        AluWrites::Predicate(p) => p.rgb_mask.is_empty() && p.rgb_op == CompareOp::Eq,
    };
    writes_default
        && RgbHalf {
            sources: RgbHalf::default().sources,
            ..*h
        } == RgbHalf::default()
}

fn alpha_half_is_default(h: &AlphaHalf, writes: &AluWrites) -> bool {
    let writes_default = match writes {
        AluWrites::Output(o) => {
            !o.alpha_mask.is_on() && o.alpha_target == RenderTarget::A && !o.w.is_on()
        }
        AluWrites::Predicate(p) => !p.alpha_mask.is_on() && p.alpha_op == CompareOp::Eq,
    };
    writes_default
        && AlphaHalf {
            sources: AlphaHalf::default().sources,
            ..*h
        } == AlphaHalf::default()
}

fn format_rgb_half(out: &mut String, h: &RgbHalf, writes: &AluWrites) {
    if rgb_half_is_default(h, writes) {
        out.push('_');
        return;
    }
    let mut dests = Vec::new();
    if !h.write_mask.is_empty() || h.dest != TempAddr::default() {
        dests.push(rgb_mask_dest(&temp(h.dest), h.write_mask));
    }
    match writes {
        AluWrites::Output(o) => {
            if !o.rgb_mask.is_empty() || o.rgb_target != RenderTarget::A {
                dests.push(rgb_mask_dest(o.rgb_target.mnemonic(), o.rgb_mask));
            }
        }
        AluWrites::Predicate(p) => {
            if !p.rgb_mask.is_empty() || p.rgb_op != CompareOp::Eq {
                dests.push(format!(
                    "{}{}",
                    rgb_mask_dest("p", p.rgb_mask),
                    p.rgb_op.mnemonic()
                ));
            }
        }
    }
    let n = printed_inputs(&h.inputs, rgb_arity(h.op));
    let args: Vec<String> = h.inputs[..n].iter().map(|i| rgb_input(*i)).collect();
    let uses_srcp = h.inputs[..n].iter().any(|i| i.sel == InputSelect::Srcp);
    let dests = if dests.is_empty() {
        "_".to_string()
    } else {
        dests.join(", ")
    };
    let _ = write!(out, "{dests} = {}({})", h.op.mnemonic(), args.join(", "));
    half_attrs(out, h.omod, h.clamp, h.presub, uses_srcp, h.predicate);
}

fn format_alpha_half(out: &mut String, h: &AlphaHalf, writes: &AluWrites) {
    if alpha_half_is_default(h, writes) {
        out.push('_');
        return;
    }
    let mut dests = Vec::new();
    if h.write_mask.is_on() || h.dest != TempAddr::default() {
        dests.push(format!(
            "{}.{}",
            temp(h.dest),
            alpha_mask_text(h.write_mask)
        ));
    }
    match writes {
        AluWrites::Output(o) => {
            if o.alpha_mask.is_on() || o.alpha_target != RenderTarget::A {
                dests.push(format!(
                    "{}.{}",
                    o.alpha_target.mnemonic(),
                    alpha_mask_text(o.alpha_mask)
                ));
            }
            if o.w.is_on() {
                dests.push("w".to_string());
            }
        }
        AluWrites::Predicate(p) => {
            if p.alpha_mask.is_on() || p.alpha_op != CompareOp::Eq {
                dests.push(format!(
                    "p.{}{}",
                    alpha_mask_text(p.alpha_mask),
                    p.alpha_op.mnemonic()
                ));
            }
        }
    }
    let n = printed_inputs(&h.inputs, alpha_arity(h.op));
    let args: Vec<String> = h.inputs[..n].iter().map(|i| alpha_input(*i)).collect();
    let uses_srcp = h.inputs[..n].iter().any(|i| i.sel == InputSelect::Srcp);
    let dests = if dests.is_empty() {
        "_".to_string()
    } else {
        dests.join(", ")
    };
    let _ = write!(out, "{dests} = {}({})", h.op.mnemonic(), args.join(", "));
    half_attrs(out, h.omod, h.clamp, h.presub, uses_srcp, h.predicate);
}

fn format_alu(out: &mut String, a: &AluInst) {
    out.push_str(match a.writes {
        AluWrites::Predicate(_) => "alu ",
        AluWrites::Output(_) => "out ",
    });
    format_rgb_half(out, &a.rgb, &a.writes);
    out.push_str(" ; ");
    format_alpha_half(out, &a.alpha, &a.writes);

    let mut items = Vec::new();
    for i in 0..3 {
        let (rgb, alpha) = (a.rgb.sources[i], a.alpha.sources[i]);
        if rgb == AluSource::UNUSED && alpha == AluSource::UNUSED {
            continue;
        }
        if rgb == alpha {
            items.push(format!("s{i}={}", source(rgb)));
        } else {
            items.push(format!("s{i}={}|{}", source(rgb), source(alpha)));
        }
    }
    if let Some(r) = a.alu_result {
        items.push(format!(
            "alu_result={}{}",
            r.sel.mnemonic(),
            r.op.mnemonic()
        ));
    }
    for (on, name) in [
        (a.sem_wait, "sem_wait"),
        (a.write_inactive, "write_inactive"),
        (a.last, "last"),
        (a.nop, "nop"),
    ] {
        if on {
            items.push(name.to_string());
        }
    }
    if !items.is_empty() {
        let _ = write!(out, " ; {}", items.join(" "));
    }
}

fn format_fc(out: &mut String, f: &FcInst) {
    let _ = write!(out, "fc {} {}", f.op.mnemonic(), f.jump_addr.get());
    match jump_func_name(f.jump_func) {
        Some(name) => {
            let _ = write!(out, " func={name}");
        }
        None => {
            let _ = write!(out, " func={:#04x}", f.jump_func);
        }
    }
    if f.jump_addressing == JumpAddressing::Global {
        out.push_str(" global");
    }
    if let Some(p) = f.predicate {
        let _ = write!(
            out,
            " pred={}{}",
            if p.invert { "!" } else { "" },
            p.sel().mnemonic()
        );
    }
    if f.jump_any {
        out.push_str(" jump_any");
    }
    if f.b_else {
        out.push_str(" b_else");
    }
    if f.a_op != AddrStackOp::None {
        let _ = write!(out, " a_op={}", f.a_op.mnemonic());
    }
    if f.b_op0 != BranchOp::None {
        let _ = write!(out, " b_op0={}", f.b_op0.mnemonic());
    }
    if f.b_op1 != BranchOp::None {
        let _ = write!(out, " b_op1={}", f.b_op1.mnemonic());
    }
    if f.b_pop_cnt.get() != 0 {
        let _ = write!(out, " b_pop_cnt={}", f.b_pop_cnt.get());
    }
    if f.bool_addr.get() != 0 {
        let _ = write!(out, " bool={}", f.bool_addr);
    }
    if f.int_addr.get() != 0 {
        let _ = write!(out, " int={}", f.int_addr);
    }
    for (on, name) in [
        (f.ignore_uncovered, "ignore_uncovered"),
        (f.sem_wait, "sem_wait"),
        (f.alu_wait, "alu_wait"),
    ] {
        if on {
            let _ = write!(out, " {name}");
        }
    }
}

fn channels(c: &[Channel; 4]) -> String {
    c.iter().map(|c| c.mnemonic()).collect()
}

fn tex_operand(o: TexOperand) -> String {
    format!("{}.{}", temp(o.addr), channels(&o.swizzle))
}

fn format_tex(out: &mut String, t: &TexInst) {
    let mut mask = String::new();
    for i in 0..3 {
        if t.rgb_write_mask.has(i) {
            mask.push(['r', 'g', 'b'][i]);
        }
    }
    if t.alpha_write_mask.is_on() {
        mask.push('a');
    }
    let dest = if mask.is_empty() {
        if t.dst == TempAddr::default() {
            "_".to_string()
        } else {
            format!("{}._", temp(t.dst))
        }
    } else {
        format!("{}.{mask}", temp(t.dst))
    };
    let op = t.op.opcode();
    let _ = write!(
        out,
        "tex {dest} = {}({}, {}",
        op.mnemonic(),
        t.tex_id,
        tex_operand(t.src)
    );
    if let TexOp::Dxdy { dx, dy } = t.op {
        let _ = write!(out, ", {}, {}", tex_operand(dx), tex_operand(dy));
    }
    out.push(')');
    if t.dst_swizzle != IDENTITY_DST_SWIZZLE {
        let _ = write!(out, ".{}", channels(&t.dst_swizzle));
    }
    if let Some(p) = t.rgb_predicate {
        let _ = write!(out, " rgb_pred={}", predicate(p));
    }
    if let Some(p) = t.alpha_predicate {
        let _ = write!(out, " alpha_pred={}", predicate(p));
    }
    for (on, name) in [
        (t.sem_acquire, "acquire"),
        (t.sem_wait, "sem_wait"),
        (t.alu_wait, "alu_wait"),
        (t.write_inactive, "write_inactive"),
        (t.ignore_uncovered, "ignore_uncovered"),
        (t.unscaled, "unscaled"),
    ] {
        if on {
            let _ = write!(out, " {name}");
        }
    }
}
