"""Palette commands (``workspace/executeCommand``), each with one optional object ``{sessionId?, ...}``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from compact_lsp.engine.compaction import CompactionError

from ..compacting import compact_session, outcome, rehydration_preview
from ..errors import rpc_errors
from ..notify import did_compact
from ..params import command_argument, optional_str
from ..work import in_session
from .methods import session_status

if TYPE_CHECKING:
    from ..server import CompactLanguageServer
    from ..sessions import SessionSlot

MICROCOMPACT = "compact.microcompact"
COMPACT = "compact.compact"
UNDO = "compact.undo"
STATUS = "compact.status"
REHYDRATION_PREVIEW = "compact.rehydrationPreview"


def register(server: CompactLanguageServer) -> None:
    # Each handler takes ``ls`` first: pygls passes the server there (we use ``server`` from this scope), and the
    # client's arguments follow in ``args``.
    async def target(args: tuple[object, ...], command: str) -> tuple[SessionSlot, Any]:
        arg = command_argument(args, command)
        session_id = optional_str(arg, "sessionId", command)
        return await server.registry().get(session_id, command), arg

    @server.command(MICROCOMPACT)
    @rpc_errors
    async def microcompact(ls: object, *args: object) -> dict[str, Any]:
        slot, _ = await target(args, MICROCOMPACT)
        session = slot.session

        def run() -> dict[str, Any]:
            eviction = session.microcompact("forced")
            if eviction is not None:
                return {"changed": True, **eviction.to_wire()}
            total = session.usage().total
            keep = session.settings.microcompact.effective_keep_recent
            return {
                "changed": False,
                "kind": "nothing_to_clear",
                "reason": f"Nothing to clear: no clearable tool result is older than the {keep} most recent.",
                "trigger": "forced",
                "tokensBefore": total,
                "tokensAfter": total,
                "cleared": [],
                "protected": [],
            }

        result = await in_session(server, slot, run)
        if result["changed"]:
            did_compact(server, session.id, "micro", "forced", result["tokensBefore"], result["tokensAfter"])
        return result

    @server.command(COMPACT)
    @rpc_errors
    async def compact(ls: object, *args: object) -> dict[str, Any]:
        slot, arg = await target(args, COMPACT)
        instructions = optional_str(arg, "instructions", COMPACT)
        try:
            return await compact_session(server, slot, trigger="manual", instructions=instructions)
        except CompactionError as exc:
            result = outcome(exc)
            if result is None:
                raise
            return result

    @server.command(UNDO)
    @rpc_errors
    async def undo(ls: object, *args: object) -> dict[str, Any]:
        slot, _ = await target(args, UNDO)
        session = slot.session

        def run() -> tuple[int, dict[str, Any]]:
            before = session.usage().total
            return before, session.undo()

        try:
            before, result = await in_session(server, slot, run)
        except CompactionError as exc:
            refusal = outcome(exc)
            if refusal is None:
                raise
            return refusal
        did_compact(server, session.id, "undo", "manual", before, int(result.get("tokensAfter", 0)))
        return {"changed": True, **result}

    @server.command(STATUS)
    @rpc_errors
    async def status(ls: object, *args: object) -> dict[str, Any]:
        slot, _ = await target(args, STATUS)
        return await session_status(server, slot)

    @server.command(REHYDRATION_PREVIEW)
    @rpc_errors
    async def preview(ls: object, *args: object) -> dict[str, Any]:
        slot, _ = await target(args, REHYDRATION_PREVIEW)
        return await rehydration_preview(server, slot)
