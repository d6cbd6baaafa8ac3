"""Running the real Gemini CLI in tests: a home for it, settings for the loopback stub, our hook installed, and its
TUI driven in tmux.

Gemini CLI 0.61.0 compresses only at the start of a new user turn, and its print mode cannot carry a session with a
tool call into a second turn (``--resume`` sends that call's response twice, which the API refuses: "the number of
function response parts is equal to the number of function call parts", docs/gemini-cli.md). So a session of
several turns is the TUI: ``gemini`` in a detached tmux session of its own socket, typed into; ``wait_for`` polls
the stub with a deadline (tmux gives no event to wait on).

When the CLI never gets somewhere, the failure says why: ``gemini`` is not ``exec``-ed, so its stderr goes to
``<name>.stderr`` (what Gemini CLI writes when it cannot start, or when its relaunched child dies), its exit status
and that stderr are shown after it ends and written to ``<name>.status``, and the pane stays after the script ends
(tmux's ``remain-on-exit``), so the screen is what the CLI last showed, not an empty page from a tmux server that
has gone. ``wait_for`` stops as soon as the CLI exited.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
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
    pane: int | None = None
    """The pane's process id, its process group's too (the start script, then Gemini CLI and its relaunched child)."""
    outlived: list[str] = field(default_factory=list)
    """The sessions whose CLI was still running after the hangup (``stop``)."""
    command: list[str] = field(default_factory=lambda: [str(GEMINI), "--approval-mode", "yolo"])

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

    @property
    def status_file(self) -> Path:
        """Gemini's exit status, written by the start script once it ended."""
        return self.home / f"{self.name}.status"

    @property
    def stderr_file(self) -> Path:
        return self.home / f"{self.name}.stderr"

    def start(self) -> None:
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in self.env().items())
        script = self.home / f"start-{self.name}.sh"
        command = shlex.join(self.command)
        status, stderr = shlex.quote(str(self.status_file)), shlex.quote(str(self.stderr_file))
        self.status_file.unlink(missing_ok=True)
        script.write_text(
            f"#!/bin/sh\n{exports}cd {shlex.quote(str(self.project))}\n{command} 2>>{stderr}\ncode=$?\n"
            f'echo "[gemini exited with status $code]"\ntail -n 20 {stderr}\necho $code > {status}\n'
        )  # not exec: the status is said, then its stderr (kept in a file: a pipe would outlive it with its child)
        script.chmod(0o700)
        config = self.home / "tmux.conf"
        config.write_text("set-option -g remain-on-exit on\n")  # the pane stays when the script ends
        subprocess.run(["tmux", "-S", self.socket, "-f", str(config), "new-session", "-d", "-x", "160", "-y", "50",
                        "-s", self.name, str(script)], check=True, timeout=30)  # fmt: skip
        shown = subprocess.run(["tmux", "-S", self.socket, "display-message", "-p", "-t", self.name, "#{pane_pid}"],
                               capture_output=True, text=True, timeout=30, check=True)  # fmt: skip
        self.pane = int(shown.stdout)
        self.wait_for(
            "the prompt", lambda: "Type your message" in (screen := self.screen()) and "Initializing" not in screen
        )

    def screen(self) -> str:
        done = subprocess.run(["tmux", "-S", self.socket, "capture-pane", "-p", "-t", self.name],
                              capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
        return done.stdout if done.returncode == 0 else f"(no screen: tmux says {done.stderr.strip()!r})"

    def why(self) -> str:
        """What the CLI left to say why it did not get somewhere: its exit status, its stderr, its screen."""
        status = self.status_file.read_text().strip() if self.status_file.exists() else "still running"
        stderr = self.stderr_file.read_text(errors="replace")[-4000:] if self.stderr_file.exists() else ""
        return (f"gemini's exit status: {status}\nrefused: {self.stub.refused}\n"
                f"--- gemini's stderr ---\n{stderr}\n--- screen ---\n{self.screen()}")  # fmt: skip

    def type(self, text: str) -> None:
        """Type ``text`` and Enter, once the TUI shows it typed. Gemini CLI takes an Enter read within 30 ms of a
        typed key for a newline (its ``bufferFastReturn``: a paste without bracketed paste), and under load the
        Enter sent after the screen showed the text could still be read that soon: the input stayed unsent. An End
        key before it (a key that types nothing, the cursor already at the end) resets that clock in the CLI
        itself, so the Enter is read as Enter however soon it comes."""
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", self.name, "-l", text], check=True, timeout=30)
        self.wait_for(f"{text!r} typed", lambda: f"* {text}" in self.screen() or f"> {text}" in self.screen())
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", self.name, "End", "Enter"], check=True,
                       timeout=30)  # fmt: skip

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
            if self.status_file.exists():
                raise AssertionError(f"Gemini CLI exited before it got to: {what}\n{self.why()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"Gemini CLI never got to: {what}\n{self.why()}")
            time.sleep(POLL_SECONDS)
        self.waited.append((what, round(time.monotonic() - started, 1)))

    def stop(self, grace: float = 5.0) -> None:
        """End the session: tmux hangs up its pane; then whatever of the CLI is left is killed. Gemini CLI 0.61.0
        outlives a hangup: its relaunching parent ignores SIGHUP and waits for its child, whose SIGHUP shutdown
        waits on a cleanup that never ends (left alone, both ran on for 22 minutes, 330 MB, after a passing run);
        a later session in the same home would run beside it."""
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=30, check=False)
        if self.pane is None:
            return
        deadline = time.monotonic() + grace
        while _group_alive(self.pane):
            if time.monotonic() > deadline:
                self.outlived.append(self.name)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.pane, signal.SIGKILL)
                break
            time.sleep(POLL_SECONDS)
        self.pane = None


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True
