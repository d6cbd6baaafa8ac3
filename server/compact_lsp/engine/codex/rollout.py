"""Read Codex CLI's rollout transcripts (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl``).

One JSON object a line: ``{"timestamp", "ordinal", "type", "payload"}``. The reader keeps what the model saw,
in the engine's message model:

- ``response_item`` of type ``message``: user and assistant text (``input_text`` / ``output_text`` parts);
  developer messages are Codex's own instructions (the skills text) and hooks' additional context: the model
  holds them, so ``developer=True`` keeps them as user text (what an import continues with, what usage counts);
  without it (the hook's own reading) they are skipped and counted;
- ``function_call`` (``exec_command`` with ``{"cmd", ...}`` as a JSON string) and ``custom_tool_call``
  (``apply_patch`` with the patch as freeform text, kept as ``{"patch": text}``) become ``tool_use`` blocks,
  their ``*_output`` items ``tool_result`` blocks (``is_error`` when the command exited non-zero);
- ``compacted`` marks Codex's compaction: its ``message`` is the summary the new history starts from, and
  ``replacement_history`` is that history (what the model holds verbatim afterwards);
- ``session_meta`` and ``turn_context`` give the session id, ``cwd`` and model; ``event_msg`` ``token_count``
  the usage Codex last reported.

Every other line kind is skipped and counted, a malformed line is counted and skipped, and nothing in a
transcript is fatal: a rollout on disk is untrusted input.
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

MAX_ROLLOUT_BYTES = 512 << 20
MAX_LINE_BYTES = 64 << 20
KNOWN_KINDS = frozenset(
    {"session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state", "token_usage_record"}
)
COMMAND_TOOLS = frozenset({"exec_command", "shell", "local_shell", "container.exec"})
PATCH_TOOL = "apply_patch"


@dataclass
class Compaction:
    """One of Codex's compactions: where it fell in the messages, its summary, and what the model kept."""

    index: int
    summary: str
    kept_texts: list[str]


@dataclass
class CodexRollout:
    """A rollout as the model saw it: messages in order (all of them, compactions marked), and the session's facts."""

    path: str
    session_id: str | None = None
    cwd: str | None = None
    model: str | None = None
    messages: list[Message] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    context_window: int | None = None
    skipped: Counter[str] = field(default_factory=Counter)
    bad_lines: int = 0
    developer_texts: set[str] = field(default_factory=set)
    """The developer items kept as user text (never the user's words: not a title)."""

    @property
    def last_compaction(self) -> Compaction | None:
        return self.compactions[-1] if self.compactions else None

    def before_last_compaction(self) -> list[Message]:
        """The history Codex summarised away at its last compaction (all messages if it never compacted)."""
        last = self.last_compaction
        return self.messages[: last.index] if last else list(self.messages)

    def window_before_last_compaction(self) -> list[Message]:
        """The messages the model worked with just before the last compaction: those since the compaction before it
        (whose summary and kept user messages Codex carries on), or all of them at the first."""
        if not self.compactions:
            return list(self.messages)
        start = self.compactions[-2].index if len(self.compactions) > 1 else 0
        return self.messages[start : self.compactions[-1].index]

    def current_context(self) -> list[Message]:
        """What the model holds now: after the last compaction, the history Codex kept (as user text) and what
        followed; the whole conversation when it never compacted."""
        last = self.last_compaction
        if last is None:
            return list(self.messages)
        return [*kept_message(last), *self.messages[last.index :]]

    @property
    def title(self) -> str | None:
        """The user's first own request (not Codex's environment context)."""
        return title_of(self.messages, self.developer_texts)


