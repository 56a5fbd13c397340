//! Printing the [`crate::ast`]: back to normalized `.ck` source ([`print_file`],
//! [`print_expr`]) and as an indented tree for `ctmc --emit ast`
//! ([`dump_file`]).
//!
//! The source printer is the parser's inverse up to layout: parsing what it
//! prints gives the same tree (spans aside). It uses 4-space indentation,
//! writes parentheses only where precedence needs them (and around `if` and
//! block expressions used as operands, which would otherwise end a
//! statement), and prints floats so that they read back as the same f32
//! ([`FloatLit`]).
//!
//! Both printers recurse on the tree; trees from [`crate::parser::parse`]
//! are at most [`crate::parser::MAX_DEPTH`] levels deep.

use crate::ast::{
    AssignOp, Block, Expr, ExprKind, File, Ident, IntRadix, Item, Param, Stmt, StmtKind, TypeExpr,
    TypeExprKind, UnaryOp,
};
use crate::span::{Span, line_col};
use crate::value::FloatLit;
use std::fmt::Write as _;

/// Binding strength of postfix operations (`.x`, `[i]`, calls).
const POSTFIX: u8 = 13;
/// Binding strength of prefix `-` and `!`.
const PREFIX: u8 = 12;
/// Binding strength of `as`.
const CAST: u8 = 11;
/// Literals and names never need parentheses.
const ATOM: u8 = 14;
/// `if` and block expressions always get parentheses as operands.
const BLOCK_LIKE: u8 = 0;
/// The longest value printed as a one-line block `{ value }`.
const SHORT_BLOCK_CHARS: usize = 40;

/// How tightly `e` binds, on the scale of [`crate::ast::BinaryOp::precedence`].
fn strength(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary { op, .. } => op.precedence(),
        ExprKind::Cast { .. } => CAST,
        ExprKind::Unary { .. } => PREFIX,
        ExprKind::Field { .. } | ExprKind::Index { .. } | ExprKind::Call { .. } => POSTFIX,
        ExprKind::Float(x) if x.is_sign_negative() => PREFIX,
        ExprKind::If { .. } | ExprKind::Block(_) => BLOCK_LIKE,
        ExprKind::Float(_)
        | ExprKind::Int { .. }
        | ExprKind::Bool(_)
        | ExprKind::Name(_)
        | ExprKind::Error => ATOM,
    }
}

/// `true` for `if` and block expressions.
fn is_block_like(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::If { .. } | ExprKind::Block(_))
}

