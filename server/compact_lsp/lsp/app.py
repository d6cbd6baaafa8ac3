"""The server put together: a ``CompactLanguageServer`` with every feature registered, and how it is served.

``lsp/server.py`` holds the state and nothing that uses it; the features (lsp/features/) and the parts that work on
the server (notifications, compaction, following) sit above it, and this module wires them, so no module of the
adapter imports one that imports it back.
"""

from __future__ import annotations

import logging
import sys

from compact_lsp.engine.settings import EngineSettings
from compact_lsp.lsp.features import register_features
from compact_lsp.lsp.framing import serve_stdio
from compact_lsp.lsp.protocol.errors import quiet_refusals
from compact_lsp.lsp.server import CompactLanguageServer
from compact_lsp.runtime.io_threads import SWITCH_INTERVAL
from compact_lsp.runtime.malloc_arena import share_malloc_arena

log = logging.getLogger(__name__)


def create_server(settings: EngineSettings | None = None) -> CompactLanguageServer:
    """A server with every feature registered."""
    server = CompactLanguageServer(settings or EngineSettings())
    register_features(server)
    quiet_refusals()
    return server


def run(tcp: str | None = None) -> int:
    """Serve on stdio, or on ``HOST:PORT`` for debugging; returns the exit code."""
    share_malloc_arena()  # before the server starts a thread
    server = create_server()
    sys.setswitchinterval(SWITCH_INTERVAL)
    if tcp:
        host, _, port = tcp.rpartition(":")
        if not port.isdigit():
            log.error("--tcp expects HOST:PORT, got %r", tcp)
            return 2
        server.start_tcp(host or "127.0.0.1", int(port))
        return 0
    code = serve_stdio(server)
    if server.sessions is not None:  # the client went without a shutdown: still leave the index current
        server.sessions.index.flush()
    return code
