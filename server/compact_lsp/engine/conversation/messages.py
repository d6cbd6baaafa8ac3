"""The conversation model: messages in the Anthropic Messages API shape.

Messages stay plain dicts (what the SDK's ``MessageParam`` TypedDicts describe) so that what the engine emits can
be sent to the API unchanged. ``normalize_message`` gives every message a list of content blocks; everything else
in the engine may assume that shape.
"""

from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:  # the SDK is slow to import; its types are only needed by the checker
    from anthropic.types import MessageParam as MessageParam
else:
    MessageParam = dict

Block: TypeAlias = dict[str, Any]
Message: TypeAlias = dict[str, Any]
Role = Literal["user", "assistant"]

CLEARED_TOOL_RESULT = "[Old tool result content cleared]"
"""What a microcompacted tool result's content becomes, exactly."""

BLOCK_TYPES = frozenset(
    {"text", "image", "document", "tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use"}
)

_ONE_COPY = {name: name for name in (*BLOCK_TYPES, "user", "assistant")}
"""The one string object of each role and block type a message normalised here holds (see ``_one_copy``)."""


MAX_NESTING = 100
"""How deep a message's JSON may nest (the message object is level 1). Deeper values are refused when appended:
no real tool input comes near it, and a value nested some hundreds deep cannot be serialised back to the client."""


class MessageShapeError(ValueError):
    """A message that is not in the Messages API shape; the text says what is wrong and where."""


def check_nesting(value: Any, where: str, limit: int = MAX_NESTING) -> None:
    """Refuse JSON nested deeper than ``limit``, level by level (no recursion: a deep value must not exhaust the
    stack here; only containers are visited, so a wide message costs little)."""
    containers: list[Any] = [value] if isinstance(value, (dict, list)) else []
    depth = 1
    while containers:
        if depth > limit:
            raise MessageShapeError(f"{where}: nested more than {limit} levels deep; flatten the tool input")
        containers = [
            child
            for container in containers
            for child in (container.values() if isinstance(container, dict) else container)
            if isinstance(child, (dict, list))
        ]
        depth += 1


def non_finite_field(value: Any, where: str) -> str | None:
    """Where ``value`` holds NaN or an infinity (``where.key[0]...``), or None. JSON has no such numbers, so the
    Messages API refuses a request that carries one; Python's json reads ``NaN``, ``Infinity`` and ``1e400``."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:  # no recursion: the value's depth is bounded elsewhere, but never by the stack here
        path, item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return path
        elif isinstance(item, dict):
            stack.extend((f"{path}.{key}", child) for key, child in item.items())
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", child) for i, child in enumerate(item))
    return None


def check_finite(value: Any, where: str) -> None:
    """Refuse NaN and infinities anywhere in ``value`` (``MessageShapeError`` naming the field)."""
    field = non_finite_field(value, where)
    if field is not None:
        raise MessageShapeError(f"{field} is not a finite number (NaN or Infinity), which is not JSON; send a number")


def normalize_message(raw: Any, where: str = "message", *, nesting: bool = True, copy: bool = True) -> Message:
    """Return the message with list content, checking the shape the API requires.

    A string content becomes one text block. Unknown keys on blocks are kept: thinking signatures, cache_control
    and citations must survive untouched. ``copy=False``: the blocks are the input's own dicts, checked but not
    copied (a reader that keeps nothing after it answers, the hook, needs no copy of every block).
    """
    if not isinstance(raw, dict):
        raise MessageShapeError(f"{where}: expected an object with 'role' and 'content', got {type(raw).__name__}")
    if nesting:  # off only for messages already checked, or whose JSON has too few brackets to nest that deep
        check_nesting(raw, where)
    role = raw.get("role")
    if role not in ("user", "assistant"):
        raise MessageShapeError(f"{where}: 'role' must be 'user' or 'assistant', got {role!r}")
    role = _ONE_COPY[role]
    content = raw.get("content")
    if isinstance(content, str):
        blocks: list[Block] = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = []
        for i, block in enumerate(content):
            problem = _block_problem(block, role)
            if problem is not None:  # where it is, written only for a block that is refused
                raise MessageShapeError(f"{where}.content[{i}]: {problem}")
            blocks.append(_one_copy(block) if copy else block)
    else:
        raise MessageShapeError(f"{where}: 'content' must be a string or a list of blocks")
    return {"role": role, "content": blocks}


def _block_problem(block: Any, role: str) -> str | None:
    """Why the API would refuse this content block, or None."""
    if not isinstance(block, dict):
        return "a content block must be an object"
    kind = block.get("type")
    if kind not in BLOCK_TYPES:
        return f"unknown block type {kind!r}"
    if kind == "text" and not isinstance(block.get("text"), str):
        return "a text block needs a string 'text'"
    if kind == "tool_use":
        if role != "assistant":
            return "tool_use blocks belong to assistant messages"
        if not isinstance(block.get("id"), str) or not block["id"]:
            return "a tool_use block needs a non-empty string 'id'"
        if not isinstance(block.get("name"), str):
            return "a tool_use block needs a string 'name'"
        if not isinstance(block.get("input", {}), dict):
            return "a tool_use block's 'input' must be an object"
    if kind == "tool_result":
        if role != "user":
            return "tool_result blocks belong to user messages"
        if not isinstance(block.get("tool_use_id"), str) or not block["tool_use_id"]:
            return "a tool_result block needs a non-empty string 'tool_use_id'"
        content = block.get("content", "")
        if not isinstance(content, (str, list)):
            return "a tool_result's 'content' must be a string or a list of blocks"
    return None


def _one_copy(block: Block) -> Block:
    """A checked block, copied with one shared string object for each of its keys, its type and a tool's name."""
    # Each line of a log is parsed with strings of its own: a followed transcript's thousands of blocks would
    # hold thousands of copies of "type", "text", "tool_use"... One copy of each key and type is shared instead.
    kind = block["type"]
    copy = {sys.intern(k) if type(k) is str else k: v for k, v in block.items()}
    copy["type"] = _ONE_COPY[kind]
    if kind == "tool_use":
        copy["name"] = sys.intern(block["name"])  # a handful of tools, called thousands of times
    return copy


