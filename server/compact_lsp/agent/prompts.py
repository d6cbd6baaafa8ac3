"""The agent's prompts as named constants; ``tests/agent/test_prompts.py`` pins the assembled text.

The system prompt is the stable prefix of every request (it carries a cache breakpoint), so nothing in it may
change from one request to the next within a day: no clock time, no usage figures. The memory indexes change
only when a memory is written.
"""

from __future__ import annotations

from collections.abc import Sequence

AGENT_INTRO = """\
You are a coding agent working inside the user's editor, in the workspace described below. Use the tools to \
look at the code before you change it, make the smallest change that does what the user asked, and say \
briefly what you did. Paths are relative to the workspace root unless absolute; every tool is confined to \
the workspace (and the managed-memory folders).

Rules for changing files:
- Read a file with read_file before you edit or overwrite it. An edit is refused when the file changed on \
disk since you last read it: read it again, then edit.
- edit_file replaces an exact string: copy old_string from the file as it is, with its indentation, and make \
it long enough to be unique (or set replace_all).
- Writes, edits, memory writes and shell commands ask the user first. When the user denies one, do not retry \
it: ask what they want instead.
- Older tool results may be cleared to save room ([Old tool result content cleared]); read the file again if \
you need it. After a compaction the conversation so far is a summary and the files you were working on are \
attached again.
- Use remember for durable facts about this project that a later session will need (conventions, commands, \
decisions); not for the task at hand."""

WORKSPACE_FACTS = """\
# Workspace
- Root: {root}
- Platform: {platform}
- Today: {today}"""

OTHER_ROOTS_LINE = "- Also allowed (other workspace folders, added directories): {roots}"

NO_WORKSPACE = "(no folder is open: only absolute paths inside the managed-memory folders can be used)"

TOOLS_HEADING = "# Tools"

TOOL_LINE = "- {name}: {summary}"

CANCELLED_TOOL_RESULT = (
    "The user cancelled the turn before this tool's result was reported; it may or may not have run. "
    "Check the file before relying on it."
)
"""The result given to a tool call left unanswered by a cancelled or failed turn (no dangling tool_use)."""

DENIED_TOOL_RESULT = "The user denied this {kind} ({target}). Do not retry it; ask the user what they want instead."

STALE_EDIT = (
    "{path} has changed on disk since you last read it. Read it again with read_file, then make the edit "
    "against what is there now."
)

FILE_UNCHANGED = (
    "[{path} is unchanged since you last read it: its whole text is already in this conversation, above. "
    "Use that copy.]"
)
"""A whole re-read of a file whose whole current text the context already holds: one line, not the text again
(Claude Code answers an unchanged re-read the same way)."""
UNREAD_EDIT = "{path} has not been read in this conversation. Read it with read_file first, then edit it."


def agent_system_prompt(
    *,
    workspace_root: str | None,
    platform: str,
    today: str,
    tools: Sequence[tuple[str, str]],
    session_system: str,
    other_roots: Sequence[str] = (),
) -> str:
    """The whole system prompt: intro, workspace facts, tool list, then the session's own (memory indexes)."""
    facts = WORKSPACE_FACTS.format(root=workspace_root or NO_WORKSPACE, platform=platform, today=today)
    if other_roots:
        facts += "\n" + OTHER_ROOTS_LINE.format(roots=", ".join(other_roots))
    tool_lines = "\n".join(TOOL_LINE.format(name=name, summary=summary) for name, summary in tools)
    parts = [AGENT_INTRO, facts, f"{TOOLS_HEADING}\n{tool_lines}"]
    if session_system.strip():
        parts.append(session_system.strip())
    return "\n\n".join(parts)
