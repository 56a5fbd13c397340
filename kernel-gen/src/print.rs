//! Prints an [`ast::File`] as formatted `.ck` source: four-space indents,
//! one statement per line, parentheses only where precedence (spec §6)
//! needs them, plus a few for readability and for Rust's parser (a cast is
//! parenthesized inside any binary operation, so that `x as i32 < y`, which
//! Rust reads as generics, never appears).
//!
//! With [`LiteralForms`] the printer also writes literals in their other
//! legal spellings (`0x2A`, `0b101`, `1_000`, `2i32`, `1.5f32`, `2.5e0`).

use super::rng::Rng;
use ctm_frontend::ast::{
    AssignOp, Block, Expr, ExprKind, File, IntRadix, Item, Param, Stmt, StmtKind, TypeExpr,
    TypeExprKind, UnaryOp,
};

/// Whether (and with which random choices) to vary literal spellings.
pub struct LiteralForms(pub Option<Rng>);

/// Prints `file` after the comment lines `header`.
pub fn print_file(file: &File, header: &[String], forms: LiteralForms) -> String {
    let mut p = Printer {
        out: String::new(),
        indent: 0,
        forms: forms.0,
    };
    for line in header {
        p.out.push_str("// ");
        p.out.push_str(line);
        p.out.push('\n');
    }
    for (i, item) in file.items.iter().enumerate() {
        if i > 0 || !header.is_empty() {
            p.out.push('\n');
        }
        p.item(item);
    }
    p.out
}

struct Printer {
    out: String,
    indent: usize,
    forms: Option<Rng>,
}

/// Binding strength of an expression as printed (higher binds tighter).
fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::If { .. } | ExprKind::Block(_) => 0,
        ExprKind::Binary { op, .. } => op.precedence(),
        ExprKind::Cast { .. } => 11,
        ExprKind::Unary { .. } => 12,
        ExprKind::Float(x) if x.is_sign_negative() => 12,
        ExprKind::Call { .. } | ExprKind::Field { .. } | ExprKind::Index { .. } => 13,
        _ => 14,
    }
}

fn is_literal(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Float(_) | ExprKind::Int { .. } | ExprKind::Bool(_)
    )
}

fn is_negative(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Float(x) => x.is_sign_negative(),
        ExprKind::Unary {
            op: UnaryOp::Neg, ..
        } => true,
        _ => false,
    }
}

fn type_text(t: &TypeExpr) -> String {
    match &t.kind {
        TypeExprKind::Named(id) => id.name.clone(),
        TypeExprKind::Generic { name, arg } => format!("{}<{}>", name.name, type_text(arg)),
        TypeExprKind::Array { elem, len } => {
            let n = match &len.kind {
                ExprKind::Int { value, .. } => value.to_string(),
                _ => "0".to_string(),
            };
            format!("[{}; {n}]", type_text(elem))
        }
        TypeExprKind::Unit => "()".to_string(),
        TypeExprKind::Error => "_".to_string(),
    }
}

/// `1000000` as `1_000_000`.
fn underscored(digits: &str) -> String {
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}

impl Printer {
    fn pad(&self) -> String {
        "    ".repeat(self.indent)
    }

