"""The session journal: where every change to a ``ContextSession`` is written before it takes effect.

One JSON object per line, in order; ``session_loading.replay_session`` rebuilds the same state from them. Every record
but the header carries ``at`` (the session clock when it happened). The record types and what each carries:

- ``header``: ``version`` (``JOURNAL_VERSION``), ``sessionId``, ``title``, ``system``, ``createdAt``, optionally
  ``source`` (``chat``, ``import`` or ``api``: who made the session), and for an imported copy of an agent's log
  that compacted, ``agentCompaction`` (``trigger``, ``tokensBefore``, ``tokensAfter``: what the log recorded of the
  agent's last compaction, each null when not recorded); first, once.
- ``append``: ``messages`` (normalised), optionally ``usage`` (the API's reported usage for the last response).
- ``notice``: ``text``, the pending change notices folded into the last user message.
- ``pending``: ``path`` (as shown to the model), ``text``: a change notice queued for the next view when it arose,
  so a restart keeps it; ``text`` null withdraws the path's notice (the change was the agent's own). An
  ``append`` also withdraws the notices of files its assistant messages write or edit.
- ``repair``: ``messages``, ``actions``: the history after loading skipped records it could not apply, repaired
  so the API accepts it (engine/session/record_checks.py).
- ``rewrite``: microcompaction; ``changes`` (``index`` and the new ``message``), ``eviction`` (what was cleared).
- ``read``: a read the server served itself; ``path``, ``content``, ``toolUseId``, ``startLine``, ``numLines``,
  ``totalLines``.
- ``deny``: ``path``, a real path the user refused the agent (never rehydrated).
- ``pin``: ``pinned`` (true: pin, false: unpin), ``toolUseId`` and/or ``path`` (a real path): engine/compaction/pins.py.
- ``admit``: ``path`` (a real path), ``admitted`` (true: admit, false: revoke), ``reason`` (``read``, ``edit``): a file
  outside the work roots the user let the agent use (engine/files/admitted_files.py).
- ``notes``: ``notes``, the session notes a background update wrote.
- ``compaction``: ``boundaryId``, ``messages`` (the compacted view), ``attached`` (where each rehydrated item
  sits in the summary message), ``result`` (the ``compact.compact`` result), ``boundary``.
- ``undo``: ``boundaryId``, the compaction it reverts (always the newest one still standing).
- ``title``: ``title``, the session's new title (engine/conversation/titles.py); the newest one replaces the header's.

The records are built and read here, key by key, never from the protocol's answers (lsp/protocol/answers.py): the
protocol may grow a field without the disk format following it, and a journal written today still loads after a protocol
change. tests/engine/test_journal.py pins the format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from compact_lsp.engine.compaction.eviction import TRIGGERS, ClearedResult, EvictionRecord, ProtectedResult

if TYPE_CHECKING:
    from compact_lsp.engine.compaction.full_compaction import CompactionOutcome

JOURNAL_VERSION = 1


class Journal(Protocol):
    """Where records go before they take effect; ``write`` is durable when it returns and raises on failure."""

    def write(self, record: dict[str, Any]) -> None: ...


class NullJournal:
    """A journal that keeps nothing: sessions that live only in memory, and replay before the real one is set."""

    def write(self, record: dict[str, Any]) -> None:
        return None


def header_record(
    session_id: str,
    *,
    title: str,
    system: str,
    created_at: float,
    source: str | None = None,
    agent_compaction: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The first record of every journal."""
    record: dict[str, Any] = {
        "type": "header",
        "version": JOURNAL_VERSION,
        "sessionId": session_id,
        "title": title,
        "system": system,
        "createdAt": created_at,
    }
    if source is not None:
        record["source"] = source
    if agent_compaction is not None:
        record["agentCompaction"] = agent_compaction
    return record


def pending_record(path: str, text: str | None, *, at: float) -> dict[str, Any]:
    """A change notice queued for the next view (``text`` None: withdrawn)."""
    return {"type": "pending", "path": path, "text": text, "at": at}


