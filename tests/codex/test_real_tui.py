"""Codex's interactive TUI, driven in tmux as a user drives it, with our hook: compactions typed and automatic.

The stub answers the user's turns from a script; Codex compacts by itself in the middle of the first turn (the usage
passes ``model_auto_compact_token_limit``), and again when the user types ``/compact`` after the next turn. Each
assertion is about what Codex sent to the stub: our context reached the model in the first request after each
compaction, as the files are on disk now, and nothing of it before.

Measured here (0.171.0): after ``/compact`` Codex runs the ``SessionStart`` hook when the next turn starts, not at
the compaction, so its context arrives with the user's next message. Without ``--dangerously-bypass-hook-trust``
the TUI asks for a review of a new or changed hook at start, records ``[hooks.state."<config>:session_start:<group
index>:<hook index>"] trusted_hash`` in the user's config once trusted, and asks again when the entry's command
changes (a reinstall from another Python names another launcher); ``codex exec`` skips it silently until then.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import site
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.codex.codex_cli import (
    CODEX,
    COMPACT_LIMIT,
    developer_texts,
    env_for,
    first_after_compaction,
    install,
    needs_codex,
    turn_script,
    write_config,
)
from tests.codex.responses_stub import Reply, Request, ResponsesStub, apply_patch, exec_command, is_compaction, message
from tests.codex.tui import CodexTui, is_title, stop_background_server, tui_script
from tests.support.tmux_cli import tmux_missing

import compact_lsp
from compact_lsp.agents.codex.chat import codex_compactions
from compact_lsp.agents.codex.hook import CODEX_INLINE_LIMIT, HEADER
from compact_lsp.agents.codex.launcher import codex_launcher_text
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.lsp.features.timeline import agent_row

pytestmark = [needs_codex, pytest.mark.skipif(tmux_missing() is not None, reason=str(tmux_missing()))]

PATCH = "*** Begin Patch\n*** Update File: greeting.txt\n@@\n-hello\n+hello, world\n*** End Patch\n"
BIG_CHANGED = "VALUE_120 = 'changed on disk after the read'  # line 120 of big.py"
REVIEW_SECONDS = 5
WIRE_CHANGED = "WIRE_215 = 'changed on disk after the read'  # line 215 of wire.py"


def numbered(prefix: str, name: str, count: int) -> str:
    return "".join(f"{prefix}_{i} = {i}  # line {i} of {name}, a line of ordinary code\n" for i in range(1, count + 1))


def replace_line(path: Path, number: int, text: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines[number - 1] = text + "\n"
    path.write_text("".join(lines))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "big.py").write_text(numbered("VALUE", "big.py", 400))  # about 24,000 characters
    (root / "src" / "wire.py").write_text(numbered("WIRE", "wire.py", 300))
    (root / "notes.md").write_text("# Notes\n\nThe greeting must stay short.\n")
    (root / "greeting.txt").write_text("hello\n")
    return root


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    home = tmp_path / "home" / ".codex"
    home.mkdir(parents=True)
    return home


@pytest.fixture
def stub() -> Iterator[ResponsesStub]:
    server = ResponsesStub(lambda request: ([message("unused")], 1_000)).start()
    yield server
    server.stop()


def users(stub: ResponsesStub) -> list[Request]:
    """The requests of the user's thread (the title thread's left out)."""
    return [r for r in list(stub.requests) if not is_title(r)]


def ours(request: Request) -> list[str]:
    return [t for t in developer_texts(request) if t.startswith(HEADER)]


def compactions(requests: list[Request]) -> list[int]:
    return [i for i, r in enumerate(requests) if is_compaction(r)]


def test_in_the_tui_each_compaction_gets_the_files_as_they_are_now(
    stub: ResponsesStub, codex_home: Path, project: Path
) -> None:
    """An automatic compaction in the middle of a turn, then ``/compact`` typed after the next one."""
    write_config(codex_home, stub)
    install(codex_home, project)

    def change_what_was_read(n: int) -> None:
        if n == 1:
            replace_line(project / "src" / "big.py", 120, BIG_CHANGED)
        else:
            replace_line(project / "src" / "wire.py", 215, WIRE_CHANGED)

    stub.script = tui_script(
        [
            [exec_command("c1", "sed -n '100,140p' src/big.py"), exec_command("c2", "cat notes.md"),
             {**apply_patch("c3", PATCH), "over_limit": True}],
            [exec_command("c4", "sed -n '200,230p' src/wire.py")],
        ],
        on_compaction=change_what_was_read,
    )  # fmt: skip
    tui = CodexTui(codex_home, project)
    try:
        tui.start("--dangerously-bypass-hook-trust")
        tui.wait_for_prompt()
        tui.type("fix the greeting")
        tui.wait_for("the first turn's end", lambda: tui.history().count("Worked for") >= 1, 120)
        assert len(compactions(users(stub))) == 1, "Codex did not compact by itself"
        tui.type("now read the wire module")
        tui.wait_for("the second turn's end", lambda: tui.history().count("Worked for") >= 2, 120)
        tui.type("/compact")
        tui.wait_for("the typed compaction", lambda: len(compactions(users(stub))) == 2, 120)
        tui.wait_for("its end", lambda: tui.history().count("Context compacted") >= 2, 60)
        tui.type("go on")
        tui.wait_for("the next turn's end", lambda: tui.history().count("Worked for") >= 4, 120)
    finally:
        tui.stop()
    assert (project / "greeting.txt").read_text() == "hello, world\n"  # the real apply_patch ran
    requests = users(stub)
    first, second = compactions(requests)
    assert not any(ours(r) for r in requests[:first]), "our context reached the model before any compaction"

    after_auto = ours(requests[first + 1])
    assert len(after_auto) == 1, developer_texts(requests[first + 1])
    context = after_auto[0]
    assert len(context) <= CODEX_INLINE_LIMIT and "truncated" not in context
    assert BIG_CHANGED in context and "VALUE_100 = 100 " in context  # the region read, as it is on disk now
    assert "VALUE_120 = 120 " not in context
    assert "VALUE_300 = 300 " not in context  # a big file comes back as the lines read, not whole
    tokens = TiktokenCounter().count_text((project / "src" / "big.py").read_text())
    assert f"has 400 lines, about {tokens} tokens, over the 4,000-character budget per file" in context
    assert "[... lines 1-99 omitted: sed -n '1,99p' ...]" in context and "offset=" not in context  # Codex's reads
    assert "hello, world" in context and "The greeting must stay short." in context

    after_typed = ours(requests[second + 1])
    assert len(after_typed) == 1, developer_texts(requests[second + 1])
    context = after_typed[0]
    assert WIRE_CHANGED in context and "WIRE_200 = 200 " in context and "WIRE_215 = 215 " not in context
    assert "big.py" not in context and "notes.md" not in context, "the second hook sent the first window's files"
    assert not any(WIRE_CHANGED in t for r in requests[: second + 1] for t in ours(r))
    assert [row["trigger"] for row in timeline_rows(codex_home)] == ["auto", "manual"]  # the typed one is manual


def timeline_rows(codex_home: Path) -> list[dict[str, object]]:
    """The compaction timeline's rows of the one rollout Codex wrote."""
    (rollout,) = (codex_home / "sessions").rglob("rollout-*.jsonl")
    return [agent_row(c) for c in codex_compactions(rollout)]