/// Writes source text with indentation.
struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
    }

    fn ident(&mut self, i: &Ident) {
        self.out.push_str(&i.name);
    }

    fn ty(&mut self, t: &TypeExpr) {
        match &t.kind {
            TypeExprKind::Named(name) => self.ident(name),
            TypeExprKind::Generic { name, arg } => {
                self.ident(name);
                self.out.push('<');
                self.ty(arg);
                self.out.push('>');
            }
            TypeExprKind::Array { elem, len } => {
                self.out.push('[');
                self.ty(elem);
                self.out.push_str("; ");
                self.expr(len, 0);
                self.out.push(']');
            }
            TypeExprKind::Unit => self.out.push_str("()"),
            TypeExprKind::Error => self.out.push_str("<error>"),
        }
    }

    fn params(&mut self, params: &[Param]) {
        self.out.push('(');
        for (i, p) in params.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            if p.mutable {
                self.out.push_str("mut ");
            }
            self.ident(&p.name);
            self.out.push_str(": ");
            self.ty(&p.ty);
        }
        self.out.push(')');
    }

    /// Prints `e`, in parentheses if it binds less tightly than `min`.
    fn expr(&mut self, e: &Expr, min: u8) {
        let parens = strength(e) < min;
        if parens {
            self.out.push('(');
        }
        match &e.kind {
            ExprKind::Float(x) => {
                let _ = write!(self.out, "{}", FloatLit(*x));
            }
            ExprKind::Int { value, radix } => {
                let _ = match radix {
                    IntRadix::Decimal => write!(self.out, "{value}"),
                    IntRadix::NonDecimal => write!(self.out, "0x{value:X}"),
                };
            }
            ExprKind::Bool(b) => {
                let _ = write!(self.out, "{b}");
            }
            ExprKind::Name(name) => self.ident(name),
            ExprKind::Unary { op, operand } => {
                self.out.push(match op {
                    UnaryOp::Neg => '-',
                    UnaryOp::Not => '!',
                });
                self.expr(operand, PREFIX);
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let p = op.precedence();
                // Comparisons do not associate: both sides bind tighter.
                let left = if op.is_comparison() { p + 1 } else { p };
                self.expr(lhs, left);
                let _ = write!(self.out, " {} ", op.symbol());
                self.expr(rhs, p + 1);
            }
            ExprKind::Cast { operand, ty } => {
                self.expr(operand, CAST);
                self.out.push_str(" as ");
                self.ty(ty);
            }
            ExprKind::Call { callee, args } => {
                self.ident(callee);
                self.out.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.expr(a, 0);
                }
                self.out.push(')');
            }
            ExprKind::Field { base, field } => {
                self.expr(base, POSTFIX);
                self.out.push('.');
                self.ident(field);
            }
            ExprKind::Index { base, index } => {
                self.expr(base, POSTFIX);
                self.out.push('[');
                self.expr(index, 0);
                self.out.push(']');
            }
            ExprKind::If { .. } => self.if_chain(e),
            ExprKind::Block(b) => self.short_block(b),
            ExprKind::Error => self.out.push_str("<error>"),
        }
        if parens {
            self.out.push(')');
        }
    }

    /// `if c { } else if d { } else { }`, iteratively along the chain.
    /// Branches print on one line only for a plain `if`/`else`.
    fn if_chain(&mut self, mut e: &Expr) {
        let chained = matches!(
            &e.kind,
            ExprKind::If { else_: Some(else_), .. } if matches!(else_.kind, ExprKind::If { .. })
        );
        while let ExprKind::If { cond, then, else_ } = &e.kind {
            self.out.push_str("if ");
            self.expr(cond, 0);
            self.out.push(' ');
            if chained {
                self.block(then);
            } else {
                self.short_block(then);
            }
            let Some(else_) = else_ else { return };
            self.out.push_str(" else ");
            match &else_.kind {
                ExprKind::If { .. } => e = else_,
                ExprKind::Block(b) if chained => return self.block(b),
                ExprKind::Block(b) => return self.short_block(b),
                _ => return self.expr(else_, 0),
            }
        }
    }

    /// A block that is only a short, simple value prints on one line:
    /// `{ 1.0 - c }`.
    fn short_block(&mut self, b: &Block) {
        if let (true, Some(tail)) = (b.stmts.is_empty(), &b.tail)
            && !is_block_like(tail)
        {
            let mut inner = Printer {
                out: String::new(),
                indent: 0,
            };
            inner.expr(tail, 0);
            if inner.out.len() <= SHORT_BLOCK_CHARS && !inner.out.contains('\n') {
                self.out.push_str("{ ");
                self.out.push_str(&inner.out);
                self.out.push_str(" }");
                return;
            }
        }
        self.block(b);
    }

    fn block(&mut self, b: &Block) {
        if b.stmts.is_empty() && b.tail.is_none() {
            self.out.push_str("{}");
            return;
        }
        self.out.push('{');
        self.indent += 1;
        let count = b.stmts.len();
        for (i, s) in b.stmts.iter().enumerate() {
            self.newline();
            // A block-like statement needs `;` only where it would
            // otherwise be read as the block's value.
            let last = i + 1 == count && b.tail.is_none();
            self.stmt(s, last);
        }
        if let Some(tail) = &b.tail {
            self.newline();
            self.expr(tail, 0);
        }
        self.indent -= 1;
        self.newline();
        self.out.push('}');
    }

    fn stmt(&mut self, s: &Stmt, last: bool) {
        match &s.kind {
            StmtKind::Let {
                mutable,
                name,
                ty,
                init,
            } => {
                self.out
                    .push_str(if *mutable { "let mut " } else { "let " });
                self.ident(name);
                if let Some(ty) = ty {
                    self.out.push_str(": ");
                    self.ty(ty);
                }
                if let Some(init) = init {
                    self.out.push_str(" = ");
                    self.expr(init, 0);
                }
                self.out.push(';');
            }
            StmtKind::Assign { target, op, value } => {
                // At the start of a statement, a block-like target needs
                // parentheses (else it would be a statement of its own).
                self.expr(target, BLOCK_LIKE + 1);
                let _ = match op {
                    AssignOp::Assign => write!(self.out, " = "),
                    AssignOp::Compound(op) => write!(self.out, " {}= ", op.symbol()),
                };
                self.expr(value, 0);
                self.out.push(';');
            }
            StmtKind::Expr(e) => {
                self.expr(e, 0);
                if !is_block_like(e) || last {
                    self.out.push(';');
                }
            }
            StmtKind::For {
                var,
                start,
                end,
                body,
            } => {
                self.out.push_str("for ");
                self.ident(var);
                self.out.push_str(" in ");
                self.expr(start, 0);
                self.out.push_str("..");
                self.expr(end, 0);
                self.out.push(' ');
                self.block(body);
            }
            StmtKind::While { cond, body } => {
                self.out.push_str("while ");
                self.expr(cond, 0);
                self.out.push(' ');
                self.block(body);
            }
            StmtKind::Loop { body } => {
                self.out.push_str("loop ");
                self.block(body);
            }
            StmtKind::Break => self.out.push_str("break;"),
            StmtKind::Continue => self.out.push_str("continue;"),
            StmtKind::Return(None) => self.out.push_str("return;"),
            StmtKind::Return(Some(e)) => {
                self.out.push_str("return ");
                self.expr(e, 0);
                self.out.push(';');
            }
            StmtKind::Discard => self.out.push_str("discard;"),
        }
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Const(c) => {
                self.out.push_str("const ");
                self.ident(&c.name);
                self.out.push_str(": ");
                self.ty(&c.ty);
                self.out.push_str(" = ");
                self.expr(&c.value, 0);
                self.out.push(';');
            }
            Item::Fn(f) => {
                self.out.push_str("fn ");
                self.ident(&f.name);
                self.params(&f.params);
                if let Some(ret) = &f.ret {
                    self.out.push_str(" -> ");
                    self.ty(ret);
                }
                self.out.push(' ');
                self.block(&f.body);
            }
            Item::Kernel(k) => {
                self.out.push_str("kernel ");
                self.ident(&k.name);
                self.params(&k.params);
                self.out.push(' ');
                self.block(&k.body);
            }
            Item::Reduce(r) => {
                self.out.push_str("reduce ");
                self.ident(&r.name);
                self.params(&r.params);
                self.out.push_str(" -> ");
                self.ty(&r.ret);
                self.out.push(' ');
                self.block(&r.body);
            }
        }
    }
}

