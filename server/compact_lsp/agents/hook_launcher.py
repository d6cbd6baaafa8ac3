"""The command Claude Code (or Codex) runs for our hook: a small launcher script that finds this server wherever
it lives.

``hook_command()`` used to be ``<python> -m compact_lsp claude-code hook``, which fails outside VS Code when the
server is the one bundled in the extension (it is importable only with the ``PYTHONPATH`` the extension sets).
``write_launcher()`` writes ``<user data dir>/compact-lsp/launchers/<agent>-hook-<id>`` (0700, atomically), one
per install: ``<id>`` is a digest of what it runs (the agent, this Python, the ``PYTHONPATH`` this server needs), so
installing from another Python or another server writes another launcher and never repoints one a project's
settings name already; and the settings entry, which names the launcher, changes with what runs (Codex trusts a
hook by a hash of its entry, so a change asks for trust again). An extension update moves the bundled server to a
new versioned folder (``…/publisher.compact-lsp-1.2.3/bundled/libs``) and removes the old one, so for each such
entry the launcher falls back to the newest sibling folder that exists. ``check_launcher()`` runs it once
(``--check``, with none of this process's environment but PATH and HOME) before anyone says "installed".

A launcher cannot fail silently: when its Python is gone, or the hook cannot start (the server's folder is gone),
it says so on stderr, in words for the user, and exits ``LAUNCH_FAILED``, which the agents show (measured:
docs/claude-code.md, docs/codex.md). An agent that shows a failed hook otherwise gives its own end of the script
(``LauncherTail``: Codex's answers with the reason as its ``systemMessage`` and status 0, the one way Codex's TUI
shows a hook's words, agents/codex/launcher.py). ``compact-lsp doctor`` runs every installed launcher the same
way.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from compact_lsp.runtime.atomic_files import replace_file


def ready(agent: str) -> str:
    """What ``compact-lsp <agent> hook --check`` prints."""
    return f"compact-lsp {agent} hook: ready"


_VERSIONED = re.compile(r"^(?P<head>.*/[^/]+?-)\d+(?:\.\d+)+(?P<tail>(?:/.*)?)$")
CHECK_TIMEOUT = 30
LAUNCH_FAILED = 2
"""The launcher's status when the hook cannot start (its own status is always 0 once it runs)."""


LauncherTail = Callable[[str, str, str], list[str]]
"""The end of an agent's launcher script, given its Python and the two reasons it cannot start (``gone``: its
Python is gone; ``failed``: the hook exited with ``$status``, said above): the lines that start the hook and say
why it could not, where the agent shows it."""


class LauncherError(Exception):
    """The launcher could not be written, or does not run this server."""


def launchers_dir() -> Path:
    from platformdirs import user_data_path

    return user_data_path("compact-lsp") / "launchers"


def launcher_path(agent: str, python: str | None = None, pythonpath: list[str] | None = None) -> Path:
    """This install's launcher: named by a digest of what it runs."""
    what = "\0".join([agent, python or sys.executable, *(pythonpath if pythonpath is not None else [])])
    return launchers_dir() / f"{agent}-hook-{hashlib.sha256(what.encode()).hexdigest()[:12]}"


def _needed_pythonpath() -> list[str]:
    """The ``PYTHONPATH`` entries this server was started with, when this Python cannot import it without."""
    entries = [e for e in os.environ.get("PYTHONPATH", "").split(os.pathsep) if e]
    if not entries:
        return []
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    try:
        probe = subprocess.run(
            [sys.executable, "-c", "import compact_lsp"], env=env, capture_output=True, timeout=CHECK_TIMEOUT
        )
    except (OSError, subprocess.TimeoutExpired):
        return entries
    return [] if probe.returncode == 0 else entries


def launcher_text(python: str, pythonpath: list[str], agent: str, tail: LauncherTail | None = None) -> str:
    """The launcher script (POSIX sh): this Python with the server's path, or why it cannot start, on stderr and
    its status (or as the agent's ``tail`` says it)."""
    assert agent.replace("-", "").isalnum(), f"not an agent's name: {agent!r}"
    again = f"or 'compact-lsp {agent} install-hook' again from the compact-lsp you use"
    lines = [
        "#!/bin/sh",
        f"# Written by compact-lsp ({agent} install-hook): {agent} runs this after its compaction.",
        "# It starts the compact-lsp hook with the Python and the server it was installed from.",
        f"py={shlex.quote(python)}",
    ]
    names: list[str] = []
    for n, entry in enumerate(pythonpath):
        name = f"p{n}"
        names.append(f"${name}")
        lines.append(f"{name}={shlex.quote(entry)}")
        versioned = _VERSIONED.match(entry)
        if versioned:  # an extension update moved it: the newest sibling version that exists
            pattern = shlex.quote(versioned["head"]) + "*" + shlex.quote(versioned["tail"])
            lines.append(f'[ -d "${name}" ] || for d in {pattern}; do [ -d "$d" ] && {name}="$d"; done')
    if names:
        lines.append(f'PYTHONPATH="{os.pathsep.join(names)}"; export PYTHONPATH')
    gone = f"compact-lsp hook cannot start, run 'compact-lsp doctor': its Python $py is gone ({again})"
    failed = f"compact-lsp hook could not start, run 'compact-lsp doctor': status $status, above ({again})"
    if tail is not None:
        return "\n".join([*lines, *tail(python, gone, failed)]) + "\n"
    lines += [  # the words are ours (AGENTS), in double quotes for $py and $status only
        f'[ -x "$py" ] || {{ echo "{gone}" >&2; exit {LAUNCH_FAILED}; }}',
        f'"$py" -m compact_lsp {agent} hook "$@"',
        "status=$?",
        f'[ "$status" -eq 0 ] || {{ echo "{failed}" >&2; exit {LAUNCH_FAILED}; }}',
    ]
    return "\n".join(lines) + "\n"


def write_launcher(path: Path | None = None, *, agent: str, tail: LauncherTail | None = None) -> Path:
    """Write this install's launcher (the same file when it is already there); its path."""
    pythonpath = _needed_pythonpath()
    target = path or launcher_path(agent, sys.executable, pythonpath)
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_file(str(target), launcher_text(sys.executable, pythonpath, agent, tail))
    os.chmod(target, 0o700)
    return target


def check_launcher(path: Path, agent: str) -> None:
    """Run the launcher once as the agent would (no PYTHONPATH); ``LauncherError`` unless the hook answers."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    try:
        done = subprocess.run(
            [str(path), "--check"], env=env, capture_output=True, text=True, timeout=CHECK_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LauncherError(f"the hook launcher {path} did not run: {exc}") from None
    if done.returncode != 0 or ready(agent) not in done.stdout:
        why = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise LauncherError(f"the hook launcher {path} does not start compact-lsp ({why}); nothing was installed")


def launcher_command(agent: str, tail: LauncherTail | None = None) -> str:
    """Write the launcher, check that it runs, and give the command line for the agent's settings."""
    path = write_launcher(agent=agent, tail=tail)
    check_launcher(path, agent)
    return shlex.quote(str(path))
