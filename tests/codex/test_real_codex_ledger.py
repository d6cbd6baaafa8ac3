"""The ledger through the real Codex CLI (tests/codex/setup.sh) against the loopback Responses API stub.

One scripted ``codex exec`` turn reads ``notes.md`` and ``greeting.txt`` (``cat``), patches ``greeting.txt`` with
``apply_patch`` and runs the project's tests (``./bin/pytest``, a script that prints a failing test and exits 1:
Codex runs it for real); the stub reports a usage over the compaction limit, someone else changes ``notes.md`` while
Codex compacts, and our ``SessionStart`` hook runs. The first request after the compaction is read back from the
stub: the ledger block must be in it, with the patched file's lines added and removed, the stale read and the last
test command's true exit status and failing test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.codex.codex_cli import developer_texts, first_after_compaction, install, needs_codex, run_codex, turn_script
from tests.codex.codex_cli import write_config as write_codex_config
from tests.codex.responses_stub import ResponsesStub, apply_patch, exec_command, message

from compact_lsp.agents.codex.hook import HEADER
from compact_lsp.engine.compaction.ledger import CLOSE_TAG, OPEN_TAG

pytestmark = needs_codex

FAILING_TESTS = """#!/bin/sh
echo "FAILED tests/test_greeting.py::test_greeting - AssertionError: 'hello, world' != 'hi'"
echo "1 failed, 2 passed in 0.03s"
exit 1
"""
PATCH = "*** Begin Patch\n*** Update File: greeting.txt\n@@\n-hello\n+hello, world\n*** End Patch\n"
LEDGER = re.compile(re.escape(OPEN_TAG) + r".*?" + re.escape(CLOSE_TAG), re.S)


@pytest.fixture
def stub() -> Iterator[ResponsesStub]:
    server = ResponsesStub(lambda request: ([message("unused")], 1_000)).start()
    yield server
    server.stop()


def test_after_codex_compacts_the_ledger_reaches_the_model(stub: ResponsesStub, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "bin").mkdir(parents=True)
    (project / "notes.md").write_text("# Notes\n\nThe greeting must stay short.\n")
    (project / "greeting.txt").write_text("hello\n")
    (project / "bin" / "pytest").write_text(FAILING_TESTS)
    (project / "bin" / "pytest").chmod(0o755)
    codex_home = tmp_path / "home" / ".codex"
    codex_home.mkdir(parents=True)
    write_codex_config(codex_home, stub)
    install(codex_home, project)

    def someone_edits_notes() -> None:  # after Codex read it, before our hook runs
        (project / "notes.md").write_text("# Notes\n\nThe greeting must stay short. Reviewed today.\n")

    stub.script = turn_script(
        [
            exec_command("call_1", "cat notes.md"),
            exec_command("call_2", "cat greeting.txt"),
            apply_patch("call_3", PATCH),
            exec_command("call_4", "./bin/pytest -q"),
        ],
        on_compaction=someone_edits_notes,
    )
    done = run_codex(codex_home, project, "fix the greeting and run the tests")
    assert done.returncode == 0, done.stderr[-2000:]
    assert (project / "greeting.txt").read_text() == "hello, world\n"  # the real apply_patch ran

    ours = [t for t in developer_texts(first_after_compaction(stub)) if t.startswith(HEADER)]
    assert len(ours) == 1, "our hook's context did not reach the model after the compaction"
    blocks = LEDGER.findall(ours[0])
    assert len(blocks) == 1, f"no ledger in what reached the model: {ours[0][:3000]}"
    ledger = blocks[0]
    lines = ledger.splitlines()
    assert (
        "Last test: `./bin/pytest -q` — exit 1: "
        "FAILED tests/test_greeting.py::test_greeting - AssertionError: 'hello, world' != 'hi'"
    ) in lines, ledger
    assert "- greeting.txt: +1 −1" in lines, ledger
    size = len((project / "notes.md").read_bytes())
    assert f"- notes.md: now {size:,} bytes" in lines, ledger
    print(f"ledger block in the recorded request: {len(ledger)} characters\n{ledger}")
