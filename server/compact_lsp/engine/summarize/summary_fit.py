"""An offline summary fitted to its budget: a share of the context window, so it works in an 8k window too.

The sections are cut in the order they matter least (the long tail of files and commands first, the user's own
messages last, the primary request, the plan and the current work never), oldest entries first, each cut marked
where it happened so that the model knows something is missing. Entries are dropped whole, never cut inside:
a user's instruction is either there in full or named as left out.
"""

from __future__ import annotations

CHARS_PER_TOKEN = 3
"""A conservative characters-per-token figure for the budget (code and paths run close to three)."""

CUT_ORDER = ("Files and Code", "Problem Solving", "Key Technical Concepts", "Errors and Fixes", "All User Messages")
"""Sections that give way, first to last; the others (the request, pending tasks, current work, next step) stay."""


def left_out_marker(count: int) -> str:
    return f"[… {count} earlier {'entry' if count == 1 else 'entries'} left out to fit the summary's budget]"


def section_chars(sections: dict[str, list[str]]) -> int:
    return sum(len(name) + 8 + sum(len(line) + 1 for line in lines) for name, lines in sections.items())


def fit_sections(sections: dict[str, list[str]], max_tokens: int) -> dict[str, list[str]]:
    """``sections`` with the oldest entries of the least decisive sections dropped until they fit ``max_tokens``."""
    budget = max_tokens * CHARS_PER_TOKEN
    fitted = {name: list(lines) for name, lines in sections.items()}
    for name in CUT_ORDER:
        lines = fitted.get(name, [])
        dropped = 0
        while lines and section_chars(fitted) > budget:
            head = 1 if lines[0].endswith(":") and len(lines) > 1 else 0  # a heading line such as "Commands run:"
            if head >= len(lines):
                break
            lines.pop(head)
            dropped += 1
        if dropped:
            lines.insert(0, left_out_marker(dropped))
        if section_chars(fitted) <= budget:
            break
    return fitted
