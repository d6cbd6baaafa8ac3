"""What a user text block of an agent's transcript is, as its user saw it (agents/shown.py): each agent's room says
which of its records a text is (its ``ShownRecords``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

STATE_SNAPSHOT = re.compile(r"\A\s*<state_snapshot>(.*?)</state_snapshot>", re.DOTALL)
"""The summary Gemini CLI's compression writes, and Qwen Code's (a fork of it): its text is inside."""


@dataclass(frozen=True)
class Dropped:
    """Plumbing the user never saw as their words (the agent's context for the model, a caveat, a hook's text)."""


@dataclass(frozen=True)
class Command:
    """A shell command the user ran in the agent's terminal (Claude Code's ``!``)."""

    line: str
    tool: str = "Bash"


@dataclass(frozen=True)
class CommandOutput:
    """That command's output."""

    text: str
    failed: bool = False


@dataclass(frozen=True)
class SlashCommand:
    """A slash command the user typed (``/init``), as they typed it."""

    line: str


@dataclass(frozen=True)
class Handoff:
    """The summary an agent's own compaction starts from (Codex's "Another language model started…", Claude Code's
    "This session is being continued…")."""

    summary: str


Block = Dropped | Command | CommandOutput | SlashCommand | Handoff


@dataclass(frozen=True)
class ShownRecords:
    """How an agent shows its own records (its room's ``shown.SHOWN``): agents/shown.py asks every registered
    agent's in turn, the first answer wins; None: it has none of that kind."""

    classify: Callable[[str], Block | None] | None = None
    """What a user text block is (None: not one of its records)."""
    call: Callable[[str, Any], dict[str, Any] | None] | None = None
    """A tool call's input (tool name, input) shown by what it does (None: not one of its tools)."""
    result: Callable[[str], str | None] | None = None
    """A tool result's text without the agent's header (None: as it is)."""


def agent_marker(position: int, at: str | None, trigger: str | None, before: int | None, after: int | None,
                 summary: str | None) -> dict[str, Any]:  # fmt: skip
    """The ``compact/transcript`` marker of an agent's own compaction, with the trigger and figures its transcript
    recorded (None: not recorded; never a made-up 0 or "auto"), at entry ``position``."""
    return {
        "kind": "compaction", "at": at, "boundaryId": f"agent-{position}", "trigger": trigger, "summarizer": "agent",
        "fallback": False, "fallbackReason": None, "tokensBefore": before, "tokensAfter": after,
        "summary": summary,
    }  # fmt: skip
