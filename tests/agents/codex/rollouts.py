"""Codex rollout lines as Codex CLI writes them (shapes from docs/codex.md), for the followers' tests."""

from __future__ import annotations

import json
from pathlib import Path


def line(kind: str, payload: dict[str, object]) -> bytes:
    return json.dumps({"timestamp": "2026-12-01T00:00:00Z", "type": kind, "payload": payload}).encode() + b"\n"


def item(**fields: object) -> bytes:
    return line("response_item", fields)


def user(text: str) -> bytes:
    return item(type="message", role="user", content=[{"type": "input_text", "text": text}])


def assistant(text: str) -> bytes:
    return item(type="message", role="assistant", content=[{"type": "output_text", "text": text}])


def tokens(n: int) -> bytes:
    return line("event_msg", {"type": "token_count", "info": {"last_token_usage": {"input_tokens": n}}})


def turn(n: int, body: str = "print(1)\n" * 40) -> list[bytes]:
    """A request, a shell read, its output, a failed patch, and an answer: how Codex logs a turn."""
    cmd = json.dumps({"cmd": f"cat f{n}.py"})
    return [
        user(f"look at f{n}.py"),
        item(type="function_call", call_id=f"r{n}", name="exec_command", arguments=cmd),
        item(type="function_call_output", call_id=f"r{n}", output=f"Process exited with code 0\nOutput:\n{body}"),
        item(type="custom_tool_call", call_id=f"p{n}", name="apply_patch", input=f"*** Update File: f{n}.py\n"),
        item(type="custom_tool_call_output", call_id=f"p{n}", output="Exit code: 1\nOutput:\nfailed"),
        assistant(f"f{n}.py reads fine."),
        tokens(1000 + n),
    ]


def head(cwd: Path) -> list[bytes]:
    return [
        line("session_meta", {"id": "thread-1", "cwd": str(cwd), "model": "gpt-5.5"}),
        item(type="message", role="developer", content=[{"type": "input_text", "text": "instructions"}]),
        user("<environment_context>x</environment_context>"),
    ]


def compaction() -> bytes:
    kept = json.loads(user("look at f0.py"))["payload"]
    return line("compacted", {"message": "SUMMARY", "replacement_history": [kept]})


def exec_call(call_id: str, cmd: str, output: str) -> list[bytes]:
    """A shell command the model ran (``exec_command``) and what it printed."""
    return [
        item(type="function_call", call_id=call_id, name="exec_command", arguments=json.dumps({"cmd": cmd})),
        item(type="function_call_output", call_id=call_id, output=output),
    ]


def ok(body: str) -> str:
    """``exec_command``'s output of a command that exited 0, as Codex 0.171.0 writes it."""
    head = "Chunk ID: 1a2b\nWall time: 0.0010 seconds\nProcess exited with code 0\nOriginal token count: 9\n"
    return f"{head}Output:\n{body}"
