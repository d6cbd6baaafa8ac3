"""A Gemini CLI session file as the model sees it now: its messages in the engine's model, its compressions, usage
and facts (for ``inspect`` and ``import``; the hook reads only file uses, transcript.py).

Gemini CLI 0.61.0 (measured 2026-12-06, docs/gemini-cli.md) keeps a list of messages and writes its changes: a
header (``sessionId``, ``projectHash``, ``startTime``), message records (``user``, ``gemini`` with ``toolCalls``
and ``tokens``, ``info``; a record written again under the same ``id`` replaces it in place), and ``$set`` patches,
of which a ``$set`` of ``messages`` replaces the whole list (at the start, on ``--resume``, and at a compression:
the session context, the summary, the model's acknowledgement). What the model holds now is that list as it
stands at the end of the file. A ``gemini`` record's tool calls carry their results; the ``user`` records that
repeat those results as ``functionResponse`` parts are left out (the model gets each once).

The reader keeps Gemini's tool names (``read_file``, ``run_shell_command``, ...), as the Qwen Code and Codex
readers keep theirs. Nothing in a session file is fatal: a line that is not a record of the expected shape is
counted and skipped, text is bounded, and a path in it is only a name (it widens nothing we read).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from compact_lsp.agents.gemini_cli.session_file import summary_of, text_of
from compact_lsp.engine.conversation.messages import Block, Message
from compact_lsp.engine.files.file_gate import open_regular
from compact_lsp.engine.files.usable_path import is_usable

MAX_SESSION_BYTES = 512 << 20
MAX_LINE_BYTES = 64 << 20
MAX_SUMMARY_CHARS = 100_000
WORKSPACE_LINE = "- **Workspace Directories:**"
SESSION_CONTEXT = "<session_context>"
"""How the session context Gemini writes for the model starts (the first message of every list it sets)."""


@dataclass
class GeminiChat:
    """What a Gemini session file says: the messages the model holds now, its compressions' summaries, the usage
    it last reported and the session's facts."""

    path: str
    session_id: str | None = None
    cwd: str | None = None
    model: str | None = None
    messages: list[Message] = field(default_factory=list)
    compressions: list[str] = field(default_factory=list)
    """Each compression's summary, in order."""
    usage: dict[str, Any] | None = None
    """The last ``tokens.input`` of a model turn, as ``input_tokens`` (the engine's reported usage)."""
    context_window: int | None = None
    title: str | None = None
    assistant_turns: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    bad_lines: int = 0


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _args(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    return {str(k): v for k, v in value.items() if not (isinstance(v, float) and not math.isfinite(v))}


def _result_text(call: dict[str, Any]) -> tuple[str, bool]:
    texts: list[str] = []
    result = call.get("result")
    for part in result if isinstance(result, list) else []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            value = body.get("error", body.get("output"))
            texts.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return text_of([{"text": "".join(texts)}]), call.get("status") != "success"


def _workspace(text: str) -> str | None:
    """The first workspace directory the session context names (Gemini records no cwd of its own)."""
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.strip() == WORKSPACE_LINE:
            candidate = lines[i + 1].strip().removeprefix("- ").strip()
            return candidate if candidate.startswith("/") and is_usable(candidate) else None
    return None


class ChatBuilder:
    """Turns message records into alternating user/assistant messages (``chat.messages``)."""

    def __init__(self, chat: GeminiChat) -> None:
        self.chat = chat
        self.role: str | None = None
        self.blocks: list[Block] = []

    def push(self, role: str, block: Block) -> None:
        if role != self.role:
            self.flush()
            self.role = role
        self.blocks.append(block)

    def flush(self) -> None:
        if self.role is not None and self.blocks:
            self.chat.messages.append({"role": self.role, "content": self.blocks})
        self.role, self.blocks = None, []

    def add(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        content = record.get("content")
        if kind == "user":
            text = text_of(content)
            if text:
                self.push("user", {"type": "text", "text": text})
                if self.chat.cwd is None and text.startswith(SESSION_CONTEXT):
                    self.chat.cwd = _workspace(text)
            return
        self.chat.assistant_turns += 1
        text = text_of(content)
        if text:
            self.push("assistant", {"type": "text", "text": text})
        calls = [c for c in record.get("toolCalls") or [] if isinstance(c, dict)]
        for call in calls:
            if isinstance(call.get("id"), str) and isinstance(call.get("name"), str):
                self.push("assistant", {"type": "tool_use", "id": call["id"], "name": call["name"],
                                        "input": _args(call.get("args"))})  # fmt: skip
        for call in calls:
            if isinstance(call.get("id"), str) and isinstance(call.get("name"), str):
                output, failed = _result_text(call)
                result: Block = {"type": "tool_result", "tool_use_id": call["id"], "content": output}
                if failed:
                    result["is_error"] = True
                self.push("user", result)
        tokens = record.get("tokens")
        prompt = _count(tokens.get("input")) if isinstance(tokens, dict) else None
        if prompt:
            self.chat.usage = {"input_tokens": prompt}
        model = record.get("model")
        if isinstance(model, str) and model and "\x00" not in model:
            self.chat.model = model[:200]


def parse_line(raw: bytes) -> Any:
    """One line as JSON (None: too long, or not JSON)."""
    if len(raw) > MAX_LINE_BYTES:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def read_chat(path: str) -> GeminiChat:
    """The session file at ``path`` (a regular file, not through a link), read whole up to ``MAX_SESSION_BYTES``."""
    chat = GeminiChat(path=path)
    current: dict[str, dict[str, Any]] = {}
    with open_regular(path, max_bytes=MAX_SESSION_BYTES) as f:
        lines = f.read(MAX_SESSION_BYTES).splitlines()
    for raw in lines:
        record = parse_line(raw)
        if not isinstance(record, dict):
            chat.bad_lines += 1 if raw.strip() else 0
            continue
        patch = record.get("$set")
        if isinstance(patch, dict):
            listed = patch.get("messages")
            if isinstance(listed, list):
                summary = summary_of(listed)
                if summary is not None:
                    chat.compressions.append(summary[:MAX_SUMMARY_CHARS])
                current = {str(m.get("id")): m for m in listed if isinstance(m, dict)}
            continue
        session = record.get("sessionId")
        if "type" not in record and isinstance(session, str) and session and "\x00" not in session:
            chat.session_id = chat.session_id or session[:200]
            continue
        if record.get("type") in ("user", "gemini") and isinstance(record.get("id"), str):
            current[record["id"]] = record
            if record["type"] == "user" and not chat.title:  # the session's first prompt, compressed away or not
                prompt = text_of(record.get("content")).strip()
                chat.title = prompt.splitlines()[0][:80] if prompt and not prompt.startswith(("<", "/")) else None
        else:
            chat.skipped[str(record.get("type"))[:40]] += 1
    builder = ChatBuilder(chat)
    for message in current.values():
        if message.get("type") in ("user", "gemini"):
            builder.add(message)
    builder.flush()
    return chat


def is_gemini_session(path: str) -> bool:
    """True when the file's first line is a Gemini CLI session header (``sessionId``, ``projectHash``,
    ``startTime``)."""
    try:
        with open_regular(path, max_bytes=MAX_SESSION_BYTES) as f:
            record = parse_line(f.readline(1 << 20))
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and all(k in record for k in ("sessionId", "projectHash", "startTime"))