def check_encodable(messages: list[Message], where: str = "messages") -> None:
    """Refuse text the journal cannot store as UTF-8 (a lone surrogate, which JSON's ``\\ud800`` can carry)."""
    try:
        json.dumps(messages, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MessageShapeError(
            f"{where}: holds a lone surrogate ({exc.object[exc.start : exc.end]!a}), which is not text; "
            "send valid Unicode"
        ) from None


def text_message(role: Role, text: str) -> Message:
    return {"role": role, "content": [{"type": "text", "text": text}]}


def blocks_of(message: Message) -> list[Block]:
    """The content blocks of a message (normalised messages always have a list)."""
    content: list[Block] | str | None = message.get("content")  # typed here, not cast: no call in this hot function
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content or []


def tool_uses(message: Message) -> list[Block]:
    """The message's tool_use blocks (a list: faster to build and walk than a generator for a block or two)."""
    return [b for b in blocks_of(message) if b.get("type") == "tool_use"]


def tool_results(message: Message) -> list[Block]:
    return [b for b in blocks_of(message) if b.get("type") == "tool_result"]


def result_text(block: Block) -> str:
    """The text of a tool_result's content, joining text blocks; images and documents are not text."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    parts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(p for p in parts if isinstance(p, str))


def merged_user_turns(messages: list[Message]) -> list[Message]:
    """``messages`` with each user message that follows a user message merged into it, as the Messages API
    combines consecutive turns of one role (the first message's other fields kept)."""
    out: list[Message] = []
    for message in messages:
        if out and out[-1]["role"] == message["role"] == "user":
            out[-1] = {**out[-1], "content": [*blocks_of(out[-1]), *blocks_of(message)]}
        else:
            out.append(message)
    return out


def join_messages(history: list[Message], new: list[Message]) -> list[Message]:
    """``history + new``, merging a user message that follows a user message (the summary, a notice) into one."""
    if new and history and history[-1]["role"] == new[0]["role"] == "user":
        first = new[0]
        merged = {**history[-1], "content": [*blocks_of(history[-1]), *blocks_of(first)]}
        return [*history[:-1], merged, *new[1:]]
    return [*history, *new]


def is_cleared(block: Block) -> bool:
    return block.get("type") == "tool_result" and result_text(block) == CLEARED_TOOL_RESULT


def is_empty_result(block: Block) -> bool:
    content = block.get("content", "")
    if isinstance(content, str):
        return not content.strip()
    return not content


def canonical_json(value: Any) -> str:
    """The JSON text of a value as counted for tokens (compact, keys in their given order, unicode kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def new_id(prefix: str) -> str:
    return f"{prefix}_{os.urandom(10).hex()}"  # 20 hex digits, as uuid4().hex[:20]; no uuid import


@dataclass
class Attachment:
    """Context that is not a message but is sent with the conversation (rehydrated files, plans, memory)."""

    kind: str
    text: str
    path: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class Session:
    """One agent conversation: what the model sees, and what it saw."""

    id: str
    system: str = ""
    messages: list[Message] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    title: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