    fn line(&mut self, text: &str) {
        let pad = self.pad();
        self.out.push_str(&pad);
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.forms.as_mut().is_some_and(|r| r.percent(percent))
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Const(c) => {
                let v = self.expr(&c.value, 0);
                self.line(&format!(
                    "const {}: {} = {v};",
                    c.name.name,
                    type_text(&c.ty)
                ));
            }
            Item::Fn(f) => {
                let params = self.params(&f.params);
                let ret = f
                    .ret
                    .as_ref()
                    .map_or(String::new(), |t| format!(" -> {}", type_text(t)));
                self.line(&format!("fn {}({params}){ret} {{", f.name.name));
                self.block_body(&f.body);
                self.line("}");
            }
            Item::Kernel(k) => {
                let one_line = self.params(&k.params);
                if one_line.len() + k.name.name.len() + 12 <= 90 {
                    self.line(&format!("kernel {}({one_line}) {{", k.name.name));
                } else {
                    self.line(&format!("kernel {}(", k.name.name));
                    self.indent += 1;
                    for p in &k.params {
                        let text = self.param(p);
                        self.line(&format!("{text},"));
                    }
                    self.indent -= 1;
                    self.line(") {");
                }
                self.block_body(&k.body);
                self.line("}");
            }
            Item::Reduce(r) => {
                let params = self.params(&r.params);
                self.line(&format!(
                    "reduce {}({params}) -> {} {{",
                    r.name.name,
                    type_text(&r.ret)
                ));
                self.block_body(&r.body);
                self.line("}");
            }
        }
    }

    fn param(&self, p: &Param) -> String {
        let m = if p.mutable { "mut " } else { "" };
        format!("{m}{}: {}", p.name.name, type_text(&p.ty))
    }

    fn params(&self, ps: &[Param]) -> String {
        ps.iter()
            .map(|p| self.param(p))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The statements and tail of `b`, one level deeper.
    fn block_body(&mut self, b: &Block) {
        self.indent += 1;
        for s in &b.stmts {
            self.stmt(s);
        }
        if let Some(t) = &b.tail {
            let text = self.expr(t, 0);
            self.line(&text);
        }
        self.indent -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Let {
                mutable,
                name,
                ty,
                init,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let t = ty
                    .as_ref()
                    .map_or(String::new(), |t| format!(": {}", type_text(t)));
                let v = init
                    .as_ref()
                    .map_or(String::new(), |e| format!(" = {}", self.expr(e, 0)));
                self.line(&format!("let {m}{}{t}{v};", name.name));
            }
            StmtKind::Assign { target, op, value } => {
                let t = self.expr(target, 0);
                let v = self.expr(value, 0);
                let o = match op {
                    AssignOp::Assign => "=".to_string(),
                    AssignOp::Compound(b) => format!("{}=", b.symbol()),
                };
                self.line(&format!("{t} {o} {v};"));
            }
            StmtKind::Expr(e) => {
                if matches!(e.kind, ExprKind::If { .. }) {
                    let text = self.if_text(e, true);
                    self.line(&text);
                } else {
                    let text = self.expr(e, 0);
                    self.line(&format!("{text};"));
                }
            }
            StmtKind::For {
                var,
                start,
                end,
                body,
            } => {
                let a = self.expr(start, 12);
                let b = self.expr(end, 12);
                self.line(&format!("for {} in {a}..{b} {{", var.name));
                self.block_body(body);
                self.line("}");
            }
            StmtKind::While { cond, body } => {
                let c = self.expr(cond, 1);
                self.line(&format!("while {c} {{"));
                self.block_body(body);
                self.line("}");
            }
            StmtKind::Loop { body } => {
                self.line("loop {");
                self.block_body(body);
                self.line("}");
            }
            StmtKind::Break => self.line("break;"),
            StmtKind::Continue => self.line("continue;"),
            StmtKind::Return(None) => self.line("return;"),
            StmtKind::Return(Some(e)) => {
                let v = self.expr(e, 0);
                self.line(&format!("return {v};"));
            }
            StmtKind::Discard => self.line("discard;"),
        }
    }

    /// The text of `e`, parenthesized if it binds less tightly than
    /// `min` (0: anything goes; 1: anything but a bare `if`).
    fn expr(&mut self, e: &Expr, min: u8) -> String {
        let text = self.expr_inner(e);
        if prec(e) < min {
            format!("({text})")
        } else {
            text
        }
    }

    fn expr_inner(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Float(x) => self.float_text(*x),
            ExprKind::Int { value, radix } => self.int_text(*value, *radix),
            ExprKind::Bool(b) => b.to_string(),
            ExprKind::Name(id) => id.name.clone(),
            ExprKind::Unary { op, operand } => {
                let sym = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "!",
                };
                let inner = self.expr(operand, 12);
                if *op == UnaryOp::Neg && is_negative(operand) && !inner.starts_with('(') {
                    format!("-({inner})")
                } else {
                    format!("{sym}{inner}")
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let p = op.precedence();
                let l_min = if op.is_comparison() { p + 1 } else { p };
                let l = self.operand(lhs, l_min);
                let r = self.operand(rhs, p + 1);
                format!("{l} {} {r}", op.symbol())
            }
            ExprKind::Cast { operand, ty } => {
                let inner = self.expr(operand, 11);
                format!("{inner} as {}", type_text(ty))
            }
            ExprKind::Call { callee, args } => {
                let a: Vec<String> = args.iter().map(|x| self.expr(x, 1)).collect();
                format!("{}({})", callee.name, a.join(", "))
            }
            ExprKind::Field { base, field } => {
                let b = if is_literal(base) {
                    format!("({})", self.expr_inner(base))
                } else {
                    self.expr(base, 13)
                };
                format!("{b}.{}", field.name)
            }
            ExprKind::Index { base, index } => {
                let b = self.expr(base, 13);
                let i = self.expr(index, 1);
                format!("{b}[{i}]")
            }
            ExprKind::If { .. } => self.if_text(e, false),
            ExprKind::Block(b) => self.block_text(b),
            ExprKind::Error => "0.0".to_string(),
        }
    }

    /// An operand of a binary operator: casts always in parentheses.
    fn operand(&mut self, e: &Expr, min: u8) -> String {
        if matches!(e.kind, ExprKind::Cast { .. }) {
            format!("({})", self.expr_inner(e))
        } else {
            self.expr(e, min)
        }
    }

    /// `if c { .. } else if .. { .. } else { .. }`, on one line when it is
    /// short and its blocks hold only values.
    fn if_text(&mut self, e: &Expr, statement: bool) -> String {
        let mut parts: Vec<(Option<String>, &Block)> = Vec::new();
        let mut cur = e;
        let mut last: Option<&Block> = None;
        let mut wrapped: Option<Block> = None;
        while let ExprKind::If { cond, then, else_ } = &cur.kind {
            let c = self.expr(cond, 1);
            parts.push((Some(c), then));
            match else_.as_deref() {
                Some(
                    next @ Expr {
                        kind: ExprKind::If { .. },
                        ..
                    },
                ) => cur = next,
                Some(Expr {
                    kind: ExprKind::Block(b),
                    ..
                }) => {
                    last = Some(b);
                    break;
                }
                Some(other) => {
                    // Not a form the parser makes; print it as the value
                    // of an `else` block.
                    wrapped = Some(Block {
                        stmts: Vec::new(),
                        tail: Some(Box::new(other.clone())),
                        span: other.span,
                    });
                    break;
                }
                None => break,
            }
        }
        if let Some(b) = last.or(wrapped.as_ref()) {
            parts.push((None, b));
        }
        let simple = !statement
            && parts
                .iter()
                .all(|(_, b)| b.stmts.is_empty() && b.tail.is_some());
        if simple {
            let mut text = String::new();
            for (i, (c, b)) in parts.iter().enumerate() {
                let v = b.tail.as_ref().map_or(String::new(), |t| self.expr(t, 0));
                match (i, c) {
                    (0, Some(c)) => text.push_str(&format!("if {c} {{ {v} }}")),
                    (_, Some(c)) => text.push_str(&format!(" else if {c} {{ {v} }}")),
                    (_, None) => text.push_str(&format!(" else {{ {v} }}")),
                }
            }
            if text.len() <= 72 && !text.contains('\n') {
                return text;
            }
        }
        let mut text = String::new();
        for (i, (c, b)) in parts.iter().enumerate() {
            let inner = self.block_text(b);
            match (i, c) {
                (0, Some(c)) => text.push_str(&format!("if {c} {inner}")),
                (_, Some(c)) => text.push_str(&format!(" else if {c} {inner}")),
                (_, None) => text.push_str(&format!(" else {inner}")),
            }
        }
        text
    }

    /// `{`, the block's lines one level deeper, `}` at this level.
    fn block_text(&mut self, b: &Block) -> String {
        let saved = std::mem::take(&mut self.out);
        self.block_body(b);
        let body = std::mem::replace(&mut self.out, saved);
        format!("{{\n{body}{}}}", self.pad())
    }

    fn float_text(&mut self, x: f32) -> String {
        let plain = format!("{x:?}");
        if self.chance(8) {
            // `{:e}` is the shortest round-trip form too: `2.5e0`, `1e-3`.
            return format!("{x:e}");
        }
        if self.chance(8) {
            return format!("{plain}f32");
        }
        plain
    }

    fn int_text(&mut self, value: u64, radix: IntRadix) -> String {
        match radix {
            IntRadix::NonDecimal => {
                if value < 64 && self.chance(50) {
                    format!("0b{value:b}")
                } else {
                    format!("0x{value:X}")
                }
            }
            IntRadix::Decimal => {
                let digits = value.to_string();
                let mut text = if value >= 10_000 && self.chance(60) {
                    underscored(&digits)
                } else {
                    digits
                };
                if self.chance(8) {
                    text.push_str("i32");
                }
                text
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::build::*;
    use super::*;
    use ctm_frontend::ast::BinaryOp;
    use ctm_frontend::types::Type;

    fn show(e: Expr) -> String {
        let mut p = Printer {
            out: String::new(),
            indent: 0,
            forms: None,
        };
        p.expr(&e, 0)
    }

    #[test]
    fn precedence_and_parentheses() {
        let a = || name("a");
        let b = || name("b");
        let sum = binary(BinaryOp::Add, a(), b());
        assert_eq!(show(binary(BinaryOp::Mul, sum.clone(), a())), "(a + b) * a");
        assert_eq!(show(binary(BinaryOp::Sub, a(), sum.clone())), "a - (a + b)");
        assert_eq!(show(binary(BinaryOp::Add, sum.clone(), a())), "a + b + a");
        let lt = binary(BinaryOp::Lt, a(), b());
        assert_eq!(
            show(binary(BinaryOp::Eq, lt.clone(), lt)),
            "(a < b) == (a < b)"
        );
        assert_eq!(show(unary(UnaryOp::Neg, float(-1.0))), "-(-1.0)");
        assert_eq!(show(field(float(1.5), "xx")), "(1.5).xx");
        assert_eq!(show(field(sum, "x")), "(a + b).x");
        let c = cast(a(), Type::I32);
        assert_eq!(show(binary(BinaryOp::Lt, c.clone(), b())), "(a as i32) < b");
        assert_eq!(show(cast(c, Type::F32)), "a as i32 as f32");
        assert_eq!(show(int(-5)), "-5");
    }
}
