#!/usr/bin/env python3
"""Checks that the workspace's `rust-version` is at least the highest `rust-version` of
any package in the resolved dependency graph (all features), from `cargo metadata`.

Usage: python3 .ci/rust-version.py   (from the repository root)
"""
import json
import subprocess
import sys
import tomllib


def version(text):
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def main():
    with open("Cargo.toml", "rb") as f:
        declared = tomllib.load(f)["workspace"]["package"]["rust-version"]
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--all-features", "--locked"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    resolved = {node["id"] for node in meta["resolve"]["nodes"]}
    ours = set(meta["workspace_members"])
    needed = [
        (version(p["rust_version"]), p["name"], p["version"])
        for p in meta["packages"]
        if p["id"] in resolved and p["id"] not in ours and p.get("rust_version")
    ]
    highest = max(needed)
    print(f"declared rust-version {declared}; highest in the dependency graph: "
          f"{'.'.join(map(str, highest[0]))} ({highest[1]} {highest[2]})")
    if version(declared) < highest[0]:
        print("error: raise `rust-version` in Cargo.toml to at least the graph's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
