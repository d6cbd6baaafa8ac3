"""The protocol's shapes, server side: every answer and notification built here from engine values.

docs/protocol.schema.json is the one definition (the VS Code types are generated from it, the LuaCATS checked
against it); each function here builds one of its definitions, named in its docstring, and the e2e tier validates
what the server sends against the schema. The engine returns values and knows nothing of camelCase or of which
fields the editors show; the journal's record shapes are the journal's own (engine/session/journal.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from compact_lsp.agent.turn_result import TurnResult
from compact_lsp.engine.compaction.eviction import ClearedResult, EvictionRecord, ProtectedResult
from compact_lsp.engine.compaction.full_compaction import CompactionOutcome
from compact_lsp.engine.compaction.ledger import LedgerRow, LedgerView
from compact_lsp.engine.compaction.pins import PinnedItem
from compact_lsp.engine.compaction.rehydration import Candidate, RehydrationResult
from compact_lsp.engine.conversation.biggest import ContextItem
from compact_lsp.engine.conversation.next_compaction import NextCompaction
from compact_lsp.engine.conversation.usage import ContextUsage
from compact_lsp.engine.files.admitted_files import AdmittedFile
from compact_lsp.engine.files.read_record import ReadRecord
from compact_lsp.engine.rehydration_settings import RehydrationSettings
from compact_lsp.engine.session.session_compacting import UndoOutcome
from compact_lsp.engine.session.session_status import SessionStatus
from compact_lsp.engine.summarize.session_notes import SessionNotes
from compact_lsp.engine.utc import iso_utc
from compact_lsp.tracking.reader import FileRead

Answer = dict[str, Any]


def camel(name: str) -> str:
    """``tool_result`` -> ``toolResult``: the engine's kinds as the protocol spells them."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def usage_answer(usage: ContextUsage) -> Answer:
    """``Usage``."""
    wire: Answer = {
        "total": usage.total,
        "contextWindow": usage.context_window,
        "percent": usage.percent,
        "autoCompactThreshold": usage.auto_compact_threshold,
        "warningThreshold": usage.warning_threshold,
        "level": usage.level,
        "byKind": {camel(k): v for k, v in usage.by_kind.items()},
        "estimated": usage.counted,
    }
    if usage.reported is not None:
        wire["reported"] = usage.reported
    if usage.next_compaction is not None:
        wire["nextCompaction"] = next_compaction_answer(usage.next_compaction)
    return wire


def next_compaction_answer(next_one: NextCompaction) -> Answer:
    """``Usage.nextCompaction``."""
    return {
        "thresholdTokens": next_one.threshold,
        "tokensLeft": next_one.tokens_left,
        "turnsLeft": next_one.turns_left,
        "perTurn": next_one.per_turn,
        "near": next_one.near,
        "origin": next_one.origin,
        "disabledBy": next_one.disabled_by,
    }


def _protected(result: ProtectedResult) -> Answer:
    wire: Answer = {"toolUseId": result.tool_use_id, "paths": list(result.paths)}
    if result.paths:
        wire["path"] = result.paths[0]
    return wire


def _cleared(result: ClearedResult) -> Answer:
    wire: Answer = {"toolUseId": result.tool_use_id, "tool": result.tool, "paths": list(result.paths)}
    wire["tokens"] = result.tokens
    if len(result.paths) == 1:
        wire["path"] = result.paths[0]
    return wire


def eviction_answer(eviction: EvictionRecord) -> Answer:
    """The eviction details of a microcompaction (``compact.microcompact``, ``lastMicrocompaction``, transcript)."""
    return {
        "trigger": eviction.trigger,
        "tokensBefore": eviction.tokens_before,
        "tokensAfter": eviction.tokens_after,
        "tokensSaved": eviction.tokens_saved,
        "cleared": [_cleared(c) for c in eviction.cleared],
        "protected": [_protected(p) for p in eviction.protected],
        "evictedReadPaths": list(eviction.evicted_read_paths),
        "unresolved": list(eviction.unresolved),
        "mediaCleared": eviction.media_cleared,
        "createdAt": eviction.created_at,
    }


def microcompaction_answer(eviction: EvictionRecord) -> Answer:
    """``MicrocompactResult`` when something was cleared."""
    return {"changed": True, **eviction_answer(eviction)}


def compaction_answer(outcome: CompactionOutcome) -> Answer:
    """``CompactResult`` of a compaction that happened."""
    boundary = outcome.boundary
    return {
        "changed": True,
        "tokensBefore": boundary.tokens_before,
        "tokensAfter": boundary.tokens_after,
        "summarizer": boundary.summarizer,
        "fallback": boundary.fallback,
        "rehydrated": outcome.rehydrated,
        "boundaryId": boundary.id,
        "trigger": boundary.trigger,
        # why the model did not write the summary ("rate_limit: ..."), so the user sees the API failed
        "fallbackReason": outcome.summary.fallback_reason if boundary.fallback else None,
    }


def stored_compaction_answer(result: dict[str, Any]) -> Answer:
    """``CompactResult`` from a compaction's journalled result, with ``summarizer``, ``fallback`` and
    ``fallbackReason`` always present (journals written before they all were carry only some)."""
    wire = {"changed": True, **result}
    wire.setdefault("summarizer", "offline")
    wire["fallback"] = bool(wire.get("fallback", False))
    wire["fallbackReason"] = wire.get("fallbackReason") if wire["fallback"] else None
    return wire


def _candidate(candidate: Candidate) -> Answer:
    return {
        "path": candidate.path,
        "score": round(candidate.score, 4),
        "tokens": candidate.tokens,
        "included": candidate.included,
        "reason": candidate.reason,
        "partial": candidate.partial,
        "deleted": candidate.deleted,
        "source": candidate.source,
    }


