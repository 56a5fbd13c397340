//! Properties of the kernel generator that hold whatever the parser does:
//! determinism, variety, feature switches and size limits. The checks
//! read the generated syntax tree (`GeneratedKernel::file`) and text.

use ctm_frontend::Target;
use ctm_frontend::ast::{BinaryOp, Block, Expr, ExprKind, Item, Stmt, StmtKind, UnaryOp};
use ctm_kernel_gen::{
    Features, GenOptions, GeneratedKernel, LOOP_BOUND_MAX, NumericsMode, generate,
};
use std::collections::HashMap;

const TARGETS: [Target; 3] = [Target::X1k, Target::R700, Target::Ref];
const MODES: [NumericsMode; 2] = [NumericsMode::Exact, NumericsMode::Robust];

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn same_seed_and_options_give_the_same_text() {
    for target in TARGETS {
        for mode in MODES {
            let o = GenOptions::new(target, mode);
            for seed in 0..40 {
                let a = generate(seed, &o);
                let b = generate(seed, &o.clone());
                assert_eq!(a.source, b.source, "seed {seed} {target} {mode:?}");
                assert_eq!(a.file, b.file);
                assert_eq!(a.kernel_name, b.kernel_name);
            }
        }
    }
}

#[test]
fn different_seeds_give_different_programs() {
    let o = GenOptions::new(Target::Ref, NumericsMode::Exact);
    let mut seen = HashMap::new();
    for seed in 0..300u64 {
        let k = generate(seed, &o);
        let body = k.source.lines().skip(2).collect::<Vec<_>>().join("\n");
        if let Some(prev) = seen.insert(body, seed) {
            panic!("seeds {prev} and {seed} give the same program");
        }
    }
}

/// Pins the generated text, so that a change of the generator (or a
/// platform where it would differ) is noticed. After an intended change
/// of the generator, update the constant (and say so in the commit).
#[test]
fn fingerprint_is_stable_across_platforms() {
    let mut text = String::new();
    for (target, mode) in [
        (Target::Ref, NumericsMode::Exact),
        (Target::X1k, NumericsMode::Robust),
    ] {
        let o = GenOptions::new(target, mode);
        for seed in 0..32 {
            text.push_str(&generate(seed, &o).source);
        }
    }
    assert_eq!(fnv1a(&text), FINGERPRINT, "fingerprint {:#x}", fnv1a(&text));
}

// Changed on purpose: robust X1K kernels treat products as approximate
// (fused MAD/DP, issue 13); was 0xfa9606e6ea15df96.
const FINGERPRINT: u64 = 0x356fc3bf51a658fa;

/// Counts of feature markers over many generated programs.
fn features_seen(target: Target, mode: NumericsMode, seeds: u64) -> HashMap<&'static str, u32> {
    let o = GenOptions::new(target, mode);
    let mut counts: HashMap<&'static str, u32> = HashMap::new();
    for seed in 0..seeds {
        let k = generate(seed, &o);
        for (name, found) in markers(&k) {
            if found {
                *counts.entry(name).or_default() += 1;
            }
        }
    }
    counts
}

/// `text` has a line that writes lanes of a local: `v.xz = ` / `v.y += `.
fn has_swizzle_write(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim();
        let Some((place, _)) = l.split_once(" = ").or_else(|| l.split_once(" += ")) else {
            return false;
        };
        match place.split_once('.') {
            Some((name, lanes)) => {
                !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !lanes.is_empty()
                    && lanes.chars().all(|c| "xyzwrgba".contains(c))
            }
            None => false,
        }
    })
}

/// `text` has a literal with an `f32` suffix (`1.5f32`).
fn has_float_suffix(text: &str) -> bool {
    text.match_indices("f32")
        .any(|(i, _)| i > 0 && text.as_bytes()[i - 1].is_ascii_digit())
}

/// A helper's body calls another helper.
fn helper_calls_helper(text: &str) -> bool {
    text.split("\nfn ").skip(1).any(|f| {
        let body = f.split("\n}\n").next().unwrap_or("");
        let own = body.split('(').next().unwrap_or("");
        ["h0(", "h1("]
            .iter()
            .any(|c| body.contains(c) && !own.starts_with(&c[..2]))
    })
}

