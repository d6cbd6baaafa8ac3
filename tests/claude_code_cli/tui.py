"""The real Claude Code's TUI, driven in tmux: what a user does, typed, against the loopback stub.

``ClaudeCodeTui`` starts ``claude`` (interactive, no ``-p``) in a detached tmux session of its own socket, in the
``ClaudeCode`` set-up's project under its ``HOME``, with onboarding, the folder's trust and the dummy key already
accepted in ``~/.claude.json`` (what a user clicks through once). ``type`` sends a line; ``wait_for`` polls the
transcript or the stub with a deadline (tmux gives no event to wait on); ``screen`` is what the terminal shows.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from collections.abc import Callable

from tests.support.tmux_cli import terminal_exports

from .claude_cli import ClaudeCode

POLL_SECONDS = 0.2


class ClaudeCodeTui:
    def __init__(self, cc: ClaudeCode, name: str = "cc") -> None:
        self.cc = cc
        self.socket = str(cc.home / f"tmux-{name}")
        self.name = name
        self.waited: list[tuple[str, float]] = []
        """How long each ``wait_for`` took (the tier's own figures)."""
        key = cc.env["ANTHROPIC_API_KEY"]
        state = {
            "hasCompletedOnboarding": True,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
            "projects": {str(cc.project): {"hasTrustDialogAccepted": True, "allowedTools": []}},
        }
        (cc.home / ".claude.json").write_text(json.dumps(state))

    def start(self, *args: str) -> None:
        exports = terminal_exports(self.cc.env)
        script = self.cc.home / f"start-{self.name}.sh"
        command = shlex.join([str(self.cc.binary), "--permission-mode", "acceptEdits", *args])
        script.write_text(f"#!/bin/sh\n{exports}cd {shlex.quote(str(self.cc.project))}\nexec {command}\n")
        script.chmod(0o700)
        subprocess.run(["tmux", "-S", self.socket, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "50",
                        "-s", self.name, str(script)], check=True, timeout=30)  # fmt: skip

    def screen(self) -> str:
        done = subprocess.run(["tmux", "-S", self.socket, "capture-pane", "-p", "-t", self.name],
                              capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
        return done.stdout

    def type(self, text: str) -> None:
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", self.name, "-l", text], check=True, timeout=30)
        time.sleep(0.3)  # the TUI takes typed text in a burst; Enter right after it may land in the paste
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", self.name, "Enter"], check=True, timeout=30)

    def wait_for(self, what: str, ready: Callable[[], bool], seconds: float = 90) -> None:
        started = time.monotonic()
        deadline = started + seconds
        while not ready():
            if time.monotonic() > deadline:
                raise AssertionError(f"the TUI never got to: {what}\n--- screen ---\n{self.screen()}")
            time.sleep(POLL_SECONDS)
        self.waited.append((what, round(time.monotonic() - started, 1)))

    def stop(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=30, check=False)

    def transcript_records(self) -> list[dict[str, object]]:
        found = sorted((self.cc.home / ".claude" / "projects").glob("*/*.jsonl"))
        if not found:
            return []
        out = []
        for line in found[-1].read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue  # a line being written
        return out
