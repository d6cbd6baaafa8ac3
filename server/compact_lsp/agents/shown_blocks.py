"""What a user text block of an agent's transcript is, as its user saw it (agents/shown.py): each agent's room says
which of its records a text is."""

from __future__ import annotations

from dataclasses import dataclass


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
