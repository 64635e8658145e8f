//! Compile-time behaviour of `#[tool]`, `#[tools]` and `toolbox!`: every diagnostic has a
//! `tests/ui/fail` case whose `.stderr` is the exact message a user sees, and
//! `tests/ui/pass` holds signatures and hygiene hazards that must keep compiling.
//!
//! Record changed messages with `TRYBUILD=overwrite cargo test --test ui` and review the
//! `.stderr` diffs.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
