"""compact-lsp: a language server that keeps an in-editor AI agent's context window healthy."""

from __future__ import annotations

__version__ = "0.1.0"
