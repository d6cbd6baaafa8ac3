"""``compact/timeline``: every compaction of a session, whatever agent ran it, one row each (docs/protocol.md).

Ours come from the session's journal (full compactions, microcompactions, undos); a followed agent's session's from
its transcript, as the agent's room reads it (agents/agent.py ``Followed.recorded_compactions``). It reads journals
and transcripts, never writes them.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.agent import Followed
from compact_lsp.agents.followed_window import AgentCompaction
from compact_lsp.engine.files.hook_receipts import HookReceipt
from compact_lsp.lsp.features.handlers import request_handler
from compact_lsp.lsp.protocol.params import as_object, required_str
from compact_lsp.lsp.protocol.transcript import transcript_entries

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

TIMELINE = "compact/timeline"

MAX_KEPT = 20
"""The history an agent kept beside its summary, at most this many items in a row."""


def _our_rows(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    standing: list[tuple[str, dict[str, Any]]] = []  # the full compactions an undo can revert, by boundary
    for entry in entries:
        kind = entry["kind"]
        if kind == "compaction":
            full = {
                "kind": "full",
                "at": entry.get("at"),
                "trigger": entry.get("trigger", "manual"),
                "tokensBefore": entry.get("tokensBefore"),
                "tokensAfter": entry.get("tokensAfter"),
                "summary": entry.get("summary"),
                "summaryIndex": sum(row["kind"] == "full" for row in rows),
                "summarizer": entry.get("summarizer"),
                "fallback": bool(entry.get("fallback")),
            }
            standing.append((entry.get("boundaryId", ""), full))
            rows.append(full)
        elif kind == "microcompaction":
            cleared = [
                {k: item[k] for k in ("toolUseId", "tool", "path", "tokens") if item.get(k) is not None}
                for item in entry.get("cleared") or []
                if isinstance(item, dict)
            ]
            rows.append(
                {
                    "kind": "micro",
                    "at": entry.get("at"),
                    "trigger": entry.get("trigger", "manual"),
                    "tokensBefore": entry.get("tokensBefore"),
                    "tokensAfter": entry.get("tokensAfter"),
                    "cleared": cleared,
                }
            )
        elif kind == "undo":
            undone = _undone(standing, entry.get("boundaryId"))
            rows.append(
                {
                    "kind": "undo",
                    "at": entry.get("at"),
                    "trigger": "manual",
                    "tokensBefore": undone["tokensAfter"] if undone else None,
                    "tokensAfter": undone["tokensBefore"] if undone else None,
                }
            )
    return rows


def _undone(standing: list[tuple[str, dict[str, Any]]], boundary: object) -> dict[str, Any] | None:
    """The full compaction an undo reverted (its boundary's, else the newest standing), taken off ``standing``. The
    journal keeps no figures for an undo: the timeline shows that compaction's, reversed (as the chat's marker)."""
    index = next((i for i in reversed(range(len(standing))) if standing[i][0] == boundary), len(standing) - 1)
    return standing.pop(index)[1] if standing else None


def _receipts(receipts: list[HookReceipt]) -> list[dict[str, Any]]:
    return [{"hook": r.hook, "characters": r.characters, "spilled": r.spilled, "files": r.files} for r in receipts]


def agent_row(compaction: AgentCompaction) -> dict[str, Any]:
    """The row of one of the agent's own compactions: the lists it records, at most ``MAX_KEPT`` of what it kept."""
    row: dict[str, Any] = {
        "kind": "full",
        "at": compaction.at,
        "trigger": compaction.trigger,
        "tokensBefore": compaction.tokens_before,
        "tokensAfter": compaction.tokens_after,
        "summary": compaction.summary,
    }
    if compaction.reattached is not None:
        row["reattached"] = compaction.reattached
    if compaction.kept is not None:
        row["kept"] = compaction.kept[:MAX_KEPT]
    if compaction.receipts is not None:
        row["receipts"] = _receipts(compaction.receipts)
    return row


def _agent_threshold(followed: Followed) -> tuple[int | None, str | None]:
    """The threshold the agent's automatic compaction is configured at now, and what turns it off, if anything."""
    usage = followed.usage()
    next_one = usage.next_compaction
    if next_one is None:
        return None, None
    return next_one.threshold, next_one.disabled_by


async def timeline(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    args = as_object(params, TIMELINE)
    session_id = required_str(args, "sessionId", TIMELINE)
    registry = server.registry()
    slot = registry.slots.get(session_id)
    followed = slot.followed if slot is not None else None
    if followed is not None and slot is not None:
        agent = slot.session.source or ""
        rows = [agent_row(c) for c in await asyncio.to_thread(followed.recorded_compactions)]
        async with slot.lock:
            threshold, disabled = _agent_threshold(followed)
        return {"sessionId": session_id, "agent": agent, "thresholdTokens": threshold, "disabledBy": disabled,
                "rows": rows}  # fmt: skip

    def read() -> list[dict[str, Any]]:
        records, _report = registry.store.load(session_id)
        return _our_rows(transcript_entries(records))

    if slot is None:  # not loaded: nothing else writes it here
        registry.require_stored(session_id, TIMELINE)
        rows = await asyncio.to_thread(read)
    else:
        async with slot.lock:
            rows = await asyncio.to_thread(read)
    settings = server.settings
    threshold = settings.auto_compact.threshold_for(settings.context_window)
    disabled = None if settings.auto_compact.enabled else "autoCompact.enabled is false in the settings"
    return {"sessionId": session_id, "agent": "compact-lsp", "thresholdTokens": threshold, "disabledBy": disabled,
            "rows": rows}  # fmt: skip


def register(server: CompactLanguageServer) -> None:
    server.feature(TIMELINE)(request_handler(server, timeline))
