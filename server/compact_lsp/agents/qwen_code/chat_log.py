"""A Qwen Code session transcript as the model saw it: its messages in the engine's model, its compactions, usage
and facts (for ``inspect``, ``import`` and following in the editors; the hook reads only file uses, transcript.py).

Qwen Code 0.24.4 (measured 2026-12-06, docs/qwen-code.md) writes one record a line: ``user`` records (the user's
text; ``provenance: "real_user"``), ``assistant`` records (``message.parts``: text, ``functionCall {id, name,
args}``; ``usageMetadata.promptTokenCount``, ``model``, and ``contextWindowSize`` when one is configured),
``tool_result`` records (``functionResponse {id, name, response: {output | error}}``) and ``system`` records, of
which only ``chat_compression`` matters: its ``systemPayload.compressedHistory`` (the summary first, then what
Qwen kept) is what the model holds from then on. Telemetry and other system records are skipped and counted.

The reader keeps Qwen's tool names (``read_file``, ``run_shell_command``, ...), as the Codex reader keeps Codex's.
Nothing in a transcript is fatal: a line that is not a record of the expected shape is counted and skipped, text
is bounded, and a path in it is only a name (it widens nothing we read).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from compact_lsp.engine.conversation.messages import Block, Message
from compact_lsp.engine.files.file_gate import open_regular
from compact_lsp.engine.files.usable_path import is_usable

MAX_CHAT_BYTES = 512 << 20
MAX_LINE_BYTES = 64 << 20
MAX_TEXT_CHARS = 1_000_000
COMPRESSION = "chat_compression"
KINDS = frozenset({"user", "assistant", "tool_result", "system"})
SNIFF_LINES = 20
MAX_SUMMARY_CHARS = 100_000


@dataclass(frozen=True)
class QwenCompaction:
    """One of Qwen's compactions, as its record says: ``triggerReason`` (``manual`` for ``/compress``,
    ``token_limit`` when automatic), its token counts, and the summary the kept history starts with."""

    trigger: str
    tokens_before: int | None
    tokens_after: int | None
    summary: str


@dataclass
class QwenChat:
    """What a Qwen transcript says: the messages the model holds now (since the last compaction: what Qwen kept,
    then what followed), how often it compacted, the usage it last reported and the session's facts."""

    path: str
    session_id: str | None = None
    cwd: str | None = None
    model: str | None = None
    messages: list[Message] = field(default_factory=list)
    compactions: list[QwenCompaction] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    """The last ``promptTokenCount``, as ``input_tokens`` (the engine's reported usage)."""
    context_window: int | None = None
    title: str | None = None
    assistant_turns: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    bad_lines: int = 0


def parse_line(raw: bytes) -> dict[str, Any] | None:
    """One record, or None when the line is not a JSON object with a known ``type``."""
    if len(raw) > MAX_LINE_BYTES:
        return None
    try:
        record = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) and record.get("type") in KINDS else None


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def is_compression(record: dict[str, Any]) -> bool:
    return record.get("type") == "system" and record.get("subtype") == COMPRESSION


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value[:MAX_TEXT_CHARS]
    return json.dumps(value, ensure_ascii=False)[:MAX_TEXT_CHARS] if value is not None else ""


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _parts(message: Any) -> tuple[str | None, list[dict[str, Any]]]:
    """(role, parts) of a ``Content`` (sometimes written as a JSON string)."""
    if isinstance(message, str):
        try:
            message = json.loads(message)
        except (ValueError, RecursionError):
            return None, []
    if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
        return None, []
    role = message.get("role")
    return (role if isinstance(role, str) else None), [p for p in message["parts"] if isinstance(p, dict)]


