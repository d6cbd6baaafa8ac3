"""What editors need to follow the user across sessions: the list, the current session, choosing one, renaming
one, and a session's whole transcript for a chat view (compact/sessions, currentSession, selectSession,
renameSession, transcript)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.followed_window import agent_usage
from compact_lsp.agents.importing import copied_compaction, copied_messages, imported_from
from compact_lsp.agents.registered import agent_named
from compact_lsp.agents.shown import chat_records, shown_entries, with_last_figures
from compact_lsp.agents.shown_blocks import ShownRecords
from compact_lsp.engine.conversation.titles import TitleError, check_title
from compact_lsp.engine.conversation.usage import build_usage
from compact_lsp.engine.utc import iso_utc
from compact_lsp.lsp.features.handlers import request_handler
from compact_lsp.lsp.protocol.answers import usage_answer
from compact_lsp.lsp.protocol.errors import invalid_params
from compact_lsp.lsp.protocol.params import as_object, required_str
from compact_lsp.lsp.protocol.transcript import transcript_entries
from compact_lsp.lsp.work.in_session import in_session
from compact_lsp.lsp.work.journal_follow import elsewhere
from compact_lsp.runtime.io_threads import run_io
from compact_lsp.store.session_index import source_of

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer
    from compact_lsp.store.session_index import SessionSummary

SESSIONS = "compact/sessions"
CURRENT_SESSION = "compact/currentSession"
SELECT_SESSION = "compact/selectSession"
TRANSCRIPT = "compact/transcript"
RENAME_SESSION = "compact/renameSession"


async def list_sessions(server: CompactLanguageServer, params: Any) -> list[dict[str, Any]]:
    """``compact/sessions``: from the index; no session is loaded to list it."""
    as_object(params, SESSIONS)
    registry = server.registry()
    summaries = await registry.summaries()
    current = await run_io(registry.current)  # one small file: not behind the sessions' work
    elsewhere = await run_io(open_elsewhere, server, summaries)
    return [{**item, "openElsewhere": elsewhere[item["sessionId"]]} if item["sessionId"] in elsewhere else item
            for item in listed_items(server, summaries, current)]  # fmt: skip


def open_elsewhere(server: CompactLanguageServer, summaries: list[SessionSummary]) -> dict[str, dict[str, Any]]:
    """The sessions another server (another editor window) writes, with what their lock file names: a look at each
    journal's lock, never kept in the listing's cached items (the other window may have closed since)."""
    store = server.registry().store
    found: dict[str, dict[str, Any]] = {}
    for summary in summaries:
        if agent_named(summary.source or "") is not None:
            continue  # an agent's transcript: no lock of ours
        holder = store.journal_for(summary.session_id).writer_lock.holder()
        if holder is not None:
            found[summary.session_id] = elsewhere(holder)
    return found


def listed_items(server: CompactLanguageServer, summaries: list[SessionSummary], current: str | None) -> list[Any]:
    """Each summary's item, built once per summary and settings (a summary is replaced, never changed, and so are
    the settings): building every session's usage anew on the loop for every listing was most of a listing's
    time (bench/bench_sessions_list.py)."""
    kept, settings = server.session_items, server.settings
    items: list[Any] = []
    for summary in summaries:
        item = kept.get(summary.session_id)
        if item is None or item[0] is not summary or item[1] is not settings:
            item = (summary, settings, session_item(server, summary, False))
        items.append(item)
    server.session_items = {item[0].session_id: item for item in items}  # sessions gone are dropped
    return [{**item[2], "current": item[0].session_id == current} for item in items]


def session_item(server: CompactLanguageServer, summary: SessionSummary, current: bool) -> dict[str, Any]:
    agent = agent_named(summary.source or "")
    read_only = agent is not None
    if read_only:  # the agent's own measure (agents/followed_window.py)
        window = summary.context_window
        slot = server.registry().slots.get(summary.session_id)
        followed = slot.followed if slot is not None else None
        auto = followed.auto_compaction(window) if followed is not None else None
        usage = agent_usage(summary.by_kind, server.settings, summary.reported, window, auto, summary.turns)
    else:
        usage = build_usage(summary.by_kind, server.settings, summary.reported)
    item: dict[str, Any] = {
        "sessionId": summary.session_id,
        "title": summary.title,
        "source": summary.source,
        "createdAt": iso_utc(summary.created_at),
        "updatedAt": iso_utc(summary.updated_at),
        "messages": summary.messages,
        "tokens": usage.total,
        "current": current,
        "damaged": summary.damaged_records > 0,
        "damagedRecords": summary.damaged_records,
        "readOnly": read_only,
        "usage": usage_answer(usage),
    }
    if agent is not None:
        item["owner"] = agent.owner
    elif (origin := imported_from(summary.session_id, summary.source)) is not None:
        item["importedFrom"] = origin
    return item


async def current_session(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    as_object(params, CURRENT_SESSION)
    return {"sessionId": await run_io(server.registry().current)}


async def select_session(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    """Make a session current, then tell the client its usage so a status line shows it at once."""
    args = as_object(params, SELECT_SESSION)
    slot = await server.registry().select(required_str(args, "sessionId", SELECT_SESSION), SELECT_SESSION)
    await in_session(server, slot, lambda: None, changes=True)
    return {}


async def rename_session(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    """Journal a new title and update the session's index entry; editors list the sessions again to show it."""
    args = as_object(params, RENAME_SESSION)
    session_id = required_str(args, "sessionId", RENAME_SESSION)
    try:
        title = check_title(args.get("title"))
    except TitleError as exc:
        raise invalid_params(f"{RENAME_SESSION}: {exc}") from None
    registry = server.registry()
    slot = await registry.get(session_id, RENAME_SESSION)

    def rename() -> None:
        slot.session.rename(title)  # a followed Claude Code session's journal refuses it (read_only)
        registry.index_slot(slot)

    await in_session(server, slot, rename, changes=False)
    return {}


