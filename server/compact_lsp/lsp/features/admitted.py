"""``compact/revokeFile``: take back a file admitted outside the work roots (engine/files/admitted_files.py)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.lsp.features.handlers import request_handler
from compact_lsp.lsp.protocol.answers import admitted_answer
from compact_lsp.lsp.protocol.params import as_object, required_str
from compact_lsp.lsp.work.in_session import in_session

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

REVOKE_FILE = "compact/revokeFile"


async def revoke_file(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    """Revoke ``path`` (as listed in ``admittedFiles``, or any path that resolves to it); the answer lists what
    stays admitted. A path that was not admitted changes nothing."""
    args = as_object(params, REVOKE_FILE)
    slot = await server.registry().get(required_str(args, "sessionId", REVOKE_FILE), REVOKE_FILE)
    path = required_str(args, "path", REVOKE_FILE)
    session = slot.session

    def change() -> list[dict[str, Any]]:
        real = real_path(os.path.join(session.workspace_root or os.sep, os.path.expanduser(path)))
        session.admit(real, admitted=False)
        return admitted_answer(session.admitted_files)

    return {"admittedFiles": await in_session(server, slot, change)}


def register(server: CompactLanguageServer) -> None:
    server.feature(REVOKE_FILE)(request_handler(server, revoke_file))
