"""The character fit every agent's hook shares: its answer budgeted in characters, not tokens.

Claude Code inlines a hook's ``additionalContext`` whole only up to ``HOOK_CHAR_LIMIT`` characters (measured:
10,000 inline; 10,001 is saved to a file and the model sees a 2 KB preview), and Codex's hook is held to the same
size. So everything a hook says is budgeted in characters (``CharCounter``), and rehydration is asked for files
within what is left after the framing; a size stated to the model is the file's tokens, counted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from compact_lsp.engine.conversation.messages import Block, Message, blocks_of
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.rehydration_settings import RehydrationSettings

HOOK_CHAR_LIMIT = 10_000
"""Claude Code inlines a hook's ``additionalContext`` up to this many characters (measured); past it, a preview."""
DEFAULT_BUDGET = 8_000
"""Characters of files and slices within the limit; the framing, the plan and the artifact trail take the rest."""
MAX_CHARS_PER_FILE = 4_000
"""A file longer than this comes back as the lines the agent read or edited (else its head)."""


class CharCounter:
    """A ``TokenCounter`` that counts characters: the unit Claude Code limits hook output in. Where a note to the
    model states a file's size in tokens, ``tokens_of`` counts them with the project's tokenizer (cl100k)."""

    unit = "character"
    """What its counts are, for the words the model is told a budget in."""

    def count_text(self, text: str) -> int:
        return len(text)

    def count_block(self, block: Block) -> int:
        text = block.get("text")
        return len(text) if isinstance(text, str) else len(json.dumps(block, ensure_ascii=False))

    def count_message(self, message: Message) -> int:
        return sum(self.count_block(b) for b in blocks_of(message))

    def tokens_of(self, text: str) -> int:
        """``text``'s tokens, counted (cl100k, loaded on first use: most hooks never state a size)."""
        global _tokenizer
        if _tokenizer is None:
            from compact_lsp.engine.conversation.tokens import TiktokenCounter

            _tokenizer = TiktokenCounter(cache_size=64)
        return _tokenizer.count_text(text)


_tokenizer: TokenCounter | None = None


def hook_rehydration(budget: int = DEFAULT_BUDGET) -> RehydrationSettings:
    """The hook's rehydration, in characters (with ``CharCounter``): ``budget`` for files and slices in all."""
    return RehydrationSettings(token_budget=budget, max_tokens_per_file=min(budget, MAX_CHARS_PER_FILE))


def already_in_context(texts: Iterable[str]) -> list[Message]:
    """Claude Code's new context as kept messages: its summary and the files it put back, verbatim."""
    return [{"role": "user", "content": [{"type": "text", "text": t} for t in texts if t]}]