def test_in_the_tui_a_compaction_at_a_turns_start_is_automatic(
    stub: ResponsesStub, codex_home: Path, project: Path
) -> None:
    """The first turn ends over the limit: Codex compacts by itself when the user's next turn starts, before it
    records the user's message; the timeline says automatic all the same."""
    write_config(codex_home, stub)
    answers = iter([([exec_command("c1", "cat notes.md")], 4_000), ([message("All done.")], COMPACT_LIMIT + 40_000)])

    def script(request: Request) -> Reply:
        if is_title(request):
            return [message('{"title": "Read the notes"}')], 500
        if is_compaction(request):
            return [message("Summary: the user asked to read the notes.")], 800
        return next(answers, ([message("All done.")], 3_000))

    stub.script = script
    tui = CodexTui(codex_home, project)
    try:
        tui.start()
        tui.wait_for_prompt()
        tui.type("read the notes")
        tui.wait_for("the first turn's end", lambda: tui.history().count("Worked for") >= 1, 120)
        tui.type("go on")
        tui.wait_for("the compaction", lambda: len(compactions(users(stub))) == 1, 120)
        tui.wait_for("the second turn's end", lambda: tui.history().count("All done.") >= 2, 120)
    finally:
        tui.stop()
        stop_background_server(codex_home)  # the TUI's, started for this test (it outlived the run: 190 MB)
    (row,) = timeline_rows(codex_home)
    assert row["trigger"] == "auto" and row["summary"] == "Summary: the user asked to read the notes."


