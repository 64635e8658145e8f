#!/usr/bin/env bash
# Build cost of `#[tool]` against a plain serde + schemars crate, measured in one run.
#
# Usage: benches/build_cost.sh [--quick]   (from anywhere in the repository)
#
# It generates crates under target/build-cost/ (dependencies built once, in a shared
# target directory) and reports:
#
# - build time per extra tool: (time of N tools - time of 1 tool) / (N - 1), for
#   toolkit and for the baseline, and their ratio. Each time is the median of three
#   `cargo build`s of the crate alone (dev profile, dependencies already built);
# - LLVM IR lines per extra tool (`--emit=llvm-ir`, one codegen unit);
# - rustc's peak memory and build time for a `toolbox!` of 400 and of 1,000 tools
#   (medians of three builds), and the ratio of the two times (linear growth is 2.5).
#
# Both families define the same async tools (three parameters: a string, an integer
# with a default, an optional flag; a `Result` output). The baseline is what one writes
# without toolkit: a `#[derive(Deserialize, JsonSchema)]` struct per tool, a `match` on
# the name that parses, calls and serializes, and the schemas from `schema_for!`.
#
# --quick: 10 tools instead of 50, and the toolbox! of 100 and 250 tools (a smoke run).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
work="$root/target/build-cost"
export CARGO_TARGET_DIR="$work/target"
export CARGO_INCREMENTAL=0
export CARGO_TERM_COLOR=never

MANY=50
BIG=(400 1000)
if [[ ${1:-} == --quick ]]; then
    MANY=10
    BIG=(100 250)
fi

mkdir -p "$work"

# gen FAMILY N: writes the crate $work/FAMILY-N and prints its directory.
gen() {
    local family=$1 n=$2 dir="$work/$1-$2" i
    mkdir -p "$dir/src"
    {
        echo '[package]'
        echo "name = \"cost_${family}_$n\""
        echo 'version = "0.0.0"'
        echo 'edition = "2024"'
        echo 'publish = false'
        echo '[workspace]'
        echo '[dependencies]'
        echo 'serde = { version = "1", features = ["derive"] }'
        echo 'serde_json = "1"'
        echo 'schemars = "1"'
        if [[ $family == toolkit ]]; then
            echo "toolkit = { package = \"toolkit-llm\", path = \"$root/toolkit\" }"
        fi
    } >"$dir/Cargo.toml"
    {
        if [[ $family == toolkit ]]; then
            echo 'use toolkit::prelude::*;'
            for ((i = 0; i < n; i++)); do
                cat <<EOF
/// Search the notes, variant $i.
///
/// Use when the user asks about note set $i.
#[tool(read_only)]
pub async fn tool_$i(
    /// The text to look for.
    query: String,
    /// How many results at most.
    #[arg(default = 5)]
    limit: u32,
    /// Whether to include archived notes.
    archived: Option<bool>,
) -> Result<Vec<String>, std::io::Error> {
    Ok(vec![format!("{query} {}", archived.unwrap_or(false)); limit as usize])
}
EOF
            done
            printf 'pub fn tools() -> Toolbox {\n    toolbox!['
            for ((i = 0; i < n; i++)); do printf 'tool_%d, ' "$i"; done
            printf ']\n}\n'
        else
            echo 'use schemars::JsonSchema;'
            echo 'use serde::Deserialize;'
            echo 'fn five() -> u32 { 5 }'
            for ((i = 0; i < n; i++)); do
                cat <<EOF
/// The arguments of \`tool_$i\`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args$i {
    /// The text to look for.
    query: String,
    /// How many results at most.
    #[serde(default = "five")]
    limit: u32,
    /// Whether to include archived notes.
    archived: Option<bool>,
}
/// Search the notes, variant $i.
pub async fn tool_$i(query: String, limit: u32, archived: Option<bool>) -> Result<Vec<String>, std::io::Error> {
    Ok(vec![format!("{query} {}", archived.unwrap_or(false)); limit as usize])
}
EOF
            done
            echo 'pub async fn dispatch(name: &str, args: &str) -> Result<String, String> {'
            echo '    match name {'
            for ((i = 0; i < n; i++)); do
                echo "        \"tool_$i\" => { let a: Args$i = serde_json::from_str(args).map_err(|e| e.to_string())?; let out = tool_$i(a.query, a.limit, a.archived).await.map_err(|e| e.to_string())?; serde_json::to_string(&out).map_err(|e| e.to_string()) }"
            done
            echo '        _ => Err(format!("unknown tool {name}")),'
            echo '    }'
            echo '}'
            echo 'pub fn schemas() -> Vec<(&'"'"'static str, schemars::Schema)> {'
            printf '    vec!['
            for ((i = 0; i < n; i++)); do printf '("tool_%d", schemars::schema_for!(Args%d)), ' "$i" "$i"; done
            printf ']\n}\n'
        fi
    } >"$dir/src/lib.rs"
    echo "$dir"
}

