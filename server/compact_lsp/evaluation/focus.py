"""Editor focus in a Claude Code log: the ``<ide_opened_file>`` and ``<ide_selection>`` notices its IDE
integration puts in user messages. They stand for what the live server learns from the editor directly (open
buffers and focus), so a replay can measure whether a focus boost helps rehydration."""

from __future__ import annotations

import re
from collections.abc import Callable

from compact_lsp.engine.conversation.messages import Message, blocks_of

_OPENED = re.compile(r"<ide_opened_file>The user opened the file (.+?) in the IDE\.")
_SELECTED = re.compile(r"<ide_selection>The user selected the lines? \d+(?: to \d+)? from (.+?):")


def focus_signals(message: Message, map_path: Callable[[str], str]) -> list[str]:
    """The paths a user message says the editor focused, in order, mapped with ``map_path``."""
    if message.get("role") != "user":
        return []
    content = message.get("content")
    texts = [content] if isinstance(content, str) else [
        str(b.get("text", "")) for b in blocks_of(message) if b.get("type") == "text"
    ]  # fmt: skip
    found: list[str] = []
    for text in texts:
        for match in sorted([*_OPENED.finditer(text), *_SELECTED.finditer(text)], key=lambda m: m.start()):
            found.append(map_path(match.group(1).strip()))
    return found
