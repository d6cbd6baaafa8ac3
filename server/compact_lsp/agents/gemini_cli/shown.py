"""Gemini CLI's session files as its user saw them (agents/shown.py): its session context for the model is plumbing,
the summary its compression starts the list from (``<state_snapshot>``) a compaction marker (an imported copy holds
it; the followed chat's reader marks it itself), and a shell command's result is shown without Gemini's frame.

Gemini CLI 0.61.0 (measured 2026-12-06 in its TUI, tests/fixtures/gemini_cli/shell-session.jsonl) gives the model a
``run_shell_command``'s result as ``<untrusted_context>``, then ``Output: …``, then ``Error: …``, ``Exit Code: N``,
``Signal: …``, ``Background PIDs: …`` and ``Process Group PGID: N`` as they apply; its TUI showed the user the
output. Its call shows its command line as Qwen Code's does (``shown_blocks.shell_call``: Qwen Code is a fork of
Gemini CLI, and the tool and its ``command`` argument are named alike).
"""

from __future__ import annotations

import re

from compact_lsp.agents.gemini_cli.chat_log import SESSION_CONTEXT
from compact_lsp.agents.gemini_cli.transcript import SHELL_TOOL
from compact_lsp.agents.shown_blocks import STATE_SNAPSHOT, Block, Dropped, Handoff, ShownRecords, shell_call

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
    """A shell command's output (and its error) without Gemini's frame, or None when it has none."""
    frame = _FRAME.match(output)
    if frame is None:
        return None
    shown = "" if frame["output"] == "(empty)" else frame["output"]
    return "\n".join(part for part in (shown, frame["error"] or "") if part)


SHOWN = ShownRecords(classify=classify, call=shell_call(SHELL_TOOL), result=shown_result)
"""What agents/shown.py asks of this room."""
