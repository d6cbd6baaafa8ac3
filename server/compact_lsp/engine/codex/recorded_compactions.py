"""Codex's compactions as its rollout recorded them, for the compaction timeline: each ``compacted`` record with the
figures around it, the summary, what Codex kept, and what a ``SessionStart`` hook's context became there (the
``developer`` message Codex wrote after the compaction: a receipt of what reached the model, not of what the hook
meant to send).

Figures (measured on the real CLI, 0.171.0): Codex writes one ``token_usage_record`` per model response. The
response before the compaction's summary (the summary is a message with ``metadata.compaction_output``) is what
Codex compared with ``model_auto_compact_token_limit``: its ``total_tokens`` is the size before. The first response
after the ``compacted`` record answered the new history: its ``input_tokens`` is the size after.

Codex records no trigger, but its tasks tell (measured on the real TUI, 0.171.0, tests/codex/test_real_tui.py): the
user's ``/compact`` runs as a task of its own, whose ``task_started`` names no ``turn_attribution`` and which holds
no user message; Codex's own compactions happen inside the user's turn, in the middle (after the tool call whose
usage passed ``model_auto_compact_token_limit``) or at its start (the user's message is recorded after the
compaction, and the task was started for the user: ``turn_attribution``).

Pure: records in, rows out; nothing here reads or writes a file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from compact_lsp.engine.files.hook_receipts import HookReceipt, delivered_files

INLINE_LIMIT = 10_000
"""Codex delivers a hook's context whole up to this many characters, a head-and-tail preview beyond (docs/codex.md)."""


@dataclass
class CodexCompaction:
    """One compaction Codex recorded."""

    at: str | None
    tokens_before: int | None
    summary: str | None
    kept: list[str]
    tokens_after: int | None = None
    receipts: list[HookReceipt] = field(default_factory=list)
    trigger: str = "auto"
    """``manual`` (the user's ``/compact``) or ``auto``."""


class _Task:
    """The compactions of one Codex task (a turn) and whether it is the user's turn (its ``task_started`` was
    attributed, or it holds a user message): a task that is not compacted only because the user asked."""

    def __init__(self, started: dict[str, Any] | None) -> None:
        self.users = started is None or isinstance(started.get("turn_attribution"), dict)
        """None: the records before any ``task_started`` (a rollout cut short): not known, taken as a turn."""
        self.rows: list[CodexCompaction] = []

    def saw(self, payload: dict[str, Any]) -> None:
        if payload.get("type") == "message" and payload.get("role") == "user" and not self.users:
            self.users = any(not t.lstrip().startswith("<") for t in _texts(payload.get("content")))

    def settle(self) -> None:
        for row in self.rows:
            row.trigger = "auto" if self.users else "manual"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _texts(content: Any) -> list[str]:
    if not isinstance(content, list):
        return []
    return [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str) and p["text"]]


_SUMMARY_LEAD = re.compile(r"^.*?Here is the summary produced by the other language model[^\n]*\n", re.S)


def _summary(message: Any) -> str | None:
    """The summary itself, without Codex's lead-in ("Another language model started to solve this problem…")."""
    if not isinstance(message, str) or not message.strip():
        return None
    return _SUMMARY_LEAD.sub("", message, count=1).strip() or message.strip()


def recorded_codex_compactions(records: Iterable[dict[str, Any]]) -> list[CodexCompaction]:
    """Every compaction in a rollout's records (``{"type", "payload", "timestamp"}``), oldest first."""
    rows: list[CodexCompaction] = []
    last_total: int | None = None  # total tokens of the last response that was not a summary
    before_summary: int | None = None
    summarising = False
    open_row: CodexCompaction | None = None
    task = _Task(None)
    for record in records:
        kind, payload = record.get("type"), record.get("payload")
        if not isinstance(payload, dict):
            continue
        if kind == "event_msg" and payload.get("type") == "task_started":
            task.settle()
            task = _Task(payload)
        elif kind == "response_item":
            task.saw(payload)
        if kind == "token_usage_record":
            usage = payload.get("usage")
            usage = usage if isinstance(usage, dict) else {}
            if open_row is not None and open_row.tokens_after is None:
                open_row.tokens_after = _int(usage.get("input_tokens"))
            if not summarising:
                last_total = _int(usage.get("total_tokens"))
            summarising = False
        elif kind == "response_item" and payload.get("type") == "message":
            metadata = record.get("metadata")
            if isinstance(metadata, dict) and metadata.get("compaction_output"):
                summarising, before_summary = True, last_total
            elif open_row is not None and payload.get("role") == "developer" and open_row.tokens_after is None:
                # between the compaction and the next request, a developer message is a hook's context
                text = "\n".join(_texts(payload.get("content")))
                open_row.receipts.append(
                    HookReceipt("SessionStart", len(text), len(text) > INLINE_LIMIT, delivered_files(text))
                )
        elif kind == "compacted":
            history = payload.get("replacement_history")
            items = history if isinstance(history, list) else []
            kept = [t for item in items if isinstance(item, dict) for t in _texts(item.get("content"))]
            stamp = record.get("timestamp")
            open_row = CodexCompaction(
                stamp if isinstance(stamp, str) else None,
                before_summary if before_summary is not None else last_total,
                _summary(payload.get("message")),
                kept,
            )
            rows.append(open_row)
            task.rows.append(open_row)
            before_summary = None
    task.settle()
    return rows
