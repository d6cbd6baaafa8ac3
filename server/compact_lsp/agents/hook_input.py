"""The part of every agent's hook input that is the same: a JSON object naming the session, its transcript and its
working folder. Light on purpose (no engine room but ``usable_path``): Gemini CLI's hook reads it before every model
request (gemini_cli/request.py), the ``SessionStart`` hooks after a compaction (hook_io.py); and how much of a
session file a hook reads, as records (``transcript_tail``, ``transcript_records``)."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from typing import Any

from compact_lsp.engine.files.usable_path import checked_path

SESSION_FIELDS = ("session_id", "transcript_path", "cwd")
OUTSIDE_FILES_ENV = "COMPACT_LSP_HOOK_OUTSIDE_FILES"
"""Set to ``1`` in the hook's command or environment (the user's own setting) to let the hook re-attach files
outside the cwd that the transcript shows used; without it a transcript never widens what the hook reads
(``hook_io.allowed_roots``)."""
MAX_TRANSCRIPT_BYTES = 64 << 20
"""The most of a session file a hook reads back from its end (far more than a 1M-token context)."""


def hook_json(raw: bytes) -> dict[str, Any]:
    """The hook input as a JSON object; ``ValueError`` otherwise (the hook then prints nothing)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"hook input is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("hook input is not a JSON object")
    return data


def session_fields(data: dict[str, Any]) -> dict[str, str]:
    """``SESSION_FIELDS``, each a non-empty usable path or name, the transcript and the cwd absolute; ``ValueError``
    otherwise."""
    fields: dict[str, str] = {}
    for key in SESSION_FIELDS:
        value = data.get(key)
        if not isinstance(value, str) or not value:
            raise ValueError(f"hook input: {key!r} must be a non-empty string")
        checked_path(value, f"hook input: {key!r}")  # the one check of a path from outside (usable_path.py)
        fields[key] = value
    if not os.path.isabs(fields["transcript_path"]) or not os.path.isabs(fields["cwd"]):
        raise ValueError("hook input: transcript_path and cwd must be absolute paths")
    return fields


def transcript_tail(path: str, max_bytes: int = MAX_TRANSCRIPT_BYTES) -> bytes:
    """At most ``max_bytes`` from the end of a regular file (from the first whole line), not followed through a
    link at its end."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if info.st_size > max_bytes:
            f.seek(info.st_size - max_bytes)
            f.readline()  # the cut line is not a record
        return f.read(max_bytes)


def transcript_records(data: bytes) -> Iterator[dict[str, Any]]:
    """A JSON-lines session file's records: each line that is a JSON object (any other is skipped)."""
    for line in data.splitlines():
        try:
            record = json.loads(line)
        except (UnicodeDecodeError, ValueError):
            continue
        if isinstance(record, dict):
            yield record