fn has_rgba_swizzle(text: &str) -> bool {
    text.split('.').skip(1).any(|rest| {
        let lanes: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        !lanes.is_empty() && lanes.len() <= 4 && lanes.chars().all(|c| "rgba".contains(c))
    })
}

/// The source without its header comment (which names the seed).
fn body(k: &GeneratedKernel) -> String {
    k.source
        .lines()
        .skip_while(|l| l.starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn markers(k: &GeneratedKernel) -> Vec<(&'static str, bool)> {
    let text = body(k);
    let s = text.as_str();
    let has = |p: &str| s.contains(p);
    let mut v = vec![
        ("for", has("for k")),
        (
            "for over uniform",
            s.lines().any(|l| l.contains("for k") && l.contains("..u")),
        ),
        (
            "for over const",
            s.lines().any(|l| l.contains("for k") && l.contains("..K")),
        ),
        ("while", has("while ")),
        ("loop", has("loop {")),
        ("break", has("break;")),
        ("continue", has("continue;")),
        ("discard", has("discard;")),
        ("return in kernel", has("return;")),
        ("return in helper", has("return ") && !has("return;")),
        ("helper", has("fn h0")),
        ("helper calling helper", helper_calls_helper(s)),
        ("const", has("const K")),
        ("mat4", has(": mat4")),
        ("[f32; N]", has(": [f32;")),
        ("[vec4; N]", has(": [vec4;")),
        ("[vec2; N]", has(": [vec2;")),
        ("[i32; N]", has(": [i32;")),
        (
            "i32 uniform",
            s.lines()
                .any(|l| l.trim().starts_with('u') && l.contains(": i32")),
        ),
        ("bool uniform", has(": bool,") || has(": bool)")),
        (
            "vec3 uniform",
            s.lines()
                .any(|l| l.trim().starts_with('u') && l.contains(": vec3")),
        ),
        ("In<f32>", has("In<f32>")),
        ("In<vec2>", has("In<vec2>")),
        ("In<vec4>", has("In<vec4>")),
        ("In<unorm8x4>", has("In<unorm8x4>")),
        ("In<u16>", has("In<u16>")),
        ("Out<f32>", has("Out<f32>")),
        ("Out<vec2>", has("Out<vec2>")),
        ("Out<vec4>", has("Out<vec4>")),
        ("Scatter", has("Scatter<f32>")),
        ("scatter write", has("] = ") && has("sc0[")),
        ("gather", has("[index() +") || has("[index() -")),
        ("let mut", has("let mut ")),
        ("let annotated", has(": f32 = ") || has(": vec3 = ")),
        ("+=", has(" += ")),
        ("-=", has(" -= ")),
        ("*=", has(" *= ")),
        ("/=", has(" /= ")),
        ("swizzle write", has_swizzle_write(s)),
        ("if", has("if ")),
        ("else if", has("} else if ")),
        ("else", has("} else {")),
        ("if expression", has("= if ") || has("(if ")),
        ("as f32", has(" as f32")),
        ("as i32", has(" as i32")),
        (
            "bool as i32",
            has("true as i32") || has("false as i32") || has(") as i32"),
        ),
        ("&&", has(" && ")),
        ("||", has(" || ")),
        ("!", has("!(") || has(" !")),
        ("rgba swizzle", has_rgba_swizzle(s)),
        ("splat", has("vec4(0.") || has("vec3(1.")),
        ("index()", has("index()")),
        ("domain()", has("domain()")),
        ("matrix times vector", s.contains(" * m")),
        ("hex literal", has("0x")),
        ("binary literal", has("0b")),
        ("f32 suffix", has_float_suffix(s)),
        ("exponent literal", has("e-") || has("e0")),
        ("negative literal", has("-1.") || has("-2.") || has("-0.")),
        ("%", has(" % ")),
    ];
    for f in [
        "abs(",
        "min(",
        "max(",
        "clamp(",
        "saturate(",
        "sign(",
        "floor(",
        "ceil(",
        "fract(",
        "trunc(",
        "round(",
        "step(",
        "mix(",
        "smoothstep(",
        "select(",
        "sqrt(",
        "rsqrt(",
        "rcp(",
        "exp2(",
        "log2(",
        "exp(",
        "log(",
        "pow(",
        "sin(",
        "cos(",
        "tan(",
        "dot(",
        "cross(",
        "length(",
        "distance(",
        "normalize(",
    ] {
        v.push((
            f,
            s.contains(&format!(" {f}"))
                || s.contains(&format!("({f}"))
                || s.contains(&format!("-{f}"))
                || s.contains(&format!("!{f}")),
        ));
    }
    v
}

#[test]
fn every_feature_appears_in_200_seeds() {
    let mut missing = Vec::new();
    for (target, mode, extra) in [
        (
            Target::Ref,
            NumericsMode::Exact,
            &["<<", ">>", " & ", " | ", " ^ "][..],
        ),
        (
            Target::R700,
            NumericsMode::Robust,
            &["sqrt(abs(", "log2(abs(", "pow(abs(", "normalize(abs("][..],
        ),
        (Target::X1k, NumericsMode::Robust, &[][..]),
    ] {
        let counts = features_seen(target, mode, 200);
        let o = GenOptions::new(target, mode);
        let mut all_text = String::new();
        for seed in 0..200 {
            all_text.push_str(&body(&generate(seed, &o)));
        }
        for (name, _) in markers(&generate(0, &o)) {
            // Robust x1k has neither integer nor float `%`.
            let impossible = target == Target::X1k && mode == NumericsMode::Robust && name == "%";
            if !impossible && counts.get(name).copied().unwrap_or(0) == 0 {
                missing.push(format!("{target} {mode:?}: {name}"));
            }
        }
        for e in extra {
            if !all_text.contains(e) {
                missing.push(format!("{target} {mode:?}: {e}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "never generated:\n{}",
        missing.join("\n")
    );
}

#[test]
fn x1k_kernels_have_no_native_integer_operators_or_mixed_outputs() {
    for mode in MODES {
        let o = GenOptions::new(Target::X1k, mode);
        for seed in 0..200 {
            let k = generate(seed, &o);
            let s = &k.source;
            assert!(
                !(s.contains("Scatter<f32>") && s.contains("Out<")),
                "seed {seed}: scatter and Out\n{s}"
            );
            assert!(
                s.matches("Scatter<f32>").count() <= 1,
                "seed {seed}: two scatters\n{s}"
            );
            for op in ["<<", ">>", " & ", " | ", " ^ ", " % ", "/= "] {
                if op == " % " && mode == NumericsMode::Exact {
                    // Float `%` is fine on x1k.
                    continue;
                }
                if op == "/= " {
                    continue;
                }
                assert!(!s.contains(op), "seed {seed}: `{op}` on x1k\n{s}");
            }
        }
    }
}

#[test]
fn disabled_features_never_appear() {
    let mut o = GenOptions::new(Target::Ref, NumericsMode::Exact);
    o.features = Features::none();
    for seed in 0..200 {
        let s = body(&generate(seed, &o));
        for bad in [
            "for ",
            "while ",
            "loop {",
            "fn ",
            "const ",
            "mat4",
            "[",
            "Scatter",
            "discard",
            "return",
            "select(",
            "= if",
            "(if",
            "sqrt(",
            "sin(",
            "pow(",
            "normalize(",
            "length(",
            "i32",
            "bool",
            "unorm8x4",
            "u16",
            "0x",
            "0b",
            "&&",
            "||",
        ] {
            assert!(
                !s.contains(bad),
                "seed {seed}: `{bad}` with every feature off\n{s}"
            );
        }
        assert!(!has_swizzle_write(&s), "seed {seed}: swizzle write\n{s}");
        assert!(!has_float_suffix(&s), "seed {seed}: f32 suffix\n{s}");
    }
}

// --- size limits -----------------------------------------------------------

/// Height of an expression as the generator counts it: names and literals
/// (also negated ones) 1, each operator, call, swizzle, index or `if` one
/// more than its highest operand (an `if` counts its condition, the `let`
/// initialisers and the values of its blocks).
fn height(e: &Expr) -> u32 {
    match &e.kind {
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } if matches!(operand.kind, ExprKind::Int { .. } | ExprKind::Float(_)) => 1,
        ExprKind::Unary { operand, .. } => 1 + height(operand),
        ExprKind::Binary { lhs, rhs, .. } => 1 + height(lhs).max(height(rhs)),
        ExprKind::Cast { operand, .. } => 1 + height(operand),
        ExprKind::Call { args, .. } => 1 + args.iter().map(height).max().unwrap_or(0),
        ExprKind::Field { base, .. } => 1 + height(base),
        ExprKind::Index { index, .. } => 1 + height(index),
        ExprKind::If { cond, then, else_ } => {
            let e = else_.as_deref().map_or(0, |x| match &x.kind {
                ExprKind::Block(b) => block_height(b),
                _ => height(x),
            });
            1 + height(cond).max(block_height(then)).max(e)
        }
        ExprKind::Block(b) => block_height(b),
        _ => 1,
    }
}

fn block_height(b: &Block) -> u32 {
    let lets = b.stmts.iter().map(|s| match &s.kind {
        StmtKind::Let { init: Some(e), .. } => height(e),
        _ => 0,
    });
    lets.chain(b.tail.iter().map(|t| height(t)))
        .max()
        .unwrap_or(0)
}

/// An expression's tree with heights: `+:3(a:1, *:2(b:1, c:1))`.
fn outline(e: &Expr) -> String {
    let h = height(e);
    let kids: Vec<&Expr> = match &e.kind {
        ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => vec![operand],
        ExprKind::Binary { lhs, rhs, .. } => vec![lhs, rhs],
        ExprKind::Call { args, .. } => args.iter().collect(),
        ExprKind::Field { base, .. } => vec![base],
        ExprKind::Index { index, .. } => vec![index],
        ExprKind::If { cond, .. } => vec![cond],
        _ => vec![],
    };
    let name = match &e.kind {
        ExprKind::Binary { op, .. } => op.symbol().to_string(),
        ExprKind::Call { callee, .. } => callee.name.clone(),
        ExprKind::Name(id) => id.name.clone(),
        ExprKind::Field { field, .. } => format!(".{}", field.name),
        other => format!("{:?}", std::mem::discriminant(other))
            .chars()
            .take(12)
            .collect(),
    };
    if kids.is_empty() {
        format!("{name}:{h}")
    } else {
        let inner: Vec<String> = kids.iter().map(|k| outline(k)).collect();
        format!("{name}:{h}({})", inner.join(", "))
    }
}

/// What a walk over a body finds.
#[derive(Default, Debug)]
struct Shape {
    statements: u32,
    max_height: u32,
    /// The highest expression, in outline.
    highest: String,
    nesting: u32,
    loop_nesting: u32,
    trips: u64,
    max_single_trips: u64,
}

struct Walker<'a> {
    helpers: &'a HashMap<String, Shape>,
    int_consts: &'a HashMap<String, i64>,
    uniform_low: i64,
    shape: Shape,
}

impl Walker<'_> {
    fn expr(&mut self, e: &Expr, nest: u32, loops: u32, trips: u64) {
        if height(e) > self.shape.max_height {
            self.shape.max_height = height(e);
            self.shape.highest = outline(e);
        }
        self.calls(e, nest, loops, trips);
        self.expr_stmts(e, nest, loops, trips);
    }

    /// Accounts for helpers inlined at this point.
    fn calls(&mut self, e: &Expr, nest: u32, loops: u32, trips: u64) {
        let mut visit = |x: &Expr| {
            if let ExprKind::Call { callee, .. } = &x.kind
                && let Some(h) = self.helpers.get(&callee.name)
            {
                self.shape.nesting = self.shape.nesting.max(nest + h.nesting);
                self.shape.loop_nesting = self.shape.loop_nesting.max(loops + h.loop_nesting);
                self.shape.trips = self.shape.trips.max(trips * h.trips.max(1));
            }
        };
        walk_expr(e, &mut visit);
    }

    /// Statements inside `if` expressions count too.
    fn expr_stmts(&mut self, e: &Expr, nest: u32, loops: u32, trips: u64) {
        let mut blocks = Vec::new();
        walk_expr(e, &mut |x| {
            if let ExprKind::If { then, .. } = &x.kind {
                blocks.push(then.stmts.len() as u32);
            }
            if let ExprKind::Block(b) = &x.kind {
                blocks.push(b.stmts.len() as u32);
            }
        });
        self.shape.statements += blocks.iter().sum::<u32>();
        let _ = (nest, loops, trips);
    }

    fn bound(&self, e: &Expr, low: bool) -> i64 {
        match &e.kind {
            ExprKind::Int { value, .. } => *value as i64,
            ExprKind::Unary { operand, .. } => -self.bound(operand, low),
            ExprKind::Name(id) => match self.int_consts.get(&id.name) {
                Some(v) => *v,
                None if low => self.uniform_low,
                None => i64::from(LOOP_BOUND_MAX),
            },
            ExprKind::Binary {
                op: BinaryOp::Add,
                lhs,
                rhs,
            } => self.bound(lhs, low) + self.bound(rhs, low),
            _ => panic!("unexpected loop bound {e:?}"),
        }
    }

    fn block(&mut self, b: &Block, nest: u32, loops: u32, trips: u64) {
        for s in &b.stmts {
            self.stmt(s, nest, loops, trips);
        }
        if let Some(t) = &b.tail {
            self.expr(t, nest, loops, trips);
        }
    }

    fn stmt(&mut self, s: &Stmt, nest: u32, loops: u32, trips: u64) {
        self.shape.statements += 1;
        self.shape.nesting = self.shape.nesting.max(nest);
        self.shape.loop_nesting = self.shape.loop_nesting.max(loops);
        self.shape.trips = self.shape.trips.max(trips);
        match &s.kind {
            StmtKind::Let { init: Some(e), .. } => self.expr(e, nest, loops, trips),
            StmtKind::Assign { target, value, .. } => {
                if let ExprKind::Index { index, .. } = &target.kind {
                    self.expr(index, nest, loops, trips);
                } else {
                    self.expr(target, nest, loops, trips);
                }
                self.expr(value, nest, loops, trips);
            }
            StmtKind::Expr(e) => self.if_stmt(e, nest, loops, trips),
            StmtKind::For {
                start, end, body, ..
            } => {
                self.expr(start, nest, loops, trips);
                self.expr(end, nest, loops, trips);
                let t = (self.bound(end, false) - self.bound(start, true)).max(0) as u64;
                self.loop_body(body, t, nest, loops, trips);
            }
            StmtKind::While { cond, body } => {
                self.expr(cond, nest, loops, trips);
                let t =
                    counter_bound(cond, BinaryOp::Lt).expect("a while loop has a counter bound");
                self.loop_body(body, t, nest, loops, trips);
            }
            StmtKind::Loop { body } => {
                let t = body
                    .stmts
                    .iter()
                    .find_map(|s| match &s.kind {
                        StmtKind::Expr(Expr {
                            kind: ExprKind::If { cond, .. },
                            ..
                        }) => counter_bound(cond, BinaryOp::Gt),
                        _ => None,
                    })
                    .expect("a loop has a counter bound");
                self.loop_body(body, t, nest, loops, trips);
            }
            StmtKind::Return(Some(e)) => self.expr(e, nest, loops, trips),
            _ => {}
        }
    }

    fn loop_body(&mut self, body: &Block, t: u64, nest: u32, loops: u32, trips: u64) {
        self.shape.max_single_trips = self.shape.max_single_trips.max(t);
        self.block(body, nest + 1, loops + 1, trips * t.max(1));
    }

    fn if_stmt(&mut self, e: &Expr, nest: u32, loops: u32, trips: u64) {
        match &e.kind {
            ExprKind::If { cond, then, else_ } => {
                self.expr(cond, nest, loops, trips);
                self.block(then, nest + 1, loops, trips);
                match else_.as_deref() {
                    Some(Expr {
                        kind: ExprKind::Block(b),
                        ..
                    }) => self.block(b, nest + 1, loops, trips),
                    Some(x) => self.if_stmt(x, nest, loops, trips),
                    None => {}
                }
            }
            _ => self.expr(e, nest, loops, trips),
        }
    }
}

/// The `N` of the loop condition `w < N`, `w < N && c` or `c && w < N`
/// (`while`), or of `w > N`, `w > N || c` (the exit of a `loop`).
fn counter_bound(cond: &Expr, op: BinaryOp) -> Option<u64> {
    let direct = |x: &Expr| match &x.kind {
        ExprKind::Binary { op: o, lhs, rhs } if *o == op => match (&lhs.kind, &rhs.kind) {
            (ExprKind::Name(id), ExprKind::Int { value, .. }) if id.name.starts_with('w') => {
                Some(*value)
            }
            _ => None,
        },
        _ => None,
    };
    let join = if op == BinaryOp::Lt {
        BinaryOp::And
    } else {
        BinaryOp::Or
    };
    direct(cond).or_else(|| match &cond.kind {
        ExprKind::Binary { op: o, lhs, rhs } if *o == join => direct(lhs).or_else(|| direct(rhs)),
        _ => None,
    })
}

fn walk_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => walk_expr(operand, f),
        ExprKind::Binary { lhs, rhs, .. } => {
            walk_expr(lhs, f);
            walk_expr(rhs, f);
        }
        ExprKind::Call { args, .. } => args.iter().for_each(|a| walk_expr(a, f)),
        ExprKind::Field { base, .. } => walk_expr(base, f),
        ExprKind::Index { index, .. } => walk_expr(index, f),
        ExprKind::If { cond, then, else_ } => {
            walk_expr(cond, f);
            walk_block_exprs(then, f);
            if let Some(x) = else_ {
                walk_expr(x, f);
            }
        }
        ExprKind::Block(b) => walk_block_exprs(b, f),
        _ => {}
    }
}

fn walk_block_exprs(b: &Block, f: &mut dyn FnMut(&Expr)) {
    for s in &b.stmts {
        if let StmtKind::Let { init: Some(e), .. } = &s.kind {
            walk_expr(e, f);
        }
    }
    if let Some(t) = &b.tail {
        walk_expr(t, f);
    }
}

/// The shapes of the helpers (inlined nesting included) and of the kernel.
fn shapes(k: &GeneratedKernel, uniform_low: i64) -> (HashMap<String, Shape>, Shape, usize, usize) {
    let mut int_consts = HashMap::new();
    let mut n_consts = 0;
    for item in &k.file.items {
        if let Item::Const(c) = item {
            n_consts += 1;
            let v = match &c.value.kind {
                ExprKind::Int { value, .. } => Some(*value as i64),
                ExprKind::Binary {
                    op: BinaryOp::Add,
                    lhs,
                    rhs,
                } => match (&lhs.kind, &rhs.kind) {
                    (ExprKind::Name(n), ExprKind::Int { value, .. }) => {
                        int_consts.get(&n.name).map(|v: &i64| v + *value as i64)
                    }
                    _ => None,
                },
                _ => None,
            };
            if let Some(v) = v {
                int_consts.insert(c.name.name.clone(), v);
            }
        }
    }
    let mut helpers: HashMap<String, Shape> = HashMap::new();
    // Helpers call only earlier helpers: h0, h1, h2 in order.
    let mut fns: Vec<_> = k
        .file
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Fn(f) => Some(f),
            _ => None,
        })
        .collect();
    fns.sort_by(|a, b| a.name.name.cmp(&b.name.name));
    let n_helpers = fns.len();
    for f in fns {
        let mut w = Walker {
            helpers: &helpers,
            int_consts: &int_consts,
            uniform_low,
            shape: Shape {
                trips: 1,
                ..Shape::default()
            },
        };
        w.block(&f.body, 0, 0, 1);
        let shape = w.shape;
        helpers.insert(f.name.name.clone(), shape);
    }
    let kernel = k
        .file
        .items
        .iter()
        .find_map(|i| match i {
            Item::Kernel(k) => Some(k),
            _ => None,
        })
        .expect("a kernel");
    let mut w = Walker {
        helpers: &helpers,
        int_consts: &int_consts,
        uniform_low,
        shape: Shape {
            trips: 1,
            ..Shape::default()
        },
    };
    w.block(&kernel.body, 0, 0, 1);
    let shape = w.shape;
    (helpers, shape, n_helpers, n_consts)
}

