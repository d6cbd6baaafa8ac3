"""The agent's own settings: the ``agent`` object of the server settings (camelCase on the wire).

Parsed once where they enter, with the engine's settings (lsp/settings.py); the ranges are declared here on the
fields, the same way as the engine's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from compact_lsp.engine.setting_ranges import check_limits, limit, setting


@dataclass(frozen=True)
class AgentSettings:
    """The built-in chat agent (`compact/chat`)."""

    SECTION: ClassVar[str] = "agent"
    max_tokens: int = field(
        default=8_192, metadata=setting("Chat agent: output budget of each model response.", limit(1))
    )
    max_rounds: int = field(
        default=50, metadata=setting("Chat agent: model calls in one turn before it stops with `max_rounds`.", limit(1))
    )
    """A runaway tool loop stops here."""
    shell: bool = field(
        default=False,
        metadata=setting("Chat agent: offer the `run_shell_command` tool (each command still asks for permission)."),
    )
    max_retries: int = field(
        default=2,
        metadata=setting("Chat agent: retries of a failed API request (429, 5xx, connection errors).", limit(0)),
    )
    """The SDK's, with its backoff."""
    timeout: float = field(default=600.0, metadata=setting("Chat agent: seconds per API request.", limit(1)))

    def __post_init__(self) -> None:
        check_limits(self)
