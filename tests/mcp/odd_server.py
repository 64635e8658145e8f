"""A minimal MCP server over stdio (no dependencies) that misbehaves in one chosen way,
for tests/mcp_client.rs.

    python3 odd_server.py same-cursor   # tools/list always says nextCursor "x"
    python3 odd_server.py endless       # tools/list pages on with a new cursor each time
    python3 odd_server.py clashing      # tool names that come out the same once cleaned
"""

import json
import sys

MODE = sys.argv[1]


def tools(cursor):
    if MODE == "clashing":
        names = ["a.b", "a_b", "a b", ""]
        return {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in names]}
    n = int(cursor) if cursor and cursor.isdigit() else 0
    page = {"tools": [{"name": f"t{n}", "inputSchema": {"type": "object"}}]}
    page["nextCursor"] = "x" if MODE == "same-cursor" else str(n + 1)
    return page


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method, params = message.get("method"), message.get("params") or {}
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "odd", "version": "0"},
        }
    elif method == "tools/list":
        result = tools(params.get("cursor"))
    elif method == "tools/call":
        name = params.get("name")
        result = {"content": [{"type": "text", "text": f"called {name!r}"}], "isError": False}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
