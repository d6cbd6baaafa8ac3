"""What decides in a failure, and bounded text: the lines of an error that a summary must keep.

A failing command's output is long and mostly noise; what decides is its first line, the exception or error lines,
the failing test, the linter's code, and the last line (the tool's own verdict: "1 failed, 3 passed", "Found 2
errors."). Claude Code's Bash results start with a bare "Exit code 1", which says only that something failed: the
line after it ("no pull requests found for branch ...") says what.
"""

from __future__ import annotations

import re

ERROR_CHARS = 600
ERROR_LINES = 6

_DECISIVE = re.compile(
    r"^(FAILED|ERROR|FAIL:|E\s)|\b[A-Z]\w*(Error|Exception|Failure|Exit)\b|\berror(\[\w+\])?:|\bfailed\b|"
    r"\b\d+ (failed|errors?)\b|^\s*(assert|panic|fatal)|"
    # a linter's or compiler's code at a position ("src/a.py:12:5: SIM115 ...", "a.ts(3,1): error TS2345")
    r":\d+(:\d+)?:?\s+[A-Z]{1,5}\d{2,4}\b|\b(TS|PLR|SIM|RUF|UP)\d{3,4}\b|"
    r"\bno\b[^.]{0,60}\bfound\b|\bnot found\b|\bcannot\b|\bcan't\b|\bunable to\b|\bdenied\b|\brefused\b|"
    r"\bnot allowed\b|\bmissing\b|\binvalid\b|\bunexpected\b|^npm ERR!|^\s*[✗×✖]",
    re.IGNORECASE,
)
_BARE_EXIT = re.compile(r"^(error:\s*)?(exit code|exited with|command failed with exit code)\s*-?\d+\.?$", re.I)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis; short multi-line texts become one line."""
    text = " ".join(text.split()) if "\n" in text and limit <= 300 else text
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def decisive_lines(text: str, max_lines: int = ERROR_LINES, limit: int = ERROR_CHARS) -> str:
    """An error's first line (and the one after a bare "Exit code N"), its decisive ones (exception types and
    messages, failing tests, linter codes, "not found" and "error:" lines, the last of them when there are many)
    and its last line, joined by " | " and bounded."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "(no message)"
    head = lines[:2] if _BARE_EXIT.match(lines[0]) and len(lines) > 1 else lines[:1]
    rest = lines[len(head) :]
    decisive = [line for line in rest[:-1] if _DECISIVE.search(line)]
    room = max(0, max_lines - len(head) - (1 if rest else 0))
    picked = list(dict.fromkeys([*head, *(decisive[-room:] if room else []), *rest[-1:]]))
    return clip(" | ".join(clip(line, 240) for line in picked), limit)
