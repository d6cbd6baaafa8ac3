"""The ledger: what the agent changed, what went stale and what it last ran, from the log and the disk."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.compaction.ledger import (
    CHANGED_HEADING,
    LEDGER_CHARS,
    PACKED_PREFIX,
    build_ledger,
    grouped,
    packed_paths,
)
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.files.command_runs import command_kind, decisive_line
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.working_set import WorkingSet

_ids = itertools.count(1)


def call(name: str, result: Any, *, is_error: bool = False, **tool_input: Any) -> list[Message]:
    """One tool call and its result, as two messages."""
    use_id = f"t{next(_ids)}"
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": use_id, "content": result}
    if is_error:
        block["is_error"] = True
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": use_id, "name": name, "input": tool_input}]},
        {"role": "user", "content": [block]},
    ]


def numbered(text: str) -> str:
    return "".join(f"{n:6}→{line}\n" for n, line in enumerate(text.splitlines(), start=1))


def ledger_of(root: Path, messages: list[Message], **kwargs: Any) -> str:
    ws = WorkingSet(cwd=str(root))
    ws.observe(messages)
    return build_ledger(ws, read_text=gated_reader(AllowedRoots.of(str(root))), cwd=str(root), **kwargs).text


def test_a_session_of_edits_reads_and_runs_as_the_disk_says_now(tmp_path: Path) -> None:
    app, notes, new = tmp_path / "app.py", tmp_path / "notes.md", tmp_path / "new.py"
    app.write_text("a = 1\nb = 2\n")
    notes.write_text("# notes\n")
    messages = [
        *call("Read", numbered("a = 1\nb = 2\n"), file_path=str(app)),
        *call("Edit", "ok", file_path=str(app), old_string="b = 2", new_string="b = 3\nc = 4"),
        *call("Write", "File created successfully at: new.py", file_path="new.py", content="x\ny\n"),
        *call("Read", numbered("# notes\n"), file_path=str(notes)),
        *call(
            "Bash",
            "Exit code 1\n...\nFAILED tests/test_app.py::test_b - assert 3 == 2\n1 failed",
            is_error=True,
            command="uv run pytest -q",
        ),
        *call("Bash", "On branch main", command="git status"),
    ]
    app.write_text("a = 1\nb = 3\nc = 4\n")  # the edit, as the tool made it
    new.write_text("x\ny\n")
    notes.write_text("# notes\nchanged by someone\n")
    text = ledger_of(tmp_path, messages)
    lines = text.splitlines()
    assert lines[0] == "<working-set>" and lines[-1] == "</working-set>"
    assert "Last test: `uv run pytest -q` — exit 1: FAILED tests/test_app.py::test_b - assert 3 == 2" in lines
    assert "Last command: `git status` — exit 0: On branch main" in lines
    assert "- new.py: created, 2 lines" in lines
    assert "- app.py: +2 −1" in lines
    assert "- notes.md: now 27 bytes" in lines
    assert lines.index("- new.py: created, 2 lines") < lines.index("- app.py: +2 −1")
    assert len(text) <= LEDGER_CHARS
    app.write_text("a = 1\nb = 3\nc = 4\nd = 5\n")  # someone else, after the agent's edit
    again = ledger_of(tmp_path, messages)
    assert "- app.py: +3 −1; changed by someone else since your last change" in again
    assert again.index("app.py") < again.index("new.py")  # what must be read again comes first


def test_unreadable_statuses_yield_no_line(tmp_path: Path) -> None:
    messages = [
        *call("Bash", "Command running in background with ID: 3", command="npm test"),
        *call("Bash", "The user doesn't want to proceed with this tool use.", is_error=True, command="pytest"),
        *call("exec_command", "some output without a status", cmd="cargo test"),
        *call("Bash", "[Old tool result content cleared]", command="make"),
    ]
    assert ledger_of(tmp_path, messages) == ""


def test_a_read_that_did_not_change_and_a_file_outside_the_roots_say_nothing(tmp_path: Path) -> None:
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    (inside / "same.txt").write_text("same\n")
    (outside / "secret.txt").write_text("now different\n")
    messages = [
        *call("Read", numbered("same\n"), file_path=str(inside / "same.txt")),
        *call("Read", numbered("before\n"), file_path=str(outside / "secret.txt")),
        *call("Edit", "ok", file_path=str(outside / "secret.txt"), old_string="before", new_string="after"),
    ]
    ws = WorkingSet(cwd=str(inside))
    ws.observe(messages)
    ledger = build_ledger(ws, read_text=gated_reader(AllowedRoots.of(str(inside))), cwd=str(inside))
    assert ledger.lines == [
        CHANGED_HEADING,
        f"- {outside / 'secret.txt'}: +1 −1 by your edits",
    ]
    assert "now different" not in ledger.text


def test_the_cut_keeps_whole_lines_in_order_then_names_the_rest_on_one_line(tmp_path: Path) -> None:
    messages: list[Message] = []
    (tmp_path / "src").mkdir()
    for n in range(40):
        (tmp_path / f"src/module_{n:02}.py").write_text(f"n = {n}\n")
        messages += call("Write", "Created src", file_path=f"src/module_{n:02}.py", content=f"n = {n}\n")
    full = ledger_of(tmp_path, messages, max_chars=100_000).splitlines()
    cut = ledger_of(tmp_path, messages, max_chars=600)
    assert len(cut) <= 600
    lines = cut.splitlines()
    whole = [line for line in lines[3:-1] if not line.startswith(PACKED_PREFIX) and not line.endswith("not listed)")]
    assert whole and whole == full[3 : 3 + len(whole)]  # the most recent first, none skipped, none cut mid-line
    packed = next(line for line in lines if line.startswith(PACKED_PREFIX))
    named = packed_paths(packed)
    assert packed.startswith(f"{PACKED_PREFIX}src/{{module_") and named == [
        f"src/module_{n:02}.py" for n in range(39 - len(whole), 39 - len(whole) - len(named), -1)
    ]
    left = 40 - len(whole) - len(named)
    assert packed.endswith(f"(+{left} more)") and left > 0
    roomy = ledger_of(tmp_path, messages, max_chars=1_500).splitlines()  # all named: details, then the rest
    named = packed_paths(roomy[-2])
    assert len(roomy) - 5 + len(named) == 40 and roomy[-2].startswith(PACKED_PREFIX)


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        pytest.param("uv run pytest -x", "test", id="uv-pytest"),
        pytest.param("cd web && npm test", "test", id="npm-test"),
        pytest.param("FOO=1 .venv/bin/python -m pytest", "test", id="venv-module"),
        pytest.param("npm run build && npm test", "test", id="build-then-test"),
        pytest.param("cargo build --release", "build", id="cargo-build"),
        pytest.param("npx tsc --noEmit", "build", id="tsc"),
        pytest.param('ls | grep -E "(Makefile|webpack)"', None, id="words-in-quotes"),
        pytest.param("echo pytest", None, id="echo"),
        pytest.param("git status", None, id="git"),
    ],
)
def test_test_and_build_commands_by_their_program(command: str, kind: str | None) -> None:
    assert command_kind(command) == kind


FAILURES = {
    "pytest": ("collected 3\nFAILED tests/a.py::test_x - KeyError\n2 passed, 1 failed",
               "FAILED tests/a.py::test_x - KeyError"),
    "rustc": ("   Compiling x\nerror[E0308]: mismatched types\n --> src/main.rs:3:5\nerror: aborting",
              "error[E0308]: mismatched types"),
    "tsc": ("src/a.ts(3,1): error TS2345: Argument\nFound 1 error.", "src/a.ts(3,1): error TS2345: Argument"),
    "traceback": ('Traceback (most recent call last):\n  File "x", line 1\nImportError: cannot import name',
                  "ImportError: cannot import name"),
    "go-test": ("--- FAIL: TestParse (0.00s)\nFAIL\texample.com/x 0.01s", "--- FAIL: TestParse (0.00s)"),
}  # fmt: skip


@pytest.mark.parametrize(("output", "line"), [pytest.param(*pair, id=name) for name, pair in FAILURES.items()])
def test_the_decisive_line_of_a_failure(output: str, line: str) -> None:
    assert decisive_line(output, ok=False) == line


def test_a_packed_line_names_paths_by_folder_and_reads_back() -> None:
    names = ["src/a/x.py", "README.md", "src/a/y.py", "src/b/z.py", "src/b/w.py"]
    line = PACKED_PREFIX + grouped(names)
    assert line == f"{PACKED_PREFIX}src/a/{{x.py, y.py}}, README.md, src/b/{{z.py, w.py}}"
    assert sorted(packed_paths(line + " (+3 more)")) == sorted(names)
