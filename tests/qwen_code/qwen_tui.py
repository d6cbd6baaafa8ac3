"""The real Qwen Code TUI (``qwen`` with no prompt, what its users run), driven in tmux as a user drives it.

``QwenTui`` starts ``qwen --yolo`` in a detached tmux session of its own socket, in the project, with the home and
settings of ``qwen_cli.QwenHome``; ``type`` types a line and Enter; ``wait_for`` polls the stub, the screen or the
pane's history with a deadline (tmux gives no event to wait on).

When the TUI never gets somewhere, the failure says why (as tests/gemini_cli/gemini_cli.py does): ``qwen`` is not
``exec``-ed, so its stderr goes to ``<name>.stderr``, its exit status is shown after it ends and written to
``<name>.status``, and the pane stays after the script ends (tmux's ``remain-on-exit``), so the screen is what the
TUI last showed. ``wait_for`` stops as soon as Qwen exited.

The TUI asks the model for more than the user's turns (measured on 0.24.4): after a turn, a suggestion of what the
user might type next (the main chat forked, its last user message ``SUGGESTION_PROMPT``), and its memory writer
(``MEMORY_PROMPT``). ``is_side`` tells them apart; a script answers them with nothing to suggest or remember.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.qwen_code.chat_completions_stub import Request, text_of
from tests.qwen_code.qwen_cli import QWEN, QwenHome

POLL_SECONDS = 0.1
SUGGESTION_PROMPT = "[SUGGESTION MODE:"
MEMORY_PROMPT = "Managed memory has TWO directories."
RULE = "─" * 20
"""Part of the horizontal rules the TUI draws above and below its input line."""
COMPRESSED = "Chat history compressed from"
"""What the TUI shows once ``/compress`` compacted."""
CURSOR = "\u200b"
"""What the input box shows at its cursor, after the text typed (a zero-width space, then the cursor's colours)."""


def tmux_missing() -> str | None:
    return None if shutil.which("tmux") else "tmux is not installed"


def last_user_text(request: Request) -> str:
    users = [m for m in request["messages"] if m.get("role") == "user"]
    return text_of(users[-1].get("content")) if users else ""


def is_side(request: Request) -> bool:
    """A request of the TUI's own, not of the user's chat: the next-input suggestion or the memory writer."""
    return last_user_text(request).startswith((SUGGESTION_PROMPT, MEMORY_PROMPT))


@dataclass
class QwenTui:
    qwen: QwenHome
    name: str = "qwen"
    pane: int | None = None
    """The pane's process id, its process group's too (the start script, then Qwen Code)."""
    waited: list[tuple[str, float]] = field(default_factory=list)

    @property
    def socket(self) -> str:
        return str(self.qwen.home / f"tmux-{self.name}")

    @property
    def status_file(self) -> Path:
        """Qwen's exit status, written by the start script once it ended."""
        return self.qwen.home / f"{self.name}.status"

    @property
    def stderr_file(self) -> Path:
        return self.qwen.home / f"{self.name}.stderr"

    def start(self, *args: str) -> None:
        """``qwen --yolo`` and ``args`` (``--continue``: the project's last session, resumed)."""
        env = {k: v for k, v in self.qwen.env().items() if not k.startswith("TMUX")}
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in {**env, "TERM": "xterm-256color"}.items())
        script = self.qwen.home / f"start-{self.name}.sh"
        command = shlex.join([str(QWEN), "--yolo", *args])
        status, stderr = shlex.quote(str(self.status_file)), shlex.quote(str(self.stderr_file))
        self.status_file.unlink(missing_ok=True)
        script.write_text(
            f"#!/bin/sh\n{exports}cd {shlex.quote(str(self.qwen.project))}\n{command} "
            f'2>>{stderr}\ncode=$?\necho "[qwen exited with status $code]"\ntail -n 20 {stderr}\n'
            f"echo $code > {status}\n"
        )  # not exec: the status is said, then its stderr
        script.chmod(0o700)
        config = self.qwen.home / "tmux.conf"
        config.write_text("set-option -g remain-on-exit on\n")  # the pane stays when the script ends
        subprocess.run(["tmux", "-S", self.socket, "-f", str(config), "new-session", "-d", "-x", "160", "-y", "50",
                        "-s", self.name, str(script)], check=True, timeout=30)  # fmt: skip
        shown = subprocess.run(["tmux", "-S", self.socket, "display-message", "-p", "-t", self.name, "#{pane_pid}"],
                               capture_output=True, text=True, timeout=30, check=True)  # fmt: skip
        self.pane = int(shown.stdout)
        self.wait_for("the prompt", lambda: "Type your message" in self.screen())

    def _capture(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-S", self.socket, "capture-pane", "-p", *args, "-t", self.name],
                              capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
        return done.stdout if done.returncode == 0 else f"(no screen: tmux says {done.stderr.strip()!r})"

    def screen(self) -> str:
        return self._capture()

    def history(self) -> str:
        """What the terminal showed since the start (what scrolled away as well)."""
        return self._capture("-S", "-")

    def input_line(self) -> str:
        """The text of the input box: the lines between the last two rules the TUI draws around it."""
        lines = self.screen().splitlines()
        rules = [n for n, line in enumerate(lines) if RULE in line]
        if len(rules) < 2:
            return ""
        return "\n".join(lines[rules[-2] + 1 : rules[-1]]).strip().rstrip(CURSOR).rstrip()

    def why(self) -> str:
        """What Qwen left to say why it did not get somewhere: its exit status, its stderr, its screen."""
        status = self.status_file.read_text().strip() if self.status_file.exists() else "still running"
        stderr = self.stderr_file.read_text(errors="replace")[-4000:] if self.stderr_file.exists() else ""
        return (f"qwen's exit status: {status}\nwaited (seconds): {self.waited}\nrefused: {self.qwen.stub.refused}\n"
                f"--- qwen's stderr ---\n{stderr}\n--- screen ---\n{self.screen()}")  # fmt: skip

    def type(self, text: str) -> None:
        """Type ``text`` and Enter, once the input box shows it typed. An End key before the Enter (the cursor
        already at the end) keeps an Enter read soon after the typed keys from being taken for a pasted newline,
        as in Gemini CLI, whose input box Qwen's is (tests/gemini_cli/gemini_cli.py)."""
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", self.name, "-l", text], check=True, timeout=30)
        self.wait_for(f"{text!r} typed", lambda: self.input_line().endswith(text))
        subprocess.run(["tmux", "-S", self.socket, "send-keys", "-t", self.name, "End", "Enter"], check=True,
                       timeout=30)  # fmt: skip

    def turn(self, prompt: str, answer: str) -> None:
        """Type ``prompt``; wait until the TUI showed ``answer``."""
        self.type(prompt)
        self.wait_for(f"the answer to {prompt!r}", lambda: answer in self.history())

    def compress(self) -> None:
        """Type ``/compress``; wait until the TUI said it compressed once more."""
        done = self.history().count(COMPRESSED)
        self.type("/compress")
        self.wait_for(f"compaction {done + 1}", lambda: self.history().count(COMPRESSED) > done)

    def wait_for(self, what: str, ready: Callable[[], bool], seconds: float = 45) -> None:
        started = time.monotonic()
        deadline = started + seconds
        while not ready():
            if self.status_file.exists():
                raise AssertionError(f"Qwen Code exited before it got to: {what}\n{self.why()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"Qwen Code never got to: {what}\n{self.why()}")
            time.sleep(POLL_SECONDS)
        self.waited.append((what, round(time.monotonic() - started, 1)))

    def stop(self, grace: float = 5.0) -> None:
        """End the session: tmux hangs up its pane; then whatever of Qwen is left is killed."""
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=30, check=False)
        if self.pane is None:
            return
        deadline = time.monotonic() + grace
        while _group_alive(self.pane):
            if time.monotonic() > deadline:
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
