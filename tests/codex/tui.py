"""The real Codex TUI, driven in tmux as a user drives it, against the loopback Responses API stub.

``CodexTui`` starts ``codex`` (interactive, no ``exec`` subcommand) in tmux (tests/support/tmux_cli.py, the one
driver of the CLIs' TUIs), in the project, with the ``CODEX_HOME`` of ``codex_cli.write_config`` plus what a user has
clicked through once (the model migration notice, the screen reader check). ``type`` types a line and Enter once the
input box shows it; ``wait_for`` polls the stub or the screen with a deadline (tmux gives no event to wait on) and
stops as soon as Codex exited, saying why; ``screen`` is what the terminal shows.

The TUI asks the model for more than the user's turns: it names the thread with a request of its own (its
``x-codex-turn-metadata`` says ``"thread_source": "thread_title"``, it asks for a JSON ``{"title": ...}``).
``tui_script`` answers that one with a title; a script that answered it with tool calls would make the title
thread compact, and Codex runs no ``SessionStart`` hook for that thread (measured: no hook ran, the user's thread
never compacted).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.codex.codex_cli import CODEX, COMPACT_LIMIT, env_for
from tests.codex.responses_stub import Reply, Request, is_compaction, message
from tests.support.tmux_cli import TmuxCli

POLL_SECONDS = 0.2
PROMPT = "› "
"""What the TUI draws before its input box's text, and before each message of the user in its transcript."""
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


@dataclass
class CodexTui:
    """``codex`` in tmux (tests/support/tmux_cli.py): its stderr and exit status kept, ``wait_for`` stopping as soon
    as Codex exited, its pane's process group killed at ``stop``."""

    home: Path
    """Its ``CODEX_HOME``; the tmux socket, start script and Codex's stderr are kept beside it."""
    project: Path
    name: str = "codex"
    tmux: TmuxCli = field(init=False)

    def __post_init__(self) -> None:
        with (self.home / "config.toml").open("a", encoding="utf-8") as config:
            config.write(CLICKED_THROUGH)
        self.tmux = TmuxCli(self.home.parent, self.name, "Codex", "codex", POLL_SECONDS)

    def start(self, *args: str) -> None:
        self.tmux.start([str(CODEX), *args], env_for(self.home), self.project)

    def screen(self) -> str:
        return self.tmux.screen()

    def history(self) -> str:
        """What the terminal showed since the start (the TUI writes its transcript inline: it scrolls away)."""
        return self.tmux.history()

    def input_line(self) -> str:
        """The text of the input box: the last line the TUI starts with its prompt mark (the ones above it are the
        user's messages of the transcript)."""
        lines = [line for line in self.screen().splitlines() if line.startswith(PROMPT)]
        return lines[-1].removeprefix(PROMPT).rstrip() if lines else ""

    def type(self, text: str) -> None:
        """Type ``text`` and Enter, once the input box shows it typed (End before Enter: tests/support/tmux_cli.py)."""
        self.tmux.type(text, lambda: self.input_line().endswith(text))

    def choose(self, option: int) -> None:
        """Choose ``option`` in the list the TUI shows (its hook review): its number moves the selection there,
        Enter, once the screen shows it selected, confirms."""
        self.tmux.keys(str(option))
        self.wait_for(f"option {option} selected", lambda: f"{PROMPT}{option}. " in self.screen(), 30)
        self.tmux.keys("Enter")

    def wait_for(self, what: str, ready: Callable[[], bool], seconds: float = 90) -> None:
        self.tmux.wait_for(what, ready, seconds)

    def wait_for_prompt(self) -> None:
        self.wait_for("the prompt", lambda: "for shortcuts" in self.screen(), 60)

    def stop(self) -> None:
        """End the session: tmux hangs up its pane, whatever of Codex is left is killed, and this returns once the
        tmux server is gone (the test may start the TUI again at once)."""
        self.tmux.stop()


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