async def transcript(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    """The whole history from the journal, under the session's lock when it is loaded (no torn reads)."""
    args = as_object(params, TRANSCRIPT)
    session_id = required_str(args, "sessionId", TRANSCRIPT)
    registry = server.registry()

    def read() -> tuple[list[dict[str, Any]], str, int, dict[str, Any] | None]:
        records, _report = registry.store.load(session_id)
        header = next((r for r in records if r.get("type") == "header"), None)
        return (
            transcript_entries(records),
            source_of(header, session_id),
            copied_messages(records),
            copied_compaction(header),
        )

    slot = registry.slots.get(session_id)
    if slot is not None and slot.followed is not None:  # the agent's, shown by its own rules alone
        rules = chat_records(session_id, slot.session.source) or ShownRecords()
        try:
            whole = await asyncio.to_thread(slot.followed.chat_entries)
        except OSError:
            whole = None  # gone or replaced since it was followed: what the follower holds
        if whole is not None:
            return {"sessionId": session_id, "entries": await asyncio.to_thread(shown_entries, whole, rules)}
        async with slot.lock:  # what its model sees now
            messages, stamps = slot.followed.messages, slot.followed.timestamps
        at = [*stamps, *[None] * (len(messages) - len(stamps))]
        entries = [{"kind": "message", "at": at[i], "message": m} for i, m in enumerate(messages)]
        return {"sessionId": session_id, "entries": await asyncio.to_thread(shown_entries, entries, rules)}
    if slot is None:  # not loaded: nothing else writes it here, and reading needs no replay
        registry.require_stored(session_id, TRANSCRIPT)
        entries, source, copied, figures = await asyncio.to_thread(read)
    else:
        async with slot.lock:
            entries, source, copied, figures = await asyncio.to_thread(read)
    records = chat_records(session_id, source)
    if records is not None:  # an agent's session continued here: its part as its user saw it, the rest as said here
        copy = with_last_figures(await asyncio.to_thread(shown_entries, entries[:copied], records), figures)
        entries = [*copy, *entries[copied:]]
    return {"sessionId": session_id, "entries": entries}


def register(server: CompactLanguageServer) -> None:
    for method, handler in (
        (SESSIONS, list_sessions),
        (CURRENT_SESSION, current_session),
        (SELECT_SESSION, select_session),
        (RENAME_SESSION, rename_session),
        (TRANSCRIPT, transcript),
    ):
        server.feature(method)(request_handler(server, handler))