# build DIR: seconds and peak kilobytes of one `cargo build` of the crate alone (its
# dependencies already built), as "SECONDS KB". The peak is the largest child
# process's (rustc's) resident set.
build() {
    local dir=$1
    touch "$dir/src/lib.rs"
    python3 - "$dir" <<'EOF'
import resource, subprocess, sys, time
start = time.monotonic()
subprocess.run(["cargo", "build", "--quiet", "--manifest-path", sys.argv[1] + "/Cargo.toml"], check=True)
elapsed = time.monotonic() - start
print(f"{elapsed:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
EOF
}

# median3 DIR: the median build time of three builds.
median3() {
    local dir=$1 a b c
    a=$(build "$dir" | cut -d' ' -f1)
    b=$(build "$dir" | cut -d' ' -f1)
    c=$(build "$dir" | cut -d' ' -f1)
    printf '%s\n%s\n%s\n' "$a" "$b" "$c" | sort -n | sed -n 2p
}

# median3_both DIR: the median time and the median peak of three builds, as
# "SECONDS KB" (one build's time varies by 10 % or more on a shared machine, enough to
# move the ratio of two of them across its target).
median3_both() {
    local dir=$1 runs
    runs=$(for _ in 1 2 3; do build "$dir"; done)
    echo "$(echo "$runs" | cut -d' ' -f1 | sort -n | sed -n 2p) $(echo "$runs" | cut -d' ' -f2 | sort -n | sed -n 2p)"
}

# ir DIR: lines of LLVM IR of the crate (one codegen unit).
ir() {
    local dir=$1 name
    name=$(basename "$dir" | tr '-' '_')
    rm -f "$CARGO_TARGET_DIR"/debug/deps/cost_"$name"-*.ll
    touch "$dir/src/lib.rs"
    cargo rustc --quiet --lib --manifest-path "$dir/Cargo.toml" -- --emit=llvm-ir -C codegen-units=1 >/dev/null 2>&1
    cat "$CARGO_TARGET_DIR"/debug/deps/cost_"$name"-*.ll | wc -l
}

echo "generating crates and building their dependencies..." >&2
for family in baseline toolkit; do
    d=$(gen "$family" 1)
    cargo build --quiet --manifest-path "$d/Cargo.toml"
    gen "$family" "$MANY" >/dev/null
done
for n in "${BIG[@]}"; do gen toolkit "$n" >/dev/null; done
gen baseline "${BIG[1]}" >/dev/null

declare -A time irl
for family in baseline toolkit; do
    for n in 1 "$MANY"; do
        echo "timing $family with $n tools..." >&2
        time[$family-$n]=$(median3 "$work/$family-$n")
        irl[$family-$n]=$(ir "$work/$family-$n")
    done
done
declare -A big_time big_kb
for n in "${BIG[@]}"; do
    echo "building a toolbox! of $n tools (three times)..." >&2
    read -r big_time[$n] big_kb[$n] < <(median3_both "$work/toolkit-$n")
done
echo "building the baseline of ${BIG[1]} tools..." >&2
read -r base_big_time base_big_kb < <(build "$work/baseline-${BIG[1]}")

per() { awk -v a="$1" -v b="$2" -v n="$MANY" 'BEGIN { printf "%.1f", (b - a) / (n - 1) * 1000 }'; }
per_ir() { awk -v a="$1" -v b="$2" -v n="$MANY" 'BEGIN { printf "%.0f", (b - a) / (n - 1) }'; }

base_ms=$(per "${time[baseline-1]}" "${time[baseline-$MANY]}")
tk_ms=$(per "${time[toolkit-1]}" "${time[toolkit-$MANY]}")
base_ir=$(per_ir "${irl[baseline-1]}" "${irl[baseline-$MANY]}")
tk_ir=$(per_ir "${irl[toolkit-1]}" "${irl[toolkit-$MANY]}")

echo
echo "$(rustc --version); $(nproc) cores; dev profile, dependencies prebuilt; medians of 3 builds"
echo
echo "| family | 1 tool | $MANY tools | per extra tool | IR lines per extra tool |"
echo "|---|---:|---:|---:|---:|"
echo "| serde + schemars (baseline) | ${time[baseline-1]} s | ${time[baseline-$MANY]} s | $base_ms ms | $base_ir |"
echo "| toolkit \`#[tool]\` | ${time[toolkit-1]} s | ${time[toolkit-$MANY]} s | $tk_ms ms | $tk_ir |"
echo
awk -v t="$tk_ms" -v b="$base_ms" 'BEGIN { printf "build time per extra tool, toolkit / baseline: %.2fx\n", t / b }'
echo
echo "| toolbox! of | build time | rustc peak memory |"
echo "|---:|---:|---:|"
for n in "${BIG[@]}"; do
    awk -v n="$n" -v t="${big_time[$n]}" -v kb="${big_kb[$n]}" 'BEGIN { printf "| %d tools | %.1f s | %.2f GB |\n", n, t, kb / 1048576 }'
done
awk -v n="${BIG[1]}" -v t="$base_big_time" -v kb="$base_big_kb" \
    'BEGIN { printf "| baseline, %d tools | %.1f s | %.2f GB |\n", n, t, kb / 1048576 }'
awk -v a="${big_time[${BIG[0]}]}" -v b="${big_time[${BIG[1]}]}" -v n="${BIG[0]}" -v m="${BIG[1]}" \
    'BEGIN { printf "\ntime of %d tools / time of %d: %.2fx (linear: %.2fx)\n", m, n, b / a, m / n }'
