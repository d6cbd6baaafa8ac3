"""`:Compact workingset` as a person meets it: real Neovim's TUI in tmux, the real server following a Claude Code
session that edited a file, read one that changed since and ran a failing test. Every assertion reads the screen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.editors.nvim_support.runner import nvim_executable
from tests.editors.nvim_support.tui import Screen, tmux_executable
from tests.editors.test_nvim_chat import PRESS_ENTER, User, shot
from tests.support.messages_api_stub import MessagesApiStub

from compact_lsp.agents.claude_code.live import project_directory

pytestmark = [
    pytest.mark.skipif(nvim_executable() is None, reason="Neovim is not installed"),
    pytest.mark.skipif(tmux_executable() is None, reason="tmux is not installed"),
    pytest.mark.timeout(300),
]

SESSION = "5b0c9d4e-0000-4aaa-8bbb-1234567890ab"


def transcript_lines(project: Path) -> list[dict[str, Any]]:
    """A Claude Code session: read and edit src/app.py, read notes.md, run the tests (they fail), answer."""
    app, notes = project / "src" / "app.py", project / "notes.md"
    steps: list[tuple[str, Any]] = [
        ("user", "Fix b in src/app.py and run the tests."),
        ("call", ("Read", {"file_path": str(app)}, "     1→a = 1\n     2→b = 2\n", False)),
        ("call", ("Edit", {"file_path": str(app), "old_string": "b = 2", "new_string": "b = 3\nc = 4"},
                  "The file has been updated.", False)),
        ("call", ("Read", {"file_path": str(notes)}, "     1→# notes\n", False)),
        ("call", ("Bash", {"command": "uv run pytest -q"},
                  "Exit code 1\nFAILED tests/test_app.py::test_b - assert 3 == 2\n1 failed", True)),
        ("text", "test_b still fails."),
    ]  # fmt: skip
    records: list[dict[str, Any]] = []
    parent: str | None = None

    def add(kind: str, message: dict[str, Any]) -> None:
        nonlocal parent
        uuid = f"00000000-0000-4000-8000-{len(records):012d}"
        records.append({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SESSION, "cwd": str(project),
                        "timestamp": f"2026-12-06T01:00:{len(records):02d}.000Z", "message": message})  # fmt: skip
        parent = uuid

    for n, (kind, what) in enumerate(steps):
        if kind == "user":
            add("user", {"role": "user", "content": what})
        elif kind == "text":
            add("assistant", {"id": f"msg_{n}", "role": "assistant", "model": "claude-sonnet-4-5",
                              "content": [{"type": "text", "text": what}]})  # fmt: skip
        else:
            tool, tool_input, result, failed = what
            add(
                "assistant",
                {
                    "id": f"msg_{n}",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": tool, "input": tool_input}],
                },
            )
            add("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}",
                                                      "content": result, "is_error": failed}]})  # fmt: skip
    return records


def select(screen: Screen, session_id: str) -> None:
    """:Compact session <id>, again until the server has read the transcript (it is listed a moment after start)."""
    for _ in range(60):
        screen.command("Compact session " + session_id)
        try:
            screen.wait_for("current session: ", timeout=1)
            return
        except AssertionError:
            screen.keys("Enter")
    raise AssertionError(f"{session_id} never became known")


def test_the_working_set_of_a_followed_session_opens_its_files_with_enter_and_gf(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        user = User(tmp_path, stub)
        project = user.project
        (project / "src").mkdir()
        (project / "src" / "app.py").write_text("a = 1\nb = 3\nc = 4\n")  # the edit, as Claude Code made it
        (project / "notes.md").write_text("# notes\nsomeone else's line\n")  # changed since it was read
        folder = Path(project_directory(str(tmp_path / "claude-projects"), str(project.resolve())))
        lines = transcript_lines(project.resolve())
        (folder / f"{SESSION}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            select(screen, "claude-" + SESSION)
            screen.command("Compact workingset")
            shown = screen.wait_for("Working set · 3 facts")
            assert "Last test: `uv run pytest -q` — exit 1: FAILED tests/test_app.py::test_b - assert 3 == 2" in shown
            assert "src/app.py: +2 −1" in shown, shown
            assert f"notes.md: now {len((project / 'notes.md').read_bytes())} bytes" in shown, shown
            assert f"compact-lsp://working-set/claude-{SESSION}" in shown, shown
            assert PRESS_ENTER not in shown, shown
            shot(screen, "nvim-working-set.png")
            screen.command("call search('src/app.py')")
            screen.keys("Enter")  # <CR> on the changed file's line opens it, in the window we came from
            shown = screen.wait_for(
                lambda s: "c = 4" in s and any(line.startswith("src/app.py ") for line in s.splitlines())
            )
            assert "Working set · 3 facts" in shown, shown  # the scratch buffer stays open beside it
            screen.command("wincmd j")
            screen.command("call search('notes.md')")
            screen.keys("g", "f")
            shown = screen.wait_for(
                lambda s: "someone else's line" in s and any(line.startswith("notes.md ") for line in s.splitlines())
            )
            shot(screen, "nvim-working-set-gf.png")
            screen.command("wincmd j")
            screen.command("setlocal modifiable? buftype?")
            shown = screen.wait_for("buftype=nofile")
            assert "nomodifiable" in shown, shown  # read-only: never a document to save
            screen.command("qa!")
