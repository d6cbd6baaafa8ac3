"""What the Messages API refuses, as the loopback stub applies it: ``refusal(body)`` is the API's message, or None.

Every rule below is one the real service answers with HTTP 400 ``invalid_request_error`` and, where a public
record of its words exists, those words (the ``messages.N.content.M:`` prefix included). Where each rule and its
wording are documented is listed in ``docs/reliability.md`` ("The Messages API stub"). A rule is checked in the
order the API reports them: the request's fields first, then each message in order.

Consecutive turns of the same role are combined into one before the rules apply, as the API documents (the SDK's
``messages`` documentation: "Consecutive user or assistant turns in your request will be combined into a single
turn"); in 2024 it refused them ("roles must alternate"), and Claude Code 2.1.332 relies on the combining (its
requests carry two user turns in a row). A ``system`` message among the turns, which Claude Code 2.1.332 also
sends, is checked as text and stands outside the turns.
"""

from __future__ import annotations

import json
import re
from typing import Any

Block = dict[str, Any]

MAX_OUTPUT_TOKENS: dict[str, int] = {
    "claude-opus-5": 128_000,  # Claude Code 2.1.332 asks 128,000 of claude-opus-5-5
    "claude-opus-4-6": 128_000,
    "claude-opus-4-5": 64_000,
    "claude-opus-4-1": 32_000,
    "claude-opus-4": 32_000,
    "claude-sonnet-4-6": 64_000,
    "claude-sonnet-4-5": 64_000,
    "claude-sonnet-4": 64_000,
    "claude-haiku-4-5": 64_000,
    "claude-3-7-sonnet": 64_000,
    "claude-3-5-haiku": 8_192,
    "claude-3-5-sonnet": 8_192,
    "claude-3-haiku": 4_096,
}
"""The largest ``max_tokens`` each model family takes (models overview); longest prefix wins."""

DEFAULT_MAX_OUTPUT_TOKENS = 64_000
"""For a model name the table does not know (tests name theirs ``claude-test``, ``m``)."""

CONTEXT_WINDOW = 200_000
"""The input limit the stub applies unless told otherwise (every model's standard window)."""

MAX_CACHE_BREAKPOINTS = 4
IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
_SERVER_RESULT_TYPES = ("web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result")


class Refused(Exception):
    """One rule the request breaks; the message is the API's."""


def max_output_tokens(model: str) -> int:
    best = ""
    for prefix in MAX_OUTPUT_TOKENS:
        if model.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return MAX_OUTPUT_TOKENS[best] if best else DEFAULT_MAX_OUTPUT_TOKENS


def estimated_input_tokens(body: dict[str, Any]) -> int:
    """A rough count of what the request gives the model: four characters a token (the API's own rule of thumb)."""
    parts = [body.get("system"), body.get("tools"), body.get("messages")]
    return sum(len(json.dumps(p)) for p in parts if p is not None) // 4


def refusal(body: dict[str, Any], *, context_window: int = CONTEXT_WINDOW) -> str | None:
    """The API's error message for ``body``, or None when the API would accept it."""
    try:
        _check(body, context_window)
    except Refused as exc:
        return str(exc)
    return None


def _check(body: dict[str, Any], context_window: int) -> None:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise Refused("model: Field required")
    _check_max_tokens(body, model)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise Refused("messages: at least one message is required")
    tools = body.get("tools")
    if tools is not None:
        _check_tools(tools)
    if body.get("tool_choice") is not None and not tools:
        raise Refused("tool_choice may only be specified while providing tools.")
    _check_system(body.get("system"))
    thinking = _thinking_budget(body)
    # A system message among the turns (Claude Code 2.1.332 sends them) is text and stands outside the turns.
    turns, index = _combined_turns(messages)
    for n, message in enumerate(messages):
        if isinstance(message, dict) and message.get("role") == "system":
            for j, block in enumerate(_blocks(message)):
                if not isinstance(block, dict) or block.get("type") != "text":
                    raise Refused(f"messages.{n}.content.{j}.type: Input should be 'text'")
                _check_text(block, "messages")
    has_tool_blocks = False
    for i, message in enumerate(turns):
        has_tool_blocks |= _check_message(i, index, message, turns, thinking is not None)
    if has_tool_blocks and not tools:
        raise Refused("Requests which include `tool_use` or `tool_result` blocks must define tools.")
    if thinking is not None and turns:
        _check_thinking_turn(turns, index)
    _check_cache_breakpoints(body)
    tokens = estimated_input_tokens(body)
    if tokens > context_window:
        raise Refused(f"prompt is too long: {tokens} tokens > {context_window} maximum")


