"""``compact-lsp claude-code install-hook | uninstall-hook``: merging into Claude Code's settings files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compact_lsp.companion.hook_settings import SettingsFileError, install_hook, uninstall_hook

THEIRS = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}],
    },
}


def cli(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compact_lsp", "claude-code", *args],
        capture_output=True, text=True, cwd=cwd, timeout=60, env={**os.environ, "HOME": str(home)},
    )  # fmt: skip


def ours(data: dict) -> list[dict]:
    return [
        h
        for entry in data.get("hooks", {}).get("SessionStart", [])
        for h in entry["hooks"]
        if "claude-code hook" in h["command"]
    ]


def test_install_into_a_project_keeps_other_settings_and_is_idempotent(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(THEIRS))
    first = cli("install-hook", "--project", home=tmp_path / "home", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "installed" in first.stdout and "backup" in first.stdout
    data = json.loads(settings.read_text())
    assert data["permissions"] == THEIRS["permissions"]
    assert data["hooks"]["PreToolUse"] == THEIRS["hooks"]["PreToolUse"]
    assert THEIRS["hooks"]["SessionStart"][0] in data["hooks"]["SessionStart"]
    (hook,) = ours(data)
    assert hook["command"].startswith(sys.executable) and hook["type"] == "command"
    compact = [e for e in data["hooks"]["SessionStart"] if e.get("matcher") == "compact"]
    assert len(compact) == 1
    assert json.loads((settings.parent / "settings.local.json.bak").read_text()) == THEIRS
    again = cli("install-hook", home=tmp_path / "home", cwd=tmp_path)
    assert again.returncode == 0 and "already installed" in again.stdout
    assert json.loads(settings.read_text()) == data


def test_the_installed_command_runs_the_hook(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    assert cli("install-hook", home=tmp_path / "home", cwd=tmp_path).returncode == 0
    (hook,) = ours(json.loads(settings.read_text()))
    run = subprocess.run(hook["command"], shell=True, input=b'{"hook_event_name": "Stop"}', capture_output=True)
    assert (run.returncode, run.stdout) == (0, b"")


def test_user_scope_writes_under_home_and_uninstall_leaves_theirs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(THEIRS))
    assert cli("install-hook", "--user", home=home, cwd=tmp_path).returncode == 0
    assert len(ours(json.loads(settings.read_text()))) == 1
    removed = cli("uninstall-hook", "--user", home=home, cwd=tmp_path)
    assert removed.returncode == 0 and "removed" in removed.stdout
    assert json.loads(settings.read_text()) == THEIRS
    nothing = cli("uninstall-hook", "--user", home=home, cwd=tmp_path)
    assert nothing.returncode == 0 and "nothing to remove" in nothing.stdout


def test_uninstall_from_a_file_with_only_ours_leaves_an_empty_object(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    install_hook(settings, command="python -m compact_lsp claude-code hook")
    assert uninstall_hook(settings).changed
    assert json.loads(settings.read_text()) == {}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param("{broken", "not valid JSON", id="not-json"),
        pytest.param("[]", "not an object", id="array"),
        pytest.param('{"hooks": []}', "'hooks' is not an object", id="hooks-list"),
        pytest.param('{"hooks": {"SessionStart": {}}}', "is not a list", id="event-object"),
    ],
)
def test_a_settings_file_we_cannot_read_is_left_alone(tmp_path: Path, content: str, message: str) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(content)
    with pytest.raises(SettingsFileError, match=message):
        install_hook(settings)
    assert settings.read_text() == content
    result = cli("install-hook", "--dir", str(tmp_path), home=tmp_path, cwd=tmp_path)
    assert result.returncode == 0  # the project file (another path) is created; ours above is untouched
    assert settings.read_text() == content


def test_a_cli_error_names_the_file_and_changes_nothing(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text("{broken")
    result = cli("install-hook", home=tmp_path / "home", cwd=tmp_path)
    assert result.returncode == 1
    assert str(settings) in result.stderr and "not valid JSON" in result.stderr
    assert settings.read_text() == "{broken"
