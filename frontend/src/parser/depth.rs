//! The post-parse depth bound, and tearing down trees without recursion.
//!
//! The rest of the compiler (checker, interpreters, IR lowering, printer)
//! walks the tree recursively. [`first_too_deep`] measures, with an explicit
//! stack, how deep expressions, statements, blocks and types nest (each such
//! node is one level; `else if` chains and long operator chains count), so
//! that `parse` can refuse any tree deeper than [`MAX_DEPTH`] and every later
//! recursive pass runs in bounded stack.
//!
//! Dropping a deep tree would itself recurse (one `Box` inside another), so
//! refused trees are taken apart node by node by [`dismantle`].

use super::MAX_DEPTH;
use crate::ast::{Block, Expr, ExprKind, File, Item, Stmt, StmtKind, TypeExpr, TypeExprKind};
use crate::span::Span;

/// A node of the tree, borrowed.
enum Node<'a> {
    Expr(&'a Expr),
    Stmt(&'a Stmt),
    Block(&'a Block),
    Type(&'a TypeExpr),
}

/// The span of the first node (in depth-first order) nested deeper than
/// [`MAX_DEPTH`] levels, if any.
pub(super) fn first_too_deep(file: &File) -> Option<Span> {
    let mut stack: Vec<(Node<'_>, usize)> = Vec::new();
    for item in file.items.iter().rev() {
        match item {
            Item::Const(c) => {
                stack.push((Node::Expr(&c.value), 1));
                stack.push((Node::Type(&c.ty), 1));
            }
            Item::Fn(f) => {
                stack.push((Node::Block(&f.body), 1));
                if let Some(ret) = &f.ret {
                    stack.push((Node::Type(ret), 1));
                }
                stack.extend(f.params.iter().rev().map(|p| (Node::Type(&p.ty), 1)));
            }
            Item::Kernel(k) => {
                stack.push((Node::Block(&k.body), 1));
                stack.extend(k.params.iter().rev().map(|p| (Node::Type(&p.ty), 1)));
            }
            Item::Reduce(r) => {
                stack.push((Node::Block(&r.body), 1));
                stack.push((Node::Type(&r.ret), 1));
                stack.extend(r.params.iter().rev().map(|p| (Node::Type(&p.ty), 1)));
            }
        }
    }
    while let Some((node, depth)) = stack.pop() {
        let span = match &node {
            Node::Expr(e) => e.span,
            Node::Stmt(s) => s.span,
            Node::Block(b) => b.span,
            Node::Type(t) => t.span,
        };
        if depth > MAX_DEPTH {
            return Some(span);
        }
        let next = depth + 1;
        // Children are pushed last-first so they are visited in order.
        let mut children: Vec<Node<'_>> = Vec::new();
        match node {
            Node::Expr(e) => match &e.kind {
                ExprKind::Unary { operand, .. } => children.push(Node::Expr(operand)),
                ExprKind::Binary { lhs, rhs, .. } => {
                    children.push(Node::Expr(lhs));
                    children.push(Node::Expr(rhs));
                }
                ExprKind::Cast { operand, ty } => {
                    children.push(Node::Expr(operand));
                    children.push(Node::Type(ty));
                }
                ExprKind::Call { args, .. } => children.extend(args.iter().map(Node::Expr)),
                ExprKind::Field { base, .. } => children.push(Node::Expr(base)),
                ExprKind::Index { base, index } => {
                    children.push(Node::Expr(base));
                    children.push(Node::Expr(index));
                }
                ExprKind::If { cond, then, else_ } => {
                    children.push(Node::Expr(cond));
                    children.push(Node::Block(then));
                    if let Some(e) = else_ {
                        children.push(Node::Expr(e));
                    }
                }
                ExprKind::Block(b) => children.push(Node::Block(b)),
                ExprKind::Float(_)
                | ExprKind::Int { .. }
                | ExprKind::Bool(_)
                | ExprKind::Name(_)
                | ExprKind::Error => {}
            },
            Node::Stmt(s) => match &s.kind {
                StmtKind::Let { ty, init, .. } => {
                    children.extend(ty.iter().map(Node::Type));
                    children.extend(init.iter().map(Node::Expr));
                }
                StmtKind::Assign { target, value, .. } => {
                    children.push(Node::Expr(target));
                    children.push(Node::Expr(value));
                }
                StmtKind::Expr(e) => children.push(Node::Expr(e)),
                StmtKind::For {
                    start, end, body, ..
                } => {
                    children.push(Node::Expr(start));
                    children.push(Node::Expr(end));
                    children.push(Node::Block(body));
                }
                StmtKind::While { cond, body } => {
                    children.push(Node::Expr(cond));
                    children.push(Node::Block(body));
                }
                StmtKind::Loop { body } => children.push(Node::Block(body)),
                StmtKind::Return(value) => children.extend(value.iter().map(Node::Expr)),
                StmtKind::Break | StmtKind::Continue | StmtKind::Discard => {}
            },
            Node::Block(b) => {
                children.extend(b.stmts.iter().map(Node::Stmt));
                children.extend(b.tail.iter().map(|t| Node::Expr(t)));
            }
            Node::Type(t) => match &t.kind {
                TypeExprKind::Generic { arg, .. } => children.push(Node::Type(arg)),
                TypeExprKind::Array { elem, len } => {
                    children.push(Node::Type(elem));
                    children.push(Node::Expr(len));
                }
                TypeExprKind::Named(_) | TypeExprKind::Unit | TypeExprKind::Error => {}
            },
        }
        stack.extend(children.into_iter().rev().map(|c| (c, next)));
    }
    None
}

/// A node of the tree, owned, waiting to be taken apart.
enum Owned {
    Expr(Expr),
    Stmt(Stmt),
    Block(Block),
    Type(TypeExpr),
}

/// Drops a file of any depth without recursion.
pub(super) fn dismantle(file: File) {
    let mut stack: Vec<Owned> = Vec::new();
    for item in file.items {
        match item {
            Item::Const(c) => {
                stack.push(Owned::Type(c.ty));
                stack.push(Owned::Expr(c.value));
            }
            Item::Fn(f) => {
                stack.extend(f.params.into_iter().map(|p| Owned::Type(p.ty)));
                stack.extend(f.ret.map(Owned::Type));
                stack.push(Owned::Block(f.body));
            }
            Item::Kernel(k) => {
                stack.extend(k.params.into_iter().map(|p| Owned::Type(p.ty)));
                stack.push(Owned::Block(k.body));
            }
            Item::Reduce(r) => {
                stack.extend(r.params.into_iter().map(|p| Owned::Type(p.ty)));
                stack.push(Owned::Type(r.ret));
                stack.push(Owned::Block(r.body));
            }
        }
        drain(&mut stack);
    }
}

/// Drops an expression of any depth without recursion.
pub(super) fn dismantle_expr(expr: Expr) {
    let mut stack = vec![Owned::Expr(expr)];
    drain(&mut stack);
}

/// Takes every node on `stack` apart, moving its children onto the stack
/// before the (now shallow) node itself is dropped.
fn drain(stack: &mut Vec<Owned>) {
    while let Some(node) = stack.pop() {
        match node {
            Owned::Expr(e) => match e.kind {
                ExprKind::Unary { operand, .. } => stack.push(Owned::Expr(*operand)),
                ExprKind::Binary { lhs, rhs, .. } => {
                    stack.push(Owned::Expr(*lhs));
                    stack.push(Owned::Expr(*rhs));
                }
                ExprKind::Cast { operand, ty } => {
                    stack.push(Owned::Expr(*operand));
                    stack.push(Owned::Type(ty));
                }
                ExprKind::Call { args, .. } => stack.extend(args.into_iter().map(Owned::Expr)),
                ExprKind::Field { base, .. } => stack.push(Owned::Expr(*base)),
                ExprKind::Index { base, index } => {
                    stack.push(Owned::Expr(*base));
                    stack.push(Owned::Expr(*index));
                }
                ExprKind::If { cond, then, else_ } => {
                    stack.push(Owned::Expr(*cond));
                    stack.push(Owned::Block(then));
                    stack.extend(else_.map(|e| Owned::Expr(*e)));
                }
                ExprKind::Block(b) => stack.push(Owned::Block(b)),
                ExprKind::Float(_)
                | ExprKind::Int { .. }
                | ExprKind::Bool(_)
                | ExprKind::Name(_)
                | ExprKind::Error => {}
            },
            Owned::Stmt(s) => match s.kind {
                StmtKind::Let { ty, init, .. } => {
                    stack.extend(ty.map(Owned::Type));
                    stack.extend(init.map(Owned::Expr));
                }
                StmtKind::Assign { target, value, .. } => {
                    stack.push(Owned::Expr(target));
                    stack.push(Owned::Expr(value));
                }
                StmtKind::Expr(e) => stack.push(Owned::Expr(e)),
                StmtKind::For {
                    start, end, body, ..
                } => {
                    stack.push(Owned::Expr(start));
                    stack.push(Owned::Expr(end));
                    stack.push(Owned::Block(body));
                }
                StmtKind::While { cond, body } => {
                    stack.push(Owned::Expr(cond));
                    stack.push(Owned::Block(body));
                }
                StmtKind::Loop { body } => stack.push(Owned::Block(body)),
                StmtKind::Return(value) => stack.extend(value.map(Owned::Expr)),
                StmtKind::Break | StmtKind::Continue | StmtKind::Discard => {}
            },
            Owned::Block(b) => {
                stack.extend(b.stmts.into_iter().map(Owned::Stmt));
                stack.extend(b.tail.map(|t| Owned::Expr(*t)));
            }
            Owned::Type(t) => match t.kind {
                TypeExprKind::Generic { arg, .. } => stack.push(Owned::Type(*arg)),
                TypeExprKind::Array { elem, len } => {
                    stack.push(Owned::Type(*elem));
                    stack.push(Owned::Expr(*len));
                }
                TypeExprKind::Named(_) | TypeExprKind::Unit | TypeExprKind::Error => {}
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{BinaryOp, Ident};

    fn name(n: &str) -> Expr {
        Expr {
            kind: ExprKind::Name(Ident {
                name: n.to_string(),
                span: Span::default(),
            }),
            span: Span::default(),
        }
    }

    /// `a + a + ... + a` with `links` operators, built without recursion.
    fn chain(links: usize) -> Expr {
        (0..links).fold(name("a"), |lhs, _| Expr {
            kind: ExprKind::Binary {
                op: BinaryOp::Add,
                lhs: Box::new(lhs),
                rhs: Box::new(name("a")),
            },
            span: Span::default(),
        })
    }

    fn file_with(e: Expr) -> File {
        File {
            items: vec![Item::Const(crate::ast::ConstItem {
                name: Ident {
                    name: "C".into(),
                    span: Span::default(),
                },
                ty: TypeExpr {
                    kind: TypeExprKind::Unit,
                    span: Span::default(),
                },
                value: e,
                span: Span::default(),
            })],
        }
    }

    #[test]
    fn depth_bound_is_exact() {
        // The const value is level 1, so a chain of 511 links is 512 deep.
        let ok = file_with(chain(MAX_DEPTH - 1));
        assert_eq!(first_too_deep(&ok), None);
        dismantle(ok);
        let deep = file_with(chain(MAX_DEPTH));
        assert!(first_too_deep(&deep).is_some());
        dismantle(deep);
    }

    #[test]
    fn dismantling_a_very_deep_tree_needs_no_stack() {
        // A million levels would overflow a test thread's 2 MB stack if
        // dropped recursively.
        let deep = file_with(chain(1_000_000));
        assert!(first_too_deep(&deep).is_some());
        dismantle(deep);
        dismantle_expr(chain(1_000_000));
    }
}
