"""Claude Code's interactive TUI, driven in tmux as a user drives it, with our hook: /compact typed at the prompt.

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

from .claude_cli import ClaudeCode, is_compaction, request_text
from .conftest import install_hook, source
from .tui import ClaudeCodeTui

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
FILE_BLOCK = re.compile(r'<file path="([^"]+)"[^>]*>.*?</file>', re.S)
CHOICE = re.compile(r"<claude-code-choice>(.*?)</claude-code-choice>", re.S)


@pytest.mark.skipif(tmux_missing() is not None, reason=str(tmux_missing()))
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
        tui.wait_for("the compaction and its hook", lambda: _hook(tui.transcript_records()) is not None, 120)
        compaction = next(i for i, r in enumerate(cc.model_requests()) if is_compaction(r.body))
        cc.push(reply("Continuing."))
        tui.wait_for("the compaction shown", lambda: "Compacted (ctrl+o" in tui.screen(), 30)
        tui.type("Go on")
        tui.wait_for("the next request", lambda: len(cc.model_requests()) > compaction + 1, 120)
        records = tui.transcript_records()
    finally:
        tui.stop()
    assert {r.get("entrypoint") for r in records if r.get("type") == "user"} == {"cli"}
    at = next(i for i, r in enumerate(records) if r.get("subtype") == "compact_boundary")
    theirs = {os.path.basename(str(r["attachment"]["filename"])) for r in records[at:]
              if r.get("type") == "attachment" and r["attachment"].get("type") == "file"}  # fmt: skip
    context = _hook(records) or ""
    ours = {m.group(1) for m in FILE_BLOCK.finditer(context)}
    choice = CHOICE.search(context)
    named = {Path(p.strip()).name for p in choice.group(1).split(":", 1)[-1].split(",")} if choice else set()
    assert not set(NAMES) - theirs - ours - named, "a file the agent read reached the model from neither side"
    repeated = sum(len(m.group(0)) for m in FILE_BLOCK.finditer(context) if m.group(1) in theirs)
    assert repeated <= 0.1 * len(context), f"the hook repeated {repeated} of its {len(context)} characters"
    first = request_text(cc.model_requests()[compaction + 1].body)
    assert "SessionStart hook additional context: " + context in first


def _hook(records: list[dict[str, object]]) -> str | None:
    for r in records:
        attachment = r.get("attachment")
        if isinstance(attachment, dict) and attachment.get("hookName") == "SessionStart:compact":
            out = json.loads(str(attachment.get("stdout") or "{}"))
            return str(out.get("hookSpecificOutput", {}).get("additionalContext", ""))
    return None
