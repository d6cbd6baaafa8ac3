"""How a turn of the agent ends: its result (``compact/chat``'s answer) and the cancellation that stops it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"stopReason": self.stop_reason, "usage": self.usage.to_wire()}
        if self.error is not None:
            wire["error"] = self.error
        if self.error_kind is not None:
            wire["errorKind"] = self.error_kind
        return wire
