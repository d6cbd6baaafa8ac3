"""An agent's CLI run as its users run it, its TUI, in a detached tmux session of its own socket, driven as a user
drives it: the one owner of what the Codex, Claude Code, Qwen Code and Gemini CLI tiers do with tmux.

``start`` writes a start script and runs it in the pane. The CLI is not ``exec``-ed: its stderr goes to
``<name>.stderr`` (kept in a file: a pipe would outlive it with a child it relaunched), its exit status and the end
of that stderr are shown after it ends and the status written to ``<name>.status``, and the pane stays after the
script ends (tmux's ``remain-on-exit``), so the screen is what the CLI last showed, not an empty page from a tmux
server that has gone. ``wait_for`` polls with a deadline (tmux gives no event to wait on) and stops as soon as the
CLI exited, saying why (``why``). ``stop`` hangs the pane up, then kills whatever of the CLI is left: the pane's
process group (the start script, the CLI and what it started); it returns once the tmux server is gone, so the same
session can be started again at once.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

RULE = "─" * 20
"""Part of the horizontal rules Claude Code and Qwen Code draw above and below their input box."""


def tmux_missing() -> str | None:
    return None if shutil.which("tmux") else "tmux is not installed"


def ci_marker(name: str) -> bool:
    """Whether a variable tells a program it runs in a CI job, not in a user's terminal. Gemini CLI 0.61.0 takes
    ``CI=true`` or ``GITHUB_ACTIONS=true`` for headless mode: it exits 42 ("No input provided via stdin") and shows
    no prompt. Ink, the TUI library of Gemini CLI, Qwen Code and Claude Code, draws only its last frame when ``CI``,
    ``CONTINUOUS_INTEGRATION`` or a ``CI_*`` variable is set."""
    return name in ("CI", "CONTINUOUS_INTEGRATION", "GITHUB_ACTIONS") or name.startswith("CI_")


def terminal_exports(env: Mapping[str, str]) -> str:
    """The start script's lines that give a pane ``env`` as a user's terminal has it: without the CI runner's
    markers, which the pane would otherwise inherit from the tmux server (started from the test's environment)."""
    markers = sorted(k for k in os.environ.keys() | env.keys() if ci_marker(k))
    unset = f"unset {' '.join(markers)}\n" if markers else ""
    return unset + "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items() if not ci_marker(k))


@dataclass
class TmuxCli:
    folder: Path
    """Where the socket, the start script, the CLI's stderr and its exit status are kept."""
    name: str
    """The tmux session's name, and the files' (several sessions can share ``folder``)."""
    label: str
    """The CLI as its failures name it ("Gemini CLI")."""
    program: str
    """Its command's name, as its exit status and stderr are said ("gemini")."""
    poll: float = 0.2
    context: Callable[[], str] = lambda: ""
    """More to say when the CLI did not get somewhere (what the stub refused), lines ending in a newline."""
    pane: int | None = None
    """The pane's process id, its process group's too (the start script, then the CLI)."""
    waited: list[tuple[str, float]] = field(default_factory=list)

    @property
    def socket(self) -> str:
        return str(self.folder / f"tmux-{self.name}")

    @property
    def status_file(self) -> Path:
        """The CLI's exit status, written by the start script once it ended."""
        return self.folder / f"{self.name}.status"

    @property
    def stderr_file(self) -> Path:
        return self.folder / f"{self.name}.stderr"

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, timeout=30,
                              check=check)  # fmt: skip

    def start(self, command: Sequence[str], env: Mapping[str, str], cwd: Path) -> None:
        """``command`` in the pane, in ``cwd``, with ``env`` (tmux's own variables left out) in a 256-colour
        terminal of 160 by 50. It returns at once: what the CLI shows first is the caller's to wait for."""
        env = {k: v for k, v in env.items() if not k.startswith("TMUX")} | {"TERM": "xterm-256color"}
        exports = terminal_exports(env)
        script = self.folder / f"start-{self.name}.sh"
        status, stderr = shlex.quote(str(self.status_file)), shlex.quote(str(self.stderr_file))
        self.status_file.unlink(missing_ok=True)
        script.write_text(
            f"#!/bin/sh\n{exports}cd {shlex.quote(str(cwd))}\n{shlex.join(command)} 2>>{stderr}\ncode=$?\n"
            f'echo "[{self.program} exited with status $code]"\ntail -n 20 {stderr}\necho $code > {status}\n'
        )  # not exec: the status is said, then its stderr
        script.chmod(0o700)
        config = self.folder / "tmux.conf"
        config.write_text("set-option -g remain-on-exit on\n")  # the pane stays when the script ends
        subprocess.run(["tmux", "-S", self.socket, "-f", str(config), "new-session", "-d", "-x", "160", "-y", "50",
                        "-s", self.name, str(script)], check=True, timeout=30)  # fmt: skip
        self.pane = int(self._tmux("display-message", "-p", "-t", self.name, "#{pane_pid}").stdout)

    def _capture(self, *args: str) -> str:
        done = self._tmux("capture-pane", "-p", *args, "-t", self.name, check=False)
        return done.stdout if done.returncode == 0 else f"(no screen: tmux says {done.stderr.strip()!r})"

    def screen(self) -> str:
        return self._capture()

    def history(self) -> str:
        """What the terminal showed since the start (what scrolled away as well)."""
        return self._capture("-S", "-")

    def between_rules(self) -> str:
        """The lines between the last two horizontal rules of the screen (a TUI's input box), "" before it drew
        two."""
        lines = self.screen().splitlines()
        rules = [n for n, line in enumerate(lines) if RULE in line]
        return "\n".join(lines[rules[-2] + 1 : rules[-1]]).strip() if len(rules) >= 2 else ""

    @property
    def exited(self) -> str | None:
        """The CLI's exit status once it ended, None while it runs."""
        return self.status_file.read_text().strip() if self.status_file.exists() else None

    def why(self) -> str:
        """What the CLI left to say why it did not get somewhere: its exit status, its stderr, its screen."""
        stderr = self.stderr_file.read_text(errors="replace")[-4000:] if self.stderr_file.exists() else ""
        said = f"{self.program}'s exit status: {self.exited or 'still running'}\nwaited (seconds): {self.waited}\n"
        return f"{said}{self.context()}--- {self.program}'s stderr ---\n{stderr}\n--- screen ---\n{self.screen()}"

    def type(self, text: str, shown: Callable[[], bool]) -> None:
        """Type ``text``, wait until the TUI ``shown`` it typed, then End and Enter. An Enter read soon after typed
        keys is taken for part of a paste: Gemini CLI (and Qwen Code, whose input box is Gemini's) reads an Enter
        within 30 ms of a typed key as a newline (its ``bufferFastReturn``), Codex 0.171.0 one within 120 ms of a
        burst of typed keys (its ``paste_burst``; measured: text and Enter sent at once left the text unsent).
        Under load the Enter sent after the screen showed the text could still be read that soon. An End key before
        it (a key that types nothing, the cursor already at the end) resets that clock in the CLI itself (Codex ends
        its burst on any key that is not a character), so the Enter is read as Enter however soon it comes
        (measured in Codex: text, End and Enter sent at once submitted). Claude Code 2.1.332 takes an Enter right
        after the text as Enter; End moves its cursor to the end of the line there too, and nothing else."""
        self._tmux("send-keys", "-t", self.name, "-l", text)
        self.wait_for(f"{text!r} typed", shown)
        self.keys("End", "Enter")

    def keys(self, *keys: str) -> None:
        """Press ``keys`` (tmux's key names: ``Enter``, ``Down``, or a character)."""
        self._tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, what: str, ready: Callable[[], bool], seconds: float = 90) -> None:
        started = time.monotonic()
        deadline = started + seconds
        while not ready():
            if self.status_file.exists():
                raise AssertionError(f"{self.label} exited before it got to: {what}\n{self.why()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.label} never got to: {what}\n{self.why()}")
            time.sleep(self.poll)
        self.waited.append((what, round(time.monotonic() - started, 1)))

    def stop(self, grace: float = 5.0) -> bool:
        """End the session: tmux hangs up its pane; then whatever of the CLI is left after ``grace`` seconds is
        killed, its whole process group. True when something was left to kill."""
        self._tmux("kill-server", check=False)
        self._until_server_gone()
        if self.pane is None:
            return False
        outlived = False
        deadline = time.monotonic() + grace
        while _group_alive(self.pane):
            if time.monotonic() > deadline:
                outlived = True
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.pane, signal.SIGKILL)
                break
            time.sleep(self.poll)
        self.pane = None
        return outlived

    def _until_server_gone(self, seconds: float = 10) -> None:
        """Wait (at most ``seconds``) until the tmux server answers no more: a ``new-session`` on the socket of a
        server still exiting fails (seen under load with Codex, in a test that starts its TUI again)."""
        deadline = time.monotonic() + seconds
        while self._tmux("has-session", check=False).returncode == 0 and time.monotonic() < deadline:
            time.sleep(0.05)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True
