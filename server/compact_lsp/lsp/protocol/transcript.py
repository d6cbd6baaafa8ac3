"""A session's history for display (``compact/transcript``), read back from its journal records.

The journal keeps every message as it was appended (before any clearing or compaction) and a record for each
change to the model's view, so the whole conversation can be shown oldest first with markers where the view
was compacted: ``message`` entries, ``microcompaction`` entries with their eviction metadata, ``compaction``
boundaries (which summariser, whether it fell back and why) and ``undo``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from compact_lsp.engine.conversation.messages import blocks_of
from compact_lsp.engine.prompts import summary_of_message_text
from compact_lsp.engine.session.journal import eviction_from_record
from compact_lsp.engine.utc import iso_utc
from compact_lsp.lsp.protocol.answers import eviction_answer, stored_compaction_answer


def transcript_entries(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The display entries for a journal's records, oldest first; records of other kinds are skipped."""
    entries: list[dict[str, Any]] = []
    for record in records:
        kind = record.get("type")
        at = _at(record)
        if kind == "append":
            for message in record.get("messages") or []:
                if isinstance(message, dict):
                    entries.append({"kind": "message", "at": at, "message": message})
        elif kind == "rewrite" and isinstance(record.get("eviction"), dict):
            try:
                eviction = eviction_answer(eviction_from_record(record["eviction"]))
            except (KeyError, TypeError, ValueError):
                continue
            entries.append({"kind": "microcompaction", "at": at, **eviction})
        elif kind == "compaction" and isinstance(record.get("result"), dict):
            result = stored_compaction_answer(record["result"])
            entries.append(
                {
                    "kind": "compaction",
                    "at": at,
                    "boundaryId": str(record.get("boundaryId", result.get("boundaryId", ""))),
                    "trigger": "auto" if result.get("trigger") == "auto" else "manual",
                    "summarizer": result["summarizer"],
                    "fallback": result["fallback"],
                    "fallbackReason": result["fallbackReason"],
                    "tokensBefore": int(result.get("tokensBefore", 0)),
                    "tokensAfter": int(result.get("tokensAfter", 0)),
                    "summary": summary_of(record.get("messages")),
                }
            )
        elif kind == "undo":
            entries.append({"kind": "undo", "at": at, "boundaryId": str(record.get("boundaryId", ""))})
    return entries


def summary_of(view: Any) -> str | None:
    """The summary a compaction wrote, from the view's message that stands in for the summarised history."""
    for message in view if isinstance(view, list) else []:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        for block in blocks_of(message):
            text = block.get("text") if block.get("type") == "text" else None
            summary = summary_of_message_text(text) if isinstance(text, str) else None
            if summary is not None:
                return summary
    return None


def _at(record: Mapping[str, Any]) -> str | None:
    at = record.get("at")
    if isinstance(at, (int, float)) and not isinstance(at, bool):
        try:
            return iso_utc(float(at))
        except (OverflowError, OSError, ValueError):
            return None
    return None
