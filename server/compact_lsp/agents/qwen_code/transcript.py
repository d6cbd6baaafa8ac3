"""Qwen Code's session transcript, read as the engine's ``Read``/``Edit``/``Write`` calls with their results.

Qwen Code 0.24.4 writes ``~/.qwen/projects/<project_name(cwd)>/chats/<sessionId>.jsonl`` (measured 2026-12-05,
shared notes; the folder's name is its bundle's ``sanitizeCwd``): one JSON record a line with ``type`` (``user |
assistant | tool_result | system``), ``subtype`` and ``message`` (``{role, parts: [{text} | {functionCall: {id,
name, args}} | {functionResponse: {id, name, response}}]}``, sometimes as a JSON string). A compaction is a
``system`` record with subtype ``chat_compression`` whose ``systemPayload.compressedHistory`` starts with the
summary.

Its tools are said in the engine's vocabulary (as engine/codex/file_uses.py does for Codex): ``read_file
{file_path, offset (0-based), limit}`` → ``Read`` (``offset`` 1-based), ``edit`` → ``Edit``, ``write_file`` →
``Write``, and a ``run_shell_command`` that prints files (``cat``, ``sed -n``, ``head``, ``nl``) → ``Read`` of what
it printed. A result with an ``error`` is a failure. Anything else says nothing about files.

The transcript is untrusted: at most ``hook_input.MAX_TRANSCRIPT_BYTES`` from its end are read, a line that is not a
JSON object of the expected shape is skipped, and nothing it says widens what the hook may read (hook_io.allowed_roots).
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from compact_lsp.agents.hook_input import transcript_records, transcript_tail
from compact_lsp.engine.codex.file_uses import command_reads
from compact_lsp.engine.conversation.messages import Block, Message

"""The most of a transcript read back from its end (far more than Qwen's context holds)."""
MAX_TEXT_CHARS = 1_000_000
MAX_STAMP_CHARS = 64
COMPRESSION = "chat_compression"
CONVERSATION = frozenset({"user", "assistant", "tool_result"})
"""Records of the chat itself: one written after the last compaction's record means a later compaction is due."""
COMMAND = "slash_command"
"""The ``system`` records of a command the TUI ran, written once it finished (0.24.4): one after the last
compaction's record means that compaction's ``/compress`` is over, so a later compaction is due (two ``/compress``
with nothing between them)."""
TELEMETRY = "ui_telemetry"
API_RESPONSE = "qwen-code.api_response"
COMPRESS_PROMPT = "compress-"
"""The ``prompt_id`` of a ``/compress``'s summary request (``compress-<ms>``, 0.24.4): its ``api_response``
telemetry record comes before that compaction's record, so one after the last compaction's record is a later
``/compress``'s summary (the TUI and stream-json both write it; stream-json writes no command records)."""
PENDING_WAIT_S = 1.5
"""How long the hook waits at most for this compaction's record when it is not in the file yet (``read_window``)."""
PENDING_POLL_S = 0.02
SHELL_TOOL = "run_shell_command"


@dataclass(eq=False)
class QwenWindow:
    """What the model held before the last compaction: its file uses as engine messages, and the summary."""

    messages: list[Message] = field(default_factory=list)
    summary: str = ""
    compactions: int = 0
    shell_ids: set[str] = field(default_factory=set)
    """The calls read through shell commands: Qwen does not re-read those files itself."""
    unwritten: bool = False
    """The compaction's own record was not in the file yet when the hook read it (``window``)."""
    waited: float = 0.0
    """Seconds the hook waited for that record (``read_window``)."""

    def own_messages(self) -> list[Message]:
        """The messages of Qwen's own file tools alone (read_file, edit, write_file)."""
        return [m for m in self.messages if not _of_shell(m, self.shell_ids)]


def _of_shell(message: Message, ids: set[str]) -> bool:
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    return any(str(b.get("id", b.get("tool_use_id", ""))).partition("#")[0] in ids for b in blocks)


def qwen_dir() -> str:
    """Qwen Code's own folder as it finds it: ``$QWEN_RUNTIME_DIR``, else ``$QWEN_HOME``, else ``~/.qwen`` (its
    ``Storage.getRuntimeBaseDir``, 0.24.4)."""
    for name in ("QWEN_RUNTIME_DIR", "QWEN_HOME"):
        value = os.environ.get(name, "").strip()
        if value:
            return os.path.abspath(os.path.expanduser(value))
    return os.path.join(os.path.expanduser("~"), ".qwen")


def project_name(cwd: str) -> str:
    """Qwen Code's name for a project's folder (its ``sanitizeCwd``): every character but an ASCII letter or digit
    as ``-``, counted as JavaScript counts them (a character beyond the BMP is two UTF-16 units, so two ``-``)."""
    return "".join(ch if ch.isascii() and ch.isalnum() else "-" * (1 + (ord(ch) > 0xFFFF)) for ch in cwd)


def transcript_dir(cwd: str, qwen: str | None = None) -> str:
    """Where Qwen Code keeps a project's transcripts: ``<its folder>/projects/<project_name(cwd)>/chats``."""
    return os.path.join(qwen if qwen is not None else qwen_dir(), "projects", project_name(cwd), "chats")


def is_compression(record: dict[str, Any]) -> bool:
    return record.get("type") == "system" and record.get("subtype") == COMPRESSION


def _parts(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    if isinstance(message, str):
        try:
            message = json.loads(message)
        except ValueError:
            return []
    parts = message.get("parts") if isinstance(message, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value[:MAX_TEXT_CHARS]
    return json.dumps(value, ensure_ascii=False)[:MAX_TEXT_CHARS] if value is not None else ""


def _response(part: dict[str, Any]) -> tuple[str, str, bool] | None:
    """(call id, output text, failed) of a ``functionResponse`` part."""
    response = part.get("functionResponse")
    if not isinstance(response, dict) or not isinstance(response.get("id"), str):
        return None
    body = response.get("response")
    if isinstance(body, dict):
        failed = body.get("error") is not None
        return response["id"], _text(body.get("error") if failed else body.get("output", body)), failed
    return response["id"], _text(body), False


def _uses(name: str, args: dict[str, Any], cwd: str) -> list[tuple[str, dict[str, Any]]]:
    """The engine's calls for one Qwen tool call: (tool, input)."""

    def absolute(path: Any) -> str | None:
        if not isinstance(path, str) or not path or "\x00" in path:
            return None
        return os.path.normpath(os.path.join(cwd, path))

    if name in ("read_file", "edit", "write_file", "replace"):
        path = absolute(args.get("file_path", args.get("absolute_path")))
        if path is None:
            return []
        if name == "read_file":
            extra: dict[str, Any] = {}
            offset, limit = args.get("offset"), args.get("limit")
            if isinstance(offset, int) and not isinstance(offset, bool) and offset >= 0:
                extra["offset"] = offset + 1  # Qwen counts lines from 0, the engine from 1
            if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
                extra["limit"] = limit
            return [("Read", {"file_path": path, **extra})]
        if name == "write_file":
            return [("Write", {"file_path": path, "content": _text(args.get("content"))})]
        old, new = args.get("old_string"), args.get("new_string")
        return [("Edit", {"file_path": path, "old_string": _text(old), "new_string": _text(new)})]
    if name == SHELL_TOOL and isinstance(args.get("command"), str):
        folder = args.get("directory")
        base = absolute(folder) if isinstance(folder, str) and folder else cwd
        out: list[tuple[str, dict[str, Any]]] = []
        for path, offset, limit in command_reads(args["command"]):
            extra = {k: v for k, v in (("offset", offset), ("limit", limit)) if v is not None}
            out.append(("Read", {"file_path": os.path.normpath(os.path.join(base or cwd, path)), **extra}))
        return out
    return []


FILE_TOOLS = frozenset({"read_file", "edit", "write_file", "replace"})


_SHOWING = re.compile(r"\AShowing lines (\d+)-(\d+) of (?:at least )?\d+ total lines\.\n\n---\n\n")
"""The header Qwen's ``read_file`` puts before a part of a file (none before a whole file)."""


def engine_view(messages: list[Message], cwd: str) -> list[Message]:
    """Messages read by chat_log.py with Qwen's file tools said in the engine's words (``edit`` → ``Edit``,
    ``write_file`` → ``Write``); a ``read_file`` keeps its name (the engine's own read tool) with the lines its
    result shows as a 1-based ``offset``/``limit`` and the result without Qwen's header. Every other block as is."""
    out: list[Message] = []
    reads: dict[str, dict[str, Any]] = {}
    for message in messages:
        blocks: list[Block] = []
        for block in message["content"]:
            if block.get("type") == "tool_use" and block.get("name") in FILE_TOOLS:
                uses = _uses(str(block["name"]), block.get("input") or {}, cwd)
                if uses:
                    tool, tool_input = uses[0]
                    if tool == "Read":
                        tool_input = {"file_path": tool_input["file_path"]}  # the range comes from the result
                        reads[str(block.get("id"))] = tool_input
                        tool = "read_file"
                    blocks.append({**block, "name": tool, "input": tool_input})
                continue
            if block.get("type") == "tool_result" and str(block.get("tool_use_id")) in reads:
                block = _read_result(block, reads[str(block.get("tool_use_id"))])
            blocks.append(block)
        if blocks:
            out.append({"role": message["role"], "content": blocks})
    return out


def _read_result(block: Block, tool_input: dict[str, Any]) -> Block:
    """A ``read_file`` result without Qwen's header; the range the header states goes into the call's input."""
    content = block.get("content")
    shown = _SHOWING.match(content) if isinstance(content, str) else None
    if shown is None or not isinstance(content, str):
        return block
    first, last = int(shown.group(1)), int(shown.group(2))
    tool_input.update(offset=first, limit=max(last - first + 1, 0))
    text = content[shown.end() :]
    return {**block, "content": text if text.endswith("\n") or not text else text + "\n"}


def stamp(value: Any) -> datetime | None:
    """A timestamp as Qwen writes them (ISO 8601 with its zone, ``...Z``), or None."""
    if not isinstance(value, str) or len(value) > MAX_STAMP_CHARS:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _later(record: dict[str, Any]) -> bool:
    """A record that comes after a compaction's hook ran: of the chat, of a finished command, or the answer to a
    later ``/compress``'s summary request."""
    if record.get("type") in CONVERSATION:
        return True
    if record.get("type") != "system":
        return False
    if record.get("subtype") == COMMAND:
        return True
    payload = record.get("systemPayload")
    event = payload.get("uiEvent") if isinstance(payload, dict) and record.get("subtype") == TELEMETRY else None
    prompt = event.get("prompt_id") if isinstance(event, dict) and event.get("event.name") == API_RESPONSE else None
    return isinstance(prompt, str) and prompt.startswith(COMPRESS_PROMPT)


def window(data: bytes, cwd: str, fired_at: str | None = None) -> QwenWindow:
    """The file uses the model held before the compaction the hook runs for (since the one before it): the window
    the compaction summarised.

    Qwen queues its records' writes and runs the hook without waiting for them (measured on 0.24.4, in its TUI:
    ``/compress``'s ``chat_compression`` record was not yet in the file when the hook read it, in two runs of five).
    So, given when Qwen ran the hook (``fired_at``, its input's ``timestamp``): what it wrote later is left out
    (after an automatic compaction it does not wait for the hook, and the turn goes on), and any record of the chat
    (a user prompt, the model's answer, a tool's result) stamped before then but after the last compaction's record
    means this compaction's record is not written yet: the window is then everything since that record, whether or
    not the turn used a tool (a turn with none made the hook take the window before for this one's; measured in
    the TUI under load). So does a command's record (the TUI writes one when a command finished), or the answer to
    a ``/compress``'s summary request: after two ``/compress`` with nothing between them, those of the second follow
    the first compaction's record. Without
    ``fired_at`` the window ends at the last compaction whatever follows it; with no compaction yet it runs to the
    end."""
    all_records = list(transcript_records(data))
    fired = stamp(fired_at)
    if fired is not None:
        all_records = [r for r in all_records if (at := stamp(r.get("timestamp"))) is None or at < fired]
    marks = [i for i, r in enumerate(all_records) if is_compression(r)]
    end = len(all_records)
    summary = ""
    after = all_records[marks[-1] + 1 if marks else 0 :]
    unwritten = fired is not None and any(_later(r) for r in after)
    if marks and not unwritten:
        end = marks[-1]
        summary = _summary(all_records[end])
        marks = marks[:-1]
    start = marks[-1] + 1 if marks else 0
    compactions = len([r for r in all_records if is_compression(r)]) + int(unwritten)
    result = QwenWindow(compactions=compactions, summary=summary, unwritten=unwritten)
    calls: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = []
    answers: dict[str, tuple[str, bool]] = {}
    for record in all_records[start:end]:
        for part in _parts(record):
            call = part.get("functionCall")
            if isinstance(call, dict) and isinstance(call.get("id"), str) and isinstance(call.get("name"), str):
                args = call.get("args")
                uses = _uses(call["name"], args if isinstance(args, dict) else {}, cwd)
                if uses:
                    calls.append((call["id"], uses))
                    if call["name"] == SHELL_TOOL:
                        result.shell_ids.add(call["id"])
            elif (response := _response(part)) is not None:
                answers[response[0]] = (response[1], response[2])
    for call_id, uses in calls:
        blocks: list[Block] = []
        results: list[Block] = []
        for n, (tool, tool_input) in enumerate(uses):
            use_id = f"{call_id}#{n}"
            blocks.append({"type": "tool_use", "id": use_id, "name": tool, "input": tool_input})
            if call_id in answers:
                text, failed = answers[call_id]
                results.append({"type": "tool_result", "tool_use_id": use_id, "content": text, "is_error": failed})
        result.messages.append({"role": "assistant", "content": blocks})
        if results:
            result.messages.append({"role": "user", "content": results})
    return result


def _summary(record: dict[str, Any]) -> str:
    payload = record.get("systemPayload")
    history = payload.get("compressedHistory") if isinstance(payload, dict) else None
    if not isinstance(history, list):
        return ""
    texts = [_text(p.get("text")) for m in history[:2] if isinstance(m, dict) for p in _parts({"message": m})]
    return "\n".join(t for t in texts if t)


def read_window(path: str, cwd: str, fired_at: str | None = None, *, wait: float = PENDING_WAIT_S) -> QwenWindow:
    """``window`` of the file; when this compaction's record is not in it yet, the file is read again each time it
    grows, for at most ``wait`` seconds, until the record is there (Qwen writes its records in order: once the
    record is in, so is everything queued before it). Past that, the window inferred without it (``window``)."""
    qwen = window(transcript_tail(path), cwd, fired_at)
    if not qwen.unwritten or wait <= 0:
        return qwen
    start = time.monotonic()
    size = os.path.getsize(path)
    while qwen.unwritten and time.monotonic() - start < wait:
        time.sleep(PENDING_POLL_S)
        if (now := os.path.getsize(path)) != size:
            size = now
            qwen = window(transcript_tail(path), cwd, fired_at)
    qwen.waited = round(time.monotonic() - start, 3)
    return qwen
