"""The launcher Codex runs for our hook, when the hook cannot start: the reason where Codex shows it.

Codex 0.171.0 shows a failed hook as its status alone ("hook exited with code 2"; stderr and stdout dropped) and
a hook's ``systemMessage`` as "Hook · <message>" (tests/codex/test_real_tui.py). So the Codex launcher answers with
the reason as its ``systemMessage`` and status 0, and says it on stderr; a check (doctor, install-hook) still gets
the failing status.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from compact_lsp.agents.codex.launcher import codex_launcher_text
from compact_lsp.agents.hook_launcher import LAUNCH_FAILED, ready


def _launcher(tmp_path: Path, python: str) -> Path:
    path = tmp_path / "codex-hook-test"
    path.write_text(codex_launcher_text(python, []))
    path.chmod(0o700)
    return path


def test_a_codex_launcher_whose_python_is_gone_answers_codex_with_the_reason(tmp_path: Path) -> None:
    gone = tmp_path / "it's gone" / "bin" / "python"  # a quote in the path: the answer is JSON all the same
    launcher = _launcher(tmp_path, str(gone))
    run = subprocess.run([str(launcher)], input=b"{}", capture_output=True, timeout=30)
    assert run.returncode == 0
    said = json.loads(run.stdout)["systemMessage"]
    assert f"its Python {gone} is gone" in said and "compact-lsp doctor" in said
    assert "compact-lsp codex install-hook" in said
    assert f"its Python {gone} is gone".encode() in run.stderr
    check = subprocess.run([str(launcher), "--check"], capture_output=True, timeout=30)
    assert check.returncode == LAUNCH_FAILED and check.stdout == b""


def test_a_codex_launcher_whose_hook_cannot_start_says_its_status(tmp_path: Path) -> None:
    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho 'half an answer'\nexit 3\n")  # a Python that prints, then fails
    broken.chmod(0o700)
    run = subprocess.run([str(_launcher(tmp_path, str(broken)))], input=b"{}", capture_output=True, timeout=30)
    assert run.returncode == 0
    assert json.loads(run.stdout) == {
        "systemMessage": "compact-lsp hook could not start, run 'compact-lsp doctor': status 3 (or 'compact-lsp "
        "codex install-hook' again from the compact-lsp you use)"
    }  # what the failed start printed is not mixed into the answer
    assert b"status 3" in run.stderr


def test_a_working_codex_launcher_passes_the_hook_answer_through(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME")}
    launcher = _launcher(tmp_path, sys.executable)
    check = subprocess.run([str(launcher), "--check"], capture_output=True, text=True, timeout=60, env=env)
    assert check.returncode == 0 and check.stdout == ready("codex") + "\n", check.stderr
    quiet = subprocess.run([str(launcher)], input="not json", capture_output=True, text=True, timeout=60, env=env)
    assert quiet.returncode == 0 and quiet.stdout == ""  # the hook's own rule: any bad input, nothing said


def test_doctor_finds_a_codex_launcher_whose_python_is_gone(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    env.pop("XDG_DATA_HOME", None)
    (home / ".codex").mkdir(parents=True)
    install = [sys.executable, "-m", "compact_lsp", "codex", "install-hook", "--user"]
    subprocess.run(install, cwd=tmp_path, env=env, capture_output=True, timeout=60, check=True)
    (launcher,) = (home / ".local" / "share" / "compact-lsp" / "launchers").glob("codex-hook-*")
    doctor = [sys.executable, "-m", "compact_lsp", "doctor", "--dir", str(tmp_path)]
    healthy = subprocess.run(doctor, capture_output=True, text=True, timeout=60, env=env)
    assert healthy.returncode == 0 and healthy.stdout.startswith("ok      codex hook"), healthy.stdout
    gone = tmp_path / "removed-venv" / "bin" / "python"
    launcher.write_text(codex_launcher_text(str(gone), []))  # what an install from that Python wrote
    sick = subprocess.run(doctor, capture_output=True, text=True, timeout=60, env=env)
    assert sick.returncode == 1 and sick.stdout.startswith("BROKEN  codex hook"), sick.stdout
    assert f"its Python {gone} is gone" in sick.stdout and "Fix: compact-lsp codex install-hook --user" in sick.stdout