def rehydration_answer(result: RehydrationResult, settings: RehydrationSettings) -> Answer:
    """``compact.rehydrationPreview``: the budget, the candidates listed with what became of each, and how many more
    were left out unlisted (past the budget or the file limit)."""
    budget = {
        "maxFiles": settings.max_files,
        "tokenBudget": settings.budget_tokens,
        "maxTokensPerFile": settings.file_cap_tokens,
    }
    return {"budget": budget, "candidates": [_candidate(c) for c in result.candidates], "unlisted": result.unlisted}


def read_file_answer(record: ReadRecord) -> Answer:
    """A ``readFiles`` entry of ``compact/status`` (freshness as last computed)."""
    return {
        "path": record.display_path or record.resolved_path,
        "kind": record.kind,
        "freshness": record.freshness.value,
        "range": record.range_label,
        "tokens": record.tokens,
        "readAt": iso_utc(record.read_at),
        "inHistory": record.in_history,
        "open": record.open,
        "dirty": record.dirty,
    }


def pinned_answer(items: list[PinnedItem]) -> list[Answer]:
    """``pinned`` in ``compact/status`` and the pin requests' result: results first, then files."""
    out: list[Answer] = []
    for item in items:
        if item.kind == "file":
            out.append({"kind": "file", "path": item.path})
            continue
        wire: Answer = {"kind": item.kind, "toolUseId": item.tool_use_id, "inHistory": item.in_history}
        if item.tool is not None:
            wire["tool"] = item.tool
        if item.path is not None:
            wire["path"] = item.path
        out.append(wire)
    return out


def admitted_answer(files: list[AdmittedFile]) -> list[Answer]:
    """``admittedFiles``."""
    return [{"path": f.path, "reason": f.reason} for f in files]


def notes_answer(notes: SessionNotes | None) -> Answer | None:
    """``sessionNotes`` in ``compact/status``."""
    if notes is None:
        return None
    return {"coveredUpto": notes.covered_upto, "writer": notes.writer, "updatedAt": notes.updated_at}


def biggest_item_answer(item: ContextItem) -> Answer:
    wire: Answer = {"kind": camel(item.kind), "label": item.label, "tokens": item.tokens}
    wire["messageIndex"] = item.message_index
    for key, value in (("tool", item.tool), ("path", item.path), ("toolUseId", item.tool_use_id)):
        if value is not None:
            wire[key] = value
    return wire


def status_answer(status: SessionStatus) -> Answer:
    """``StatusResult``."""
    last_micro = status.last_microcompaction
    last = status.last_compaction
    return {
        "sessionId": status.session_id,
        "title": status.title,
        "usage": usage_answer(status.usage),
        "readFiles": [read_file_answer(r) for r in status.read_files],
        "lastMicrocompaction": microcompaction_answer(last_micro) if last_micro is not None else None,
        "lastCompaction": stored_compaction_answer(last) if last is not None else None,
        "compacting": status.compacting,
        "sessionNotes": notes_answer(status.session_notes),
        "biggestItems": [biggest_item_answer(item) for item in status.biggest_items],
        "canUndo": status.can_undo,
        "messageCount": status.message_count,
        "pinned": pinned_answer(status.pinned),
        "admittedFiles": admitted_answer(status.admitted_files),
    }


def read_result_answer(read: FileRead) -> Answer:
    """``ReadFileResult`` (``compact/readFile``)."""
    return {
        "path": read.path,
        "content": read.content,
        "startLine": read.start_line,
        "numLines": read.num_lines,
        "totalLines": read.total_lines,
        "truncated": read.truncated,
    }


def turn_answer(result: TurnResult) -> Answer:
    """``ChatResult`` (``compact/chat``)."""
    wire: Answer = {"stopReason": result.stop_reason, "usage": usage_answer(result.usage)}
    if result.error is not None:
        wire["error"] = result.error
    if result.error_kind is not None:
        wire["errorKind"] = result.error_kind
    return wire


def undo_answer(undone: UndoOutcome) -> Answer:
    """``compact.undo``'s result when the undo happened."""
    return {"changed": True, "restored": True, "boundaryId": undone.boundary_id, "tokensAfter": undone.tokens_after}


_EXIT = re.compile(r"^exit (-?\d+)$")


def _ledger_row(row: LedgerRow) -> Answer:
    """``WorkingSetRow``: the figures the line states, and a file's links."""
    wire: Answer = {"kind": row.kind, "line": row.line}
    if row.path is not None:
        wire |= {"path": row.shown, "outside": row.outside, "gone": row.gone}
        if Path(row.path).is_absolute():  # a log without a working directory names relative paths: no link
            wire |= {"absolutePath": row.path, "uri": Path(row.path).as_uri()}
    figures = {"change": row.change, "added": row.added, "removed": row.removed, "lines": row.lines, "size": row.size}
    wire |= {key: value for key, value in figures.items() if value is not None}
    run = row.run
    if run is not None:
        code = _EXIT.match(run.status)
        wire |= {"label": row.label, "command": run.command, "status": run.status, "ok": run.ok,
                 "exitCode": int(code.group(1)) if code else None, "decisive": run.decisive or None,
                 "commandKind": run.kind}  # fmt: skip
    return wire


def working_set_answer(session_id: str, cwd: str, view: LedgerView) -> Answer:
    """``WorkingSetResult``."""
    return {
        "sessionId": session_id,
        "cwd": cwd or None,
        "rows": [_ledger_row(row) for row in view.rows],
        "text": view.ledger.text,
        "characters": len(view.ledger.text),
        "leftOut": view.ledger.left_out,
    }
