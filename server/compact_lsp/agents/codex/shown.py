"""Codex's rollouts as its user saw them (agents/shown.py): the context Codex writes for the model as user or
developer messages (``<environment_context>``, ``<skills_instructions>``, ``<user_instructions>``, the AGENTS.md
text, permission and collaboration texts, our own hook's files) is plumbing; the summary its compaction hands the
next turn ("Another language model started…") is a compaction marker; ``exec_command`` shows its command line and
its output without Codex's header (chunk id, wall time, exit code)."""

from __future__ import annotations

import re
import shlex
from typing import Any

from compact_lsp.agents.codex.hook import HEADER
from compact_lsp.agents.shown_blocks import Block, Dropped, Handoff, ShownRecords, elements, elements_only
from compact_lsp.engine.codex.rollout import COMMAND_TOOLS, PATCH_TOOL

HANDOFF = "Another language model started to solve this problem and produced a summary of its thinking process."
HANDOFF_SUMMARY = "use the information in this summary to assist with your own analysis:"
_ELEMENT = elements(r"[a-zA-Z_][\w -]*?")
"""One element (``<environment_context>…</environment_context>``, ``<permissions instructions>…``). A text made
wholly of them is what Codex writes for the model (its developer item joins several: skills, tools, apps), never
what a user types."""
AGENTS_MD = "# AGENTS.md instructions for "
_OUTPUT_HEADER = re.compile(
    r"(?:Chunk ID: [^\n]*\n)?(?:Wall time: [^\n]*\n)?(?:Process exited with code -?\d+\n|Exit code: -?\d+\n)"
    r"(?:Wall time: [^\n]*\n)?(?:Original token count: \d+\n)?Output:\n?"
)
_PATCHED = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.MULTILINE)


def classify(text: str) -> Block | None:
    """What a user text block of a Codex rollout is, or None (the user's own words, or not Codex's)."""
    if text.startswith(HANDOFF):
        at = text.find(HANDOFF_SUMMARY)
        return Handoff(text[at + len(HANDOFF_SUMMARY) :].strip() if at >= 0 else "")
    if text.startswith((HEADER, AGENTS_MD)) or elements_only(text, _ELEMENT):
        return Dropped()
    return None


def shown_call(name: str, arguments: Any) -> dict[str, Any] | None:
    """A Codex tool call's input as the user saw it: the command line, the files a patch changes."""
    if not isinstance(arguments, dict):
        return None
    if name in COMMAND_TOOLS:
        command = arguments.get("cmd", arguments.get("command"))
        if isinstance(command, list) and all(isinstance(p, str) for p in command):
            # ["bash", "-lc", "cat x"]: the script; any other argv: as one line
            command = command[-1] if len(command) == 3 and command[1] in ("-lc", "-c") else shlex.join(command)
        return {"command": command} if isinstance(command, str) else None
    if name == PATCH_TOOL and isinstance(arguments.get("patch"), str):
        files = _PATCHED.findall(arguments["patch"])
        return {"path": ", ".join(f.strip() for f in files)} if files else None
    return None


def shown_result(output: str) -> str | None:
    """A command's output without Codex's header, or None when it has none."""
    header = _OUTPUT_HEADER.match(output)
    return output[header.end() :] if header else None


SHOWN = ShownRecords(classify=classify, call=shown_call, result=shown_result)
"""What agents/shown.py asks of this room."""
