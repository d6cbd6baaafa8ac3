"""``compact/importSession``: a Claude Code session log becomes a managed session of this workspace."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from compact_lsp.companion.importing import import_into_store
from compact_lsp.engine.conversation.tokens import TiktokenCounter, load_encoding
from compact_lsp.lsp.errors import invalid_params, request_failed
from compact_lsp.lsp.handlers import request_handler
from compact_lsp.lsp.params import as_object, required_str
from compact_lsp.store.session_store import StoreError

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

IMPORT_SESSION = "compact/importSession"
MAX_LOG_BYTES = 512 * 1024 * 1024
"""Claude Code logs of real sessions stay far below this; a bigger file is refused rather than loaded whole."""


def register(server: CompactLanguageServer) -> None:
    server.feature(IMPORT_SESSION)(request_handler(server, import_session))


async def import_session(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    args = as_object(params, IMPORT_SESSION)
    path = os.path.expanduser(required_str(args, "path", IMPORT_SESSION))
    if not os.path.isabs(path) and server.workspace_root:
        path = os.path.join(server.workspace_root, path)
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
        except (ValueError, StoreError) as exc:
            raise request_failed(f"{IMPORT_SESSION}: {exc}") from None
        return result.to_wire()

    wire = await asyncio.to_thread(run)
    await registry.select(str(wire["sessionId"]), IMPORT_SESSION)  # loaded like any saved session; now current
    return wire