/// Prints a file as normalized source: one item after another, separated
/// by blank lines, each statement on its own line.
pub fn print_file(file: &File) -> String {
    let mut p = Printer {
        out: String::new(),
        indent: 0,
    };
    for (i, item) in file.items.iter().enumerate() {
        if i > 0 {
            p.out.push_str("\n\n");
        }
        p.item(item);
    }
    if !file.items.is_empty() {
        p.out.push('\n');
    }
    p.out
}

/// Prints one expression as source, with the fewest parentheses that keep
/// its structure.
pub fn print_expr(e: &Expr) -> String {
    let mut p = Printer {
        out: String::new(),
        indent: 0,
    };
    p.expr(e, 0);
    p.out
}

/// Byte offsets of line starts, for `line:col` of many spans in one pass
/// (the same numbers as [`line_col`], without rescanning the text).
struct Lines<'s> {
    source: &'s str,
    starts: Vec<usize>,
}

impl<'s> Lines<'s> {
    fn new(source: &'s str) -> Lines<'s> {
        let starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines { source, starts }
    }

    fn line_col(&self, offset: u32) -> (usize, usize) {
        let offset = (offset as usize).min(self.source.len());
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = line
            .checked_sub(1)
            .and_then(|i| self.starts.get(i))
            .copied()
            .unwrap_or(0);
        match self.source.get(start..offset) {
            Some(text) => (line.max(1), text.chars().count() + 1),
            None => line_col(self.source, offset as u32),
        }
    }
}

/// Writes the tree dump.
struct Dumper<'s> {
    out: String,
    lines: Lines<'s>,
    depth: usize,
}

