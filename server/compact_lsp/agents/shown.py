"""An agent's session as its user saw it (``compact/transcript`` of a followed or imported session): what each
agent's transcript holds for the model or for itself is taken out or shown as what it was, so both editors show the
conversation and never the plumbing. Each agent's room knows its own records (``agents/<name>/shown.py``, its
description's ``shown_records``); this module walks the entries and asks every registered agent's, in turn, what a
block is.

A block is one of: the user's or the model's words (kept), plumbing (dropped: Claude Code's caveats, Codex's
environment context, skills and permission texts, our own hook's context), a shell command the user ran in the
agent's terminal (a tool row with its output, not user prose), a slash command (its name), or the summary an agent's
own compaction starts from (a ``compaction`` marker, never the user's words). Tool calls show their command rather
than the agent's JSON, and tool results their output without the agent's header. Only the display changes: the
journal, the model's view and every count stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from compact_lsp.agents import registered
from compact_lsp.agents.shown_blocks import Block, Command, CommandOutput, Handoff, SlashCommand, agent_marker

SLASH_COMMAND_TOOL = "SlashCommand"
"""The row of a slash command the user typed whose output the agent logged (Claude Code's ``/mcp``)."""


@dataclass(frozen=True)
class _Readers:
    """Every registered agent's readers of each kind, in the order they are registered (``ShownRecords``)."""

    classify: list[Callable[[str], Block | None]]
    calls: list[Callable[[str, Any], dict[str, Any] | None]]
    results: list[Callable[[str], str | None]]

    @classmethod
    def registered(cls) -> _Readers:
        records = [agent.shown_records for agent in registered.AGENTS]
        return cls([r.classify for r in records if r.classify is not None],
                   [r.call for r in records if r.call is not None],
                   [r.result for r in records if r.result is not None])  # fmt: skip

    def block(self, text: str) -> Block | None:
        """What a user text block is, as the first agent that knows it says (None: the user's words)."""
        return next((found for read in self.classify if (found := read(text)) is not None), None)


class _Shown:
    """The entries being built: message entries split where an agent's compaction falls."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.commands = 0
        self.open_command: str | None = None
        """The id of the last shell command the user ran, until its output comes."""
        self.open_slash: tuple[dict[str, Any], str] | None = None
        """The block showing the last slash command the user typed, and its line, until its output comes."""

    def message(self, at: Any, role: str, blocks: list[dict[str, Any]]) -> None:
        if blocks:
            self.entries.append({"kind": "message", "at": at, "message": {"role": role, "content": blocks}})

    def marker(self, at: Any, summary: str) -> None:
        """An agent's compaction found in its summary's text (an imported copy holds only that): its trigger and
        figures are not known, and none are made up."""
        self.entries.append(agent_marker(len(self.entries), at, None, None, None, summary or None))

    def user_text(self, found: Block | None, block: dict[str, Any], out: list[dict[str, Any]]) -> Handoff | None:
        """Add what a user text block is to ``out``; the handoff when it is the agent's compaction (the caller
        splits there)."""
        if found is None:
            out.append(block)
        elif isinstance(found, Command):
            self.open_slash = None
            out.append(self._call(found.tool, found.line))
        elif isinstance(found, CommandOutput):
            self._output(found, out)
        elif isinstance(found, SlashCommand):
            self.open_command = None
            self.open_slash = ({"type": "text", "text": found.line}, found.line)
            out.append(self.open_slash[0])
        elif isinstance(found, Handoff):
            return found
        return None  # Dropped: nothing shown

    def _call(self, tool: str, line: str) -> dict[str, Any]:
        self.commands += 1
        self.open_command = f"shown-command-{self.commands}"
        return {"type": "tool_use", "id": self.open_command, "name": tool, "input": {"command": line}}

    def _output(self, found: CommandOutput, out: list[dict[str, Any]]) -> None:
        """A command's output as the result of its row: a shell command's, or a slash command's (its line becomes
        a row, shown where it was); output of no command the user ran is shown as text, never with its tags."""
        if self.open_command is None and self.open_slash is not None:
            block, line = self.open_slash
            block.clear()  # already in its entry: it becomes the row in place
            block.update(self._call(SLASH_COMMAND_TOOL, line))
        self.open_slash = None
        if self.open_command is None:
            out.append({"type": "text", "text": found.text})
            return
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.open_command, "content": found.text}
        if found.failed:
            result["is_error"] = True
        out.append(result)
        self.open_command = None


def shown_entries(entries: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``compact/transcript`` entries of an agent's session as its user saw them (see the module doc)."""
    shown, readers = _Shown(), _Readers.registered()
    for entry in entries:
        message = entry.get("message") if entry.get("kind") == "message" else None
        if not isinstance(message, Mapping):
            shown.entries.append(dict(entry))
            continue
        role, at = str(message.get("role")), entry.get("at")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out: list[dict[str, Any]] = []
        for block in blocks if isinstance(blocks, list) else []:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and role == "user" and isinstance(block.get("text"), str):
                handoff = shown.user_text(readers.block(block["text"]), block, out)
                if handoff is not None:
                    shown.message(at, role, out)
                    out = []
                    shown.marker(at, handoff.summary)
            elif kind == "tool_use":
                out.append(_call(readers, block))
            elif kind == "tool_result":
                out.append(_result(readers, block))
            else:
                out.append(block)
        shown.message(at, role, out)
    return shown.entries


def _call(readers: _Readers, block: dict[str, Any]) -> dict[str, Any]:
    for shown_call in readers.calls:
        found = shown_call(str(block.get("name", "")), block.get("input"))
        if found is not None:
            return {**block, "input": found}
    return block


def _result(readers: _Readers, block: dict[str, Any]) -> dict[str, Any]:
    content = block.get("content")
    if not isinstance(content, str):
        return block
    for shown_result in readers.results:
        found = shown_result(content)
        if found is not None:
            return {**block, "content": found}
    return block