def title_of(messages: list[Message], developer: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The first user request among ``messages`` that is the user's own (not Codex's environment context, nor one of
    its ``developer`` texts)."""
    for message in messages:
        if message["role"] == "user":
            for block in message["content"]:
                raw = block.get("text", "") if block.get("type") == "text" else ""
                text = str(raw).strip()
                if text and not text.startswith("<") and raw not in developer:
                    return text.splitlines()[0][:80]
    return None


def kept_message(compaction: Compaction) -> list[Message]:
    """What the model holds verbatim after ``compaction``: the history Codex kept, as one user message."""
    if not compaction.kept_texts:
        return []
    return [{"role": "user", "content": [{"type": "text", "text": t} for t in compaction.kept_texts]}]


def is_rollout(path: str) -> bool:
    """True when the file's first line is a Codex ``session_meta`` record (Claude Code logs never start so)."""
    try:
        with open_regular(path, max_bytes=MAX_ROLLOUT_BYTES) as f:
            first = f.readline(1 << 20)
    except OSError:
        return False
    record = parse_line(first)
    return record is not None and record.get("type") == "session_meta"


def read_rollout(path: str, *, max_bytes: int = MAX_ROLLOUT_BYTES, developer: bool = False) -> CodexRollout:
    """The rollout at ``path`` (a regular file, at most ``max_bytes``; ``OSError`` subclasses otherwise), its
    developer items kept as user text when ``developer`` (see the module doc)."""
    rollout = CodexRollout(path)
    builder = RolloutBuilder(rollout, developer=developer)
    with open_regular(path, max_bytes=max_bytes) as f:
        for raw in f:
            if len(raw) > MAX_LINE_BYTES:
                rollout.bad_lines += 1
                continue
            record = parse_line(raw)
            if record is None:
                rollout.bad_lines += bool(raw.strip())
                continue
            builder.add(record)
    builder.finish()
    return rollout


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _loads(text: bytes | str) -> Any:
    """``json.loads(text, parse_constant=_reject_constant)`` with one decoder, not a new one for every line."""
    if isinstance(text, bytes):
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    elif text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return _DECODER.decode(text)


def parse_line(raw: bytes) -> dict[str, Any] | None:
    try:
        record = _loads(raw)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) and isinstance(record.get("type"), str) else None


def read_records(path: str) -> list[dict[str, Any]]:
    """Every readable record of the rollout at ``path``, opened through the file gate within its bounds (a line past
    ``MAX_LINE_BYTES`` or that is not a record is skipped): what the timeline and the chat of a whole rollout read."""
    records: list[dict[str, Any]] = []
    with open_regular(path, max_bytes=MAX_ROLLOUT_BYTES) as f:
        for raw in f:
            record = parse_line(raw) if len(raw) <= MAX_LINE_BYTES else None
            if record is not None:
                records.append(record)
    return records


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = (
        p.get("text") for p in content if isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "text")
    )
    return "".join(t for t in parts if isinstance(t, str))


def _exit_failed(output: str) -> bool:
    """Codex prints ``Process exited with code N`` (exec_command) or ``Exit code: N`` (apply_patch)."""
    for marker in ("Process exited with code ", "Exit code: "):
        at = output.find(marker)
        if at >= 0:
            digits = output[at + len(marker) :].split(None, 1)[0] if output[at + len(marker) :].strip() else ""
            return digits != "0"
    return False


