"""Builds benches/data/bfcl_tool_retrieval.json, the tool-retrieval set of the tool-search
benchmark and test, from the Berkeley Function Calling Leaderboard's data (the PyPI
package `bfcl-eval`, Apache-2.0; see NOTICE next to this file).

    pip download bfcl-eval==2026.3.23 --no-deps -d /tmp/bfcl
    unzip -q /tmp/bfcl/bfcl_eval-2026.3.23-py3-none-any.whl -d /tmp/bfcl/x
    python3 benches/data/make_tool_retrieval.py /tmp/bfcl/x/bfcl_eval/data

Four categories whose items are one user request and the functions offered with it:
`simple_python` and `live_simple` (one function), `multiple` and `live_multiple` (two
to a few, one of them right). Every function of every item goes into one catalog (the
first definition of a name wins; `.` in a name becomes `_`, as tool names allow); each
request whose answer is one call becomes a query whose right tool is that call's
function. A search then finds the right tool among all of them, not among the few its
item offered.
"""

import json
import sys
from pathlib import Path

CATEGORIES = ["simple_python", "multiple", "live_simple", "live_multiple"]


def lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main(data):
    data = Path(data)
    tools, queries = {}, []
    for category in CATEGORIES:
        items = lines(data / f"BFCL_v4_{category}.json")
        answers = {a["id"]: a["ground_truth"] for a in lines(data / "possible_answer" / f"BFCL_v4_{category}.json")}
        for item in items:
            for function in item["function"]:
                name = function["name"].replace(".", "_")
                tools.setdefault(name, {
                    "name": name,
                    "description": function.get("description", ""),
                    "parameters": function.get("parameters", {}),
                })
            truth = answers.get(item["id"])
            turns = item["question"]
            if not truth or len(truth) != 1 or len(turns) != 1:
                continue
            user = [m["content"] for m in turns[0] if m["role"] == "user"]
            if not user:
                continue
            answer = next(iter(truth[0])).replace(".", "_")
            queries.append({"category": category, "query": user[-1], "answer": answer})
    out = Path(__file__).parent / "bfcl_tool_retrieval.json"
    with open(out, "w") as f:
        json.dump({"source": "bfcl-eval 2026.3.23 (Apache-2.0)", "tools": list(tools.values()), "queries": queries}, f,
                  ensure_ascii=False, separators=(",", ":"))
    print(f"{len(tools)} tools, {len(queries)} queries -> {out}")


if __name__ == "__main__":
    main(sys.argv[1])
