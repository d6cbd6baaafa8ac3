"""Qwen Code's transcripts as its user saw them (agents/shown.py): the summary its compaction starts the history
from (``<state_snapshot>…</state_snapshot>`` then "Resume the prior task…") is a compaction marker; the list of
files it re-read or named after it ("The following files were recently accessed before context was compacted…")
is plumbing; ``run_shell_command`` shows its command line and its output without Qwen's frame (``Command:``,
``Directory:``, ``Output:``, ``Error:``, ``Exit Code:``). Measured on Qwen Code 0.24.4 (docs/qwen-code.md)."""

from __future__ import annotations

import re

from compact_lsp.agents.shown_blocks import STATE_SNAPSHOT, Block, Dropped, Handoff, ShownRecords, shell_call

RESTORED = "The following files were recently accessed before context was compacted."
SHELL_TOOL = "run_shell_command"
_FRAME = re.compile(
    r"\ACommand: [^\n]*\nDirectory: [^\n]*\nOutput: (?P<output>.*)\nError: (?P<error>.*?)\nExit Code: (?P<code>-?\d+)",
    re.DOTALL,
)


def classify(text: str) -> Block | None:
    """What a user text block of a Qwen Code transcript is, or None (the user's own words, or not Qwen's)."""
    snapshot = STATE_SNAPSHOT.match(text)
    if snapshot is not None:
        return Handoff(snapshot.group(1).strip())
    if text.startswith(RESTORED):
        return Dropped()
    return None


def shown_result(output: str) -> str | None:
    """A shell command's output without Qwen's frame (its error output after it), or None when it has none."""
    frame = _FRAME.match(output)
    if frame is None:
        return None
    shown = "" if frame["output"] == "(empty)" else frame["output"]
    error = "" if frame["error"] == "(none)" else frame["error"]
    return "\n".join(part for part in (shown, error) if part)


SHOWN = ShownRecords(classify=classify, call=shell_call(SHELL_TOOL), result=shown_result)
"""What agents/shown.py asks of this room."""
