"""Claude Code's interactive TUI, driven in tmux as a user drives it, with our hook: /compact typed at the prompt,
alone or after Claude Code compacted by itself.

In the TUI the same scripted turn re-attaches a different five files each run (measured: never print mode's five
most recent), so the hook sends none of the files Claude Code may have put back and names them instead. Asserted
from the transcript and the stub: every file the agent read reached the model (whole from Claude Code, or named by
the hook with what to do), the hook repeats at most 10% of its characters, and its context arrives whole.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from tests.support.messages_api_stub import reply, tool_call
from tests.support.tmux_cli import tmux_missing

from .claude_cli import ClaudeCode, is_compaction, request_text, trail
from .conftest import compacting_by_itself, install_hook, source
from .tui import ClaudeCodeTui

pytestmark = pytest.mark.skipif(tmux_missing() is not None, reason=str(tmux_missing()))

NAMES = ("NOTES.md", "_abnf.py", "_util.py", "_writers.py", "_readers.py", "_state.py", "_headers.py", "_events.py")
READ_ORDER = (
    "_state.py",
    "_headers.py",
    "_events.py",
    "NOTES.md",
    "_abnf.py",
    "_util.py",
    "_writers.py",
    "_readers.py",
)
HOOK_LEAD = "SessionStart hook additional context: "
COMPACTED = "Compacted (ctrl+o"
"""What the TUI shows under ``/compact`` once it compacted."""
FILE_BLOCK = re.compile(r'<file path="([^"]+)"[^>]*>.*?</file>', re.S)
CHOICE = re.compile(r"<claude-code-choice>(.*?)</claude-code-choice>", re.S)


def test_in_the_tui_no_file_is_lost_and_the_hook_repeats_little(claude_code: ClaudeCode) -> None:
    cc, project = claude_code, claude_code.project
    for name in NAMES:
        (project / name).write_text(source(name.strip("_").split(".")[0], 200))
    install_hook(cc)
    cc.push(*[tool_call("Read", {"file_path": str(project / n)}) for n in READ_ORDER], reply("Read them all."))
    tui = ClaudeCodeTui(cc)
    try:
        tui.start()
        tui.type("Read the modules")
        tui.wait_for("the turn's end", lambda: "Read them all." in json.dumps(tui.transcript_records()), 120)
        tui.type("/compact")
        tui.wait_for("the compaction and its hook", lambda: len(_hooks(tui.transcript_records())) == 1, 120)
        compaction = next(i for i, r in enumerate(cc.model_requests()) if is_compaction(r.body))
        cc.push(reply("Continuing."))
        tui.wait_for("the compaction shown", lambda: COMPACTED in tui.screen(), 30)
        tui.type("Go on")
        tui.wait_for("the next request", lambda: len(cc.model_requests()) > compaction + 1, 120)
        records = tui.transcript_records()
    finally:
        tui.stop()
    assert {r.get("entrypoint") for r in records if r.get("type") == "user"} == {"cli"}
    at = next(i for i, r in enumerate(records) if r.get("subtype") == "compact_boundary")
    theirs = {os.path.basename(str(r["attachment"]["filename"])) for r in records[at:]
              if r.get("type") == "attachment" and r["attachment"].get("type") == "file"}  # fmt: skip
    (context,) = _hooks(records)
    ours = {m.group(1) for m in FILE_BLOCK.finditer(context)}
    choice = CHOICE.search(context)
    named = {Path(p.strip()).name for p in choice.group(1).split(":", 1)[-1].split(",")} if choice else set()
    assert not set(NAMES) - theirs - ours - named, "a file the agent read reached the model from neither side"
    repeated = sum(len(m.group(0)) for m in FILE_BLOCK.finditer(context) if m.group(1) in theirs)
    assert repeated <= 0.1 * len(context), f"the hook repeated {repeated} of its {len(context)} characters"
    first = request_text(cc.model_requests()[compaction + 1].body)
    assert HOOK_LEAD + context in first


def test_in_the_tui_a_compact_after_an_automatic_one_gets_the_window_since(claude_code: ClaudeCode) -> None:
    """Claude Code compacts by itself mid-turn (the stub reports 990,000 input tokens of its 1,000,000 window), the
    turn goes on, then the user types ``/compact`` and one more turn: each hook's context reaches the model in the
    first request after its compaction, nothing of ours before the first, and the typed one's trail is what
    followed the automatic boundary."""
    cc = claude_code
    compacting_by_itself(cc)
    tui = ClaudeCodeTui(cc)
    try:
        tui.start()
        tui.type("Read the four modules")
        tui.wait_for("the turn's end", lambda: "Read all four." in json.dumps(tui.transcript_records()), 120)
        shown = tui.tmux.history().count(COMPACTED)
        tui.type("/compact")
        tui.wait_for("the typed compaction's hook", lambda: len(_hooks(tui.transcript_records())) == 2, 120)
        tui.wait_for("the compaction shown", lambda: tui.tmux.history().count(COMPACTED) > shown, 30)
        cc.push(reply("Continuing."))
        tui.type("Go on")
        tui.wait_for("the next turn's end", lambda: "Continuing." in json.dumps(tui.transcript_records()), 120)
        records = tui.transcript_records()
    finally:
        tui.stop()
    assert cc.stub.refused == []
    triggers = [r["compactMetadata"]["trigger"] for r in records if r.get("subtype") == "compact_boundary"]
    assert triggers == ["auto", "manual"], triggers
    auto, manual = _hooks(records)
    assert {"c.py", "d.py"} <= trail(manual), trail(manual)
    assert "a.py" not in trail(manual), "the typed compaction's hook named a file only the window before used"
    requests = cc.model_requests()
    at = [i for i, r in enumerate(requests) if is_compaction(r.body)]
    assert len(at) == 2
    assert not any(HOOK_LEAD in request_text(r.body) for r in requests[: at[0]])
    for n, context in zip(at, (auto, manual), strict=True):
        assert HOOK_LEAD + context in request_text(requests[n + 1].body), "a hook's context missed the next request"


def _hooks(records: list[dict[str, object]]) -> list[str]:
    """Our hook's additionalContext at each compaction of the transcript, in order."""
    found = []
    for r in records:
        attachment = r.get("attachment")
        if isinstance(attachment, dict) and attachment.get("hookName") == "SessionStart:compact":
            out = json.loads(str(attachment.get("stdout") or "{}"))
            found.append(str(out.get("hookSpecificOutput", {}).get("additionalContext", "")))
    return found
