//! The parser: tokens from [`crate::lexer`] to the [`crate::ast`].
//!
//! [`parse`] runs four steps:
//!
//! 1. [`lexer::lex`] (lexical errors, `CK0001`–`CK0005`);
//! 2. `delims`: delimiter balance (`CK0007`) with repair, and the nesting
//!    bound before parsing (`CK0008`, [`MAX_NESTING`]);
//! 3. the chumsky grammar (`item`, `stmt`, `expr`, `types` over
//!    `primitives`), recovering from syntax errors (`CK0006`, `CK0009`)
//!    inside delimiters, at statement boundaries and at item boundaries;
//!    `errors` turns chumsky's errors into diagnostics and drops the ones
//!    that follow from another;
//! 4. `depth`: the tree's nesting bound after parsing (`CK0008`,
//!    [`MAX_DEPTH`]), measured without recursion.
//!
//! The grammar, precedence table, literal rules and the reasons for both
//! bounds are written down in `docs/syntax.md`.

mod delims;
mod depth;
mod errors;
mod expr;
mod item;
mod primitives;
mod stmt;
mod types;

use crate::ast;
use crate::diag::{self, Code, Diagnostic};
use crate::lexer;
use crate::span::Span;
use chumsky::input::Input as _;
use chumsky::prelude::*;
use primitives::Ctx;

/// The deepest bracket nesting (`(`, `[`, `{` together), and the longest
/// run of prefix operators (`-`, `!`), that [`parse`] accepts. Checked on the
/// tokens before parsing; it bounds the parser's own recursion.
pub const MAX_NESTING: usize = 256;

/// The deepest nesting of expressions, statements, blocks and types in the
/// tree that [`parse`] returns; each such node counts one level. Checked on
/// the tree after parsing; it bounds the recursion of every later pass.
pub const MAX_DEPTH: usize = 512;

/// Parses a whole source file, recovering from errors so that one run
/// reports several. Returns the file (possibly with `Error` placeholders)
/// unless nothing could be read: `None` when nesting is too deep (`CK0008`)
/// or when there are errors and not a single item was recovered.
///
/// Diagnostics come in source order. Never panics. The parser's recursion
/// is bounded by [`MAX_NESTING`], which fits a few megabytes of stack in an
/// optimised build; debug builds and pathological inputs (trees of up to
/// [`MAX_DEPTH`] levels are built, and torn down without recursion when
/// refused) want the large stack that [`crate::compile`] provides.
pub fn parse(source: &str) -> (Option<ast::File>, Vec<Diagnostic>) {
    let (tokens, mut diags) = lexer::lex(source);
    let end = if diags.iter().any(|d| d.code == Code::UnterminatedComment) {
        delims::FileEnd::Swallowed
    } else {
        delims::FileEnd::Normal
    };
    let prepared = match delims::prepare(tokens, source, end) {
        Ok(prepared) => prepared,
        Err(too_deep) => {
            diags.push(*too_deep);
            sort(&mut diags);
            return (None, diags);
        }
    };
    diags.extend(prepared.diags);
    let ctx = Ctx {
        src: source,
        toks: &prepared.tokens,
    };
    let end = source.len();
    let input = prepared
        .tokens
        .as_slice()
        .split_token_span(SimpleSpan::from(end..end));
    let (file, errors) = item::file_parser(ctx).parse(input).into_output_errors();
    let syntax = errors::syntax_diagnostics(errors, ctx, &prepared.shadows, &diags);
    diags.extend(syntax);
    sort(&mut diags);

    let Some(file) = file else {
        return (None, diags);
    };
    if diags.iter().any(|d| d.code == Code::NestingTooDeep) {
        depth::dismantle(file);
        return (None, diags);
    }
    if let Some(at) = depth::first_too_deep(&file) {
        let first_token = prepared
            .tokens
            .iter()
            .find(|(_, s)| s.start >= at.start as usize && s.start < s.end)
            .map_or(at, |(_, s)| Span::new(s.start, s.end));
        diags.push(
            Diagnostic::new(
                Code::NestingTooDeep,
                first_token,
                format!("nesting too deep: the limit is {MAX_DEPTH} levels"),
            )
            .with_label("this is nested too deeply")
            .with_help("split deeply nested code into `let` bindings or helper functions"),
        );
        sort(&mut diags);
        depth::dismantle(file);
        return (None, diags);
    }
    if file.items.is_empty() && diag::has_errors(&diags) {
        return (None, diags);
    }
    (Some(file), diags)
}

/// Puts diagnostics in source order (stable, so equal spans keep the order
/// of the steps that found them).
fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by_key(|d| (d.span.start, d.span.end));
}