impl Dumper<'_> {
    /// One line: indentation, `role: ` if any, the text, and `@line:col`.
    fn line(&mut self, role: &str, text: &str, span: Span) {
        let (line, col) = self.lines.line_col(span.start);
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        if !role.is_empty() {
            self.out.push_str(role);
            self.out.push_str(": ");
        }
        let _ = writeln!(self.out, "{text} @{line}:{col}");
    }

    /// Runs `f` one level deeper.
    fn nested(&mut self, f: impl FnOnce(&mut Self)) {
        self.depth += 1;
        f(self);
        self.depth -= 1;
    }

    fn ty(&mut self, role: &str, t: &TypeExpr) {
        match &t.kind {
            TypeExprKind::Named(n) => self.line(role, &format!("Type {}", n.name), t.span),
            TypeExprKind::Generic { name, arg } => {
                self.line(role, &format!("Type {}<>", name.name), t.span);
                self.nested(|d| d.ty("", arg));
            }
            TypeExprKind::Array { elem, len } => {
                self.line(role, "Type [;]", t.span);
                self.nested(|d| {
                    d.ty("elem", elem);
                    d.expr("len", len);
                });
            }
            TypeExprKind::Unit => self.line(role, "Type ()", t.span),
            TypeExprKind::Error => self.line(role, "Type <error>", t.span),
        }
    }

    fn expr(&mut self, role: &str, e: &Expr) {
        match &e.kind {
            ExprKind::Float(x) => self.line(role, &format!("Float {}", FloatLit(*x)), e.span),
            ExprKind::Int { value, radix } => {
                let text = match radix {
                    IntRadix::Decimal => format!("Int {value}"),
                    IntRadix::NonDecimal => format!("Int 0x{value:X}"),
                };
                self.line(role, &text, e.span);
            }
            ExprKind::Bool(b) => self.line(role, &format!("Bool {b}"), e.span),
            ExprKind::Name(n) => self.line(role, &format!("Name {}", n.name), e.span),
            ExprKind::Unary { op, operand } => {
                let symbol = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "!",
                };
                self.line(role, &format!("Unary {symbol}"), e.span);
                self.nested(|d| d.expr("", operand));
            }
            ExprKind::Binary { op, lhs, rhs } => {
                self.line(role, &format!("Binary {}", op.symbol()), e.span);
                self.nested(|d| {
                    d.expr("", lhs);
                    d.expr("", rhs);
                });
            }
            ExprKind::Cast { operand, ty } => {
                self.line(role, "Cast", e.span);
                self.nested(|d| {
                    d.expr("", operand);
                    d.ty("to", ty);
                });
            }
            ExprKind::Call { callee, args } => {
                self.line(role, &format!("Call {}", callee.name), e.span);
                self.nested(|d| args.iter().for_each(|a| d.expr("", a)));
            }
            ExprKind::Field { base, field } => {
                self.line(role, &format!("Field .{}", field.name), e.span);
                self.nested(|d| d.expr("", base));
            }
            ExprKind::Index { base, index } => {
                self.line(role, "Index", e.span);
                self.nested(|d| {
                    d.expr("", base);
                    d.expr("index", index);
                });
            }
            ExprKind::If { cond, then, else_ } => {
                self.line(role, "If", e.span);
                self.nested(|d| {
                    d.expr("cond", cond);
                    d.block("then", then);
                    if let Some(else_) = else_ {
                        d.expr("else", else_);
                    }
                });
            }
            ExprKind::Block(b) => self.block(role, b),
            ExprKind::Error => self.line(role, "Error", e.span),
        }
    }

    fn block(&mut self, role: &str, b: &Block) {
        self.line(role, "Block", b.span);
        self.nested(|d| {
            b.stmts.iter().for_each(|s| d.stmt(s));
            if let Some(tail) = &b.tail {
                d.expr("tail", tail);
            }
        });
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
                self.line("", &format!("Let {m}{}", name.name), s.span);
                self.nested(|d| {
                    if let Some(ty) = ty {
                        d.ty("type", ty);
                    }
                    if let Some(init) = init {
                        d.expr("init", init);
                    }
                });
            }
            StmtKind::Assign { target, op, value } => {
                let symbol = match op {
                    AssignOp::Assign => "=".to_string(),
                    AssignOp::Compound(op) => format!("{}=", op.symbol()),
                };
                self.line("", &format!("Assign {symbol}"), s.span);
                self.nested(|d| {
                    d.expr("target", target);
                    d.expr("value", value);
                });
            }
            StmtKind::Expr(e) => {
                self.line("", "ExprStmt", s.span);
                self.nested(|d| d.expr("", e));
            }
            StmtKind::For {
                var,
                start,
                end,
                body,
            } => {
                self.line("", &format!("For {}", var.name), s.span);
                self.nested(|d| {
                    d.expr("start", start);
                    d.expr("end", end);
                    d.block("body", body);
                });
            }
            StmtKind::While { cond, body } => {
                self.line("", "While", s.span);
                self.nested(|d| {
                    d.expr("cond", cond);
                    d.block("body", body);
                });
            }
            StmtKind::Loop { body } => {
                self.line("", "Loop", s.span);
                self.nested(|d| d.block("body", body));
            }
            StmtKind::Break => self.line("", "Break", s.span),
            StmtKind::Continue => self.line("", "Continue", s.span),
            StmtKind::Return(value) => {
                self.line("", "Return", s.span);
                if let Some(value) = value {
                    self.nested(|d| d.expr("", value));
                }
            }
            StmtKind::Discard => self.line("", "Discard", s.span),
        }
    }

    fn params(&mut self, params: &[Param]) {
        for p in params {
            let m = if p.mutable { "mut " } else { "" };
            self.line("", &format!("Param {m}{}", p.name.name), p.span);
            self.nested(|d| d.ty("", &p.ty));
        }
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Const(c) => {
                self.line("", &format!("Const {}", c.name.name), c.span);
                self.nested(|d| {
                    d.ty("", &c.ty);
                    d.expr("value", &c.value);
                });
            }
            Item::Fn(f) => {
                self.line("", &format!("Fn {}", f.name.name), f.span);
                self.nested(|d| {
                    d.params(&f.params);
                    if let Some(ret) = &f.ret {
                        d.ty("ret", ret);
                    }
                    d.block("body", &f.body);
                });
            }
            Item::Kernel(k) => {
                self.line("", &format!("Kernel {}", k.name.name), k.span);
                self.nested(|d| {
                    d.params(&k.params);
                    d.block("body", &k.body);
                });
            }
            Item::Reduce(r) => {
                self.line("", &format!("Reduce {}", r.name.name), r.span);
                self.nested(|d| {
                    d.params(&r.params);
                    d.ty("ret", &r.ret);
                    d.block("body", &r.body);
                });
            }
        }
    }
}

