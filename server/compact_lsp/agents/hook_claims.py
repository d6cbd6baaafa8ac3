"""One answer per compaction, however many of our installs the agent runs.

An agent reads hooks from the user's settings and from the project's, and runs every one that matches: with our
hook in both, Codex 0.171.0 started both at once and sent the model our context twice (two identical ``developer``
items, each within the inline limit on its own). Whichever scope wins cannot be decided from the settings alone:
a project's hook runs only in a project Codex trusts and only once the user trusted the hook itself, so a user
hook that stood down for a project install could leave the model with nothing. Instead, each run claims the
compaction it answers, once it has an answer: the first to claim prints it, the others print nothing. A hook
claims only when it sees our hook in more than one of the agent's settings files for its folder
(``installed_more_than_once``): with one install, nothing is written and every run answers.

A compaction is named by the agent and its transcript as it was when the hook started (the file, its size and
change time: every compaction appends to it, so two compactions never share a name; the agent starts both hooks
before writing anything else). A claim is an empty file created exclusively under the hook's state
folder; claims older than ``CLAIM_SECONDS`` are removed as new ones are made. When the folder cannot be written,
the hook answers as if it had claimed: our context twice is better than none.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from compact_lsp.engine.files.usable_path import real_path_or_none

CLAIM_SECONDS = 3600.0
MAX_SETTINGS_BYTES = 4 << 20
PROJECT_LEVELS = 12
"""How many folders up from the session's folder a project install is looked for (agents read the project's
settings from where they were started up to the project's root)."""


def settings_places(scopes: Mapping[str, str], settings_path: Callable[[str, str], Path], cwd: str) -> list[Path]:
    """Every settings file the agent may read our hook from for a session in ``cwd``: each scope's, a project's
    in ``cwd`` and the folders above it."""
    places: list[Path] = []
    for scope in scopes:
        if scope != "project":
            places.append(settings_path(scope, cwd))
            continue
        folder = os.path.abspath(cwd)
        for _ in range(PROJECT_LEVELS):
            places.append(settings_path(scope, folder))
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return places


def installed_more_than_once(places: Iterable[Path], agent: str) -> bool:
    """Whether two or more of ``places`` name our hook (its launcher or its module; a plain look at the bytes, no
    parsing: a wrong guess only makes the hook claim, which costs a file)."""
    markers = (f"{agent}-hook".encode(), f"compact_lsp {agent} hook".encode(), f"compact-lsp {agent} hook".encode())
    found = 0
    for place in dict.fromkeys(real_path_or_none(str(p)) or str(p) for p in places):
        try:
            with open(place, "rb") as f:
                data = f.read(MAX_SETTINGS_BYTES)
        except OSError:
            continue
        found += any(m in data for m in markers)
        if found > 1:
            return True
    return False


def claims_dir() -> str:
    """``compact-lsp/hook-claims`` in the user's state folder (beside the hooks' log folder; on Linux worked out
    here, as ``hook_process.hook_log_path``, so the hook does not import platformdirs)."""
    if sys.platform.startswith("linux"):
        state = os.environ.get("XDG_STATE_HOME", "").strip() or os.path.expanduser("~/.local/state")
        return os.path.join(state, "compact-lsp", "hook-claims")
    from platformdirs import user_state_path

    return str(user_state_path("compact-lsp") / "hook-claims")


def transcript_mark(path: str) -> str:
    """The transcript as it is now, by the file itself (device and inode) and its size and change time: digits
    only, a file name (empty: it cannot be read, and then nothing is ever claimed by it)."""
    try:
        st = os.stat(path)
    except OSError:
        return ""
    return f"{st.st_dev}.{st.st_ino}.{st.st_size}.{st.st_mtime_ns}"


def claim(folder: str, agent: str, mark: str) -> bool:
    """True when this run is the first to answer this compaction (or claims cannot be kept: see the module doc)."""
    if not mark:
        return True
    name = f"{agent}.{mark}"
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        os.close(os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return True
    _prune(folder, keep=name)
    return True


def _prune(folder: str, *, keep: str) -> None:
    old = time.time() - CLAIM_SECONDS
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.name != keep and entry.stat(follow_symlinks=False).st_mtime < old:
                    os.unlink(entry.path)
