"""The real Codex CLI (``@openai/codex``, installed by tests/codex/setup.sh) against a loopback Responses API stub.

``codex exec`` runs a scripted turn: it reads files with ``exec_command`` and changes one with ``apply_patch``;
the stub then reports a usage over ``model_auto_compact_token_limit``, so Codex compacts in the middle of the
turn, runs its ``SessionStart`` hook (source ``compact``) and sends the next request. Our hook is installed by
``compact-lsp codex install-hook`` into the temporary ``CODEX_HOME``. Every assertion is about what Codex sent
to the stub or wrote in its rollout, never about what our code returned.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.codex.app_server import CodexAppServer
from tests.codex.codex_cli import (
    CODEX,
    COMPACT_LIMIT,
    developer_texts,
    env_for,
    first_after_compaction,
    install,
    needs_codex,
    run_codex,
    turn_script,
    write_config,
)
from tests.codex.responses_stub import ResponsesStub, apply_patch, exec_command, is_compaction, message

from compact_lsp.agents.codex.hook import CODEX_INLINE_LIMIT, HEADER
from compact_lsp.engine.codex.rollout import read_rollout

pytestmark = needs_codex


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("".join(f"def step_{i}():\n    return {i}\n\n" for i in range(60)))
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


PATCH = "*** Begin Patch\n*** Update File: greeting.txt\n@@\n-hello\n+hello, world\n*** End Patch\n"


def test_after_codex_compacts_our_context_reaches_the_model_whole(
    stub: ResponsesStub, codex_home: Path, project: Path
) -> None:
    write_config(codex_home, stub)
    said = install(codex_home, project)
    assert "/hooks" in said  # the user is told to trust the hook once

    def edit_notes_on_disk() -> None:  # after the model read it: the hook must send what is on disk now
        (project / "notes.md").write_text("# Notes\n\nThe greeting must stay short. Reviewed today.\n")

    stub.script = turn_script(
        [
            exec_command("call_1", "sed -n '1,40p' src/app.py"),
            exec_command("call_2", "cat notes.md"),
            apply_patch("call_3", PATCH),
        ],
        on_compaction=edit_notes_on_disk,
    )
    done = run_codex(codex_home, project, "fix the greeting")
    assert done.returncode == 0, done.stderr[-2000:]
    assert (project / "greeting.txt").read_text() == "hello, world\n"  # the real apply_patch ran

    after = first_after_compaction(stub)
    ours = [t for t in developer_texts(after) if t.startswith(HEADER)]
    assert len(ours) == 1, developer_texts(after)
    context = ours[0]
    assert len(context) <= CODEX_INLINE_LIMIT
    assert "truncated" not in context
    assert "Reviewed today." in context  # re-read from disk now, not what the model saw before
    assert "def step_0():" in context and "def step_13():" in context  # the slice the agent read
    assert "hello, world" in context  # the patched file, as it is now
    assert "greeting.txt: edited" in context  # the artifact trail
    assert all(HEADER not in developer_texts(r)[-1:] for r in stub.requests[: stub.requests.index(after)])

    path = next((codex_home / "sessions").rglob("rollout-*.jsonl"))
    rollout = read_rollout(str(path))
    assert rollout.last_compaction is not None
    assert rollout.title == "fix the greeting"
    assert [b["name"] for m in rollout.messages for b in m["content"] if b["type"] == "tool_use"] == [
        "exec_command", "exec_command", "apply_patch",
    ]  # fmt: skip
    inspected = subprocess.run(
        [sys.executable, "-m", "compact_lsp", "inspect", str(path), "--json"], capture_output=True, text=True,
        timeout=60, check=True,
    )  # fmt: skip
    report = json.loads(inspected.stdout)
    assert (report["agent"], report["title"], report["model"]) == ("codex", "fix the greeting", "gpt-5.5")
    assert report["usage"]["contextWindow"] == 258_400  # the window Codex reported for its model
    assert report["usage"]["reported"] == 3_000  # the last request's input tokens, as the stub reported them
    assert report["historyMessages"] > 0 and report["compaction"] == {"compactions": 1}
    imported = subprocess.run(
        [sys.executable, "-m", "compact_lsp", "import", str(path), "--workspace", str(project),
         "--session-dir", str(project.parent / "store")], capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    # the copy has its own id (the followed session keeps codex-<thread>) and holds what the model held: the skills
    # text and our hook's re-attached files, counted by inspect as by the import
    copy_id = f"cx-{rollout.session_id}"
    assert imported.stdout.startswith(f"{copy_id}\t")
    assert imported.stdout.rstrip().endswith("fix the greeting")
    held = read_rollout(str(path), developer=True)
    without = sum(len(str(b.get("text", ""))) for m in rollout.current_context() for b in m["content"])
    with_developer = sum(len(str(b.get("text", ""))) for m in held.current_context() for b in m["content"])
    assert with_developer - without >= len(context)  # our hook's text is in what the import and inspect count
    journal = (project.parent / "store").rglob(f"{copy_id}*.jsonl")
    stored = "".join(p.read_text() for p in journal)
    assert "Reviewed today." in stored and "hello, world" in stored  # the re-attached files, kept in the copy


def test_a_big_session_is_cut_to_what_codex_delivers_inline(
    stub: ResponsesStub, codex_home: Path, project: Path
) -> None:
    write_config(codex_home, stub)
    install(codex_home, project)
    for n in range(12):
        (project / "src" / f"module_{n}.py").write_text(f"# module {n}\n" + "x = 1  # filler line\n" * 120)
    calls = [exec_command(f"call_{n}", f"cat src/module_{n}.py") for n in range(12)]
    stub.script = turn_script([*calls, apply_patch("call_p", PATCH)])
    done = run_codex(codex_home, project, "read every module")
    assert done.returncode == 0, done.stderr[-2000:]
    context = next(t for t in developer_texts(first_after_compaction(stub)) if t.startswith(HEADER))
    assert 5_000 < len(context) <= CODEX_INLINE_LIMIT
    assert "module_11.py" in context  # the most recent read ranks first
    assert "truncated" not in context


def test_without_a_compaction_the_hook_adds_nothing(stub: ResponsesStub, codex_home: Path, project: Path) -> None:
    write_config(codex_home, stub)
    install(codex_home, project)
    stub.script = lambda request: ([message("Hi.")], 1_000)
    done = run_codex(codex_home, project, "say hi")
    assert done.returncode == 0, done.stderr[-2000:]
    assert all(not t.startswith(HEADER) for r in stub.requests for t in developer_texts(r))


def test_uninstall_removes_the_hook_and_keeps_the_users_settings(codex_home: Path, project: Path) -> None:
    stub = ResponsesStub(lambda request: ([message("unused")], 1)).start()
    try:
        write_config(codex_home, stub)
        before = (codex_home / "config.toml").read_text()
        install(codex_home, project)
        launchers = codex_home.parent / ".local" / "share" / "compact-lsp" / "launchers"
        (launcher,) = launchers.glob("codex-hook-*")  # this install's launcher, by a digest of what it runs
        assert str(launcher) in (codex_home / "config.toml").read_text()
        assert "-m compact_lsp codex hook" in launcher.read_text()  # the launcher Codex runs, checked before
        done = subprocess.run(
            [sys.executable, "-m", "compact_lsp", "codex", "uninstall-hook", "--user"],
            cwd=project, env=env_for(codex_home), capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        assert "removed" in done.stdout
        assert (codex_home / "config.toml").read_text() == before  # byte for byte, comments included
    finally:
        stub.stop()


def test_a_second_compaction_in_one_session_gets_the_files_read_since_the_first(
    stub: ResponsesStub, codex_home: Path, project: Path
) -> None:
    """One turn, two automatic compactions: the second hook's context is the window since the first."""
    for name in ("first_a.py", "first_b.py", "second_a.py", "second_b.py"):
        (project / name).write_text("".join(f"def {name[:-3]}_{i}():\n    return {i}\n\n" for i in range(40)))
    write_config(codex_home, stub)
    install(codex_home, project)
    calls = [[exec_command("c1", "cat first_a.py"), exec_command("c2", "cat first_b.py")],
             [exec_command("c3", "cat second_a.py"), exec_command("c4", "cat second_b.py")]]  # fmt: skip
    state = {"window": 0, "next": 0}

    def script(request: dict[str, object]) -> tuple[list[dict[str, object]], int]:
        if is_compaction(request):
            state["window"] += 1
            state["next"] = 0
            return [message("Summary: the user asked to read the modules; some are read.")], 800
        window, at = state["window"], state["next"]
        if window >= len(calls) or at >= len(calls[window]):
            return [message("All done.")], 3_000
        state["next"] += 1
        return [calls[window][at]], (COMPACT_LIMIT + 40_000) if at == len(calls[window]) - 1 else 4_000

    stub.script = script
    done = run_codex(codex_home, project, "read the modules")
    assert done.returncode == 0, done.stderr[-2000:]
    compactions = [i for i, r in enumerate(stub.requests) if is_compaction(r)]
    assert len(compactions) == 2, "Codex did not compact twice"
    first, second = (
        next(t for t in developer_texts(stub.requests[i + 1]) if t.startswith(HEADER)) for i in compactions
    )
    assert "first_a.py" in first and "second_a.py" not in first
    assert "second_a.py" in second and "second_b.py" in second, second
    trail = second.split("<artifact-trail", 1)[-1]
    assert "first_a.py" not in trail, "the second hook named a file only the window before the first one read"


