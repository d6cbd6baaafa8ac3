"""The ledger's rows (what the editors show) and credential-class files in it."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.engine.compaction.test_ledger import call, numbered

from compact_lsp.engine.compaction.ledger import LedgerRow, ledger_view
from compact_lsp.engine.files.command_runs import names_credential_file
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.working_set import WorkingSet


def view_of(root: Path, messages: list, **kwargs: object) -> tuple[list[LedgerRow], str]:
    ws = WorkingSet(cwd=str(root))
    ws.observe(messages)
    view = ledger_view(ws, read_text=gated_reader(AllowedRoots.of(str(root))), cwd=str(root), **kwargs)  # type: ignore[arg-type]
    return view.rows, view.ledger.text


def test_every_line_of_the_ledger_is_a_row_with_its_figures(tmp_path: Path) -> None:
    app, notes = tmp_path / "src" / "app.py", tmp_path / "notes.md"
    app.parent.mkdir()
    app.write_text("a = 1\nb = 2\n")
    notes.write_text("# notes\n")
    messages = [
        *call("Read", numbered("a = 1\nb = 2\n"), file_path=str(app)),
        *call("Edit", "ok", file_path=str(app), old_string="b = 2", new_string="b = 3\nc = 4"),
        *call("Read", numbered("# notes\n"), file_path=str(notes)),
        *call(
            "Bash", "Exit code 2\nFAILED tests/test_app.py::test_b - assert 3 == 2", is_error=True, command="pytest -q"
        ),
    ]
    app.write_text("a = 1\nb = 3\nc = 4\n")
    notes.write_text("# notes\nchanged by someone\n")
    rows, text = view_of(tmp_path, messages, plan_text="- [ ] fix test_b\n- [x] read app.py\n")
    assert [row.kind for row in rows] == ["command", "edited", "stale", "plan"]
    test, edited, stale, plan = rows
    assert (test.label, test.run and test.run.status, test.run and test.run.decisive) == (
        "Last test", "exit 2", "FAILED tests/test_app.py::test_b - assert 3 == 2")  # fmt: skip
    assert (edited.path, edited.shown, edited.added, edited.removed, edited.change) == (
        str(app), "src/app.py", 2, 1, "edited")  # fmt: skip
    assert (stale.path, stale.shown, stale.size, stale.outside) == (str(notes), "notes.md", 27, True)
    assert plan.line == "- [ ] fix test_b" and plan.path is None
    for row in rows:
        assert row.line in text.splitlines(), f"{row.line!r} is not what the model reads"


@pytest.mark.parametrize(
    ("command", "names"),
    [
        pytest.param("cat .env", True, id="dotenv"),
        pytest.param("ssh -i ~/.ssh/id_rsa host true", True, id="ssh-key"),
        pytest.param("curl --cert=client.pem https://x", True, id="option-value"),
        pytest.param("cat ~/.codex/auth.json", True, id="codex-login"),
        pytest.param('grep TOKEN "config.env', True, id="unparsed-line"),
        pytest.param("uv run pytest -q tests/test_env.py", False, id="a-test-about-env"),
        pytest.param("git status", False, id="plain"),
    ],
)
def test_a_command_naming_a_credential_file(command: str, names: bool) -> None:
    assert names_credential_file(command) is names


def test_a_credential_file_is_named_never_shown(tmp_path: Path) -> None:
    """Its path may be named (the agent itself changed or read it: the log says so); no line carries what it holds:
    no size or count read from it now, no output of a command that names it."""
    env = tmp_path / ".env"
    env.write_text("API_KEY=old\n")
    messages = [
        *call("Read", numbered("API_KEY=old\n"), file_path=str(env)),
        *call("Edit", "ok", file_path=str(env), old_string="API_KEY=old", new_string="API_KEY=sk-live-123"),
        *call("Bash", "API_KEY=sk-live-123", command="cat .env"),
    ]
    env.write_text("API_KEY=sk-live-123\nSECOND=sk-live-456\n")  # changed since, by someone else
    rows, text = view_of(tmp_path, messages)
    assert "sk-live" not in text and not any("sk-live" in row.line for row in rows)
    command, edited = rows
    assert command.line == "Last command: `cat .env` — exit 0" and command.run and command.run.decisive == ""
    assert edited.line == "- .env: +1 −1 by your edits"  # the log's figures; the disk is not read
    assert edited.outside is False and edited.size is None
    read_only = [*call("Read", numbered("API_KEY=old\n"), file_path=str(tmp_path / "prod.env"))]
    (tmp_path / "prod.env").write_text("API_KEY=new\n")
    assert view_of(tmp_path, read_only)[0] == []  # a stale read of one is not checked, so not listed
