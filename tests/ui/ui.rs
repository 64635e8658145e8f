//! Compile-time behaviour of `#[tool]`, `#[tools]`, `toolbox!`, `#[hook]` and `hooks!`:
//! every diagnostic has a `tests/ui/fail` case whose `.stderr` is the exact message a
//! user sees, and `tests/ui/pass` holds signatures and hygiene hazards that must keep
//! compiling.
//!
//! The suite is its own package (`tests/ui/Cargo.toml`), so trybuild builds the cases
//! against `toolkit` with its default features and the few crates they use, not the
//! examples' whole graph.
//!
//! Record changed messages with `TRYBUILD=overwrite cargo test -p toolkit-ui-tests` and review the
//! `.stderr` diffs, then write the compiler that recorded them into
//! `tests/ui/rustc-version.txt` (`rustc --version > tests/ui/rustc-version.txt`).
//! Compiler messages change between releases, so the snapshots are compared only on
//! that compiler; on any other the test says so and skips (it never fetches one).

use std::process::Command;

#[test]
fn ui() {
    let recorded = include_str!("rustc-version.txt").trim();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let current = Command::new(&rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    if current != recorded {
        eprintln!(
            "skipped: the tests/ui snapshots were recorded with `{recorded}`, this is `{current}`; \
             diagnostics differ between compilers, so they are checked on that one only"
        );
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("fail/*.rs");
    t.pass("pass/*.rs");
}
