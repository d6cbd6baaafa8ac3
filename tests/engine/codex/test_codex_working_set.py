"""A Codex session's working set: its reads, patches and commands as the ledger states them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compact_lsp.engine.codex.working_set import codex_working_set, patch_texts
from compact_lsp.engine.compaction.ledger import build_ledger
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader


def shell(call_id: str, cmd: str, output: str, code: int = 0) -> list[Message]:
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": "exec_command",
                                           "input": {"cmd": cmd}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                                      "content": f"Process exited with code {code}\nOutput:\n{output}"}]},
    ]  # fmt: skip


def patch(call_id: str, text: str) -> list[Message]:
    use: dict[str, Any] = {"type": "tool_use", "id": call_id, "name": "apply_patch", "input": {"patch": text}}
    done = "Exit code: 0\nOutput:\nSuccess. Updated the following files:\n"
    return [
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": done}]},
    ]


PATCH = """*** Begin Patch
*** Update File: app.py
@@ def f():
 a = 1
-b = 2
+b = 3
+c = 4
*** Add File: new.py
+x = 1
+y = 2
*** End Patch
"""


def test_patch_texts_reads_hunks_and_added_files() -> None:
    edits, added = patch_texts(PATCH)
    assert edits == {"app.py": [{"old_string": "a = 1\nb = 2", "new_string": "a = 1\nb = 3\nc = 4"}]}
    assert added == {"new.py": "x = 1\ny = 2\n"}


def test_a_codex_session_states_its_patches_stale_reads_and_last_test(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("a = 1\nb = 2\n")
    (tmp_path / "notes.md").write_text("one\ntwo\n")
    messages = [
        {"role": "user", "content": "fix it"},
        *shell("c1", "cat app.py", "a = 1\nb = 2\n"),
        *shell("c2", "nl -ba notes.md", "     1\tone\n     2\ttwo\n"),
        *shell("c3", "cat a.txt b.txt", "both\n"),
        *patch("p1", PATCH),
        *shell("c4", "pytest -q", "FAILED test_app.py::test_b - assert 3 == 2\n1 failed\n", code=1),
    ]
    (tmp_path / "app.py").write_text("a = 1\nb = 3\nc = 4\n")
    (tmp_path / "new.py").write_text("x = 1\ny = 2\n")
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("changed\n")
    reader = gated_reader(AllowedRoots.of(str(tmp_path)))
    before = build_ledger(codex_working_set(messages, str(tmp_path)), read_text=reader, cwd=str(tmp_path)).lines
    (tmp_path / "notes.md").write_text("one\ntwo\nthree\n")  # someone else, after Codex read it
    ledger = build_ledger(codex_working_set(messages, str(tmp_path)), read_text=reader, cwd=str(tmp_path)).lines
    assert "Last test: `pytest -q` — exit 1: FAILED test_app.py::test_b - assert 3 == 2" in ledger
    assert "- app.py: +2 −1" in ledger and "- new.py: created, 2 lines" in ledger
    assert "- notes.md: now 14 bytes" in ledger and not any("notes.md" in line for line in before)
    assert not any(".txt" in line for line in ledger)  # one read of two files shows neither alone
    assert json.dumps(messages).count("read_file") == 0  # the session's messages are left as they were
