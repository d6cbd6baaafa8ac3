"""The agent's own settings: the ``agent`` object of the server settings (camelCase on the wire).

Parsed where they enter (``from_wire``); an invalid value falls back to the default with a warning naming it,
so a typo never stops the agent from answering.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AgentSettings:
    max_tokens: int = 8_192
    """The output budget of each model response."""
    max_rounds: int = 50
    """Model calls in one turn before the loop stops with ``max_rounds`` (a runaway tool loop)."""
    shell: bool = False
    """Offer the run_shell_command tool (every command still asks the user)."""
    max_retries: int = 2
    """The SDK's retries of a failed request (429, 5xx, connection errors), with its backoff."""
    timeout: float = 600.0

    @classmethod
    def from_wire(cls, raw: Any) -> AgentSettings:
        """``{"maxTokens", "maxRounds", "shell", "maxRetries", "timeout"}``; unknown keys are ignored."""
        if not isinstance(raw, Mapping):
            return cls()
        values: dict[str, Any] = {}
        for key, name, kind, minimum in (
            ("maxTokens", "max_tokens", int, 1),
            ("maxRounds", "max_rounds", int, 1),
            ("maxRetries", "max_retries", int, 0),
            ("timeout", "timeout", float, 1),
        ):
            value = raw.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
                log.warning("agent.%s must be a number >= %s; using the default", key, minimum)
                continue
            values[name] = kind(value)
        shell = raw.get("shell")
        if isinstance(shell, bool):
            values["shell"] = shell
        elif shell is not None:
            log.warning("agent.shell must be true or false; the shell tool stays off")
        return cls(**values)
