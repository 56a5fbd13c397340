//! Helpers shared by the parser's integration tests (`parse_*.rs`).
#![allow(dead_code)]

pub mod hostile;

use ctm_frontend::ast::*;
use ctm_frontend::span::Span;
use ctm_frontend::{Code, Diagnostic, parser, print};

/// Parses `src`, which must have no diagnostics at all.
pub fn parse_ok(src: &str) -> File {
    let (file, diags) = parser::parse(src);
    assert!(
        diags.is_empty(),
        "unexpected diagnostics for\n{src}\n{}",
        render(&diags, src)
    );
    file.expect("a file without diagnostics")
}

/// Renders diagnostics for assertion messages.
pub fn render(diags: &[Diagnostic], src: &str) -> String {
    ctm_frontend::diag::render(diags, "test.ck", src, false)
}

/// The codes of `diags`, in order.
pub fn codes(diags: &[Diagnostic]) -> Vec<Code> {
    diags.iter().map(|d| d.code).collect()
}

/// The source text under a diagnostic's primary span.
pub fn text_at<'s>(src: &'s str, d: &Diagnostic) -> &'s str {
    src.get(d.span.range()).unwrap_or("<bad span>")
}

/// The expression `src`, parsed as the value of a `const`.
pub fn expr(src: &str) -> Expr {
    let file = parse_ok(&format!("const X: f32 = {src};"));
    match file.items.into_iter().next() {
        Some(Item::Const(c)) => c.value,
        other => panic!("not a const: {other:?}"),
    }
}

/// The body of `fn f() { src }`.
pub fn body(src: &str) -> Block {
    let file = parse_ok(&format!("fn f() {{ {src} }}"));
    match file.items.into_iter().next() {
        Some(Item::Fn(f)) => f.body,
        other => panic!("not a fn: {other:?}"),
    }
}

/// The statements of `fn f() { src }`.
pub fn stmts(src: &str) -> Vec<StmtKind> {
    body(src).stmts.into_iter().map(|s| s.kind).collect()
}

/// A name expression, for building expected trees (span-erased).
pub fn name(n: &str) -> Expr {
    Expr {
        kind: ExprKind::Name(ident(n)),
        span: Span::default(),
    }
}

/// An identifier with no span.
pub fn ident(n: &str) -> Ident {
    Ident {
        name: n.to_string(),
        span: Span::default(),
    }
}

/// `e` fully parenthesised: every operation in `( )`, so precedence and
/// associativity show.
pub fn parens(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Float(x) => format!("{x:?}"),
        ExprKind::Int { value, .. } => value.to_string(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Name(n) => n.name.clone(),
        ExprKind::Unary { op, operand } => {
            let s = match op {
                UnaryOp::Neg => "-",
                UnaryOp::Not => "!",
            };
            format!("({s}{})", parens(operand))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            format!("({} {} {})", parens(lhs), op.symbol(), parens(rhs))
        }
        ExprKind::Cast { operand, ty } => format!("({} as {})", parens(operand), type_text(ty)),
        ExprKind::Call { callee, args } => format!(
            "{}({})",
            callee.name,
            args.iter().map(parens).collect::<Vec<_>>().join(", ")
        ),
        ExprKind::Field { base, field } => format!("({}.{})", parens(base), field.name),
        ExprKind::Index { base, index } => format!("({}[{}])", parens(base), parens(index)),
        ExprKind::If { cond, then, else_ } => {
            let mut s = format!("if {} {}", parens(cond), block_text(then));
            if let Some(e) = else_ {
                s.push_str(&format!(" else {}", parens(e)));
            }
            format!("({s})")
        }
        ExprKind::Block(b) => block_text(b),
        ExprKind::Error => "<error>".to_string(),
    }
}

fn block_text(b: &Block) -> String {
    match (&b.stmts[..], &b.tail) {
        ([], Some(t)) => format!("{{{}}}", parens(t)),
        _ => format!("{{{} stmts}}", b.stmts.len()),
    }
}

/// A type as text.
pub fn type_text(t: &TypeExpr) -> String {
    match &t.kind {
        TypeExprKind::Named(n) => n.name.clone(),
        TypeExprKind::Generic { name, arg } => format!("{}<{}>", name.name, type_text(arg)),
        TypeExprKind::Array { elem, len } => format!("[{}; {}]", type_text(elem), parens(len)),
        TypeExprKind::Unit => "()".to_string(),
        TypeExprKind::Error => "<error>".to_string(),
    }
}

