"""``compact/timeline``: every compaction of a session, whatever agent ran it, one row each (docs/protocol.md).

Ours come from the session's journal (full compactions, microcompactions, undos); a followed Claude Code session's
from its transcript (each ``compact_boundary``, the summary, the files Claude Code re-attached, and what a
``SessionStart`` hook's context became there: a receipt); a followed Codex session's from its rollout; a Qwen Code
session's from its transcript (each ``chat_compression`` record). It reads journals and transcripts, never writes
them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.agent import Followed
from compact_lsp.agents.gemini_cli.chat_log import read_chat as read_gemini
from compact_lsp.agents.qwen_code.chat_log import read_chat
from compact_lsp.engine.claude_code.log_lines import parse_log_lines
from compact_lsp.engine.claude_code.recorded_compactions import recorded_compactions
from compact_lsp.engine.codex.recorded_compactions import recorded_codex_compactions
from compact_lsp.engine.codex.rollout import read_records
from compact_lsp.engine.files.file_gate import open_regular
from compact_lsp.engine.files.hook_receipts import HookReceipt
from compact_lsp.lsp.features.handlers import request_handler
from compact_lsp.lsp.protocol.params import as_object, required_str
from compact_lsp.lsp.protocol.transcript import transcript_entries

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

TIMELINE = "compact/timeline"

MAX_TRANSCRIPT_BYTES = 256 << 20
"""A Claude Code transcript read for its compactions, at most (as the hook reads one)."""


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


def _claude_code_rows(path: Path) -> list[dict[str, Any]]:
    with open_regular(str(path), max_bytes=MAX_TRANSCRIPT_BYTES) as f:
        data = f.read()
    records, _problems = parse_log_lines(data, lean=True)
    return [
        {
            "kind": "full",
            "at": row.at,
            "trigger": row.trigger,
            "tokensBefore": row.tokens_before,
            "tokensAfter": row.tokens_after,
            "summary": row.summary,
            "reattached": row.reattached,
            "receipts": _receipts(row.receipts),
        }
        for row in recorded_compactions(records)
    ]


def _codex_rows(path: Path) -> list[dict[str, Any]]:
    records = read_records(str(path))
    return [
        {
            "kind": "full",
            "at": row.at,
            "trigger": row.trigger,
            "tokensBefore": row.tokens_before,
            "tokensAfter": row.tokens_after,
            "summary": row.summary,
            "kept": row.kept[:20],
            "receipts": _receipts(row.receipts),
        }
        for row in recorded_codex_compactions(records)
    ]


def _qwen_code_rows(path: Path) -> list[dict[str, Any]]:
    return [
        {
            "kind": "full", "at": None, "trigger": "manual" if c.trigger == "manual" else "auto",
            "tokensBefore": c.tokens_before, "tokensAfter": c.tokens_after, "summary": c.summary or None,
        }
        for c in read_chat(str(path)).compactions
    ]  # fmt: skip


def _gemini_cli_rows(path: Path) -> list[dict[str, Any]]:
    """Gemini CLI compresses by itself only, and records no token counts: each compression's summary."""
    return [
        {"kind": "full", "at": None, "trigger": "auto", "tokensBefore": None, "tokensAfter": None, "summary": summary}
        for summary in read_gemini(str(path)).compressions
    ]


RECORDED: dict[str, Callable[[Path], list[dict[str, Any]]]] = {
    "claude-code": _claude_code_rows,
    "codex": _codex_rows,
    "qwen-code": _qwen_code_rows,
    "gemini-cli": _gemini_cli_rows,
}
"""Each agent's compactions as its transcript recorded them, by its sessions' ``source``; another agent's session
shows none yet."""


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
        reader = RECORDED.get(agent)
        rows = await asyncio.to_thread(reader, Path(followed.path)) if reader is not None else []
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
