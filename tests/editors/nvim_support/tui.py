"""Real Neovim in a terminal: tmux runs ``nvim`` (its TUI, not --headless) in a pane of a fixed size; the tests type
into it and read back what the screen shows (``capture-pane``), as a user would see it.

Every run has its own tmux server (``-L``), ended (with what it runs) when the context exits. ``png()`` draws the
pane, colours included, for the README's screenshots.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType

COLUMNS, LINES = 120, 36


def tmux_executable() -> str | None:
    return shutil.which("tmux")


class Screen:
    """One Neovim in one tmux pane."""

    def __init__(
        self, argv: list[str], *, cwd: Path, env: Mapping[str, str], columns: int = COLUMNS, lines: int = LINES
    ) -> None:
        tmux = tmux_executable()
        if tmux is None:
            raise RuntimeError("tmux is not installed")
        self.tmux = tmux
        self.socket = f"compact-nvim-{uuid.uuid4().hex[:12]}"
        self.log: list[str] = []
        """Every screen read, oldest first (what the test saw, for its failure message)."""
        launcher = cwd.parent / f".launch-{self.socket}.sh"
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items())
        launcher.write_text(f"#!/bin/sh\n{exports}cd {shlex.quote(str(cwd))}\nexec {shlex.join(argv)}\n")
        launcher.chmod(0o700)
        self._tmux(
            "-f", "/dev/null", "new-session", "-d", "-x", str(columns), "-y", str(lines), "-s", "nvim", str(launcher)
        )
        self._tmux("set-option", "-g", "remain-on-exit", "on")

    def _tmux(self, *args: str) -> str:
        proc = subprocess.run(
            [self.tmux, "-L", self.socket, *args], capture_output=True, text=True, timeout=30, check=False
        )
        if proc.returncode != 0:
            raise RuntimeError(f"tmux {args[0]} failed: {proc.stderr.strip()}")
        return proc.stdout

    def text(self) -> str:
        """What the pane shows now, one line per screen row."""
        shown = self._tmux("capture-pane", "-p", "-t", "nvim")
        self.log.append(shown)
        return shown

    def wait_for(self, what: str | Callable[[str], bool], timeout: float = 60.0) -> str:
        """The screen once it shows ``what`` (a text, or a test of the screen); fails with the last screen."""
        test = what if callable(what) else (lambda screen: what in screen)
        deadline = time.monotonic() + timeout
        while True:
            shown = self.text()
            if test(shown):
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed {what!r}; it shows:\n{shown}")
            time.sleep(0.1)  # polling the screen: tmux has no event for "the screen changed"

    def keys(self, *keys: str) -> None:
        """Type ``keys`` (tmux key names such as ``Enter``, ``Escape``, ``C-c`` are separate arguments)."""
        for key in keys:
            if re.fullmatch(r"(Enter|Escape|Tab|BSpace|Space|Up|Down|C-[a-z\]\[])", key):
                self._tmux("send-keys", "-t", "nvim", key)
            else:
                self._tmux("send-keys", "-t", "nvim", "-l", key)

    def command(self, line: str) -> None:
        """Type an Ex command as a user would: Escape, ``:line``, Enter."""
        self.keys("Escape", ":" + line, "Enter")

    def png(self, path: Path) -> None:
        """Draw the pane (its colours too) to a PNG."""
        from tests.editors.nvim_support.screenshot import render

        render(self._tmux("capture-pane", "-p", "-e", "-t", "nvim"), path)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):  # already gone
            self._tmux("kill-server")

    def __enter__(self) -> Screen:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()


def clean_home_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a new user: a clean HOME, no XDG overrides, nothing of ours on PATH."""
    env = {
        "HOME": str(home),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "TERM": "tmux-256color",
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "LC_ALL": "C.UTF-8",
    }
    env.update(extra or {})
    return env