def _empty_content(n: int) -> str:
    return f"messages.{n}: all messages must have non-empty content except for the optional final assistant message"


def _combined_turns(messages: list[Any]) -> tuple[list[Any], list[int]]:
    """The turns the model sees (system messages aside, neighbours of one role combined), and for each the index
    of its first message in the request."""
    turns: list[Any] = []
    index: list[int] = []
    for n, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "system":
            continue
        if turns and role in ("user", "assistant") and turns[-1].get("role") == role:
            content = message.get("content")
            if content in ("", []) or not isinstance(content, (str, list)):
                raise Refused(_empty_content(n))
            turns[-1] = {**turns[-1], "content": _blocks(turns[-1]) + _blocks(message)}
            continue
        turns.append(message)
        index.append(n)
    return turns, index


def _check_max_tokens(body: dict[str, Any], model: str) -> None:
    if "max_tokens" not in body:
        raise Refused("max_tokens: Field required")
    value = body["max_tokens"]
    if not isinstance(value, int) or isinstance(value, bool):
        raise Refused("max_tokens: Input should be a valid integer")
    if value < 0:
        raise Refused("max_tokens: Input should be greater than or equal to 0")
    limit = max_output_tokens(model)
    if value > limit:
        raise Refused(
            f"max_tokens: {value} > {limit}, which is the maximum allowed number of output tokens for {model}"
        )


