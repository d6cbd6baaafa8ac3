"""Running the real Gemini CLI in tests: a home for it, settings for the loopback stub, our hook installed, and its
TUI driven in tmux.

Gemini CLI 0.61.0 compresses only at the start of a new user turn, and its print mode cannot carry a session with a
tool call into a second turn (``--resume`` sends that call's response twice, which the API refuses: "the number of
function response parts is equal to the number of function call parts", docs/gemini-cli.md). So a session of
several turns is the TUI: ``gemini`` in a detached tmux session of its own socket, typed into; ``wait_for`` polls
the stub with a deadline (tmux gives no event to wait on).

When the CLI never gets somewhere, the failure says why, with its exit status, its stderr (what Gemini CLI writes
when it cannot start, or when its relaunched child dies) and its last screen, and ``wait_for`` stops as soon as the
CLI exited (tests/support/tmux_cli.py, which Qwen Code's driver uses too).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.gemini_cli.gemini_stub import GeminiStub
from tests.support import real_clients
from tests.support.tmux_cli import TmuxCli, tmux_missing

GEMINI = real_clients.GEMINI_CLI
needs_gemini_cli = pytest.mark.skipif(
    not GEMINI.exists() or tmux_missing() is not None,
    reason=real_clients.gemini_cli()[1] or str(tmux_missing()),
)
MODEL = "gemini-2.5-flash"
COMPRESSION_THRESHOLD = 0.2
"""``model.compressionThreshold``: a share of the model's 1,048,576-token window (about 210,000 tokens)."""
OVER_THRESHOLD = 900_000
POLL_SECONDS = 0.2


@dataclass
class GeminiHome:
    home: Path
    project: Path
    stub: GeminiStub
    name: str = "gemini"
    tui: TmuxCli | None = None
    """The TUI of the last ``start`` (its pane's process group: the start script, Gemini CLI, its relaunched child)."""
    outlived: list[str] = field(default_factory=list)
    """The sessions whose CLI was still running after the hangup (``stop``)."""
    command: list[str] = field(default_factory=lambda: [str(GEMINI), "--approval-mode", "yolo"])

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "XDG_", "TMUX"))}
        env.update(
            HOME=str(self.home), GEMINI_API_KEY="dummy-key", GOOGLE_GEMINI_BASE_URL=self.stub.base_url,
            TERM="xterm-256color",
        )  # fmt: skip
        return env

    def write_settings(self) -> None:
        """The user's own settings (kept by install-hook), and the project trusted (what a user accepts once)."""
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "model": {"name": MODEL, "compressionThreshold": COMPRESSION_THRESHOLD},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "ui": {"hideBanner": True, "hideTips": True},
        }
        folder = self.home / ".gemini"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
        (folder / "trustedFolders.json").write_text(json.dumps({str(self.project): "TRUST_FOLDER"}))

    def cli(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "compact_lsp", "gemini-cli", *args],
            cwd=self.project, env=self.env(), capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        return done.stdout

    @property
    def hook_log(self) -> Path:
        return self.home / ".local" / "state" / "compact-lsp" / "log" / "gemini-cli-hook.log"

    def start(self) -> None:
        self.tui = TmuxCli(self.home, self.name, "Gemini CLI", "gemini", POLL_SECONDS,
                           lambda: f"refused: {self.stub.refused}\n")  # fmt: skip
        self.tui.start(self.command, self.env(), self.project)
        self.wait_for(
            "the prompt", lambda: "Type your message" in (screen := self.screen()) and "Initializing" not in screen
        )

    @property
    def started(self) -> TmuxCli:
        if self.tui is None:
            raise AssertionError("Gemini CLI was not started")
        return self.tui

    def screen(self) -> str:
        return self.started.screen()

    def type(self, text: str) -> None:
        """Type ``text`` and Enter (End before Enter: tests/support/tmux_cli.py), once the TUI shows it typed."""
        self.started.type(text, lambda: f"* {text}" in self.screen() or f"> {text}" in self.screen())

    def turn(self, prompt: str, requests: int, reply: str) -> None:
        """Type ``prompt``; wait until the stub answered ``requests`` more model requests and ``reply`` shows."""
        before = len(self.stub.model_requests())
        self.type(prompt)
        self.wait_for(
            f"{requests} requests after {prompt!r}",
            lambda: len(self.stub.model_requests()) >= before + requests and reply in self.screen(),
        )

    def wait_for(self, what: str, ready: Callable[[], bool], seconds: float = 90) -> None:
        self.started.wait_for(what, ready, seconds)

    def stop(self, grace: float = 5.0) -> None:
        """End the session: tmux hangs up its pane; then whatever of the CLI is left is killed. Gemini CLI 0.61.0
        outlives a hangup: its relaunching parent ignores SIGHUP and waits for its child, whose SIGHUP shutdown
        waits on a cleanup that never ends (left alone, both ran on for 22 minutes, 330 MB, after a passing run);
        a later session in the same home would run beside it."""
        if self.tui and self.tui.stop(grace):
            self.outlived.append(self.name)
