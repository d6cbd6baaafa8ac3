"""Claude Code's compactions as its transcript recorded them, for the compaction timeline: each ``compact_boundary``
with its figures (``compactMetadata``), the summary Claude Code wrote, the files it re-attached itself (``file``
attachments) and what a ``SessionStart`` hook delivered after it, read back from the ``hook_additional_context``
attachment Claude Code wrote (a receipt of what reached the model, not of what the hook meant to send).

Pure: records in, rows out; nothing here reads or writes a file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from compact_lsp.engine.claude_code.log_lines import LogRecord, is_boundary
from compact_lsp.engine.files.hook_receipts import HookReceipt, delivered_files

SPILLED_MARK = "<persisted-output>"
"""What Claude Code puts in place of a hook's context over its inline limit (a preview and the file's path)."""


@dataclass
class RecordedCompaction:
    """One compaction Claude Code recorded."""

    at: str | None
    trigger: str
    tokens_before: int | None
    tokens_after: int | None
    summary: str | None = None
    reattached: list[str] = field(default_factory=list)
    receipts: list[HookReceipt] = field(default_factory=list)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    parts = [b.get("text") for b in content or [] if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n".join(p for p in parts if p)


def _attached_path(attachment: dict[str, Any]) -> str | None:
    for key in ("filename", "filePath", "path"):
        value = attachment.get(key)
        if isinstance(value, str) and value:
            return value
    content = attachment.get("content")
    inner = content.get("file") if isinstance(content, dict) else None
    value = inner.get("filePath") if isinstance(inner, dict) else None
    return value if isinstance(value, str) and value else None


def _receipt(attachment: dict[str, Any]) -> HookReceipt | None:
    hook = attachment.get("hookName") or attachment.get("hookEvent")
    if not isinstance(hook, str) or not hook.startswith("SessionStart"):
        return None
    content = attachment.get("content")
    pieces = [content] if isinstance(content, str) else [p for p in content or [] if isinstance(p, str)]
    text = "\n".join(pieces)
    return HookReceipt(hook, len(text), SPILLED_MARK in text, delivered_files(text))


COMMAND_MARKS = ("<command-name>", "<local-command-stdout>", "<local-command-caveat>")
"""How Claude Code records a slash command the user ran (``/compact``) and its output: not a prompt to the model."""


def _prompt(record: LogRecord) -> bool:
    """A user record that is a prompt the user typed (not a tool result, a summary or a meta record)."""
    data = record.data
    if data.get("isMeta") or data.get("isVisibleInTranscriptOnly") or data.get("isCompactSummary"):
        return False
    message = record.message if record.message is not None else data.get("message")
    text = _text(message).lstrip()
    return bool(text) and not text.startswith(COMMAND_MARKS)


def recorded_compactions(records: Iterable[LogRecord]) -> list[RecordedCompaction]:
    """Every compaction in a transcript's records, oldest first, with what followed each boundary up to the first
    message of the conversation again (its summary, re-attached files and hook context)."""
    rows: list[RecordedCompaction] = []
    open_row: RecordedCompaction | None = None
    for record in records:
        data = record.data
        if record.message is None and is_boundary(record):
            found = data.get("compactMetadata")
            meta: dict[str, Any] = found if isinstance(found, dict) else {}
            trigger = "manual" if meta.get("trigger") == "manual" else "auto"
            stamp = data.get("timestamp")
            open_row = RecordedCompaction(
                stamp if isinstance(stamp, str) else None,
                trigger,
                _int(meta.get("preTokens")),
                _int(meta.get("postTokens")),
            )
            rows.append(open_row)
            continue
        if open_row is None:
            continue
        kind = data.get("type")
        if kind == "attachment" and isinstance(data.get("attachment"), dict):
            attachment = data["attachment"]
            if attachment.get("type") in ("file", "compact_file_reference"):
                path = _attached_path(attachment)
                if path is not None:
                    open_row.reattached.append(path)
            elif attachment.get("type") == "hook_additional_context":
                receipt = _receipt(attachment)
                if receipt is not None:
                    open_row.receipts.append(receipt)
        elif kind == "user" and data.get("isCompactSummary"):
            open_row.summary = _text(record.message if record.message is not None else data.get("message")) or None
        elif kind == "user" and _prompt(record):
            open_row = None  # the user speaks again: what comes now is no longer this compaction's
    return rows