/// Sets every span in the file to the default, so trees parsed from
/// different texts compare equal when they have the same structure.
pub fn erase_file(file: &mut File) {
    for item in &mut file.items {
        match item {
            Item::Const(c) => {
                c.span = Span::default();
                erase_ident(&mut c.name);
                erase_type(&mut c.ty);
                erase_expr(&mut c.value);
            }
            Item::Fn(f) => {
                f.span = Span::default();
                erase_ident(&mut f.name);
                f.params.iter_mut().for_each(erase_param);
                if let Some(t) = &mut f.ret {
                    erase_type(t);
                }
                erase_block(&mut f.body);
            }
            Item::Kernel(k) => {
                k.span = Span::default();
                erase_ident(&mut k.name);
                k.params.iter_mut().for_each(erase_param);
                erase_block(&mut k.body);
            }
            Item::Reduce(r) => {
                r.span = Span::default();
                erase_ident(&mut r.name);
                r.params.iter_mut().for_each(erase_param);
                erase_type(&mut r.ret);
                erase_block(&mut r.body);
            }
        }
    }
}

fn erase_ident(i: &mut Ident) {
    i.span = Span::default();
}

fn erase_param(p: &mut Param) {
    p.span = Span::default();
    erase_ident(&mut p.name);
    erase_type(&mut p.ty);
}

pub fn erase_type(t: &mut TypeExpr) {
    t.span = Span::default();
    match &mut t.kind {
        TypeExprKind::Named(n) => erase_ident(n),
        TypeExprKind::Generic { name, arg } => {
            erase_ident(name);
            erase_type(arg);
        }
        TypeExprKind::Array { elem, len } => {
            erase_type(elem);
            erase_expr(len);
        }
        TypeExprKind::Unit | TypeExprKind::Error => {}
    }
}

pub fn erase_block(b: &mut Block) {
    b.span = Span::default();
    for s in &mut b.stmts {
        erase_stmt(s);
    }
    if let Some(t) = &mut b.tail {
        erase_expr(t);
    }
}

fn erase_stmt(s: &mut Stmt) {
    s.span = Span::default();
    match &mut s.kind {
        StmtKind::Let { name, ty, init, .. } => {
            erase_ident(name);
            if let Some(t) = ty {
                erase_type(t);
            }
            if let Some(e) = init {
                erase_expr(e);
            }
        }
        StmtKind::Assign { target, value, .. } => {
            erase_expr(target);
            erase_expr(value);
        }
        StmtKind::Expr(e) => erase_expr(e),
        StmtKind::For {
            var,
            start,
            end,
            body,
        } => {
            erase_ident(var);
            erase_expr(start);
            erase_expr(end);
            erase_block(body);
        }
        StmtKind::While { cond, body } => {
            erase_expr(cond);
            erase_block(body);
        }
        StmtKind::Loop { body } => erase_block(body),
        StmtKind::Return(Some(e)) => erase_expr(e),
        StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue | StmtKind::Discard => {}
    }
}

pub fn erase_expr(e: &mut Expr) {
    e.span = Span::default();
    match &mut e.kind {
        ExprKind::Name(n) => erase_ident(n),
        ExprKind::Unary { operand, .. } => erase_expr(operand),
        ExprKind::Binary { lhs, rhs, .. } => {
            erase_expr(lhs);
            erase_expr(rhs);
        }
        ExprKind::Cast { operand, ty } => {
            erase_expr(operand);
            erase_type(ty);
        }
        ExprKind::Call { callee, args } => {
            erase_ident(callee);
            args.iter_mut().for_each(erase_expr);
        }
        ExprKind::Field { base, field } => {
            erase_expr(base);
            erase_ident(field);
        }
        ExprKind::Index { base, index } => {
            erase_expr(base);
            erase_expr(index);
        }
        ExprKind::If { cond, then, else_ } => {
            erase_expr(cond);
            erase_block(then);
            if let Some(e) = else_ {
                erase_expr(e);
            }
        }
        ExprKind::Block(b) => erase_block(b),
        ExprKind::Float(_) | ExprKind::Int { .. } | ExprKind::Bool(_) | ExprKind::Error => {}
    }
}

