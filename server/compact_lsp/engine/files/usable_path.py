"""The one check of a path that comes from outside, and resolving paths that may have changed since.

Tool inputs, ``compact/readFile`` and pins, document URIs, settings and imported transcripts all name files with
strings someone else chose. ``checked_path`` is where each such string becomes a path the engine may keep: it
must hold no NUL byte (no system call can take one), be valid Unicode (a lone surrogate cannot be encoded, so
``realpath`` raises) and be at most ``MAX_PATH_BYTES`` long; otherwise it is refused there with ``UnusablePath``
(a ``ValueError``: InvalidParams on the wire) naming the field, before anything is journalled.

A path that was fine when it was recorded may not resolve later: the file is swapped for a link, a folder for a
file, or ``realpath`` races a swap (``readlink`` of something that stopped being a link raises ``EINVAL``).
``real_path`` is ``os.path.realpath`` that never raises for that: it retries, then falls back to the normalised
absolute path, which the file gate checks again on the open descriptor anyway.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

MAX_PATH_BYTES = 4096
"""Linux's PATH_MAX: no system call takes a longer path."""

_REALPATH_TRIES = 3


class UnusablePath(ValueError):
    """A string that cannot name a file; the text names the field and says what is wrong."""


def path_problem(value: str) -> str | None:
    """Why ``value`` cannot name a file, or None when it can."""
    if "\x00" in value:
        return "holds a NUL byte"
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        return "is not valid Unicode (it holds a lone surrogate)"
    if size > MAX_PATH_BYTES:
        return f"is {size} bytes long, over the {MAX_PATH_BYTES}-byte limit of a path"
    return None


def is_usable(value: object) -> bool:
    """``value`` is a non-empty string that can name a file."""
    return isinstance(value, str) and bool(value) and path_problem(value) is None


def checked_path(value: str, field: str) -> str:
    """``value`` when it can name a file, else ``UnusablePath`` naming ``field``."""
    problem = path_problem(value)
    if problem is not None:
        raise UnusablePath(f"{field} {problem}, so it cannot name a file; send a real path")
    return value


def real_path(path: str) -> str:
    """``os.path.realpath(path)``, never raising for a path that changes while it is resolved (see the module
    doc); an unusable ``path`` raises ``UnusablePath``."""
    problem = path_problem(path)
    if problem is not None:
        raise UnusablePath(f"the path {path[:80]!r} {problem}")
    for _ in range(_REALPATH_TRIES):
        try:
            return os.path.realpath(path)
        except OSError:  # a link swapped for a file mid-resolution (EINVAL), a folder that vanished
            continue
    return os.path.normpath(os.path.abspath(path))


def real_path_or_none(path: str) -> str | None:
    """``real_path``, or None for a path that cannot name a file."""
    try:
        return real_path(path)
    except UnusablePath:
        return None


def instant_realpaths() -> Callable[[str], str]:
    """``real_path`` for a pass over many paths that takes the disk as it is at one instant (rehydration
    reading a summarised history): each folder is resolved once and each path once, so a file in a folder already
    seen costs one ``lstat`` of its name, not one per part of its path. A name that is a link, ``.`` or ``..``, or
    a relative path, is resolved in full, exactly as ``os.path.realpath`` does."""
    folders: dict[str, str] = {}
    paths: dict[str, str] = {}

    def realpath(path: str) -> str:
        found = paths.get(path)
        if found is not None:
            return found
        head, name = os.path.split(path)
        if not os.path.isabs(head) or name in ("", os.curdir, os.pardir):
            found = real_path(path)
        else:
            folder = folders.get(head)
            if folder is None:
                folder = folders[head] = real_path(head)
            found = os.path.join(folder, name)
            try:
                if stat.S_ISLNK(os.lstat(found).st_mode):
                    found = real_path(path)
            except OSError:  # missing, or under a file: realpath keeps the name as it is too
                pass
        paths[path] = found
        return found

    return realpath
