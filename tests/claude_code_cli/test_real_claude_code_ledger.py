"""The ledger through the real Claude Code CLI (pinned in VERSION), offline against the loopback Messages API stub.

A session edits ``b.py``, reads ``notes.md`` and runs the project's tests, which fail (``./bin/pytest``, a script
that prints a failing test and exits 1: Claude Code runs it for real); someone else then changes ``notes.md``. The
user compacts with our hook installed and asks one more question. The first request Claude Code sends the model
after the compaction is read back from the stub: the ledger block must be in it, with the edited file's lines added
and removed, the stale read and the last test command's true exit status and failing test.
"""

from __future__ import annotations

import re

from tests.support.messages_api_stub import reply, tool_call

from compact_lsp.engine.compaction.ledger import CLOSE_TAG, OPEN_TAG

from .claude_cli import ClaudeCode, is_compaction, request_text
from .conftest import install_hook, source

FAILING_TESTS = """#!/bin/sh
echo "============================= test session starts =============================="
echo "FAILED tests/test_b.py::test_b3 - assert 3 == 33"
echo "1 failed, 4 passed in 0.02s"
exit 1
"""
LEDGER = re.compile(re.escape(OPEN_TAG) + r".*?" + re.escape(CLOSE_TAG), re.S)


def test_after_a_real_compaction_the_ledger_reaches_the_model(claude_code: ClaudeCode) -> None:
    cc, p = claude_code, claude_code.project
    (p / "b.py").write_text(source("b", 20))
    (p / "notes.md").write_text("# Notes\n\nb3 must return 33.\n")
    (p / "bin").mkdir()
    (p / "bin" / "pytest").write_text(FAILING_TESTS)
    (p / "bin" / "pytest").chmod(0o755)
    edit = {"file_path": str(p / "b.py"), "old_string": "return 3  # b", "new_string": "return 33  # b"}
    cc.push(
        tool_call("Read", {"file_path": str(p / "b.py")}),
        tool_call("Edit", edit),
        tool_call("Read", {"file_path": str(p / "notes.md")}),
        tool_call("Bash", {"command": "./bin/pytest -q", "description": "Run the tests"}),
        reply("b3 returns 33 now, but tests/test_b.py::test_b3 still fails."),
    )
    session_id = cc.run("Make b3 return 33 and run the tests")["session_id"]
    assert "return 33  # b line 3" in (p / "b.py").read_text()  # Claude Code's own Edit ran
    (p / "notes.md").write_text("# Notes\n\nb3 must return 33.\nReviewed by someone else.\n")
    install_hook(cc)
    n = len(cc.model_requests())
    cc.compact(session_id)
    assert sum(is_compaction(r.body) for r in cc.after(n)) == 1, "Claude Code's /compact sent no compaction request"
    m = len(cc.model_requests())
    cc.push(reply("Continuing from the compacted context."))
    cc.run("What is left to do?", resume=session_id)
    first = request_text(cc.after(m)[0].body)
    blocks = LEDGER.findall(first)
    assert len(blocks) == 1, f"the ledger did not reach the model once: {first[-3000:]}"
    ledger = blocks[0]
    lines = ledger.splitlines()
    assert "Last test: `./bin/pytest -q` — exit 1: FAILED tests/test_b.py::test_b3 - assert 3 == 33" in lines, ledger
    assert "- b.py: +1 −1" in lines, ledger
    size = len((p / "notes.md").read_bytes())
    assert f"- notes.md: now {size:,} bytes" in lines, ledger
    print(f"ledger block in the recorded request: {len(ledger)} characters\n{ledger}")
