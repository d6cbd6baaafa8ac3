"""Palette commands (``workspace/executeCommand``), each with one optional object ``{sessionId?, ...}``.

Each is a module-level ``async def name_command(server, args)``, ``args`` being the command's arguments as the
client sent them; ``register`` binds them with the error mapping (``command_handler``).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from compact_lsp.engine.compaction.full_compaction import CompactionError
from compact_lsp.engine.session.session_compacting import UndoOutcome
from compact_lsp.engine.utc import iso_utc
from compact_lsp.lsp.features.handlers import command_handler
from compact_lsp.lsp.features.methods import session_status
from compact_lsp.lsp.protocol.answers import compaction_answer, microcompaction_answer, undo_answer
from compact_lsp.lsp.protocol.params import command_argument, optional_str
from compact_lsp.lsp.work.compacting import compact_session, outcome, rehydration_preview
from compact_lsp.lsp.work.in_session import in_session
from compact_lsp.lsp.work.notify import did_compact, did_microcompact

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer
    from compact_lsp.lsp.sessions.session_slot import SessionSlot

MICROCOMPACT = "compact.microcompact"
COMPACT = "compact.compact"
UNDO = "compact.undo"
STATUS = "compact.status"
REHYDRATION_PREVIEW = "compact.rehydrationPreview"

UNDO_WAIT_POLL = 0.02
"""Seconds between looks at a compaction's claim while an undo waits for it (the claim is a flag, not an event)."""


def register(server: CompactLanguageServer) -> None:
    for command, handler in (
        (MICROCOMPACT, microcompact_command),
        (COMPACT, compact_command),
        (UNDO, undo_command),
        (STATUS, status_command),
        (REHYDRATION_PREVIEW, rehydration_preview_command),
    ):
        server.command(command)(command_handler(server, handler))


async def target(
    server: CompactLanguageServer, args: tuple[object, ...], command: str, *, changes: bool = False
) -> tuple[SessionSlot, Any]:
    """The session the command names (``sessionId``, else the current one) and its argument object. A command
    that ``changes`` the context is refused for a followed session before anything runs, whether or not it would
    have found something to change: the agent owns that context."""
    arg = command_argument(args, command)
    session_id = optional_str(arg, "sessionId", command)
    slot = await server.registry().get(session_id, command)
    if changes and slot.followed is not None:
        raise slot.followed.refusal()
    return slot, arg


async def microcompact_command(server: CompactLanguageServer, args: tuple[object, ...]) -> dict[str, Any]:
    slot, _ = await target(server, args, MICROCOMPACT, changes=True)
    session = slot.session
    eviction, total = await in_session(server, slot, lambda: (session.microcompact("forced"), session.usage().total))
    if eviction is None:
        keep = session.settings.microcompact.effective_keep_recent
        return {
            "changed": False,
            "kind": "nothing_to_clear",
            "reason": f"Nothing to clear: no clearable tool result is older than the {keep} most recent.",
            "trigger": "forced",
            "tokensBefore": total,
            "tokensAfter": total,
            "tokensSaved": 0,
            "cleared": [],
            "protected": [],
            "evictedReadPaths": [],
            "unresolved": [],
            "mediaCleared": 0,
            "createdAt": iso_utc(session.clock(), milliseconds=True),
        }
    did_microcompact(server, session.id, eviction)
    return microcompaction_answer(eviction)


async def compact_command(server: CompactLanguageServer, args: tuple[object, ...]) -> dict[str, Any]:
    slot, arg = await target(server, args, COMPACT)
    instructions = optional_str(arg, "instructions", COMPACT)
    try:
        return compaction_answer(await compact_session(server, slot, trigger="manual", instructions=instructions))
    except CompactionError as exc:
        result = outcome(exc)
        if result is None:
            raise
        return result


async def undo_command(server: CompactLanguageServer, args: tuple[object, ...]) -> dict[str, Any]:
    slot, _ = await target(server, args, UNDO, changes=True)
    session = slot.session

    def run() -> tuple[int, UndoOutcome]:
        before = session.usage().total
        return before, session.undo()

    while session.compacting:  # like every other request, undo waits for a compaction under way (docs/protocol.md),
        await asyncio.sleep(UNDO_WAIT_POLL)  # then undoes the one that just finished
    try:
        before, result = await in_session(server, slot, run)
    except CompactionError as exc:
        refusal = outcome(exc)
        if refusal is None:
            raise
        return refusal
    did_compact(server, session.id, "undo", "manual", before, result.tokens_after)
    return undo_answer(result)


async def status_command(server: CompactLanguageServer, args: tuple[object, ...]) -> dict[str, Any]:
    slot, _ = await target(server, args, STATUS)
    return await session_status(server, slot)


async def rehydration_preview_command(server: CompactLanguageServer, args: tuple[object, ...]) -> dict[str, Any]:
    slot, _ = await target(server, args, REHYDRATION_PREVIEW)
    return await rehydration_preview(server, slot)
