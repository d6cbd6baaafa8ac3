"""Running the real Gemini CLI in tests: a home for it, settings for the loopback stub, our hook installed, and its
TUI driven in tmux.

Gemini CLI 0.61.0 compresses only at the start of a new user turn, and its print mode cannot carry a session with a
tool call into a second turn (``--resume`` sends that call's response twice, which the API refuses: "the number of
function response parts is equal to the number of function call parts", docs/gemini-cli.md). So a session of
several turns is the TUI: ``gemini`` in a detached tmux session of its own socket, typed into; ``wait_for`` polls
the stub with a deadline (tmux gives no event to wait on).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.gemini_cli.gemini_stub import GeminiStub
from tests.support import real_clients

GEMINI = real_clients.GEMINI_CLI
needs_gemini_cli = pytest.mark.skipif(
    not GEMINI.exists() or shutil.which("tmux") is None,
    reason=real_clients.gemini_cli()[1] or "tmux is not installed",
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
    waited: list[tuple[str, float]] = field(default_factory=list)

    @property
    def socket(self) -> str:
        return str(self.home / f"tmux-{self.name}")

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
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in self.env().items())
        script = self.home / f"start-{self.name}.sh"
        command = shlex.join([str(GEMINI), "--approval-mode", "yolo"])
        script.write_text(f"#!/bin/sh\n{exports}cd {shlex.quote(str(self.project))}\nexec {command}\n")
        script.chmod(0o700)
        subprocess.run(["tmux", "-S", self.socket, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "50",
                        "-s", self.name, str(script)], check=True, timeout=30)  # fmt: skip
        self.wait_for(
            "the prompt", lambda: "Type your message" in (screen := self.screen()) and "Initializing" not in screen
        )

    def screen(self) -> str:
        done = subprocess.run(["tmux", "-S", self.socket, "capture-pane", "-p", "-t", self.name],
                              capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
        return done.stdout

    def type(self, text: str) -> None:
        """Type ``text`` and Enter, once the TUI shows it typed (Enter in the same burst lands in the paste)."""
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", self.name, "-l", text], check=True, timeout=30)
        self.wait_for(f"{text!r} typed", lambda: f"* {text}" in self.screen() or f"> {text}" in self.screen())
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", self.name, "Enter"], check=True, timeout=30)

    def turn(self, prompt: str, requests: int, reply: str) -> None:
        """Type ``prompt``; wait until the stub answered ``requests`` more model requests and ``reply`` shows."""
        before = len(self.stub.model_requests())
        self.type(prompt)
        self.wait_for(
            f"{requests} requests after {prompt!r}",
            lambda: len(self.stub.model_requests()) >= before + requests and reply in self.screen(),
        )

    def wait_for(self, what: str, ready: Callable[[], bool], seconds: float = 90) -> None:
        started = time.monotonic()
        deadline = started + seconds
        while not ready():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"Gemini CLI never got to: {what}\nrefused: {self.stub.refused}\n--- screen ---\n{self.screen()}"
                )
            time.sleep(POLL_SECONDS)
        self.waited.append((what, round(time.monotonic() - started, 1)))

    def stop(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=30, check=False)