def trust_project(codex_home: Path, project: Path) -> None:
    with (codex_home / "config.toml").open("a") as config:
        config.write(f'\n[projects."{project}"]\ntrust_level = "trusted"\n')


def test_with_a_user_and_a_project_install_the_model_gets_our_context_once(
    stub: ResponsesStub, codex_home: Path, project: Path
) -> None:
    """Codex runs both installs' hooks at once: on main the model got two identical developer items."""
    write_config(codex_home, stub)
    trust_project(codex_home, project)
    install(codex_home, project)
    said = subprocess.run(
        [sys.executable, "-m", "compact_lsp", "codex", "install-hook"],
        cwd=project, env=env_for(codex_home), capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    assert f"also installed in {codex_home / 'config.toml'}" in said
    assert "compact-lsp codex uninstall-hook --user" in said
    stub.script = turn_script([exec_command("call_1", "sed -n '1,40p' src/app.py"), apply_patch("call_2", PATCH)])
    done = run_codex(codex_home, project, "fix the greeting")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.count("hook: SessionStart Completed") == 2  # both ran
    ours = [t for t in developer_texts(first_after_compaction(stub)) if t.startswith(HEADER)]
    assert len(ours) == 1, "our context reached the model more than once"
    assert "def step_0():" in ours[0]


def test_uninstall_takes_out_the_trust_the_user_gave_in_codex(codex_home: Path, project: Path) -> None:
    """The user trusts both installs in Codex's /hooks (done here through Codex's own app server, as its TUI
    does); uninstalling both gives back the user's config byte for byte, Codex's trust entries included."""
    stub = ResponsesStub(lambda request: ([message("unused")], 1)).start()
    server = None
    try:
        write_config(codex_home, stub)
        trust_project(codex_home, project)
        before = (codex_home / "config.toml").read_bytes()
        install(codex_home, project)
        subprocess.run(
            [sys.executable, "-m", "compact_lsp", "codex", "install-hook"],
            cwd=project, env=env_for(codex_home), capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        server = CodexAppServer(CODEX, env_for(codex_home), project)
        hooks = server.hooks(project)
        assert [h["source"] for h in hooks] == ["user", "project"]
        for hook in hooks:
            server.trust(hook)
        assert [h["trustStatus"] for h in server.hooks(project)] == ["trusted", "trusted"]
        assert (codex_home / "config.toml").read_text().count("trusted_hash") == 2
        for scope in ("--user", "--project"):
            done = subprocess.run(
                [sys.executable, "-m", "compact_lsp", "codex", "uninstall-hook", scope],
                cwd=project, env=env_for(codex_home), capture_output=True, text=True, timeout=60, check=True,
            )  # fmt: skip
            assert "trust entry" in done.stdout, done.stdout
        assert (codex_home / "config.toml").read_bytes() == before  # byte for byte: no trust entry left behind
        assert not (project / ".codex" / "config.toml").exists()  # install made it: it is gone again
        assert server.hooks(project) == []
    finally:
        if server is not None:
            server.close()
        stub.stop()
