"""Gemini CLI's session file, read as the engine's ``Read``/``Edit``/``Write`` calls with their results.

Gemini CLI 0.61.0 (measured 2026-12-06, docs/gemini-cli.md) writes ``~/.gemini/tmp/<project folder's
name>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl``: a header ``{sessionId, projectHash, startTime, lastUpdated,
kind}``, message records ``{id, timestamp, type: "user" | "gemini" | "info" | ..., content, tokens, model,
toolCalls: [{id, name, args, result: [{functionResponse}], status}]}`` (a record is written again, whole, under
the same ``id`` when it grows), and patch records ``{"$set": {...}}``. A ``$set`` of ``messages`` replaces the
list: at the start, on ``--resume``, and at a compression, whose list is the session context, the summary (a
``user`` message) and the model's fixed acknowledgement (``COMPRESSION_ACK``), and nothing else of before.

Its tools are said in the engine's vocabulary: ``read_file {file_path, start_line, end_line}`` (1-based,
inclusive) → ``Read``, ``replace {file_path, old_string, new_string}`` → ``Edit``, ``write_file`` → ``Write``,
and a ``run_shell_command`` that prints files (``cat``, ``sed -n``, ``head``, ``nl``) → ``Read`` of what it
printed. A call whose ``status`` is not ``success`` failed. Anything else says nothing about files.

The file is untrusted: at most ``hook_input.MAX_TRANSCRIPT_BYTES`` from its end are read, a line that is not a JSON
object of the expected shape is skipped, and nothing it says widens what the hook may read (hook_io.allowed_roots).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from compact_lsp.agents.gemini_cli.session_file import (
    MessageList,
    Messages,
    result_of,
    summary_of,
    text_of,
    tool_calls,
)
from compact_lsp.agents.hook_input import transcript_records, transcript_tail
from compact_lsp.engine.codex.file_uses import command_reads
from compact_lsp.engine.conversation.messages import Block, Message

SHELL_TOOL = "run_shell_command"


@dataclass(eq=False)
class GeminiWindow:
    """The file uses the model held before the last compression, the summary, and the tool results since."""

    messages: list[Message] = field(default_factory=list)
    summary: str = ""
    compressions: int = 0
    kept_texts: list[str] = field(default_factory=list)
    """The tool results after the last compression: still in the request, verbatim."""


def _absolute(path: Any, base: str) -> str | None:
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    return os.path.normpath(os.path.join(base, path))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def uses_of(name: str, args: dict[str, Any], cwd: str) -> list[tuple[str, dict[str, Any]]]:
    """The engine's calls for one Gemini tool call: (tool, input)."""
    if name in ("read_file", "replace", "write_file"):
        path = _absolute(args.get("file_path", args.get("absolute_path")), cwd)
        if path is None:
            return []
        if name == "read_file":
            extra: dict[str, Any] = {}
            start, end = _int(args.get("start_line")), _int(args.get("end_line"))
            if start is not None:
                extra["offset"] = start
            if end is not None and end >= (start or 1):
                extra["limit"] = end - (start or 1) + 1
            return [("Read", {"file_path": path, **extra})]
        if name == "write_file":
            return [("Write", {"file_path": path, "content": text_of([{"text": args.get("content")}])})]
        old, new = args.get("old_string"), args.get("new_string")
        return [
            (
                "Edit",
                {"file_path": path, "old_string": text_of([{"text": old}]), "new_string": text_of([{"text": new}])},
            )
        ]
    if name == SHELL_TOOL and isinstance(args.get("command"), str):
        base = _absolute(args.get("dir_path"), cwd) or cwd
        out: list[tuple[str, dict[str, Any]]] = []
        for path, offset, limit in command_reads(args["command"]):
            extra = {k: v for k, v in (("offset", offset), ("limit", limit)) if v is not None}
            out.append(("Read", {"file_path": os.path.normpath(os.path.join(base, path)), **extra}))
        return out
    return []


def engine_messages(calls: list[dict[str, Any]], cwd: str) -> list[Message]:
    """Recorded tool calls as the engine's tool-use and tool-result messages."""
    out: list[Message] = []
    for call in calls:
        name, args, call_id = call.get("name"), call.get("args"), call.get("id")
        if not isinstance(name, str) or not isinstance(call_id, str):
            continue
        uses = uses_of(name, args if isinstance(args, dict) else {}, cwd)
        if not uses:
            continue
        result = result_of(call)
        blocks: list[Block] = []
        results: list[Block] = []
        for n, (tool, tool_input) in enumerate(uses):
            use_id = f"{call_id}#{n}"
            blocks.append({"type": "tool_use", "id": use_id, "name": tool, "input": tool_input})
            if result is not None:
                results.append({"type": "tool_result", "tool_use_id": use_id, "content": result[0],
                                "is_error": result[1]})  # fmt: skip
        out.append({"role": "assistant", "content": blocks})
        if results:
            out.append({"role": "user", "content": results})
    return out


def window(data: bytes, cwd: str) -> GeminiWindow:
    """The file uses the model held before the session file's last compression (since the one before it), the
    summary, and what is still in the request after it. Without a compression: no messages, no summary."""
    messages = MessageList()
    before: Messages = {}
    result = GeminiWindow()
    for record in transcript_records(data):
        replaced = messages.apply(record)
        summary = summary_of(replaced[0]) if replaced is not None else None
        if replaced is not None and summary is not None:
            before, result.summary = replaced[1], summary
            result.compressions += 1
    if not result.compressions:
        return result
    result.messages = engine_messages(tool_calls(before), cwd)
    for message in engine_messages(tool_calls(messages.by_id), cwd):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result" and isinstance(block.get("content"), str):
                result.kept_texts.append(block["content"])
    return result


def read_window(path: str, cwd: str) -> GeminiWindow:
    return window(transcript_tail(path), cwd)
