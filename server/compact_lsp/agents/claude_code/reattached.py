"""What Claude Code puts back itself after its compaction: the measured rule its hook and the evaluation share.

Claude Code's rule, measured on the real CLI (2.1.332, docs/claude-code.md): after a compaction it re-attaches the
**five most recent files touched by Read, Edit or Write**, each **whole** (a Read of lines 1-40 comes back as the
whole file; a file only written comes back too), as ``file`` attachments after its summary, and it keeps the last
assistant message verbatim (the preserved segment). When the transcript holds those ``file`` attachments they are
the truth (``engine/claude_code/compaction_view.py`` reads them); otherwise ``predict_reattached`` applies the rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

CLAUDE_CODE_FILES = 5
"""How many files Claude Code re-attaches after a compaction (measured)."""
CLAUDE_CODE_TOOLS = ("Read", "Edit", "MultiEdit", "Write")
"""The tools whose use makes a file one of Claude Code's most recent (measured: Read, Edit and Write)."""
CLAUDE_CODE_MEMORY = ("CLAUDE.md", "CLAUDE.local.md")
"""Memory files Claude Code loads into every new context itself."""


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
