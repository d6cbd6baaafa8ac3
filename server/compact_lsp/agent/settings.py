"""The agent's own settings: the ``agent`` object of the server settings (camelCase on the wire).

Parsed once where they enter, with the engine's settings (lsp/settings.py); the ranges are declared here on the
fields, the same way as the engine's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from compact_lsp.engine.setting_ranges import check_limits, limit


@dataclass(frozen=True)
class AgentSettings:
    SECTION: ClassVar[str] = "agent"
    max_tokens: int = field(default=8_192, metadata=limit(1))
    """The output budget of each model response."""
    max_rounds: int = field(default=50, metadata=limit(1))
    """Model calls in one turn before the loop stops with ``max_rounds`` (a runaway tool loop)."""
    shell: bool = False
    """Offer the run_shell_command tool (every command still asks the user)."""
    max_retries: int = field(default=2, metadata=limit(0))
    """The SDK's retries of a failed request (429, 5xx, connection errors), with its backoff."""
    timeout: float = field(default=600.0, metadata=limit(1))
    """Seconds per request."""

    def __post_init__(self) -> None:
        check_limits(self)