def test_in_the_tui_a_hook_whose_python_is_gone_says_why(
    stub: ResponsesStub, codex_home: Path, project: Path, tmp_path: Path
) -> None:
    """Installed from a Python since removed: Codex shows our reason, not only a status."""
    write_config(codex_home, stub)
    launcher = Path(shlex.split(_installed_command(codex_home, project))[0])
    gone = tmp_path / "removed-venv" / "bin" / "python"  # the virtual environment it was installed from is gone
    launcher.write_text(codex_launcher_text(str(gone), []))  # what an install from that Python wrote
    stub.script = tui_script([[exec_command("c1", "cat notes.md"), {**apply_patch("c2", PATCH), "over_limit": True}]])
    tui = CodexTui(codex_home, project)
    try:
        tui.start("--dangerously-bypass-hook-trust")
        tui.wait_for_prompt()
        tui.type("fix the greeting")
        tui.wait_for("the turn's end", lambda: "Worked for" in tui.screen(), 120)
        screen = tui.screen()
    finally:
        tui.stop()
    requests = users(stub)
    assert len(compactions(requests)) == 1
    assert "Hook · compact-lsp hook cannot start, run 'compact-lsp doctor': its Python" in screen, screen
    assert "Hook failed" not in screen
    assert not any(ours(r) for r in requests)


def _installed_command(codex_home: Path, project: Path) -> str:
    install(codex_home, project)
    config = (codex_home / "config.toml").read_text()
    line = next(x for x in config.splitlines() if x.startswith("command = ") and "codex-hook-" in x)
    assert env_for(codex_home)["HOME"] in line
    return line.split("=", 1)[1].strip().strip('"')


def _another_python(where: Path) -> tuple[Path, str]:
    """Another interpreter (a link to this one, outside its venv) and the PYTHONPATH it imports the server with."""
    python = where / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    server = str(Path(compact_lsp.__file__).resolve().parents[1])
    return python, os.pathsep.join([server, *site.getsitepackages()])


def _exec_compacting(stub: ResponsesStub, codex_home: Path, project: Path) -> list[str]:
    """A ``codex exec`` turn that compacts, without bypassing hook trust; our context in the request after."""
    stub.requests.clear()
    stub.script = turn_script([exec_command("c1", "cat notes.md"), apply_patch("c2", PATCH)])
    done = subprocess.run(
        [str(CODEX), "exec", "--skip-git-repo-check", "fix the greeting"], cwd=project, env=env_for(codex_home),
        capture_output=True, text=True, timeout=150, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    (project / "greeting.txt").write_text("hello\n")
    return ours(first_after_compaction(stub))


def _review_asked(tui: CodexTui) -> str:
    """What the TUI shows once started: the hook review when it asks for one (it comes after the prompt is drawn,
    once the session is loaded; given a few seconds more, as nothing else says it will not come)."""
    tui.start()
    tui.wait_for("the session loaded", lambda: "Hooks need review" in tui.screen() or "default ·" in tui.screen())
    with contextlib.suppress(AssertionError):  # none came
        tui.wait_for("a review", lambda: "Hooks need review" in tui.screen(), REVIEW_SECONDS)
    return tui.screen()


def test_codex_asks_for_trust_again_when_a_reinstall_changes_what_runs(
    stub: ResponsesStub, codex_home: Path, project: Path, tmp_path: Path
) -> None:
    """Trusted once in the TUI, the hook runs in ``codex exec``; installed again from another Python (another
    launcher), Codex skips it and the TUI asks for review again."""
    write_config(codex_home, stub)
    install(codex_home, project)
    tui = CodexTui(codex_home, project)
    try:
        screen = _review_asked(tui)
        assert "Hooks need review" in screen and "new or changed" in screen, screen
        tui.choose(2)  # Trust all and continue
        tui.wait_for("the review closed", lambda: "Hooks need review" not in tui.screen(), 30)
        tui.stop()
        assert "trusted_hash" in (codex_home / "config.toml").read_text()  # what Codex records for the trust
        assert "Hooks need review" not in _review_asked(tui)
        tui.stop()
        assert len(_exec_compacting(stub, codex_home, project)) == 1  # trusted: it runs

        other, path = _another_python(tmp_path / "venv2")
        before = (codex_home / "config.toml").read_text()
        env = env_for(codex_home) | {"PYTHONPATH": path}
        subprocess.run([str(other), "-m", "compact_lsp", "codex", "install-hook", "--user"], cwd=project, env=env,
                       capture_output=True, timeout=60, check=True)  # fmt: skip
        assert (codex_home / "config.toml").read_text() != before  # another launcher: the entry names it
        assert _exec_compacting(stub, codex_home, project) == []  # changed and not trusted: Codex skips it
        screen = _review_asked(tui)
        assert "Hooks need review" in screen and "new or changed" in screen, screen
    finally:
        tui.stop()
        stop_background_server(codex_home)  # the TUI's, started for this test
