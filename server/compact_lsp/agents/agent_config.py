"""The agents' own configuration files, read for what they say about us (their automatic compaction): the user's
files, read through the gate, small, and remembered by their size and time, so a status published at every line an
agent writes reads none of them again."""

from __future__ import annotations

import functools
import json
import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compact_lsp.engine.files.file_gate import open_regular

MAX_CONFIG_BYTES = 16 << 20
"""A configuration file read for its compaction settings, at most (``~/.claude.json`` grows with history)."""


def read_config(path: Path, parse: Callable[[bytes], Any]) -> Any:
    """The parsed file at ``path``, or None when it is missing, not a regular file, too big or not parsable;
    parsed again only when its size or time changed."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return _parsed(str(path), stat.st_size, stat.st_mtime_ns, parse)


@functools.lru_cache(maxsize=32)
def _parsed(path: str, _size: int, _mtime_ns: int, parse: Callable[[bytes], Any]) -> Any:
    try:
        with open_regular(path, max_bytes=MAX_CONFIG_BYTES) as f:
            return parse(f.read())
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None


def json_object(data: bytes) -> dict[str, Any] | None:
    value = json.loads(data)
    return value if isinstance(value, dict) else None


def toml_table(data: bytes) -> dict[str, Any]:
    return tomllib.loads(data.decode("utf-8"))


def home() -> Path:
    return Path(os.path.expanduser("~"))
