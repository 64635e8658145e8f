"""Drives an MCP server with the official Python SDK (`mcp` on PyPI) and prints what it saw.

Used by the Rust tests in tests/mcp_python.rs; not a test on its own. Usage:

    python client.py (--stdio CMD [ARG...] | --url URL) --mode (legacy|modern) --calls JSON
                     [--answer approve|deny]

* legacy: `ClientSession.initialize()` (the 2025-11-25 handshake), then `list_tools`,
  then `call_tool` for each call;
* modern: `Client(mode="auto")`, which probes `server/discover` and speaks the stateless
  2026-07-28 revision when the server does (falling back to `initialize` otherwise: the
  printed `protocol_version` tells which happened).

`--calls` is a JSON list of `[name, arguments]`. The output (stdout) is one JSON object:
`protocol_version`, `server`, `tools` (as listed), and per call either `result` (the
`CallToolResult`, with `structured_valid`: whether `structuredContent` validates against
the tool's `outputSchema`) or `error` (`code`, `message`) for a protocol error, and
`progress`: the progress notifications the call got (each call asks for them); then
`tools_after` (the names listed again after the calls) and `list_changed` (how many
`notifications/tools/list_changed` the server sent).

With `--answer`, the client declares elicitation and answers every form a server sends
(approve: `{"approve": true}`; deny: `{"approve": false, "note": "not now"}`); the report's
`asked` lists the messages it was asked, in order. Without it, the client cannot be asked.
"""

import argparse
import json
import sys

import anyio
import jsonschema
from mcp import Client, ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


ASKED = []
CHANGED = []


async def on_message(message):
    """Counts the server's `notifications/tools/list_changed`."""
    if type(message).__name__ == "ToolListChangedNotification":
        CHANGED.append(1)


def answering(answer):
    """The elicitation callback that gives `answer` to every form, or None (cannot be asked)."""
    if answer is None:
        return None

    async def callback(context, params):
        ASKED.append(params.message)
        if answer == "approve":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="accept", content={"approve": False, "note": "not now"})

    return callback


async def exercise(session, calls, protocol_version, server):
    listed = await session.list_tools()
    tools = [dump(t) for t in listed.tools]
    schemas = {t["name"]: t.get("outputSchema") for t in tools}
    # Only the fields the server sent (the model fills in defaults for the others).
    sent = listed.model_dump(mode="json", by_alias=True, exclude_unset=True)
    listing = {k: v for k, v in sent.items() if k != "tools"}
    report = {"protocol_version": protocol_version, "server": server, "tools": tools, "list": listing, "calls": []}
    for name, arguments in calls:
        entry = {"name": name, "arguments": arguments, "progress": []}

        async def progress(done, total, message, entry=entry):
            entry["progress"].append({"progress": done, "total": total, "message": message})

        try:
            result = dump(await session.call_tool(name, arguments, progress_callback=progress))
            structured = result.get("structuredContent")
            if structured is not None and schemas.get(name):
                try:
                    jsonschema.validate(structured, schemas[name])
                    result["structured_valid"] = True
                except jsonschema.ValidationError as error:
                    result["structured_valid"] = False
                    result["validation_error"] = str(error)
            entry["result"] = result
        except MCPError as error:
            entry["error"] = {"code": error.code, "message": error.message}
        report["calls"].append(entry)
    report["asked"] = list(ASKED)
    # The list again, after the calls (a search may have added tools to it).
    after = await session.list_tools()
    report["tools_after"] = [tool.name for tool in after.tools]
    report["list_changed"] = len(CHANGED)
    return report


async def legacy(streams, calls, answer):
    read, write = streams
    async with ClientSession(
        read, write, elicitation_callback=answering(answer), message_handler=on_message
    ) as session:
        init = await session.initialize()
        server = dump(init.server_info) if init.server_info else None
        return await exercise(session, calls, init.protocol_version, server)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stdio", nargs=argparse.REMAINDER)
    parser.add_argument("--url")
    parser.add_argument("--mode", choices=["legacy", "modern"], required=True)
    parser.add_argument("--calls", default="[]")
    parser.add_argument("--answer", choices=["approve", "deny"])
    args = parser.parse_args()
    calls = json.loads(args.calls)

    if args.stdio:
        target = StdioServerParameters(command=args.stdio[0], args=args.stdio[1:])
    else:
        target = args.url

    if args.mode == "legacy":
        if args.stdio:
            async with stdio_client(target) as streams:
                report = await legacy(streams, calls, args.answer)
        else:
            async with streamable_http_client(target) as streams:
                report = await legacy(streams, calls, args.answer)
    else:
        async with Client(
            target, mode="auto", elicitation_callback=answering(args.answer), message_handler=on_message
        ) as client:
            server = dump(client.server_info) if client.server_info else None
            report = await exercise(client, calls, client.protocol_version, server)
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    anyio.run(main)
