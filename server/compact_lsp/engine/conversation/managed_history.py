"""The managed messages and their per-message token ledger, changed only together so they never drift apart.

Text blocks the engine attached itself (rehydrated files, change notices) are remembered so the ledger counts them
as attachments, not as what the user wrote. Records are applied here by ``ContextSession``; nothing is journalled.
"""

from __future__ import annotations

from collections.abc import Iterable

from compact_lsp.engine.conversation.messages import Message, blocks_of, join_messages
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.conversation.usage import UsageLedger


class ManagedHistory:
    """The conversation as the engine keeps it (without pending notices), with its token ledger."""

    def __init__(self, counter: TokenCounter) -> None:
        self.messages: list[Message] = []
        self.attachment_texts: set[str] = set()
        """Text blocks the engine attached (rehydration, notices): counted as attachments, not user text."""
        self.ledger = UsageLedger(counter, self.attachment_texts.__contains__)
        self.reported: int | None = None
        """Input tokens the API last reported for this history; None once history is replaced."""

    def extend(self, new: list[Message]) -> None:
        """Append ``new``, merging a user message that follows a user message into one."""
        if new and self.messages and self.messages[-1]["role"] == new[0]["role"] == "user":
            self.messages = join_messages(self.messages, new)
            self.ledger.sync(self.messages)
        else:
            self.messages.extend(new)
            self.ledger.append(new)

    def attach_to_last(self, text: str) -> None:
        """Add an engine text block (the change notices) to the last message."""
        self.attachment_texts.add(text)
        last = self.messages[-1]
        self.messages[-1] = {**last, "content": [*blocks_of(last), {"type": "text", "text": text}]}
        self.ledger.sync(self.messages)

    def rewrite(self, changes: Iterable[tuple[int, Message]]) -> None:
        """Replace single messages (microcompaction), as a new list."""
        messages = list(self.messages)
        for index, message in changes:
            messages[index] = message
        self.messages = messages
        self.ledger.sync(messages)

    def replace(self, messages: list[Message], attachment_texts: Iterable[str] = ()) -> None:
        """Replace the whole history (a compaction or its undo): the API's last report no longer applies."""
        self.attachment_texts.update(attachment_texts)
        self.messages = messages
        self.ledger.sync(messages)
        self.reported = None
