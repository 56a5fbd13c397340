//! Compile-fail tests of `ctm_kernel!` (trybuild): each file of
//! `tests/ui/` is a kernel with one kind of error, and its `.stderr` the
//! Rust compile error the macro must give — the ctm code and message at
//! the offending tokens. Regenerate with `TRYBUILD=overwrite`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
