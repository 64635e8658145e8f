#!/usr/bin/env bash
# Builds and runs the README's quick start as a new project outside this workspace would:
# a fresh crate, the dependencies added as the README says (the runtime by path, since
# it is not published from here), and the README's quick-start code as `src/main.rs`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cargo new --quiet --bin --vcs none "$scratch/quick-start"
cd "$scratch/quick-start"
# The README: `cargo add toolkit-llm`, then serde, schemars and tokio.
cargo add --quiet --path "$root/toolkit"
cargo add --quiet serde --features derive
cargo add --quiet schemars
cargo add --quiet tokio --features macros,rt-multi-thread
grep -q '^toolkit-llm = ' Cargo.toml || { echo "error: the package is not added as toolkit-llm" >&2; exit 1; }
# The first Rust block after the "Quick start" heading.
awk '/^## Quick start/ { in_section = 1 } in_section && /^```rust/ { in_code = 1; next } in_code && /^```/ { exit } in_code' \
    "$root/README.md" >src/main.rs
[ -s src/main.rs ] || { echo "error: no quick-start code found in README.md" >&2; exit 1; }
CARGO_TARGET_DIR="$root/target/quick-start" cargo run --quiet
echo "quick start: built and ran outside the workspace"
