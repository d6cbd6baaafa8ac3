"""``compact/importSession``: a Claude Code session log becomes a managed session of this workspace.

Given a followed Claude Code session's id instead of a path ("Import to continue"), its transcript is imported;
when that was done before, the earlier copy is opened (the user may have continued it) and nothing is written.
Files outside the workspace the log used are admitted only by the user's answer to a prompt naming each one
(``outside_files.py``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compact_lsp.agents import registered
from compact_lsp.agents.importing import AlreadyImported, import_into_store
from compact_lsp.engine.conversation.tokens import TiktokenCounter, load_encoding
from compact_lsp.lsp.features.handlers import request_handler
from compact_lsp.lsp.features.outside_files import ask_about_outside_files
from compact_lsp.lsp.protocol.errors import invalid_params, request_failed
from compact_lsp.lsp.protocol.params import as_object, required_str
from compact_lsp.store.session_store import StoreError

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

IMPORT_SESSION = "compact/importSession"
MAX_LOG_BYTES = 512 * 1024 * 1024
"""Claude Code logs of real sessions stay far below this; a bigger file is refused rather than loaded whole."""


def register(server: CompactLanguageServer) -> None:
    server.feature(IMPORT_SESSION)(request_handler(server, import_session))


def _log_path(server: CompactLanguageServer, args: Mapping[str, Any]) -> tuple[str, bool]:
    """The log to import, and whether it is a followed session's transcript (given by ``sessionId``)."""
    if "sessionId" in args:
        if "path" in args:
            raise invalid_params(f"{IMPORT_SESSION}: give either path or sessionId, not both")
        session_id = required_str(args, "sessionId", IMPORT_SESSION)
        slot = server.registry().slots.get(session_id)
        if slot is None or slot.followed is None:
            followed = f"an agent's session followed here ({', '.join(agent.owner for agent in registered.AGENTS)})"
            raise invalid_params(f"{IMPORT_SESSION}: {session_id!r} is not {followed}")
        return str(slot.followed.path), True
    path = os.path.expanduser(required_str(args, "path", IMPORT_SESSION))
    if not os.path.isabs(path) and server.workspace_root:
        path = os.path.join(server.workspace_root, path)
    return path, False


async def import_session(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    args = as_object(params, IMPORT_SESSION)
    path, followed = _log_path(server, args)
    registry = server.registry()

    def run() -> dict[str, Any]:
        if not os.path.isfile(path):
            raise invalid_params(f"{IMPORT_SESSION}: {path} is not a file (expected a Claude Code .jsonl log)")
        if os.path.getsize(path) > MAX_LOG_BYTES:
            raise invalid_params(f"{IMPORT_SESSION}: {path} is larger than {MAX_LOG_BYTES >> 20} MiB")
        try:
            result = import_into_store(
                registry.store,
                path,
                settings=registry.settings,
                counter=TiktokenCounter(load_encoding()),
                workspace_root=server.workspace_root,
            )
        except AlreadyImported as exc:
            if not followed:
                raise request_failed(f"{IMPORT_SESSION}: {exc}") from None
            return {"sessionId": exc.session_id, "alreadyImported": True}
        except (ValueError, StoreError) as exc:
            raise request_failed(f"{IMPORT_SESSION}: {exc}") from None
        return result.to_wire()

    wire = await asyncio.to_thread(run)
    if wire.get("alreadyImported"):
        slot = await registry.select(str(wire["sessionId"]), IMPORT_SESSION)
        server.run_task(ask_about_outside_files(server, slot), f"outside files of {slot.session.id}")
        async with slot.lock:
            session = slot.session
            usage = await asyncio.to_thread(session.usage)
        title = session.title or slot.first_request or ""
        return {**wire, "title": title, "messages": len(session.messages), "tokens": usage.total,
                "problems": [], "repairs": []}  # fmt: skip
    slot = await registry.select(str(wire["sessionId"]), IMPORT_SESSION)  # loaded like any saved session; now current
    server.run_task(ask_about_outside_files(server, slot), f"outside files of {slot.session.id}")
    return wire