fn check_limits(o: &GenOptions, seeds: u64) {
    let uniform_low = if o.numerics == NumericsMode::Robust {
        0
    } else {
        -2
    };
    for seed in 0..seeds {
        let k = generate(seed, o);
        let (helpers, kernel, n_helpers, n_consts) = shapes(&k, uniform_low);
        let ctx = || format!("seed {seed}, {o:?}\n{}", k.source);
        let kernel_item = k
            .file
            .items
            .iter()
            .find_map(|i| match i {
                Item::Kernel(k) => Some(k),
                _ => None,
            })
            .expect("a kernel");
        let count = |pat: &str| {
            kernel_item
                .params
                .iter()
                .filter(|p| format!("{:?}", p.ty.kind).contains(pat))
                .count()
        };
        let outputs = count("\"Out\"") + count("\"Scatter\"");
        let inputs = count("\"In\"");
        let uniforms = kernel_item.params.len() - outputs - inputs;
        assert!(
            outputs >= 1 && outputs as u32 <= o.max_outputs,
            "outputs {outputs}: {}",
            ctx()
        );
        assert!(inputs as u32 <= o.max_inputs, "inputs {inputs}: {}", ctx());
        assert!(
            uniforms as u32 <= o.max_uniforms,
            "uniforms {uniforms}: {}",
            ctx()
        );
        assert!(n_helpers as u32 <= o.max_helpers, "{}", ctx());
        assert!(n_consts as u32 <= o.max_consts, "{}", ctx());
        let max_stmts = o.max_statements.max(count("\"Out\"") as u32);
        assert!(
            kernel.statements <= max_stmts,
            "{} statements: {}",
            kernel.statements,
            ctx()
        );
        assert!(
            kernel.max_height <= o.max_expr_depth,
            "height {} ({}): {}",
            kernel.max_height,
            kernel.highest,
            ctx()
        );
        assert!(
            kernel.nesting <= o.max_nesting,
            "nesting {}: {}",
            kernel.nesting,
            ctx()
        );
        assert!(
            kernel.loop_nesting <= o.max_loop_nesting,
            "loop nesting: {}",
            ctx()
        );
        assert!(
            kernel.trips <= u64::from(o.max_total_trips),
            "trips {}: {}",
            kernel.trips,
            ctx()
        );
        assert!(
            kernel.max_single_trips <= u64::from(o.max_loop_trips),
            "loop trips: {}",
            ctx()
        );
        for (name, h) in &helpers {
            assert!(h.statements <= o.max_helper_statements, "{name}: {}", ctx());
            assert!(h.max_height <= o.max_expr_depth, "{name} height: {}", ctx());
        }
    }
}

