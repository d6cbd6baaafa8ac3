"""The biggest items in the context, with exact token counts, for status views ("what is filling my window?")."""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from compact_lsp.engine.conversation.messages import CLEARED_TOOL_RESULT, Message, blocks_of, result_text, tool_uses
from compact_lsp.engine.conversation.tokens import TokenCounter

_ATTACHMENT_TAG = re.compile(r'^<(file|plan|skill|memory-index)\b(?:[^>]*?\bpath="([^"]*)")?[^>]*>')
LABEL_CHARS = 80


@dataclass(frozen=True)
class ContextItem:
    kind: str
    """tool_result, tool_use, user_text, assistant_text, attachments."""
    label: str
    tokens: int
    message_index: int
    tool: str | None = None
    path: str | None = None
    tool_use_id: str | None = None


def biggest_items(
    messages: Sequence[Message],
    top: Sequence[int],
    counter: TokenCounter,
    is_attachment: Callable[[str], bool],
    limit: int = 10,
) -> list[ContextItem]:
    """The ``limit`` biggest blocks of the messages at ``top``, the ``limit`` biggest messages (the usage ledger's
    ``largest``). Only those messages are split into blocks, so the cost follows ``limit``, not the session."""
    items: list[ContextItem] = []
    for index in top[:limit]:
        message = messages[index]
        previous = messages[index - 1] if index > 0 else None
        for block in blocks_of(message):
            item = _item(block, message["role"], index, previous, counter, is_attachment)
            if item is not None:
                items.append(item)
    return heapq.nlargest(limit, items, key=lambda i: i.tokens)


def _item(
    block: dict[str, Any],
    role: str,
    index: int,
    previous: Message | None,
    counter: TokenCounter,
    is_attachment: Callable[[str], bool],
) -> ContextItem | None:
    kind = block.get("type")
    tokens = counter.count_block(block)
    if kind == "tool_result":
        use_id = str(block.get("tool_use_id", ""))
        request = next((b for b in tool_uses(previous) if b.get("id") == use_id), None) if previous else None
        tool = str(request.get("name")) if request else None
        tool_input = (request or {}).get("input") or {}
        path = tool_input.get("file_path") or tool_input.get("path")
        what = path or tool_input.get("command") or tool_input.get("pattern") or ""
        text = result_text(block)
        state = " (cleared)" if text == CLEARED_TOOL_RESULT else " (error)" if block.get("is_error") else ""
        label = f"{tool or 'tool'} {what}".strip() + state
        return ContextItem("tool_result", _clip(label), tokens, index, tool, path if isinstance(path, str) else None,
                           use_id)  # fmt: skip
    if kind == "tool_use":
        tool_input = block.get("input") or {}
        path = tool_input.get("file_path") or tool_input.get("path")
        what = path or tool_input.get("command") or ""
        label = _clip(f"call {block.get('name')} {what}".strip())
        return ContextItem("tool_use", label, tokens, index, str(block.get("name")),
                           path if isinstance(path, str) else None, str(block.get("id")))  # fmt: skip
    if kind in ("text", "thinking"):
        text = str(block.get("text") or block.get("thinking") or "")
        if role == "user" and is_attachment(text):
            match = _ATTACHMENT_TAG.match(text)
            what = f"attached {match.group(1)} {match.group(2) or ''}".strip() if match else "attachment"
            return ContextItem("attachments", _clip(what), tokens, index, path=match.group(2) if match else None)
        who = "assistant" if role == "assistant" else "user"
        return ContextItem(f"{who}_text", _clip(f"{who}: {' '.join(text.split())}"), tokens, index)
    if kind == "image":
        return ContextItem("user_text" if role == "user" else "assistant_text", "image", tokens, index)
    return None


def _clip(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"
