"""An agent's session as its user saw it (``compact/transcript`` of a followed or imported session): what each
agent's transcript holds for the model or for itself is taken out or shown as what it was, so both editors show the
conversation and never the plumbing. Each agent's room knows its own records (``agents/<name>/shown.py``, its
description's ``shown_records``); this module walks the entries and asks the agent whose log it is, and that agent
alone, what a block is: one agent's plumbing may be another's user's words (a Claude Code user may type
``<foo>bar</foo>``, the shape of Codex's context for its model).

A block is one of: the user's or the model's words (kept), plumbing (dropped: Claude Code's caveats, Codex's
environment context, skills and permission texts, our own hook's context), a shell command the user ran in the
agent's terminal (a tool row with its output, not user prose), a slash command (its name), or the summary an agent's
own compaction starts from (a ``compaction`` marker, never the user's words). Tool calls show their command rather
than the agent's JSON, and tool results their output without the agent's header. Only the display changes: the
journal, the model's view and every count stay as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from compact_lsp.agents import registered
from compact_lsp.agents.shown_blocks import (
    Block,
    Command,
    CommandOutput,
    Handoff,
    ShownRecords,
    SlashCommand,
    agent_marker,
)

SLASH_COMMAND_TOOL = "SlashCommand"
"""The row of a slash command the user typed whose output the agent logged (Claude Code's ``/mcp``)."""


def chat_records(session_id: str, source: str | None) -> ShownRecords | None:
    """The rules a session's chat is shown with: a followed session's agent's (its ``source``), an imported copy's
    agent's (the one it came from); None: one of ours, shown as journalled."""
    agent = registered.agent_named(source or "") or registered.copied_from(session_id, source)
    return None if agent is None else agent.shown_records


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
        figures are not in the text, and none are made up (``with_last_figures`` adds what the import kept)."""
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


def shown_entries(entries: Iterable[Mapping[str, Any]], records: ShownRecords) -> list[dict[str, Any]]:
    """``compact/transcript`` entries of an agent's session as its user saw them, by its agent's ``records`` (see
    the module doc)."""
    shown = _Shown()
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
                found = records.classify(block["text"]) if records.classify is not None else None
                handoff = shown.user_text(found, block, out)
                if handoff is not None:
                    shown.message(at, role, out)
                    out = []
                    shown.marker(at, handoff.summary)
            elif kind == "tool_use":
                out.append(_call(records, block))
            elif kind == "tool_result":
                out.append(_result(records, block))
            else:
                out.append(block)
        shown.message(at, role, out)
    return shown.entries


def with_last_figures(entries: list[dict[str, Any]], figures: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """An imported copy's entries with what its agent's log recorded of its last compaction (``trigger``,
    ``tokensBefore``, ``tokensAfter``) on the marker of that compaction, its last agent marker (None: not
    recorded, the marker keeps none)."""
    if figures is None:
        return entries
    markers = [e for e in entries if e.get("kind") == "compaction" and e.get("summarizer") == "agent"]
    if markers:
        markers[-1].update(figures)
    return entries


def _call(records: ShownRecords, block: dict[str, Any]) -> dict[str, Any]:
    found = records.call(str(block.get("name", "")), block.get("input")) if records.call is not None else None
    return block if found is None else {**block, "input": found}


def _result(records: ShownRecords, block: dict[str, Any]) -> dict[str, Any]:
    content = block.get("content")
    found = records.result(content) if records.result is not None and isinstance(content, str) else None
    return block if found is None else {**block, "content": found}
