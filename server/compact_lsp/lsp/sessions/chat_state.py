"""What ``compact/chat`` keeps between requests (lsp/features/chat.py), held on the server."""

from __future__ import annotations

from compact_lsp.agent.permissions import Permissions


class ChatState:
    """What the chat keeps between requests, per session: the permission answers and the running turn."""

    def __init__(self) -> None:
        self.permissions: dict[str, Permissions] = {}
        """"Allow for this session" answers and denied paths, by session id."""
        self.running: set[str] = set()
        """Sessions with a turn in flight (one at a time per session)."""
