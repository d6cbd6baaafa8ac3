"""The user's own words in a summary: whole, or cut at a sentence with a visible marker, never mid-instruction.

What the user said decides what the agent does next: a constraint ("keep the name of the module") cut after a
fixed number of characters becomes a different instruction. A message is kept whole up to ``USER_WORDS_CHARS``;
a longer one (a pasted log, say) is cut after the last sentence or line that fits, and the cut says how much was
left out. The words a user gave when rejecting a tool call (Claude Code: "... the user said: ...") are the user's
too, and are found in the rejected call's result.
"""

from __future__ import annotations

import re

USER_WORDS_CHARS = 6_000
"""A user message up to this long is kept whole (a paragraph of instructions is far shorter)."""

_SENTENCE_END = re.compile(r"[.!?:;](?=\s)|\n")
_REJECTION = re.compile(r"the user said:\s*(.+)", re.IGNORECASE | re.DOTALL)


def user_words(text: str, limit: int = USER_WORDS_CHARS) -> str:
    """``text`` whole, or cut after its last sentence (or line) that ends within ``limit``, with a marker."""
    if len(text) <= limit:
        return text
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, limit)]
    cut = ends[-1] if ends and ends[-1] >= limit // 2 else limit
    kept = text[:cut].rstrip()
    return f"{kept} [… {len(text) - len(kept):,} more characters of this message left out]"


def rejection_words(result_text: str) -> str | None:
    """What the user said when rejecting a tool call, from the call's result; None when it says nothing."""
    found = _REJECTION.search(result_text)
    words = found.group(1).strip() if found else ""
    return words or None
