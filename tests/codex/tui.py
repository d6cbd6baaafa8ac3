"""The real Codex TUI, driven in tmux as a user drives it, against the loopback Responses API stub.

``CodexTui`` starts ``codex`` (interactive, no ``exec``) in a detached tmux session of its own socket, in the
project, with the ``CODEX_HOME`` of ``codex_cli.write_config`` plus what a user has clicked through once (the model
migration notice, the screen reader check). ``type`` sends a line; ``wait_for`` polls the stub or the screen with a
deadline (tmux gives no event to wait on); ``screen`` is what the terminal shows.

The TUI asks the model for more than the user's turns: it names the thread with a request of its own (its
``x-codex-turn-metadata`` says ``"thread_source": "thread_title"``, it asks for a JSON ``{"title": ...}``).
``tui_script`` answers that one with a title; a script that answered it with tool calls would make the title
thread compact, and Codex runs no ``SessionStart`` hook for that thread (measured: no hook ran, the user's thread
never compacted).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.codex.codex_cli import CODEX, COMPACT_LIMIT, env_for
from tests.codex.responses_stub import Reply, Request, is_compaction, message
from tests.support.tmux_cli import terminal_exports

POLL_SECONDS = 0.2
CLICKED_THROUGH = """
[tui]
screen_reader_detection_done = true

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"
"""
"""What the TUI records once the user has answered its first-start questions (appended to the config)."""


def turn_metadata(request: Request) -> dict[str, Any]:
    """Codex's own account of a request: its thread's source, its turn, its context window's number."""
    raw = (request.get("client_metadata") or {}).get("x-codex-turn-metadata", "{}")
    try:
        found = json.loads(raw)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def is_title(request: Request) -> bool:
    return turn_metadata(request).get("thread_source") == "thread_title"


def tui_script(
    turns: Sequence[Sequence[dict[str, Any]]], on_compaction: Callable[[int], None] = lambda n: None
) -> Callable[[Request], Reply]:
    """The model's side of the user's turns, turn by turn (by Codex's turn id): each turn's tool calls in order,
    the last one reported over the compaction limit when ``over_limit`` says so, then a final answer; the summary
    when Codex asks for one (``on_compaction`` with its number, from 1, first); a title for the title thread."""
    seen: list[str] = []
    done: dict[str, int] = {}
    compactions = [0]

    def script(request: Request) -> Reply:
        if is_title(request):
            return [message(json.dumps({"title": "Fix the greeting"}))], 500
        if is_compaction(request):
            compactions[0] += 1
            on_compaction(compactions[0])
            return [message("Summary: the user asked to fix the greeting; files were read.")], 800
        turn = str(turn_metadata(request).get("turn_id", ""))
        if turn not in done:
            seen.append(turn)
            done[turn] = 0
        calls = turns[seen.index(turn)] if seen.index(turn) < len(turns) else []
        at = done[turn]
        if at >= len(calls):
            return [message("All done.")], 3_000
        done[turn] += 1
        call = dict(calls[at])
        over = call.pop("over_limit", False)
        return [call], (COMPACT_LIMIT + 40_000) if over else 4_000

    return script


class CodexTui:
    def __init__(self, codex_home: Path, project: Path, name: str = "codex") -> None:
        self.home = codex_home
        self.project = project
        self.socket = str(codex_home.parent / f"tmux-{name}")
        self.name = name
        with (codex_home / "config.toml").open("a", encoding="utf-8") as config:
            config.write(CLICKED_THROUGH)

    def start(self, *args: str) -> None:
        exports = terminal_exports(env_for(self.home))
        script = self.home.parent / f"start-{self.name}.sh"
        command = shlex.join([str(CODEX), *args])
        script.write_text(f"#!/bin/sh\n{exports}cd {shlex.quote(str(self.project))}\nexec {command}\n")
        script.chmod(0o700)
        subprocess.run(["tmux", "-S", self.socket, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "50",
                        "-s", self.name, str(script)], check=True, timeout=30)  # fmt: skip

    def screen(self) -> str:
        done = subprocess.run(["tmux", "-S", self.socket, "capture-pane", "-p", "-t", self.name],
                              capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
        return done.stdout

    def history(self) -> str:
        """What the terminal showed since the start (the TUI writes its transcript inline: it scrolls away)."""
        done = subprocess.run(["tmux", "-S", self.socket, "capture-pane", "-p", "-S", "-", "-t", self.name],
                              capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
        return done.stdout

    def type(self, text: str) -> None:
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", self.name, "-l", text], check=True, timeout=30)
        time.sleep(0.4)  # the TUI takes typed text in a burst; Enter right after it may land in the paste
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", self.name, "Enter"], check=True, timeout=30)

    def wait_for(self, what: str, ready: Callable[[], bool], seconds: float = 90) -> None:
        deadline = time.monotonic() + seconds
        while not ready():
            if time.monotonic() > deadline:
                raise AssertionError(f"the TUI never got to: {what}\n--- screen ---\n{self.screen()}")
            time.sleep(POLL_SECONDS)

    def wait_for_prompt(self) -> None:
        self.wait_for("the prompt", lambda: "for shortcuts" in self.screen(), 60)

    def stop(self) -> None:
        """Stop the TUI and its tmux server, and wait until the server is gone: a ``new-session`` on the socket of a
        server still exiting fails (seen under load, in a test that starts the TUI again)."""
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=30, check=False)
        deadline = time.monotonic() + 10
        while (
            time.monotonic() < deadline
            and subprocess.run(
                ["tmux", "-S", self.socket, "has-session"], capture_output=True, timeout=30, check=False
            ).returncode
            == 0
        ):
            time.sleep(0.05)


def stop_background_server(codex_home: Path) -> None:
    """Stop the background app server the TUI starts when hook trust is not bypassed (it outlives the TUI): Codex's
    own ``daemon stop``, then whatever still runs from this ``CODEX_HOME``'s copy of Codex (measured: its pid
    updater outlives the stop)."""
    subprocess.run([str(CODEX), "app-server", "daemon", "stop"], env=env_for(codex_home), capture_output=True,
                   timeout=60, check=False)  # fmt: skip
    ours = str(codex_home / "packages") + "/"
    left = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")[0].decode()
        except (OSError, ValueError):
            continue
        if entry.name.isdigit() and command.startswith(ours):
            os.kill(int(entry.name), signal.SIGTERM)
            left.append(entry)
    deadline = time.monotonic() + 10
    while any(e.exists() for e in left) and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
