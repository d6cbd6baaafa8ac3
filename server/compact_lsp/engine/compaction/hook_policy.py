"""What Claude Code puts back after its compaction, and what our hook adds: one rule the hook and the evaluation share.

Claude Code's rule, measured on the real CLI (2.1.332, docs/claude-code.md): after a compaction it re-attaches the
**five most recent files touched by Read, Edit or Write**, each **whole** (a Read of lines 1-40 comes back as the
whole file; a file only written comes back too), as ``file`` attachments after its summary, and it keeps the last
assistant message verbatim (the preserved segment). When the transcript holds those ``file`` attachments they are
the truth (``engine/claude_code/compaction_view.py`` reads them); otherwise ``predict_reattached`` applies the rule.

The hook's output reaches the model whole only up to Claude Code's inline limit for ``additionalContext``:
``HOOK_CHAR_LIMIT`` characters (measured: 10,000 inline; 10,001 is saved to a file and the model sees a 2 KB
preview). So everything the hook says is budgeted in characters (``CharCounter``, no tokenizer), and rehydration
is asked for files within what is left after the framing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Protocol

from compact_lsp.engine.conversation.messages import Block, Message, blocks_of
from compact_lsp.engine.rehydration_settings import RehydrationSettings

CLAUDE_CODE_FILES = 5
"""How many files Claude Code re-attaches after a compaction (measured)."""
CLAUDE_CODE_TOOLS = ("Read", "Edit", "MultiEdit", "Write")
"""The tools whose use makes a file one of Claude Code's most recent (measured: Read, Edit and Write)."""
CLAUDE_CODE_MEMORY = ("CLAUDE.md", "CLAUDE.local.md")
"""Memory files Claude Code loads into every new context itself."""
HOOK_CHAR_LIMIT = 10_000
"""Claude Code inlines a hook's ``additionalContext`` up to this many characters (measured); past it, a preview."""
DEFAULT_BUDGET = 8_000
"""Characters of files and slices within the limit; the framing, the plan and the artifact trail take the rest."""
MAX_CHARS_PER_FILE = 4_000
"""A file longer than this comes back as the lines the agent read or edited (else its head)."""


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


class CharCounter:
    """A ``TokenCounter`` that counts characters: the unit Claude Code limits hook output in (and no tokenizer)."""

    def count_text(self, text: str) -> int:
        return len(text)

    def count_block(self, block: Block) -> int:
        text = block.get("text")
        return len(text) if isinstance(text, str) else len(json.dumps(block, ensure_ascii=False))

    def count_message(self, message: Message) -> int:
        return sum(self.count_block(b) for b in blocks_of(message))


def hook_rehydration(budget: int = DEFAULT_BUDGET) -> RehydrationSettings:
    """The hook's rehydration, in characters (with ``CharCounter``): ``budget`` for files and slices in all."""
    return RehydrationSettings(token_budget=budget, max_tokens_per_file=min(budget, MAX_CHARS_PER_FILE))


def already_in_context(texts: Iterable[str]) -> list[Message]:
    """Claude Code's new context as kept messages: its summary and the files it put back, verbatim."""
    return [{"role": "user", "content": [{"type": "text", "text": t} for t in texts if t]}]
