"""The custom requests: compact/newSession, append, messages, readFile, status.

Each handler is a module-level ``async def name(server, params)``; ``register`` binds them to the server with the
error mapping (``request_handler``), so a test can call one in-process with a server object.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import TYPE_CHECKING, Any

from compact_lsp.engine.compaction.full_compaction import CompactionError
from compact_lsp.lsp.features.handlers import request_handler
from compact_lsp.lsp.protocol.answers import compaction_answer, microcompaction_answer, read_result_answer, usage_answer
from compact_lsp.lsp.protocol.errors import invalid_params
from compact_lsp.lsp.protocol.params import as_object, optional_int, optional_object, optional_str, required_str
from compact_lsp.lsp.protocol.wire import AnsweringProtocol, EncodedResult
from compact_lsp.lsp.sessions.snapshots import at_once, at_once_json, publish, status_wire
from compact_lsp.lsp.work.compacting import compact_session, refresh_notes
from compact_lsp.lsp.work.in_session import in_session
from compact_lsp.lsp.work.notify import did_microcompact
from compact_lsp.runtime.io_threads import run_io
from compact_lsp.tracking.reader import read_text_file

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer
    from compact_lsp.lsp.sessions.session_slot import SessionSlot

log = logging.getLogger(__name__)

NEW_SESSION = "compact/newSession"
APPEND = "compact/append"
MESSAGES = "compact/messages"
READ_FILE = "compact/readFile"
STATUS = "compact/status"


def register(server: CompactLanguageServer) -> None:
    for method, handler in (
        (NEW_SESSION, new_session),
        (APPEND, append),
        (MESSAGES, messages),
        (READ_FILE, read_file),
        (STATUS, status),
    ):
        server.feature(method)(request_handler(server, handler))
    protocol = server.protocol
    if isinstance(protocol, AnsweringProtocol):
        protocol.at_once[STATUS] = functools.partial(status_at_once, server)


async def session_for(server: CompactLanguageServer, params: Any, method: str) -> SessionSlot:
    """The session a request names with ``sessionId`` (loaded from disk if need be)."""
    args = as_object(params, method)
    return await server.registry().get(required_str(args, "sessionId", method), method)


async def new_session(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    args = as_object(params, NEW_SESSION)
    title = optional_str(args, "title", NEW_SESSION) or ""
    source = optional_str(args, "source", NEW_SESSION) or "api"
    if source not in ("chat", "api"):
        raise invalid_params(f'{NEW_SESSION}: \'source\' must be "chat" or "api", got {source!r}')
    registry = server.registry()
    slot = await asyncio.to_thread(registry.create, title, source)
    registry.loaded(slot)  # it learns the open documents
    # its status published, so that the first compact/status answers at once too
    await in_session(server, slot, lambda: publish(slot), changes=False)
    return {"sessionId": slot.session.id}


async def append(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    """Append, run the automatic microcompaction, compact when due; the notes catch up in the background."""
    args = as_object(params, APPEND)
    slot = await server.registry().get(required_str(args, "sessionId", APPEND), APPEND)
    messages = args.get("messages")
    if not isinstance(messages, list):
        raise invalid_params(f"{APPEND}: 'messages' must be an array of Messages API message objects")
    usage = optional_object(args, "usage", APPEND)
    session = slot.session
    outcome = await in_session(server, slot, functools.partial(session.append, messages, usage))
    result: dict[str, Any] = {"usage": usage_answer(outcome.usage)}
    if outcome.microcompaction is not None:
        result["microcompaction"] = microcompaction_answer(outcome.microcompaction)
        did_microcompact(server, session.id, outcome.microcompaction)
    if outcome.compaction_due:
        result.update(await _auto_compact(server, slot))
    server.run_task(refresh_notes(server, slot), name=f"session notes of {session.id}")
    return result


async def _auto_compact(server: CompactLanguageServer, slot: SessionSlot) -> dict[str, Any]:
    """The automatic compaction after an append: its result, or why it did not happen (the append stands)."""
    try:
        compaction = compaction_answer(await compact_session(server, slot, trigger="auto"))
    except CompactionError as exc:
        log.warning("automatic compaction of %s did not happen: %s", slot.session.id, exc)
        return {"compactionError": str(exc)}
    return {"compaction": compaction, **({"usage": slot.usage_wire} if slot.usage_wire else {})}


async def messages(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    slot = await session_for(server, params, MESSAGES)
    session, followed = slot.session, slot.followed

    def view() -> dict[str, Any]:
        if followed is not None:  # a followed agent's window: its committed messages and the open tail status counts
            return {
                "system": session.system_prompt(),
                "messages": followed.messages,
                "usage": usage_answer(followed.usage()),
            }
        return {"system": session.system_prompt(), "messages": session.view(), "usage": usage_answer(session.usage())}

    return await in_session(server, slot, view, changes=False)


async def read_file(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    args = as_object(params, READ_FILE)
    slot = await server.registry().get(required_str(args, "sessionId", READ_FILE), READ_FILE)
    path = required_str(args, "path", READ_FILE)
    offset = optional_int(args, "offset", READ_FILE, minimum=1)
    limit = optional_int(args, "limit", READ_FILE, minimum=1)
    tool_use_id = optional_str(args, "toolUseId", READ_FILE)
    session = slot.session
    # the workspace folders, the added directories and the memory roots that passed their rule
    roots = list(session.allowed_roots.paths)
    read = await run_io(read_text_file, path, server.workspace_root, offset=offset, limit=limit, extra_roots=roots)
    await in_session(server, slot, functools.partial(read.record_in, session, tool_use_id))
    return read_result_answer(read)


async def status(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    args = as_object(params, STATUS)
    slot = await server.registry().get(optional_str(args, "sessionId", STATUS), STATUS)
    return await session_status(server, slot)


def status_at_once(server: CompactLanguageServer, params: Any) -> dict[str, Any] | EncodedResult | None:
    """``compact/status`` of a loaded session answered as the frame is read (``AnsweringProtocol.at_once``), when
    its published snapshot answers it (lsp/sessions/snapshots.py); None leaves it to ``status``."""
    registry = server.sessions
    session_id = params.get("sessionId") if isinstance(params, dict) else None
    slot = registry.slots.get(session_id) if registry is not None and isinstance(session_id, str) else None
    if slot is None:
        return None
    encoded = at_once_json(slot)
    return EncodedResult(encoded) if encoded is not None else at_once(slot)


async def session_status(server: CompactLanguageServer, slot: SessionSlot) -> dict[str, Any]:
    """``compact/status``: the published snapshot when it answers (lsp/sessions/snapshots.py); else measured, on
    the loop during a compaction, under the lock otherwise."""
    answer = at_once(slot)
    if answer is not None:
        return answer
    if slot.session.compacting:
        return status_wire(slot)
    return await in_session(server, slot, lambda: publish(slot), changes=False)
