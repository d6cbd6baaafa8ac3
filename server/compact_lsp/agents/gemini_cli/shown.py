"""Gemini CLI's session files as its user saw them (agents/shown.py): its session context for the model is plumbing,
the summary its compression starts the list from (``<state_snapshot>``) a compaction marker (an imported copy holds
it; the followed chat's reader marks it itself), and a shell command's result is shown without Gemini's frame.

Gemini CLI 0.61.0 (measured 2026-12-06 in its TUI, tests/fixtures/gemini_cli/shell-session.jsonl) gives the model a
``run_shell_command``'s result as ``<untrusted_context>``, then ``Output: …``, then ``Error: …``, ``Exit Code: N``,
``Signal: …``, ``Background PIDs: …`` and ``Process Group PGID: N`` as they apply; its TUI showed the user the
output. A ``read_file`` of part of a file is shown as its lines and which they are, without Gemini's note to its
model. Its call shows its command line as Qwen Code's does (``shown_blocks.shell_call``: Qwen Code is a fork of
Gemini CLI, and the tool and its ``command`` argument are named alike).
"""

from __future__ import annotations

import re

from compact_lsp.agents.gemini_cli.chat_log import SESSION_CONTEXT
from compact_lsp.agents.gemini_cli.transcript import SHELL_TOOL
from compact_lsp.agents.shown_blocks import STATE_SNAPSHOT, Block, Dropped, Handoff, ShownRecords, shell_call

_TRUNCATED = re.compile(
    r"\A\n?IMPORTANT: The file content has been truncated\.\nStatus: Showing lines (?P<lines>\d+-\d+) of (?P<total>\d+)"
    r" total lines\.\n(?:Action: [^\n]*\n)?\n--- FILE CONTENT \(truncated\) ---\n(?P<content>.*)\Z",
    re.DOTALL,
)
"""How Gemini CLI 0.61.0 gives its model part of a file (``read_file`` with a range, or a long file cut): its note to
the model (what it shows, how to read on), then the lines (tests/fixtures/gemini_cli/compressed-session.jsonl)."""
_FRAME = re.compile(
    r"\A<untrusted_context>\nOutput: (?P<output>.*?)(?:\nError: (?P<error>.*?))?(?:\nExit Code: -?\d+)?"
    r"(?:\nSignal: [^\n]*)?(?:\nBackground PIDs: [^\n]*)?(?:\nProcess Group PGID: \d+)?\n</untrusted_context>\Z",
    re.DOTALL,
)


def classify(text: str) -> Block | None:
    """What a user text block of a Gemini CLI session is, or None (the user's own words)."""
    snapshot = STATE_SNAPSHOT.match(text)
    if snapshot is not None:
        return Handoff(snapshot.group(1).strip())
    return Dropped() if text.startswith(SESSION_CONTEXT) else None


def shown_result(output: str) -> str | None:
    """A shell command's output (and its error) without Gemini's frame, a part of a file as its lines and which
    they are, or None when it has neither."""
    part = _TRUNCATED.match(output)
    if part is not None:
        return f"{part['content'].rstrip()}\n(lines {part['lines']} of {part['total']}: truncated by Gemini CLI)"
    frame = _FRAME.match(output)
    if frame is None:
        return None
    shown = "" if frame["output"] == "(empty)" else frame["output"]
    return "\n".join(part for part in (shown, frame["error"] or "") if part)


SHOWN = ShownRecords(classify=classify, call=shell_call(SHELL_TOOL), result=shown_result)
"""What agents/shown.py asks of this room."""
