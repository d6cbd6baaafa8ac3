"""What Claude Code puts back itself after its compaction: the measured rule its hook and the evaluation share.

Claude Code's rule, measured on the real CLI (2.1.332, docs/claude-code.md): after a compaction it re-attaches the
**five most recent files touched by Read, Edit or Write** (by when they were read, not their modification time),
each **whole** (a Read of lines 1-40 comes back as the whole file; a file only written comes back too) **when it is
at most 5,000 tokens**, as ``file`` attachments after its summary; a file over that comes back **by name only** (a
``compact_file_reference``: "...too large to include. Use Read tool if you need to access it."). It keeps the last
assistant message verbatim (the preserved segment). ``claude_code_reattachment`` is the whole rule, sizes included;
``predict_reattached`` its order alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

CLAUDE_CODE_FILES = 5
"""How many files Claude Code re-attaches after a compaction (measured)."""
CLAUDE_CODE_TOOLS = ("Read", "Edit", "MultiEdit", "Write")
"""The tools whose use makes a file one of Claude Code's most recent (measured: Read, Edit and Write)."""
CLAUDE_CODE_MEMORY = ("CLAUDE.md", "CLAUDE.local.md")
"""Memory files Claude Code loads into every new context itself."""
REATTACH_MAX_TOKENS = 5_000
"""A file Claude Code re-attaches comes back whole up to this many tokens, by name only past it. Its code reads the
file with this cap: a rough estimate (characters / 4) at most a quarter of it passes unasked, anything else is
counted by the API's ``count_tokens`` (bisected on the real CLI: with the stub counting the request's bytes / 4,
19,061 characters of code came back whole and 19,063 by name, and a file of quotes, two bytes each once
JSON-escaped, came back by name at 18,861 characters: the criterion is the token count, not characters)."""
REATTACH_TOTAL_TOKENS = 50_000
"""Claude Code keeps re-attached files, in order, while their rough size (characters / 4) stays within this."""
API_CHARS_PER_TOKEN = 3.5
"""For a caller without the API's tokenizer: characters of a file's JSON-escaped text per ``count_tokens`` token,
set low so that a file near the cut is taken for one past it (attached by the hook rather than lost by both)."""


class FileTouch(Protocol):
    """One successful use of a file (``engine/files/file_use_timeline.FileUse`` is one)."""

    @property
    def tool(self) -> str: ...

    @property
    def path(self) -> str: ...


def predict_reattached(uses: Sequence[FileTouch], limit: int = CLAUDE_CODE_FILES) -> list[str]:
    """Claude Code's rule: the ``limit`` most recent files touched by Read, Edit or Write, newest first."""
    recent: list[str] = []
    for use in reversed(uses):
        if use.tool in CLAUDE_CODE_TOOLS and use.path not in recent:
            recent.append(use.path)
            if len(recent) == limit:
                break
    return recent


@dataclass(frozen=True)
class Reattachment:
    """What Claude Code puts back after a compaction: files whole, and files past its size cut by name only."""

    whole: list[str] = field(default_factory=list)
    """Re-attached whole, newest first."""
    by_name: list[str] = field(default_factory=list)
    """Among its five but over ``REATTACH_MAX_TOKENS``: only the name reaches the model (``compact_file_reference``)."""


def estimated_api_tokens(text: str) -> int:
    """``count_tokens``' answer for a file's text, estimated without a tokenizer (``API_CHARS_PER_TOKEN``)."""
    return int(len(json.dumps(text)) / API_CHARS_PER_TOKEN)


def claude_code_reattachment(
    uses: Sequence[FileTouch],
    text_of: Callable[[str], str | None],
    count_tokens: Callable[[str], int] = estimated_api_tokens,
    limit: int = CLAUDE_CODE_FILES,
) -> Reattachment:
    """Claude Code 2.1.332's re-attachment after a compaction, sizes included: the ``limit`` files most recently
    touched by Read, Edit or Write (``uses`` in order; ``predict_reattached``), each whole when its text
    (``text_of(path)``, None: gone, left out) is at most ``REATTACH_MAX_TOKENS`` by ``count_tokens`` (Claude Code
    asks the API only when characters / 4 pass a quarter of the cap), else by name only; then the whole files in
    order while their rough size (characters / 4) stays within ``REATTACH_TOTAL_TOKENS``. Pass the API's token
    count (or a tokenizer's) as ``count_tokens`` when there is one; the default estimates it on the high side."""
    whole: list[str] = []
    by_name: list[str] = []
    rough_total = 0
    for path in predict_reattached(uses, limit):
        text = text_of(path)
        if text is None:
            continue
        rough = len(text) // 4
        if rough > REATTACH_MAX_TOKENS // 4 and count_tokens(text) > REATTACH_MAX_TOKENS:
            by_name.append(path)
        elif rough_total + rough <= REATTACH_TOTAL_TOKENS:
            rough_total += rough
            whole.append(path)
    return Reattachment(whole, by_name)
