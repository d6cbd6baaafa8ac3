"""One answer per compaction, however many of our installs the agent runs (agents/hook_claims.py): with our hook in
both the user's and the project's settings, the agent runs both and the model must get our context once; with one
install every run answers and nothing is written."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compact_lsp.agents.codex.agent import CODEX
from compact_lsp.agents.codex.config_places import config_path
from compact_lsp.agents.hook_claims import CLAIM_SECONDS, claims_dir
from compact_lsp.agents.hook_process import run_hook
from compact_lsp.agents.other_installs import also_installed

from .codex.rollouts import compaction, head, turn

LAUNCHER = "/home/u/.local/share/compact-lsp/launchers/codex-hook-0123456789ab"
ENTRY = (
    f'[[hooks.SessionStart]]\nmatcher = "compact"\n[[hooks.SessionStart.hooks]]\ntype = "command"\n'
    f'command = "{LAUNCHER}"\n'
)


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """A Codex session compacted once, in a project folder below which the agent was started; its home."""
    home = tmp_path / "home"
    project = tmp_path / "app"
    cwd = project / "src"
    cwd.mkdir(parents=True)
    for n in range(2):
        (cwd / f"f{n}.py").write_text("print(1)\n" * 40)
    (home / ".codex").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    rollout = cwd / "rollout.jsonl"
    rollout.write_bytes(b"".join([*head(cwd), *turn(0), *turn(1), compaction()]))
    return project, cwd, rollout


def answer(cwd: Path, rollout: Path) -> str:
    stdin = json.dumps({"hook_event_name": "SessionStart", "source": "compact", "session_id": "thread-1",
                        "transcript_path": str(rollout), "cwd": str(cwd)}).encode()  # fmt: skip
    out = io.StringIO()
    assert run_hook(io.BytesIO(stdin), out, agent="codex") == 0
    return out.getvalue()


def install_in(*configs: Path) -> None:
    for config in configs:
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text('model = "gpt-5.5"\n\n' + ENTRY)


def test_with_a_user_and_a_project_install_one_run_answers_each_compaction(session: tuple[Path, Path, Path]) -> None:
    project, cwd, rollout = session
    install_in(config_path("user", ""), config_path("project", str(project)))
    old = Path(claims_dir()) / "codex.1.2.3.4"  # a claim from an earlier day: cleared as new ones are made
    old.parent.mkdir(parents=True)
    old.touch()
    os.utime(old, (time.time() - CLAIM_SECONDS - 60,) * 2)
    first, second = answer(cwd, rollout), answer(cwd, rollout)  # the agent runs both installs for one compaction
    assert "f1.py" in first and second == ""
    with rollout.open("ab") as f:  # the session goes on and compacts again: a new compaction, answered again
        f.write(b"".join([*turn(2), compaction()]))
    assert answer(cwd, rollout) != "" and answer(cwd, rollout) == ""
    assert not old.exists() and len(list(old.parent.iterdir())) == 2


def test_the_installer_names_the_other_install_and_how_to_remove_it(session: tuple[Path, Path, Path]) -> None:
    project, _, _ = session
    install_in(config_path("user", ""))
    assert also_installed(CODEX, "user", str(project)) == []
    install_in(config_path("project", str(project)))
    (note,) = also_installed(CODEX, "user", str(project))
    assert f"also installed in {config_path('project', str(project))} (project settings)" in note
    assert f"compact-lsp codex uninstall-hook --project --dir {project}" in note


def test_with_one_install_every_run_answers_and_nothing_is_written(session: tuple[Path, Path, Path]) -> None:
    project, cwd, rollout = session
    home = project.parent / "home"
    install_in(project / ".codex" / "config.toml")
    assert answer(cwd, rollout) != "" and answer(cwd, rollout) != ""
    assert not (home / ".local" / "state" / "compact-lsp" / "hook-claims").exists()


def test_installing_in_a_second_scope_tells_the_user_which_file_and_how_to_remove_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = tmp_path / "app"
    project.mkdir()
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "CODEX_HOME": str(home / ".codex")}

    def cli(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "compact_lsp", *args], cwd=project, env=env,
                              capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
        return done.stdout

    assert "also installed" not in cli("claude-code", "install-hook", "--user")
    said = cli("claude-code", "install-hook")
    assert f"also installed in {home / '.claude' / 'settings.json'} (user settings)" in said
    assert "compact-lsp claude-code uninstall-hook --user" in said
    cli("claude-code", "uninstall-hook", "--user")
    assert "also installed" not in cli("claude-code", "install-hook")
