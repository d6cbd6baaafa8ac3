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


def elements(names: str) -> re.Pattern[str]:
    """One element whose name matches ``names`` (a pattern), with blanks around it: ``elements_only`` reads them."""
    return re.compile(rf"\s*<({names})(?: [^>]*)?>.*?</\1>\s*", re.DOTALL)


def elements_only(text: str, element: re.Pattern[str]) -> bool:
    """Whether ``text`` is wholly made of ``element`` (``elements``): what an agent writes for its model in such
    elements, never what its user types to it."""
    at = 0
    while at < len(text):
        found = element.match(text, at)
        if found is None or found.end() == at:
            return False
        at = found.end()
    return at > 0


def shell_call(tool: str) -> Callable[[str, Any], dict[str, Any] | None]:
    """A call of the shell ``tool`` shown as its command line (its ``command`` argument) alone."""

    def shown_call(name: str, arguments: Any) -> dict[str, Any] | None:
        if name == tool and isinstance(arguments, dict) and isinstance(arguments.get("command"), str):
            return {"command": arguments["command"]}
        return None

    return shown_call


@dataclass(frozen=True)
class ShownRecords:
    """How an agent shows its own records (its room's ``shown.SHOWN``): agents/shown.py asks the agent whose log
    a chat is, never another's; None: it has none of that kind."""

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