def _args(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    return {str(k): v for k, v in value.items() if not (isinstance(v, float) and not math.isfinite(v))}


def blocks_of(parts: list[dict[str, Any]]) -> list[tuple[str, Block]]:
    """The engine's blocks of one Content's parts, each with the role it belongs to (a tool's result is the
    user's): text (not Qwen's hidden thoughts), tool calls and their results."""
    out: list[tuple[str, Block]] = []
    for part in parts:
        call, response = part.get("functionCall"), part.get("functionResponse")
        if isinstance(call, dict) and isinstance(call.get("id"), str) and isinstance(call.get("name"), str):
            block: Block = {
                "type": "tool_use",
                "id": call["id"],
                "name": call["name"],
                "input": _args(call.get("args")),
            }
            out.append(("assistant", block))
        elif isinstance(response, dict) and isinstance(response.get("id"), str):
            body = response.get("response")
            failed = isinstance(body, dict) and body.get("error") is not None
            text = (
                _text(body.get("error") if failed else body.get("output", body))
                if isinstance(body, dict)
                else _text(body)
            )
            result: Block = {"type": "tool_result", "tool_use_id": response["id"], "content": text}
            if failed:
                result["is_error"] = True
            out.append(("user", result))
        elif isinstance(part.get("text"), str) and part["text"] and not part.get("thought"):
            out.append(("", {"type": "text", "text": _text(part["text"])}))
    return out


class ChatBuilder:
    """Turns records into alternating user/assistant messages. Fed a record at a time: ``read_chat`` feeds a whole
    file, a follower what was appended (``take`` hands over the messages complete so far, ``open_message`` the one
    still being built); a compaction starts the messages again from what Qwen kept (``compacted``)."""

    def __init__(self, chat: QwenChat) -> None:
        self.chat = chat
        self.role: str | None = None
        self.blocks: list[Block] = []
        self.compacted = False
        """Set when a compaction replaced the messages (a follower starts its window again); the caller clears it."""

    def add(self, record: dict[str, Any]) -> None:
        kind = record["type"]
        if kind == "system":
            if is_compression(record):
                self._compression(record.get("systemPayload"))
            else:
                self.chat.skipped[f"system:{record.get('subtype')}"] += 1
            return
        self._facts(record)
        role, parts = _parts(record.get("message"))
        if not parts:
            self.chat.skipped[kind] += 1
            return
        if kind == "assistant":
            self.chat.assistant_turns += 1
        default = "assistant" if role == "model" or kind == "assistant" else "user"
        for block_role, block in blocks_of(parts):
            self._push(block_role or default, block)
        if kind == "user" and not self.chat.title and record.get("provenance") in (None, "real_user"):
            text = next((str(p["text"]) for p in parts if isinstance(p.get("text"), str) and p["text"].strip()), "")
            if text and not text.startswith(("<", "/")):
                self.chat.title = text.strip().splitlines()[0][:80]

    def _facts(self, record: dict[str, Any]) -> None:
        chat = self.chat
        session, cwd, model = record.get("sessionId"), record.get("cwd"), record.get("model")
        if chat.session_id is None and isinstance(session, str) and session and "\x00" not in session:
            chat.session_id = session[:200]
        if chat.cwd is None and is_usable(cwd):
            chat.cwd = cwd
        if isinstance(model, str) and model and "\x00" not in model:
            chat.model = model[:200]
        usage = record.get("usageMetadata")
        prompt = _count(usage.get("promptTokenCount")) if isinstance(usage, dict) else None
        if prompt is not None:
            cached = _count(usage.get("cachedContentTokenCount")) if isinstance(usage, dict) else None
            chat.usage = {"input_tokens": prompt, **({"cached_tokens": cached} if cached else {})}
        window = _count(record.get("contextWindowSize"))
        if window:
            chat.context_window = window

    def _compression(self, payload: Any) -> None:
        payload = payload if isinstance(payload, dict) else {}
        info = payload.get("info") if isinstance(payload.get("info"), dict) else {}
        trigger = info.get("triggerReason")
        self.role, self.blocks = None, []
        self.chat.messages = []
        history = payload.get("compressedHistory")
        for content in history if isinstance(history, list) else []:
            role, parts = _parts(content)
            for block_role, block in blocks_of(parts):
                self._push(block_role or ("assistant" if role == "model" else "user"), block)
        self._flush()
        first = self.chat.messages[0]["content"][0] if self.chat.messages else {}
        self.chat.compactions.append(
            QwenCompaction(
                trigger=trigger[:40] if isinstance(trigger, str) else "",
                tokens_before=_count(info.get("originalTokenCount")),
                tokens_after=_count(info.get("newTokenCount")),
                summary=str(first.get("text", ""))[:MAX_SUMMARY_CHARS] if first.get("type") == "text" else "",
            )
        )
        self.compacted = True

    def _push(self, role: str, block: Block) -> None:
        if role != self.role:
            self._flush()
            self.role = role
        self.blocks.append(block)

    def _flush(self) -> None:
        if self.role is not None and self.blocks:
            self.chat.messages.append({"role": self.role, "content": self.blocks})
        self.role, self.blocks = None, []

    def finish(self) -> None:
        self._flush()

    def take(self) -> list[Message]:
        """The messages completed since the last ``take`` (the chat keeps none of them)."""
        done, self.chat.messages = self.chat.messages, []
        return done

    def open_message(self) -> Message | None:
        return {"role": self.role, "content": list(self.blocks)} if self.role is not None and self.blocks else None


def is_qwen_chat(path: str) -> bool:
    """True when the file's first record holding a message is a Qwen Code one (``parts``, not Claude Code's
    ``content``), among its first ``SNIFF_LINES`` lines."""
    try:
        with open_regular(path, max_bytes=MAX_CHAT_BYTES) as f:
            for _ in range(SNIFF_LINES):
                line = f.readline(1 << 20)
                if not line:
                    return False
                record = parse_line(line)
                if record is not None and "sessionId" in record and record.get("message") is not None:
                    return _parts(record["message"])[1] != []
    except OSError:
        return False
    return False


def first_cwd(path: str) -> str | None:
    """The ``cwd`` the transcript's first records name (None: none of its first ``SNIFF_LINES`` lines says)."""
    try:
        with open_regular(path, max_bytes=MAX_CHAT_BYTES) as f:
            for _ in range(SNIFF_LINES):
                record = parse_line(f.readline(1 << 20))
                cwd = record.get("cwd") if record is not None else None
                if is_usable(cwd):
                    return str(cwd)
    except OSError:
        return None
    return None


def read_chat(path: str, *, max_bytes: int = MAX_CHAT_BYTES) -> QwenChat:
    """The transcript at ``path`` (a regular file, at most ``max_bytes``; ``OSError`` subclasses otherwise)."""
    chat = QwenChat(path)
    builder = ChatBuilder(chat)
    with open_regular(path, max_bytes=max_bytes) as f:
        for raw in f:
            record = parse_line(raw)
            if record is None:
                chat.bad_lines += bool(raw.strip())
                continue
            builder.add(record)
    builder.finish()
    return chat
