"""A session's title as the user sets it (``compact/renameSession``): checked before it is journalled.

The header records the title a session was created with; a ``title`` record (engine/session/journal.py) replaces it, and
replay applies the newest one. A title is one line a picker can show: surrounding whitespace is dropped, and it
must then be non-empty, at most ``TITLE_MAX_CHARS`` characters, and free of control characters (NUL, line
breaks, escapes).
"""

from __future__ import annotations

import unicodedata
from typing import Any

TITLE_MAX_CHARS = 200


class TitleError(ValueError):
    """A title that cannot be used; the text says why and what to send instead."""


def check_title(value: Any) -> str:
    """The title to store (stripped), or ``TitleError``."""
    if not isinstance(value, str):
        raise TitleError("the title must be a string")
    title = value.strip()
    if not title:
        raise TitleError("the title is empty; send at least one visible character")
    if len(title) > TITLE_MAX_CHARS:
        raise TitleError(f"the title has {len(title)} characters; at most {TITLE_MAX_CHARS} are allowed")
    if any(unicodedata.category(ch) == "Cc" for ch in title):
        raise TitleError("the title contains a control character (NUL, a line break or an escape); send one line")
    return title


def title_record(title: str, *, at: float) -> dict[str, Any]:
    """The record that renames a session; ``title`` already checked."""
    return {"type": "title", "title": title, "at": at}
