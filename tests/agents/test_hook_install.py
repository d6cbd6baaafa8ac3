"""``compact-lsp <agent> install-hook`` and ``uninstall-hook`` as a user runs them, for the agents whose hook lives in
a JSON ``settings.json`` beside Claude Code's (agents/json_settings.py): in the project's or the user's folder, next
to the user's own hooks, answered ``--check`` once installed, and taken out again to the same bytes; never through
a linked settings folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def gemini_entry(data: dict[str, Any]) -> str:
    """Ours after the user's ``BeforeModel`` entry, without a matcher; the user's other hooks and settings kept."""
    assert data["model"] == {"name": "gemini-2.5-pro"}
    assert data["hooks"]["BeforeTool"] == [{"matcher": "read_file", "hooks": []}]
    first, ours = data["hooks"]["BeforeModel"]
    assert first["hooks"][0]["command"] == "./redact.sh" and "matcher" not in ours
    return str(ours["hooks"][0]["command"])


def qwen_entry(data: dict[str, Any]) -> str:
    """Ours after the user's ``SessionStart`` entry, for ``compact`` and ``resume``; the user's settings kept."""
    assert data["model"] == {"name": "qwen3-coder"}
    entries = data["hooks"]["SessionStart"]
    assert entries[0]["matcher"] == "startup" and entries[1]["matcher"] == "compact|resume"
    return str(entries[1]["hooks"][0]["command"])


AGENTS = [
    pytest.param(
        "gemini-cli", ".gemini",
        '{\n    "model": {"name": "gemini-2.5-pro"},\n    "hooks": {"BeforeModel": [{"hooks": [{"type": "command", '
        '"command": "./redact.sh"}]}], "BeforeTool": [{"matcher": "read_file", "hooks": []}]}\n}\n',
        gemini_entry, id="gemini-cli",
    ),
    pytest.param(
        "qwen-code", ".qwen",
        '{\n    "model": {"name": "qwen3-coder"},\n    "hooks": {"SessionStart": [{"matcher": "startup", '
        '"hooks": [{"type": "command", "command": "echo hi"}]}]}\n}\n',
        qwen_entry, id="qwen-code",
    ),
]  # fmt: skip


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state")}  # fmt: skip


def run_cli(agent: str, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compact_lsp", agent, *args], env=env, capture_output=True, text=True, timeout=60
    )


def cli(agent: str, args: list[str], env: dict[str, str]) -> str:
    done = run_cli(agent, args, env)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("scope", ["project", "user"])
@pytest.mark.parametrize(("agent", "folder_name", "original", "ours"), AGENTS)
def test_install_then_uninstall_is_a_byte_identical_round_trip(
    tmp_path: Path,
    env: dict[str, str],
    scope: str,
    agent: str,
    folder_name: str,
    original: str,
    ours: Callable[[dict[str, Any]], str],
) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    folder = project / folder_name if scope == "project" else Path(env["HOME"]) / folder_name
    folder.mkdir()
    settings = folder / "settings.json"
    settings.write_text(original)
    flags = [f"--{scope}", "--dir", str(project)]
    assert "installed" in cli(agent, ["install-hook", *flags], env)
    command = ours(json.loads(settings.read_text()))
    assert f"{agent}-hook" in command and subprocess.run([command, "--check"], capture_output=True).returncode == 0
    assert "already installed" in cli(agent, ["install-hook", *flags], env)
    assert "removed" in cli(agent, ["uninstall-hook", *flags], env)
    assert settings.read_text() == original
    assert "nothing to remove" in cli(agent, ["uninstall-hook", *flags], env)


@pytest.mark.parametrize(("agent", "folder_name"), [(p.values[0], p.values[1]) for p in AGENTS])
def test_install_refuses_a_linked_project_settings_folder(
    tmp_path: Path, env: dict[str, str], agent: str, folder_name: str
) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / folder_name).symlink_to(elsewhere)
    done = run_cli(agent, ["install-hook", "--dir", str(project)], env)
    assert done.returncode == 1 and "symbolic link" in done.stderr
    assert not any(elsewhere.iterdir())
