"""How a turn of the agent ends: its result (``compact/chat``'s answer) and the cancellation that stops it."""

from __future__ import annotations

from dataclasses import dataclass

from compact_lsp.engine.conversation.usage import ContextUsage


class TurnCancelled(Exception):
    """The turn's cancel event was set."""


@dataclass(frozen=True)
class TurnResult:
    stop_reason: str
    """The model's last stop_reason, or ``cancelled``, ``error``, ``max_rounds``."""
    usage: ContextUsage
    rounds: int
    error: str | None = None
    error_kind: str | None = None
