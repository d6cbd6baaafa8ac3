"""``compact/pin`` and ``compact/unpin``: keep a tool result from microcompaction, a file first in rehydration."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from compact_lsp.engine.compaction.pins import PinError
from compact_lsp.lsp.features.handlers import request_handler
from compact_lsp.lsp.protocol.answers import pinned_answer
from compact_lsp.lsp.protocol.errors import invalid_params
from compact_lsp.lsp.protocol.params import as_object, optional_str, required_str
from compact_lsp.lsp.work.in_session import in_session

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

PIN = "compact/pin"
UNPIN = "compact/unpin"


async def change_pin(server: CompactLanguageServer, params: Any, method: str) -> dict[str, Any]:
    """Pin or unpin ``toolUseId`` and/or ``path``; the engine validates before it journals (compaction/pins.py)."""
    args = as_object(params, method)
    slot = await server.registry().get(required_str(args, "sessionId", method), method)
    tool_use_id = optional_str(args, "toolUseId", method)
    path = optional_str(args, "path", method)
    session = slot.session

    def change() -> list[dict[str, Any]]:
        try:
            session.pin(tool_use_id=tool_use_id, path=path, pinned=method == PIN)
        except PinError as exc:
            if exc.problem == "nothing":  # the request named neither: say which fields it takes
                raise invalid_params("give 'toolUseId' (a tool result) or 'path' (a file), or both") from exc
            raise
        return pinned_answer(session.pins.listed(session.messages, session.workspace_root))

    return {"pinned": await in_session(server, slot, change)}


async def pin(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    return await change_pin(server, params, PIN)


async def unpin(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    return await change_pin(server, params, UNPIN)


def register(server: CompactLanguageServer) -> None:
    for method, handler in ((PIN, pin), (UNPIN, unpin)):
        server.feature(method)(request_handler(server, handler))