class RolloutBuilder:
    """Turns response items into alternating user/assistant messages, Codex's items merged the way the API sees them.

    Fed a record at a time: ``read_rollout`` feeds a whole file, a follower what was appended (``take`` hands it
    the messages complete so far, ``open_message`` the one still being built)."""

    def __init__(self, rollout: CodexRollout, *, developer: bool = False) -> None:
        self.rollout = rollout
        self.developer = developer
        """Keep developer items (as user text): what the model holds, for import, inspect and following."""
        self.role: str | None = None
        self.blocks: list[Block] = []

    def add(self, record: dict[str, Any]) -> None:
        kind, payload = record["type"], record.get("payload")
        if kind not in KNOWN_KINDS or not isinstance(payload, dict):
            self.rollout.skipped[kind] += 1
            return
        if kind == "response_item":
            self._item(payload)
        elif kind == "compacted":
            self._compacted(payload)
        elif kind in ("session_meta", "turn_context"):
            self._facts(payload)
        elif kind == "event_msg" and payload.get("type") == "token_count":
            self._usage(payload)

    def _facts(self, payload: dict[str, Any]) -> None:
        r = self.rollout
        for key, attr in (("id", "session_id"), ("session_id", "session_id"), ("cwd", "cwd"), ("model", "model")):
            value = payload.get(key)
            usable = is_usable(value) if key == "cwd" else isinstance(value, str) and "\x00" not in value
            if isinstance(value, str) and value and usable and getattr(r, attr) is None:
                setattr(r, attr, value)
        model = payload.get("model")
        if isinstance(model, str) and model:
            r.model = model

    def _usage(self, payload: dict[str, Any]) -> None:
        info = payload.get("info")
        if not isinstance(info, dict):
            return
        last = info.get("last_token_usage")
        if isinstance(last, dict):
            self.rollout.usage = {k: v for k, v in last.items() if isinstance(v, int) and not isinstance(v, bool)}
        window = info.get("model_context_window")
        if isinstance(window, int) and not isinstance(window, bool) and window > 0:
            self.rollout.context_window = window

    def _item(self, item: dict[str, Any]) -> None:
        t = item.get("type")
        call_id = item.get("call_id")
        if t == "message":
            role = item.get("role")
            text = _text_of(item.get("content"))
            if role in ("user", "assistant") and text:
                self._push(str(role), {"type": "text", "text": text})
            elif role == "developer" and text and self.developer:
                self.rollout.developer_texts.add(text)
                self._push("user", {"type": "text", "text": text})
            else:
                self.rollout.skipped[f"message:{role}"] += 1
        elif t in ("function_call", "custom_tool_call") and isinstance(call_id, str) and call_id:
            name = item.get("name")
            self._push("assistant", {"type": "tool_use", "id": call_id, "name": str(name), "input": _tool_input(item)})
        elif t in ("function_call_output", "custom_tool_call_output") and isinstance(call_id, str) and call_id:
            output = item.get("output")
            text = output if isinstance(output, str) else _text_of(output) or json.dumps(output)[:100_000]
            block: Block = {"type": "tool_result", "tool_use_id": call_id, "content": text}
            if _exit_failed(text):
                block["is_error"] = True
            self._push("user", block)
        else:
            self.rollout.skipped[f"item:{t}"] += 1

    def _compacted(self, payload: dict[str, Any]) -> None:
        self._flush()
        summary = payload.get("message")
        history = payload.get("replacement_history")
        kept = [_text_of(i.get("content")) for i in history if isinstance(i, dict)] if isinstance(history, list) else []
        self.rollout.compactions.append(
            Compaction(len(self.rollout.messages), summary if isinstance(summary, str) else "", [k for k in kept if k])
        )

    def _push(self, role: str, block: Block) -> None:
        if role != self.role:
            self._flush()
            self.role = role
        self.blocks.append(block)

    def _flush(self) -> None:
        if self.role is not None and self.blocks:
            self.rollout.messages.append({"role": self.role, "content": self.blocks})
        self.role, self.blocks = None, []

    def finish(self) -> None:
        self._flush()

    def take(self) -> list[Message]:
        """The messages completed since the last ``take`` (the rollout keeps none of them)."""
        done, self.rollout.messages = self.rollout.messages, []
        return done

    def open_message(self) -> Message | None:
        """The message being built (a response still arriving, or results still coming), as it is now."""
        return {"role": self.role, "content": list(self.blocks)} if self.role is not None and self.blocks else None


def _tool_input(item: dict[str, Any]) -> dict[str, Any]:
    """A function call's JSON arguments (an object, finite numbers only), or a custom call's text as ``patch``."""
    if item.get("type") == "custom_tool_call":
        text = item.get("input")
        return {"patch": text if isinstance(text, str) else ""}
    arguments = item.get("arguments")
    try:
        value = _loads(arguments) if isinstance(arguments, str) else arguments
    except (ValueError, RecursionError):
        return {"arguments": str(arguments)[:10_000]}
    if not isinstance(value, dict):
        return {"arguments": value if isinstance(value, str) else json.dumps(value)[:10_000]}
    return {k: v for k, v in value.items() if not (isinstance(v, float) and not math.isfinite(v))}