#[test]
fn size_limits_are_respected() {
    for target in TARGETS {
        for mode in MODES {
            check_limits(&GenOptions::new(target, mode), 120);
            let mut small = GenOptions::new(target, mode);
            small.max_expr_depth = 2;
            small.max_statements = 3;
            small.max_helper_statements = 1;
            small.max_nesting = 1;
            small.max_loop_nesting = 1;
            small.max_loop_trips = 2;
            small.max_total_trips = 2;
            small.max_helpers = 1;
            small.max_consts = 1;
            small.max_uniforms = 1;
            small.max_inputs = 1;
            small.max_outputs = 1;
            check_limits(&small, 120);
            let mut big = GenOptions::new(target, mode);
            big.max_expr_depth = 8;
            big.max_statements = 60;
            big.max_nesting = 6;
            big.max_loop_nesting = 3;
            big.max_total_trips = 200;
            check_limits(&big, 40);
        }
    }
}

#[test]
fn out_of_range_options_are_tamed() {
    let mut o = GenOptions::new(Target::X1k, NumericsMode::Robust);
    o.max_expr_depth = 0;
    o.max_statements = 0;
    o.max_outputs = 100;
    o.max_inputs = 100;
    o.max_loop_trips = 100_000;
    for seed in 0..50 {
        let k = generate(seed, &o);
        assert!(k.source.contains("kernel gen_"), "{}", k.source);
        assert!(k.source.matches("Out<").count() + k.source.matches("Scatter<").count() <= 4);
        assert!(k.source.matches("In<").count() <= 16);
    }
}
