#!/usr/bin/env bash
# Instructions per call of each dispatch variant, counted by callgrind: deterministic for a
# given binary, unlike wall time on a shared machine.
#
# Usage: benches/instructions.sh   (from anywhere in the repository)
#
# Each variant runs under `valgrind --tool=callgrind` with n = 1000 and n = 11000 calls
# (`dispatch --instructions <variant> <n>`), counting only inside `instructions_loop` (the
# calls themselves, not building their `ToolCall`s); the difference divided by 10000
# cancels what is paid once (first-call initialisation, the results vector).
set -euo pipefail

cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null 2>&1; then
    echo "error: valgrind is not installed (on Debian/Ubuntu: apt-get install valgrind)" >&2
    exit 1
fi

N1=1000
N2=11000
VARIANTS=(two-floor two-boxed two-toolbox two-traced two-ref five-floor five-boxed five-toolbox five-traced five-ref hooks-typed4 hooks-json hooks-audit hooks-sink hooks-ledger many-toolbox many-ref)

echo "building the dispatch bench (bench profile)..." >&2
json=$(cargo bench --bench dispatch --no-run --message-format=json)
bin=$(printf '%s\n' "$json" \
    | grep '"reason":"compiler-artifact"' \
    | grep '"name":"dispatch"' \
    | grep -o '"executable":"[^"]*"' \
    | sed 's/^"executable":"//; s/"$//' \
    | tail -n 1)
if [[ -z "$bin" || ! -x "$bin" ]]; then
    echo "error: could not find the dispatch bench executable in cargo's JSON output" >&2
    exit 1
fi
echo "binary: $bin" >&2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Instructions collected inside `instructions_loop` for `n` calls of a variant.
collected() {
    local variant=$1 n=$2 log="$tmp/$1.$2.log" count
    if ! valgrind --tool=callgrind --toggle-collect='*instructions_loop*' \
        --callgrind-out-file="$tmp/callgrind.$variant.$n" \
        "$bin" --instructions "$variant" "$n" >"$log" 2>&1; then
        echo "error: $variant with n=$n failed under callgrind:" >&2
        cat "$log" >&2
        exit 1
    fi
    count=$(grep -o 'Collected : [0-9]*' "$log" | grep -o '[0-9]*$' || true)
    if [[ -z "$count" || "$count" -eq 0 ]]; then
        echo "error: no instructions collected for $variant with n=$n (is instructions_loop inlined?):" >&2
        cat "$log" >&2
        exit 1
    fi
    echo "$count"
}

declare -A per_call
for v in "${VARIANTS[@]}"; do
    echo "measuring $v..." >&2
    a=$(collected "$v" "$N1")
    b=$(collected "$v" "$N2")
    per_call[$v]=$(awk -v a="$a" -v b="$b" -v d=$((N2 - N1)) 'BEGIN { printf "%.1f", (b - a) / d }')
done

ratio() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.2fx", x / y }'; }

echo
echo "| variant | instructions per call | vs floor |"
echo "|---|---:|---:|"
for v in "${VARIANTS[@]}"; do
    base=${v%%-*}
    [[ $base == hooks || $base == many ]] && base=two
    floor=${per_call[$base-floor]}
    echo "| $v | ${per_call[$v]} | $(ratio "${per_call[$v]}" "$floor") |"
done
echo
for tool in two five; do
    echo "$tool-arg: toolbox/floor $(ratio "${per_call[$tool-toolbox]}" "${per_call[$tool-floor]}"), with a subscriber at warn $(ratio "${per_call[$tool-traced]}" "${per_call[$tool-floor]}"), call_ref $(ratio "${per_call[$tool-ref]}" "${per_call[$tool-floor]}"), boxed/floor $(ratio "${per_call[$tool-boxed]}" "${per_call[$tool-floor]}")"
done
for h in typed4 json audit sink ledger; do
    echo "two-arg with hooks ($h): toolbox/floor $(ratio "${per_call[hooks-$h]}" "${per_call[two-floor]}")"
done
echo "two-arg in a 1,000-tool toolbox: toolbox $(ratio "${per_call[many-toolbox]}" "${per_call[two-floor]}") ($(awk -v m="${per_call[many-toolbox]}" -v t="${per_call[two-toolbox]}" 'BEGIN { printf "%+.1f", m - t }') instructions against one tool), call_ref $(ratio "${per_call[many-ref]}" "${per_call[two-floor]}")"
echo
echo "instructions per call are deterministic for a given binary; ratios measured in the same run"
