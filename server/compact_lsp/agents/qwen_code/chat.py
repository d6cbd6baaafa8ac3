"""A followed Qwen Code session's whole conversation for its chat (``compact/transcript``): every message, command
and output as it happened, with a marker where each of Qwen's compactions fell, carrying the figures and trigger its
``chat_compression`` record holds (``originalTokenCount`` → ``newTokenCount``; ``triggerReason`` ``manual`` for
``/compress``, else automatic). The follower holds what the model holds now (since the last compaction); the user's
chat keeps what came before. The history Qwen kept (``compressedHistory``: its summary, then what it kept and the
files it re-read) is the model's, never shown again: the summary is the marker's.

As Qwen's own TUI shows a session (Qwen Code 0.24.4, measured 2026-12-06 in its TUI, tests/qwen_code): a slash
command the user typed is a ``system``/``slash_command`` record (its ``rawCommand``), written after the compaction
it ran, so ``/compress`` is put back before its marker, where the user typed it; a user record's text is what the
user typed (``systemPayload.displayText`` when a ``UserPromptSubmit`` hook added context to it, which is not
shown), and user records Qwen wrote itself (notifications, goal runtime: not ``real_user``) are not the user's
words. Read from the transcript as the timeline reads it; nothing is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compact_lsp.agents.qwen_code.chat_log import MAX_CHAT_BYTES, ChatBuilder, QwenChat, is_compression, parse_line
from compact_lsp.agents.shown_blocks import STATE_SNAPSHOT, agent_marker
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.files.file_gate import open_regular

SLASH_COMMAND = "slash_command"
HOOK_CONTEXT = "<qwen:user-prompt-submit-context>"
"""How Qwen's ``UserPromptSubmit`` hook context part starts (its ``USER_PROMPT_SUBMIT_CONTEXT_OPEN``)."""
MAX_COMMAND_CHARS = 10_000


def qwen_code_chat_entries(path: Path) -> list[dict[str, Any]]:
    """``compact/transcript`` entries of the transcript at ``path`` before ``shown_entries`` (see the module doc)."""
    chat = _Chat()
    with open_regular(str(path), max_bytes=MAX_CHAT_BYTES) as f:
        for raw in f:
            record = parse_line(raw)
            if record is not None:
                chat.add(record)
    chat.settle()
    return chat.entries


class _Chat:
    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.qwen = QwenChat("")
        self.builder = ChatBuilder(self.qwen)
        self.opened_at: str | None = None
        """When the message still being built started."""
        self.marker: dict[str, Any] | None = None
        """The marker of the last compaction, until it is known whether the user's command that ran it follows."""

    def add(self, record: dict[str, Any]) -> None:
        at = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        if is_compression(record):
            self.settle()
            self.builder.add(record)
            self.builder.take()  # what Qwen kept: the model's, shown before already
            self.builder.compacted = False
            row = self.qwen.compactions[-1]
            trigger = "manual" if row.trigger == "manual" else "auto"
            snapshot = STATE_SNAPSHOT.match(row.summary)
            summary = snapshot.group(1).strip() if snapshot else row.summary
            self.marker = agent_marker(0, at, trigger, row.tokens_before, row.tokens_after, summary or None)
            return
        if record["type"] == "system":
            command = _typed_command(record)
            if command is not None:
                self._flush()
                if self.marker is not None and self.marker["trigger"] != "manual":
                    self._place_marker()  # not the command that ran it
                self.entries.append(_entry(at, {"role": "user", "content": [{"type": "text", "text": command}]}))
            return
        if record["type"] == "user" and record.get("provenance") not in (None, "real_user"):
            return  # Qwen's own notifications and goal texts: not the user's words
        self._message(_as_typed(record), at)

    def _message(self, record: dict[str, Any], at: str | None) -> None:
        self._place_marker()
        was = self.builder.role
        self.builder.add(record)
        done = self.builder.take()
        for n, message in enumerate(done):
            self.entries.append(_entry(self.opened_at if n == 0 and was is not None else at, message))
        if self.builder.role is not None and (done or self.builder.role != was):
            self.opened_at = at

    def _flush(self) -> None:
        """The message being built, complete (a command or a marker comes after it)."""
        self.builder.finish()
        self.entries.extend(_entry(self.opened_at, message) for message in self.builder.take())
        self.opened_at = None

    def _place_marker(self) -> None:
        if self.marker is not None:
            self.entries.append({**self.marker, "boundaryId": f"agent-{len(self.entries)}"})
            self.marker = None

    def settle(self) -> None:
        """Everything read so far in the entries."""
        self._flush()
        self._place_marker()


def _entry(at: str | None, message: Message) -> dict[str, Any]:
    return {"kind": "message", "at": at, "message": message}


def _typed_command(record: dict[str, Any]) -> str | None:
    """The slash command the user typed, as typed, of a ``slash_command`` invocation record (None: any other)."""
    payload = record.get("systemPayload")
    if record.get("subtype") != SLASH_COMMAND or not isinstance(payload, dict) or payload.get("hiddenInvocation"):
        return None
    command = payload.get("rawCommand")
    if payload.get("phase") != "invocation" or not isinstance(command, str) or not command.strip():
        return None
    return command.strip()[:MAX_COMMAND_CHARS]


def _as_typed(record: dict[str, Any]) -> dict[str, Any]:
    """A user record as Qwen's own chat shows it (its ``projectUserTranscriptForDisplay``): the text the user typed
    in place of the text a ``UserPromptSubmit`` hook added to (``displayText``), the hook's part left out."""
    if record["type"] != "user":
        return record
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(parts, list):
        return record
    last = parts[-1] if parts else None
    hooked = len(parts) > 1 and isinstance(last, dict) and str(last.get("text", "")).lstrip().startswith(HOOK_CONTEXT)
    payload = record.get("systemPayload")
    payload = payload if isinstance(payload, dict) else None
    if payload is not None and (isinstance(payload.get("hookContext"), str) or hooked):
        typed = payload.get("displayText")
        if isinstance(typed, str):
            kept = [p for p in parts if not (isinstance(p, dict) and isinstance(p.get("text"), str))]
            return {**record, "message": {**message, "parts": [{"text": typed}, *kept]}}
    if payload is None and hooked:
        return {**record, "message": {**message, "parts": parts[:-1]}}
    return record
