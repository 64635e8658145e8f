#!/usr/bin/env python3
"""Checks that each workspace package's `rust-version` is at least the highest
`rust-version` of any package it depends on, directly or not (all features, normal and
build dependencies), from `cargo metadata`. A package without its own `rust-version`
is held to the workspace's. The core crates keep the workspace's (1.88);
`toolkit-temporal` declares its own, since Temporal's SDK needs a later one.

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
        workspace = tomllib.load(f)["workspace"]["package"]["rust-version"]
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--all-features", "--locked"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    ours = set(meta["workspace_members"])

    def closure(root):
        """Every package `root` needs to build (not its dev-dependencies)."""
        seen, todo = set(), [root]
        while todo:
            for dep in nodes[todo.pop()]["deps"]:
                kinds = {k["kind"] for k in dep["dep_kinds"]}
                if kinds - {"dev"} and dep["pkg"] not in seen:
                    seen.add(dep["pkg"])
                    todo.append(dep["pkg"])
        return seen

    status = 0
    for member in sorted(ours, key=lambda i: packages[i]["name"]):
        package = packages[member]
        declared = package.get("rust_version") or workspace
        needed = [
            (version(packages[d]["rust_version"]), packages[d]["name"], packages[d]["version"])
            for d in closure(member)
            if d not in ours and packages[d].get("rust_version")
        ]
        if not needed:
            continue
        highest = max(needed)
        print(f"{package['name']}: declared rust-version {declared}; highest in its dependency graph: "
              f"{'.'.join(map(str, highest[0]))} ({highest[1]} {highest[2]})")
        if version(declared) < highest[0]:
            print(f"error: raise `rust-version` of {package['name']} to at least its graph's", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
