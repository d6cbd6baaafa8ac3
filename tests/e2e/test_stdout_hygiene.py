"""Nothing but framed JSON-RPC on stdout: a stray print breaks VS Code's client (Neovim and pytest-lsp cope).

The server is spawned raw, without a client library that would skip junk, and every byte it writes to stdout
must belong to a ``Content-Length``-framed JSON-RPC message.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from compact_lsp import PROTOCOL_VERSION, __version__

from .conftest import GUARD, SERVER_ENV, Workspace


class RawConnection:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.stdout_bytes = bytearray()
        self.next_id = 0

    def send(self, method: str, params: Any, *, notification: bool = False) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        msg_id = None
        if not notification:
            self.next_id += 1
            msg_id = message["id"] = self.next_id
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return msg_id

    async def read_message(self) -> dict[str, Any]:
        """One framed message; fails on anything that is not a header block followed by a JSON body."""
        assert self.proc.stdout is not None
        headers: dict[str, str] = {}
        while True:
            line = await self.proc.stdout.readuntil(b"\r\n")
            self.stdout_bytes += line
            if line == b"\r\n":
                break
            name, sep, value = line.decode("ascii").partition(":")
            assert sep, f"stdout carried a line that is not a JSON-RPC header: {line!r}"
            headers[name.strip().lower()] = value.strip()
        assert "content-length" in headers, f"stdout carried bytes that are not JSON-RPC framing: {headers!r}"
        length = int(headers["content-length"])
        body = await self.proc.stdout.readexactly(length)
        self.stdout_bytes += body
        message: dict[str, Any] = json.loads(body)
        assert message.get("jsonrpc") == "2.0"
        return message

    async def request(self, method: str, params: Any) -> dict[str, Any]:
        msg_id = self.send(method, params)
        while True:
            message = await asyncio.wait_for(self.read_message(), GUARD)
            if message.get("id") == msg_id and "method" not in message:
                return message
            if "method" in message and "id" in message:  # a request from the server: answer it
                self.reply(message["id"])

    def reply(self, msg_id: Any) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": None}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)


async def test_stdout_carries_only_framed_json_rpc(workspace: Workspace) -> None:
    workspace.write("src/app.py", "print('hello')\n")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "compact_lsp",
        "--stdio",
        "-vv",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=SERVER_ENV,
    )
    conn = RawConnection(proc)
    stderr_task = asyncio.ensure_future(proc.stderr.read()) if proc.stderr else None
    init = await conn.request(
        "initialize",
        {
            "processId": None,
            "rootUri": workspace.root.as_uri(),
            "capabilities": {},
            "initializationOptions": {**workspace.options(), "contextWindow": "not a number"},
        },
    )
    assert init["result"]["serverInfo"] == {"name": "compact-lsp", "version": __version__}
    # what an editor compares with the versions it expects (docs/protocol.md, "Versions")
    assert init["result"]["capabilities"]["experimental"]["compactLsp"] == {
        "serverVersion": __version__,
        "protocolVersion": PROTOCOL_VERSION,
    }
    conn.send("initialized", {}, notification=True)
    session = (await conn.request("compact/newSession", {"title": "hygiene"}))["result"]["sessionId"]
    read = await conn.request("compact/readFile", {"sessionId": session, "path": "src/app.py"})
    assert read["result"]["content"] == "print('hello')\n"
    messages = [
        {"role": "user", "content": "read it"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {"file_path": "src/app.py"}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "print('hello')"}],
        },
    ]
    await conn.request("compact/append", {"sessionId": session, "messages": messages})
    assert "error" in await conn.request("compact/readFile", {"sessionId": session, "path": "../../etc/passwd"})
    await conn.request("workspace/executeCommand", {"command": "compact.microcompact", "arguments": []})
    await conn.request("compact/status", {"sessionId": session})
    await conn.request("shutdown", None)
    conn.send("exit", None, notification=True)
    assert proc.stdin is not None
    proc.stdin.close()

    assert proc.stdout is not None
    while rest := await asyncio.wait_for(proc.stdout.read(65536), GUARD):
        conn.stdout_bytes += rest
        raise AssertionError(f"bytes after the last framed message on stdout: {rest[:200]!r}")
    assert await asyncio.wait_for(proc.wait(), GUARD) == 0
    stderr = (await stderr_task).decode() if stderr_task else ""
    assert "compact-lsp" in stderr  # -vv logs went to stderr, where they belong
