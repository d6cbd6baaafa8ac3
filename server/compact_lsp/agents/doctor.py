"""``compact-lsp doctor``: does every compaction hook we installed still start?

A hook that cannot start is shown by the agents only in passing (Claude Code records a hook error beside the
compaction; Codex prints "SessionStart Failed"), and the model just goes without our context. The doctor looks at
each place ``install-hook`` writes (every registered agent's user and project settings: Claude Code, Codex, Qwen
Code), and runs each of our launchers found there once, as the agent would (``--check``, no ``PYTHONPATH``), saying
for each what is wrong and the command that fixes it. A hook that starts but that an earlier version installed with
less than a reinstall would (Qwen Code's before its ``resume`` matcher) is said too, with what the reinstall adds;
it is not counted as broken.

Only our own launchers are run (a file in ``launchers_dir()``, or the fixed launcher path of older installs): a
project's settings are the repository's, and a command there that merely looks like ours is never executed; a
``python -m compact_lsp ... hook`` entry is checked by its interpreter being there, without running it.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from compact_lsp.agents import registered
from compact_lsp.agents.hook_launcher import LauncherError, check_launcher, launchers_dir
from compact_lsp.engine.files.usable_path import real_path


@dataclass(frozen=True)
class HookHealth:
    """One installed hook: where, what runs, and whether it starts (``problem`` None: it does)."""

    agent: str
    place: Path
    command: str
    problem: str | None
    fix: str
    update: str | None = None
    """What a reinstall would add to a hook that starts (an earlier version installed it), or None."""


def _own_launcher(command: str) -> Path | None:
    """The launcher a command names when it is one of ours (one word, a file in our launchers folder)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) != 1:
        return None
    path = Path(words[0])
    ours = {real_path(str(launchers_dir())), real_path(str(launchers_dir().parent))}
    return path if real_path(str(path.parent)) in ours else None


def _health(agent: str, place: Path, command: str, fix: str) -> HookHealth:
    launcher = _own_launcher(command)
    if launcher is not None:
        if not launcher.is_file():
            return HookHealth(agent, place, command, f"its launcher {launcher} is gone", fix)
        try:
            check_launcher(launcher, agent)
        except LauncherError as exc:
            return HookHealth(agent, place, command, str(exc).replace("; nothing was installed", ""), fix)
        return HookHealth(agent, place, command, None, fix)
    try:
        python = shlex.split(command)[0]
    except (ValueError, IndexError):
        return HookHealth(agent, place, command, "its command cannot be read", fix)
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        return HookHealth(agent, place, command, f"its Python {python} is gone", fix)
    return HookHealth(agent, place, command, None, fix)


def hook_health(project_dir: str) -> list[HookHealth]:
    """Every hook of ours installed for ``project_dir`` and for the user, checked."""
    found: list[HookHealth] = []
    for scope in ("user", "project"):
        flag = f" --{scope}" + (f" --dir {shlex.quote(project_dir)}" if scope == "project" else "")
        for agent in registered.AGENTS:
            fix = f"compact-lsp {agent.name} install-hook{flag}{agent.after_install}"
            place = agent.settings_path(scope, project_dir)
            for command in agent.installed_commands(place):
                health = _health(agent.name, place, command, fix)
                update = agent.installed_outdated(place) if health.problem is None else None
                found.append(replace(health, update=update) if update else health)
    return found


def _write_line(line: str) -> None:
    sys.stdout.write(line + "\n")


def doctor_command(project_dir: str, out: Callable[[str], object] = _write_line) -> int:
    """Print each installed hook's health; 1 when one cannot start."""
    found = hook_health(os.path.abspath(project_dir))
    if not found:
        installs = ", ".join(f"compact-lsp {agent.name} install-hook" for agent in registered.AGENTS)
        out(f"compact-lsp doctor: no compact-lsp hook is installed here or for this user ({installs})")
        return 0
    for h in found:
        if h.problem is None and h.update:
            out(f"update  {h.agent} hook in {h.place}: it starts, but an earlier compact-lsp installed it; a "
                f"reinstall adds this: {h.update}. Fix: {h.fix}")  # fmt: skip
        elif h.problem is None:
            out(f"ok      {h.agent} hook in {h.place}: it starts ({h.command})")
        else:
            out(f"BROKEN  {h.agent} hook in {h.place}: {h.problem}. Fix: {h.fix}")
    return 1 if any(h.problem for h in found) else 0
