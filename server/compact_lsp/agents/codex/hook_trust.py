"""Codex's own trust entry for our hook, taken out again when the hook is.

Codex runs a hook only once the user trusts it (``/hooks`` in its TUI). It records that in the user's
``$CODEX_HOME/config.toml``, whichever file holds the hook (measured on codex-cli 0.171.0: the TUI writes it
through its app server's ``config/batchWrite``; ``hooks/list`` names the key)::

    [hooks.state."<absolute path of the config holding the hook>:session_start:<entry index>:<hook index>"]
    trusted_hash = "sha256:<hash of the hook's definition>"

The key names a position, not the hook: once our hook is gone, whatever moves into its position would inherit a
trust entry it was never given, and the entry is left behind in a file the user did not ask us to keep changing.
``trust_keys`` gives the keys of our hook in a config file (before it is removed); ``drop_trust`` takes those
tables out of a parsed config, and the ``[hooks.state]`` and ``[hooks]`` around them when they are left empty and
were never written by the user (tomlkit's super tables: only their children had headers).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import tomlkit

from compact_lsp.engine.files.usable_path import real_path_or_none

CODEX_EVENT_KEY = "session_start"
"""The event's name in Codex's trust keys (``hooks.SessionStart`` in the config)."""


def trust_keys(path: Path, entries: Iterable[Any], is_ours: Callable[[Any], bool]) -> set[str]:
    """The trust keys of our hooks in ``entries`` (``hooks.SessionStart`` of the config at ``path``), under every
    name Codex may give the file (as written, and with links resolved)."""
    names = {os.path.abspath(path), real_path_or_none(str(path)) or os.path.abspath(path)}
    keys: set[str] = set()
    for group, entry in enumerate(entries):
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        for index, hook in enumerate(inner if isinstance(inner, list) else []):
            if is_ours(hook):
                keys |= {f"{name}:{CODEX_EVENT_KEY}:{group}:{index}" for name in names}
    return keys


def drop_trust(doc: tomlkit.TOMLDocument, keys: set[str]) -> bool:
    """Take the ``hooks.state`` tables of ``keys`` out of ``doc`` (and the tables that only held them); True when
    something went."""
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return False
    state = hooks.get("state")
    if not isinstance(state, dict):
        return False
    gone = [key for key in state if key in keys]
    for key in gone:
        del state[key]
    if gone and not state and _implicit(state):
        del hooks["state"]
    if gone and not hooks and _implicit(hooks):
        del doc["hooks"]
    return bool(gone)


def _implicit(table: Any) -> bool:
    is_super = getattr(table, "is_super_table", None)
    return bool(is_super()) if callable(is_super) else False


def without_trailing_change(text: str, read: str) -> str:
    """``text`` ending as ``read`` did: a table taken out of the end leaves the blank line that preceded it in
    tomlkit's rendering, which the file as read did not end with."""
    ending = read[len(read.rstrip("\r\n")) :]
    return text.rstrip("\r\n") + ending if text.strip() else text.strip("\r\n")
