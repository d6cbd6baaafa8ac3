"""compact-lsp: a language server that keeps an in-editor AI agent's context window healthy."""

from __future__ import annotations

__version__ = "0.1.0"

PROTOCOL_VERSION = 1
"""The version of docs/protocol.md, in `initialize`'s `capabilities.experimental.compactLsp.protocolVersion`.

Raised when a method, param or result changes incompatibly; clients compare it with the one they were built for."""
