"""Every feature of the server, registered from this one list (in order)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from compact_lsp.lsp.features import (
    admitted,
    agent_hooks,
    chat,
    commands,
    documents,
    importing,
    lifecycle,
    methods,
    pins,
    session_picker,
    timeline,
    working_set,
)

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

FEATURES: tuple[Callable[[CompactLanguageServer], None], ...] = (
    lifecycle.register,
    documents.register,
    methods.register,
    pins.register,
    admitted.register,
    session_picker.register,
    commands.register,
    agent_hooks.register,
    importing.register,
    chat.register,
    timeline.register,
    working_set.register,
)


def register_features(server: CompactLanguageServer) -> None:
    for register in FEATURES:
        register(server)