def read_record(
    path: str,
    content: str,
    *,
    tool_use_id: str | None,
    start_line: int | None,
    num_lines: int | None,
    total_lines: int | None,
    at: float,
) -> dict[str, Any]:
    """A read the server served itself (``compact/readFile``), with the lines it covered."""
    return {
        "type": "read",
        "path": path,
        "content": content,
        "toolUseId": tool_use_id,
        "startLine": start_line,
        "numLines": num_lines,
        "totalLines": total_lines,
        "at": at,
    }


def rewrite_record(changes: list[dict[str, Any]], eviction: EvictionRecord, *, at: float) -> dict[str, Any]:
    """A microcompaction: the rewritten messages (``index``, ``message``) and what left history."""
    return {
        "type": "rewrite",
        "reason": "microcompaction",
        "changes": changes,
        "eviction": _eviction(eviction),
        "at": at,
    }


def compaction_record(outcome: CompactionOutcome) -> dict[str, Any]:
    """A full compaction: the new view, where its attachments sit, the result and the boundary marker."""
    boundary = outcome.boundary
    result: dict[str, Any] = {
        "tokensBefore": boundary.tokens_before,
        "tokensAfter": boundary.tokens_after,
        "summarizer": boundary.summarizer,
        "fallback": boundary.fallback,
        "rehydrated": outcome.rehydrated,
        "boundaryId": boundary.id,
        "trigger": boundary.trigger,
    }
    if boundary.fallback:
        result["fallbackReason"] = outcome.summary.fallback_reason
    return {
        "type": "compaction",
        "boundaryId": boundary.id,
        "messages": outcome.view,
        "attached": outcome.attached,
        "result": result,
        "boundary": {
            "boundaryId": boundary.id,
            "trigger": boundary.trigger,
            "tokensBefore": boundary.tokens_before,
            "tokensAfter": boundary.tokens_after,
            "summarizer": boundary.summarizer,
            "fallback": boundary.fallback,
            "createdAt": boundary.created_at,
            "messagesSummarized": boundary.messages_summarized,
            **boundary.extra,
        },
        "at": boundary.created_at,
    }


def _eviction(eviction: EvictionRecord) -> dict[str, Any]:
    return {
        "trigger": eviction.trigger,
        "tokensBefore": eviction.tokens_before,
        "tokensAfter": eviction.tokens_after,
        "tokensSaved": eviction.tokens_saved,
        "cleared": [
            {"toolUseId": c.tool_use_id, "tool": c.tool, "paths": list(c.paths), "tokens": c.tokens}
            | ({"path": c.paths[0]} if len(c.paths) == 1 else {})
            for c in eviction.cleared
        ],
        "protected": [
            {"toolUseId": p.tool_use_id, "paths": list(p.paths)} | ({"path": p.paths[0]} if p.paths else {})
            for p in eviction.protected
        ],
        "evictedReadPaths": list(eviction.evicted_read_paths),
        "unresolved": list(eviction.unresolved),
        "mediaCleared": eviction.media_cleared,
        "createdAt": eviction.created_at,
    }


def eviction_from_record(entry: dict[str, Any]) -> EvictionRecord:
    """A ``rewrite`` record's ``eviction`` read back; older records may lack the optional details."""
    trigger = entry["trigger"]
    if trigger not in TRIGGERS:
        raise ValueError(f"unknown microcompaction trigger {trigger!r}")
    return EvictionRecord(
        trigger=trigger,
        tokens_before=entry["tokensBefore"],
        tokens_after=entry["tokensAfter"],
        cleared=[
            ClearedResult(c["toolUseId"], c.get("tool", ""), _paths(c), c["tokens"]) for c in entry.get("cleared", [])
        ],
        protected=[ProtectedResult(p["toolUseId"], _paths(p)) for p in entry.get("protected", [])],
        evicted_read_paths=list(entry.get("evictedReadPaths", [])),
        unresolved=list(entry.get("unresolved", [])),
        created_at=entry.get("createdAt", ""),
        media_cleared=entry.get("mediaCleared", 0),
    )


def _paths(entry: dict[str, Any]) -> list[str]:
    """``paths``, or the single ``path`` an early record carried."""
    if "paths" in entry:
        return list(entry["paths"])
    return [entry["path"]] if entry.get("path") else []