/// Dumps a file as an indented tree for `ctmc --emit ast`: one node per
/// line, two spaces per level, each line the node's kind, its key data and
/// `@line:col` of its start in `source` (1-based, columns in characters);
/// a child's role (`cond`, `then`, `tail`, ...) prefixes it where the kind
/// alone would not say it.
///
/// ```text
/// File
///   Kernel k @1:1
///     Param r @1:10
///       Type Out<> @1:13
///         Type f32 @1:17
///     body: Block @1:23
///       Assign = @1:25
///         target: Name r @1:25
///         value: Float 1.0 @1:29
/// ```
pub fn dump_file(file: &File, source: &str) -> String {
    let mut d = Dumper {
        out: String::from("File\n"),
        lines: Lines::new(source),
        depth: 1,
    };
    for item in &file.items {
        d.item(item);
    }
    d.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_agrees_with_span_line_col() {
        let src = "ab\ncdé\n\n  x\r\ny";
        let lines = Lines::new(src);
        for (offset, _) in src.char_indices().chain(std::iter::once((src.len(), ' '))) {
            let offset = offset as u32;
            assert_eq!(lines.line_col(offset), line_col(src, offset), "at {offset}");
        }
        assert_eq!(lines.line_col(1000), line_col(src, 1000));
    }
}
