"""'Changed since you read it': a short, bounded unified diff of what the model saw against the disk."""

from __future__ import annotations

import difflib
import hashlib

MAX_DIFF_LINES = 60
"""Diff lines in one notice; a longer diff is cut with a note saying how much was left out."""

MAX_NOTICE_CHARS = 4000


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def change_notice(
    path: str,
    seen: str | None,
    now: str | None,
    *,
    max_lines: int = MAX_DIFF_LINES,
    max_chars: int = MAX_NOTICE_CHARS,
) -> str | None:
    """The notice text for ``path``, or None when nothing changed. ``now`` None means the file is gone."""
    if now is None:
        return f"{path} was deleted (or moved away) since you read it; read it again before relying on it."
    if seen is None:
        return f"{path} changed on disk since you read it; read it again before editing it."
    if seen == now:
        return None
    diff = list(
        difflib.unified_diff(
            seen.splitlines(),
            now.splitlines(),
            f"{path} (as you read it)",
            f"{path} (on disk now)",
            n=2,
            lineterm="",
        )
    )
    head = f"{path} changed on disk since you read it. Diff of the change:"
    shown = diff[:max_lines]
    body = "\n".join(shown)
    if len(body) > max_chars:
        body = body[:max_chars].rsplit("\n", 1)[0]
        shown = body.split("\n")
    omitted = len(diff) - len(shown)
    tail = (
        f"\n... {omitted} more diff line(s) not shown; read the file again for the full text."
        if omitted
        else ""
    )
    return f"{head}\n{body}{tail}"