/// Checks the round trip of `src`: `print(parse(print(parse(src))))` equals
/// `print(parse(src))`, and both trees are equal without spans. Returns
/// the printed form.
pub fn check_round_trip(src: &str) -> String {
    let mut first = parse_ok(src);
    let printed = print::print_file(&first);
    let mut second = parse_ok(&printed);
    let reprinted = print::print_file(&second);
    assert_eq!(printed, reprinted, "printing is not stable for\n{src}");
    erase_file(&mut first);
    erase_file(&mut second);
    assert_eq!(
        first, second,
        "the printed form\n{printed}\nparses differently"
    );
    printed
}

/// Every span in the file (items, names, types, statements, expressions),
/// by erasing a copy while recording what was there.
pub fn all_spans(file: &File) -> Vec<Span> {
    // Walk by erasing a clone and comparing would lose the values, so walk
    // with a small explicit visitor instead.
    let mut out = Vec::new();
    for item in &file.items {
        out.push(item.span());
        out.push(item.name().span);
        match item {
            Item::Const(c) => {
                type_spans(&c.ty, &mut out);
                expr_spans(&c.value, &mut out);
            }
            Item::Fn(f) => {
                f.params.iter().for_each(|p| param_spans(p, &mut out));
                if let Some(t) = &f.ret {
                    type_spans(t, &mut out);
                }
                block_spans(&f.body, &mut out);
            }
            Item::Kernel(k) => {
                k.params.iter().for_each(|p| param_spans(p, &mut out));
                block_spans(&k.body, &mut out);
            }
            Item::Reduce(r) => {
                r.params.iter().for_each(|p| param_spans(p, &mut out));
                type_spans(&r.ret, &mut out);
                block_spans(&r.body, &mut out);
            }
        }
    }
    out
}

fn param_spans(p: &Param, out: &mut Vec<Span>) {
    out.push(p.span);
    out.push(p.name.span);
    type_spans(&p.ty, out);
}

fn type_spans(t: &TypeExpr, out: &mut Vec<Span>) {
    out.push(t.span);
    match &t.kind {
        TypeExprKind::Named(n) => out.push(n.span),
        TypeExprKind::Generic { name, arg } => {
            out.push(name.span);
            type_spans(arg, out);
        }
        TypeExprKind::Array { elem, len } => {
            type_spans(elem, out);
            expr_spans(len, out);
        }
        TypeExprKind::Unit | TypeExprKind::Error => {}
    }
}

fn block_spans(b: &Block, out: &mut Vec<Span>) {
    out.push(b.span);
    for s in &b.stmts {
        out.push(s.span);
        match &s.kind {
            StmtKind::Let { name, ty, init, .. } => {
                out.push(name.span);
                if let Some(t) = ty {
                    type_spans(t, out);
                }
                if let Some(e) = init {
                    expr_spans(e, out);
                }
            }
            StmtKind::Assign { target, value, .. } => {
                expr_spans(target, out);
                expr_spans(value, out);
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => expr_spans(e, out),
            StmtKind::For {
                var,
                start,
                end,
                body,
            } => {
                out.push(var.span);
                expr_spans(start, out);
                expr_spans(end, out);
                block_spans(body, out);
            }
            StmtKind::While { cond, body } => {
                expr_spans(cond, out);
                block_spans(body, out);
            }
            StmtKind::Loop { body } => block_spans(body, out),
            StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue | StmtKind::Discard => {}
        }
    }
    if let Some(t) = &b.tail {
        expr_spans(t, out);
    }
}

fn expr_spans(e: &Expr, out: &mut Vec<Span>) {
    out.push(e.span);
    match &e.kind {
        ExprKind::Name(n) => out.push(n.span),
        ExprKind::Unary { operand, .. } => expr_spans(operand, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            expr_spans(lhs, out);
            expr_spans(rhs, out);
        }
        ExprKind::Cast { operand, ty } => {
            expr_spans(operand, out);
            type_spans(ty, out);
        }
        ExprKind::Call { callee, args } => {
            out.push(callee.span);
            args.iter().for_each(|a| expr_spans(a, out));
        }
        ExprKind::Field { base, field } => {
            expr_spans(base, out);
            out.push(field.span);
        }
        ExprKind::Index { base, index } => {
            expr_spans(base, out);
            expr_spans(index, out);
        }
        ExprKind::If { cond, then, else_ } => {
            expr_spans(cond, out);
            block_spans(then, out);
            if let Some(e) = else_ {
                expr_spans(e, out);
            }
        }
        ExprKind::Block(b) => block_spans(b, out),
        ExprKind::Float(_) | ExprKind::Int { .. } | ExprKind::Bool(_) | ExprKind::Error => {}
    }
}
