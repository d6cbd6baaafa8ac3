"""The messages of a model summary request: the history as a transcript the Messages API accepts whatever it holds.

The request carries no ``tools``, so it can carry no tool blocks: the API refuses ``tool_use`` or
``tool_result`` blocks in a request that defines no tools, and refuses a ``tool_result`` that does not answer a
``tool_use`` of the message just before it. Every tool call and result is therefore written out as text the
summariser reads like any other turn (``[Tool call Read toolu_1] {"file_path": ...}``, ``[Tool result toolu_1]
...``), which is also cheaper than sending the session's tool definitions along (the figures are in
docs/compaction.md, "The summary request"). What else the rules ask for:

- thinking and redacted-thinking blocks are left out (a thinking block is only valid with its signature, never
  in a final assistant turn without ``thinking`` on, and the summary is of what was said and done);
- images and documents become a placeholder naming them (their bytes are not summarised);
- empty and whitespace-only text is left out, and so is a message left with nothing;
- neighbours of the same role are merged, and a history that starts with the assistant gets a user turn first;
- no ``cache_control`` is kept (the request is sent once; the API allows only four breakpoints);
- the prompt is the last user turn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from compact_lsp.engine.conversation.messages import Block, Message, blocks_of, text_message

TRUNCATION_NOTE = "[Earlier parts of this conversation were left out of this summary request to fit the window.]"

CONVERSATION_START = "(The conversation begins.)"
"""Put before a history that starts with an assistant turn: the API wants a user turn first."""


def summary_request_messages(history: Sequence[Message], prompt: str, *, truncated: bool = False) -> list[Message]:
    """The messages of a summary request: the history as text turns, then ``prompt`` as the last user turn."""
    turns: list[Message] = []
    if truncated:
        turns.append(text_message("user", TRUNCATION_NOTE))
    calls: dict[str, str] = {}
    for message in history:
        role = message.get("role")
        if role not in ("user", "assistant"):
            continue
        texts = [text for text in (block_text(b, calls) for b in blocks_of(message)) if text]
        if texts:
            turns.append({"role": role, "content": [{"type": "text", "text": t} for t in texts]})
    if turns and turns[0]["role"] != "user":
        turns.insert(0, text_message("user", CONVERSATION_START))
    turns.append(text_message("user", prompt))
    return merge_roles(turns)


def merge_roles(messages: Sequence[Message]) -> list[Message]:
    """Neighbours with the same role become one message (the API wants roles to alternate)."""
    out: list[Message] = []
    for message in messages:
        if out and out[-1]["role"] == message["role"]:
            out[-1]["content"].extend(message["content"])
        else:
            out.append({"role": message["role"], "content": list(message["content"])})
    return out


def block_text(block: Block, calls: dict[str, str]) -> str | None:
    """What the summariser reads of one block; None for a block it is not sent (thinking, empty text).

    ``calls`` maps each tool_use id met so far to its label (``#3 Read``): a short number in place of the id
    (ids cost a dozen tokens each, twice per call), with the tool's name, so a result says whose it is."""
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return text if isinstance(text, str) and text.strip() else None
    if kind == "tool_use":
        label = calls.setdefault(str(block.get("id")), f"#{len(calls) + 1} {block.get('name', '?')}")
        return f"[Tool call {label}] {_json(block.get('input', {}))}"
    if kind == "tool_result":
        label = calls.get(str(block.get("tool_use_id")), "of an earlier call")
        error = " (error)" if block.get("is_error") else ""
        return f"[Tool result {label}{error}]\n{_result_text(block.get('content'), calls)}".rstrip()
    if kind in ("image", "document"):
        title = block.get("title")
        return f"[{kind}: {title}]" if isinstance(title, str) and title.strip() else f"[{kind}]"
    if kind in ("thinking", "redacted_thinking"):
        return None
    if kind in ("server_tool_use", "web_search_tool_result", "web_fetch_tool_result"):
        return f"[{kind}] {_json({k: v for k, v in block.items() if k not in ('type', 'cache_control')})}"
    return None


def _result_text(content: Any, calls: dict[str, str]) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [block_text(b, calls) for b in content if isinstance(b, dict)]
    return "\n".join(p for p in parts if p)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