def _thinking_budget(body: dict[str, Any]) -> int | None:
    thinking = body.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") != "enabled":
        return None
    budget = thinking.get("budget_tokens")
    if not isinstance(budget, int) or budget < 1024:
        raise Refused("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
    if budget >= body["max_tokens"]:
        raise Refused("`max_tokens` must be greater than `thinking.budget_tokens`.")
    return budget


def _check_tools(tools: Any) -> None:
    if not isinstance(tools, list):
        raise Refused("tools: Input should be a valid list")
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise Refused(f"tools.{i}: Input should be a valid dictionary")
        if tool.get("type") not in (None, "custom"):
            continue  # a server tool (web_search_20250305...): its own shape
        name = tool.get("name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            raise Refused(f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")
        schema = tool.get("input_schema")
        if not isinstance(schema, dict):
            raise Refused(f"tools.{i}.custom.input_schema: Field required")
        if schema.get("type") != "object":
            raise Refused(f"tools.{i}.custom.input_schema.type: Input should be 'object'")


def _check_system(system: Any) -> None:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        raise Refused("system: Input should be a valid string or list")
    for j, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text":
            raise Refused(f"system.{j}.type: Input should be 'text'")
        _check_text(block, "system")


def _check_text(block: Block, where: str) -> None:
    text = block.get("text")
    if not isinstance(text, str):
        raise Refused(f"{where}: text content blocks must have a string `text`")
    if not text:
        raise Refused(f"{where}: text content blocks must be non-empty")
    if text.isspace():
        raise Refused(f"{where}: text content blocks must contain non-whitespace text")


def _blocks(message: dict[str, Any]) -> list[Block]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _check_message(i: int, index: list[int], message: Any, messages: list[Any], thinking_enabled: bool) -> bool:
    """Check turn ``i`` (``index[i]`` among all the messages); True when it holds tool_use or tool_result blocks."""
    n = index[i]
    if not isinstance(message, dict):
        raise Refused(f"messages.{n}: Input should be a valid dictionary")
    role = message.get("role")
    if role not in ("user", "assistant"):
        raise Refused(f"messages.{n}.role: Input should be 'user', 'assistant' or 'system'")
    if i == 0 and role != "user":
        raise Refused('messages: first message must use the "user" role')
    content = message.get("content")
    final_assistant = role == "assistant" and i == len(messages) - 1
    if content == "" or content == []:
        if final_assistant:
            return False
        raise Refused(_empty_content(n))
    if not isinstance(content, (str, list)):
        raise Refused(f"messages.{n}.content: Input should be a valid string or list")
    blocks = _blocks(message)
    tool_blocks = False
    for j, block in enumerate(blocks):
        where = f"messages.{n}.content.{j}"
        if not isinstance(block, dict):
            raise Refused(f"{where}: Input should be a valid dictionary")
        kind = block.get("type")
        if kind == "text":
            _check_text(block, "messages")
        elif kind in ("image", "document"):
            _check_media(block, where)
        elif kind == "tool_use":
            tool_blocks = True
            if role != "assistant":
                raise Refused(f"{where}: `tool_use` blocks can only be in `assistant` messages")
            _check_tool_use(block, where)
        elif kind == "tool_result":
            tool_blocks = True
            if role != "user":
                raise Refused(f"{where}: `tool_result` blocks can only be in `user` messages")
            _check_tool_result(block, where)
        elif kind in ("thinking", "redacted_thinking"):
            if role != "assistant":
                raise Refused(f"{where}: `{kind}` blocks can only be in `assistant` messages")
            field = "signature" if kind == "thinking" else "data"
            if not isinstance(block.get(field), str) or not block.get(field):
                raise Refused(f"{where}.{kind}.{field}: Field required")
            if final_assistant and not thinking_enabled:
                raise Refused(
                    f"{where}: When thinking is disabled, an `assistant` message in the final position cannot "
                    "contain `thinking`. To use thinking blocks, enable `thinking` in your request."
                )
        elif kind in ("server_tool_use", *_SERVER_RESULT_TYPES, "search_result", "container_upload"):
            pass
        else:
            raise Refused(
                f"{where}.type: Input tag '{kind}' found using 'type' does not match any of the expected tags"
            )
    if role == "assistant":
        kinds = [b.get("type") for b in blocks]
        thinks = any(k in ("thinking", "redacted_thinking") for k in kinds)
        if thinking_enabled and thinks and kinds[0] not in ("thinking", "redacted_thinking"):
            raise Refused(
                f"messages.{n}.content.0: If an assistant message contains any thinking blocks, the first block "
                f"must be thinking or redacted_thinking. Found {kinds[0]}."
            )
        if final_assistant and kinds and kinds[-1] == "thinking":
            raise Refused(f"messages.{n}: The final block in an assistant message cannot be `thinking`.")
        _check_calls_answered(i, index, blocks, messages)
    else:
        _check_results_follow_calls(i, index, blocks, messages)
    return tool_blocks


def _check_media(block: Block, where: str) -> None:
    kind = block["type"]
    source = block.get("source")
    if not isinstance(source, dict):
        raise Refused(f"{where}.{kind}.source: Field required")
    source_type = source.get("type")
    allowed = ("base64", "url", "file") if kind == "image" else ("base64", "text", "content", "url", "file")
    if source_type not in allowed:
        tags = ", ".join(f"'{t}'" for t in allowed)
        raise Refused(
            f"{where}.{kind}.source: Input tag '{source_type}' found using 'type' does not match any of the "
            f"expected tags: {tags}"
        )
    at = f"{where}.{kind}.source.{source_type}"
    if source_type == "base64":
        if kind == "image" and source.get("media_type") not in IMAGE_MEDIA_TYPES:
            raise Refused(f"{at}.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'")
        if kind == "document" and source.get("media_type") != "application/pdf":
            raise Refused(f"{at}.media_type: Input should be 'application/pdf'")
        data = source.get("data")
        if not isinstance(data, str) or not data:
            raise Refused(f"{at}.data: Field required")
        if not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", data) or len(data) % 4:
            raise Refused(f"{where}.{kind}.source.base64: invalid base64 data")
    elif source_type == "text":
        if source.get("media_type") != "text/plain":
            raise Refused(f"{at}.media_type: Input should be 'text/plain'")
        if not isinstance(source.get("data"), str):
            raise Refused(f"{at}.data: Field required")
    elif source_type == "content":
        if not isinstance(source.get("content"), (str, list)):
            raise Refused(f"{at}.content: Field required")
    elif source_type == "url":
        if not isinstance(source.get("url"), str) or not source["url"]:
            raise Refused(f"{at}.url: Field required")
    elif not isinstance(source.get("file_id"), str):
        raise Refused(f"{at}.file_id: Field required")


def _check_tool_use(block: Block, where: str) -> None:
    if not isinstance(block.get("id"), str) or not re.fullmatch(r"[a-zA-Z0-9_-]+", block["id"]):
        raise Refused(f"{where}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'")
    if not isinstance(block.get("name"), str) or not block["name"]:
        raise Refused(f"{where}.tool_use.name: Field required")
    if not isinstance(block.get("input"), dict):
        raise Refused(f"{where}.tool_use.input: Input should be a valid dictionary")


def _check_tool_result(block: Block, where: str) -> None:
    if not isinstance(block.get("tool_use_id"), str):
        raise Refused(f"{where}.tool_result.tool_use_id: Field required")
    content = block.get("content")
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        raise Refused(f"{where}.tool_result.content: Input should be a valid string or list")
    for k, inner in enumerate(content):
        at = f"{where}.tool_result.content.{k}"
        kind = inner.get("type") if isinstance(inner, dict) else None
        if kind == "text":
            _check_text(inner, "messages")
        elif kind in ("image", "document"):
            _check_media(inner, at)
        elif kind != "search_result":
            raise Refused(f"{at}.type: Input tag '{kind}' found using 'type' does not match any of the expected tags")


def _tool_use_ids(message: Any) -> list[str]:
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return []
    return [b.get("id") for b in _blocks(message) if isinstance(b, dict) and b.get("type") == "tool_use"]


def _check_calls_answered(i: int, index: list[int], blocks: list[Block], messages: list[Any]) -> None:
    """Every tool_use of an assistant message is answered at the start of the next user message."""
    n = index[i]
    ids = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
    if not ids or i == len(messages) - 1:
        return  # the final assistant message: its calls are the ones the model is being asked to make
    following = _blocks(messages[i + 1])
    leading: list[Any] = []
    for block in following:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            break
        leading.append(block.get("tool_use_id"))
    missing = [tid for tid in ids if tid not in leading]
    if missing:
        raise Refused(
            f"messages.{n}: `tool_use` ids were found without `tool_result` blocks immediately after: "
            f"{', '.join(str(m) for m in missing)}. Each `tool_use` block must have a corresponding `tool_result` "
            "block in the next message."
        )


def _check_results_follow_calls(i: int, index: list[int], blocks: list[Block], messages: list[Any]) -> None:
    n = index[i]
    calls = set(_tool_use_ids(messages[i - 1])) if i > 0 else set()
    seen: set[str] = set()
    for j, block in enumerate(blocks):
        if block.get("type") != "tool_result":
            continue
        tid = block.get("tool_use_id")
        if tid not in calls:
            raise Refused(
                f"messages.{n}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {tid}. "
                "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
            )
        if tid in seen:
            raise Refused(f"messages.{n}.content.{j}: each `tool_result` block must have a unique `tool_use_id`")
        seen.add(str(tid))


def _check_thinking_turn(messages: list[Any], index: list[int]) -> None:
    """With thinking on, an assistant turn the model continues (the last one before trailing tool results) must
    start with its thinking block."""
    last = messages[-1]
    if last.get("role") != "user" or len(messages) < 2:
        return
    if not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in _blocks(last)):
        return
    previous = messages[-2]
    kinds = [b.get("type") for b in _blocks(previous) if isinstance(b, dict)]
    if kinds and kinds[0] not in ("thinking", "redacted_thinking"):
        raise Refused(
            f"messages.{index[-2]}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            f"`{kinds[0]}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block "
            "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include "
            "thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult "
            "our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
        )


def _cache_marks(value: Any) -> int:
    if isinstance(value, dict):
        own = 1 if value.get("cache_control") is not None else 0
        return own + sum(_cache_marks(v) for k, v in value.items() if k not in ("cache_control", "input"))
    if isinstance(value, list):
        return sum(_cache_marks(v) for v in value)
    return 0


def _check_cache_breakpoints(body: dict[str, Any]) -> None:
    found = sum(_cache_marks(body.get(part)) for part in ("tools", "system", "messages"))
    if found > MAX_CACHE_BREAKPOINTS:
        raise Refused(f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {found}.")
