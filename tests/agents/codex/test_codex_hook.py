"""The Codex hook's installer and its never-break rule, without the CLI (tests/codex/ has the real one)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compact_lsp.agents.codex.settings import install_hook, uninstall_hook
from compact_lsp.agents.hook_process import run_hook
from compact_lsp.agents.settings_files import SettingsFileError

from .rollouts import assistant, compaction, head, item, user

USER_CONFIG = """# mine
model = "gpt-5.5"

[[hooks.SessionStart]]
matcher = "startup"
[[hooks.SessionStart.hooks]]
type = "command"
command = "echo hello"
"""


def test_install_keeps_everything_else_and_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(USER_CONFIG)
    first = install_hook(path, "python -m compact_lsp codex hook")
    assert first.changed and first.backup is not None and first.backup.read_text() == USER_CONFIG
    assert "/hooks" in first.message
    text = path.read_text()
    assert text.startswith(USER_CONFIG.rstrip("\n")) and 'matcher = "compact"' in text
    again = install_hook(path, "python -m compact_lsp codex hook")
    assert not again.changed and path.read_text() == text
    removed = uninstall_hook(path)
    assert removed.changed and path.read_text() == USER_CONFIG
    assert not uninstall_hook(path).changed


@pytest.mark.parametrize("linked", ["file", "folder"])
def test_a_linked_config_is_refused_and_its_target_untouched(tmp_path: Path, linked: str) -> None:
    secret = tmp_path / "elsewhere" / "config.toml"
    secret.parent.mkdir()
    secret.write_text('token = "do-not-copy"\n')
    project = tmp_path / "repo"
    project.mkdir()
    if linked == "file":
        (project / ".codex").mkdir()
        (project / ".codex" / "config.toml").symlink_to(secret)
    else:
        (project / ".codex").symlink_to(secret.parent)
    with pytest.raises(SettingsFileError, match="symbolic link"):
        install_hook(project / ".codex" / "config.toml", "python -m compact_lsp codex hook")
    assert secret.read_text() == 'token = "do-not-copy"\n'
    assert sorted(p.name for p in secret.parent.iterdir()) == ["config.toml"]  # no .bak copied anywhere


def test_a_broken_config_is_left_alone_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("model = [unclosed\n")
    with pytest.raises(SettingsFileError, match="not valid TOML"):
        install_hook(path, "x -m compact_lsp codex hook")
    assert path.read_text() == "model = [unclosed\n"


@pytest.mark.parametrize(
    "stdin",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\xff\xfe", id="not-utf8"),
        pytest.param(b'{"hook_event_name": "SessionStart", "source": "startup"}', id="not-after-compaction"),
        pytest.param(b'{"hook_event_name": "SessionStart", "source": "compact", "session_id": "s",'
                     b' "transcript_path": "/nonexistent/rollout.jsonl", "cwd": "/tmp"}', id="missing-rollout"),
    ],
)  # fmt: skip
def test_the_hook_never_breaks_codex(stdin: bytes) -> None:
    out = io.StringIO()
    assert run_hook(io.BytesIO(stdin), out, agent="codex") == 0
    assert out.getvalue() == ""


def test_the_hook_command_prints_only_json_or_nothing(tmp_path: Path) -> None:
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path), HOME=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "compact_lsp", "codex", "hook"], input=b"garbage", env=env, capture_output=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout == b""


def test_the_ledger_names_the_patched_file_and_the_last_test_run(tmp_path: Path) -> None:
    """A Codex session that patched a file and ran its tests (failing), compacted: the hook's answer starts with the
    ledger, which names the patched file and the test command's exit code and failing test, from the rollout."""
    (tmp_path / "app.py").write_text("a = 2\n")
    test_call = json.dumps({"cmd": "pytest -q"})
    failed = "Process exited with code 1\nOutput:\nFAILED test_app.py::test_a - assert 2 == 1\n1 failed in 0.01s"
    lines = [
        *head(tmp_path),
        user("fix app.py"),
        item(type="custom_tool_call", call_id="p1", name="apply_patch",
             input="*** Begin Patch\n*** Update File: app.py\n"),
        item(type="custom_tool_call_output", call_id="p1", output="Exit code: 0\nOutput:\nSuccess. Updated: M app.py"),
        item(type="function_call", call_id="c1", name="exec_command", arguments=test_call),
        item(type="function_call_output", call_id="c1", output=failed),
        assistant("The test fails."),
        compaction(),
    ]  # fmt: skip
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes(b"".join(lines))
    stdin = json.dumps(
        {"hook_event_name": "SessionStart", "source": "compact", "transcript_path": str(rollout), "cwd": str(tmp_path),
         "session_id": "thread-1"}
    ).encode()  # fmt: skip
    out = io.StringIO()
    assert run_hook(io.BytesIO(stdin), out, agent="codex") == 0
    context = json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]
    ledger = context.split("\n\n", 1)[1].split("</working-set>", 1)[0].splitlines()
    assert ledger[0] == "<working-set>"
    assert "Last test: `pytest -q` — exit 1: FAILED test_app.py::test_a - assert 2 == 1" in ledger
    assert "- app.py: edited (1 change)" in ledger
