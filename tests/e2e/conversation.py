"""Building conversations for end-to-end tests: a user turn, then read-tool rounds."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pytest_lsp import LanguageClient


def start(text: str = "Let's look at the project.") -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def read_round(use_id: str, path: str, content: str, tool: str = "read_file") -> list[dict[str, Any]]:
    """The model asks to read ``path``; the client answers with ``content``."""
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": use_id, "name": tool, "input": {"file_path": path}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use_id, "content": content}]},
    ]


async def request(client: LanguageClient, method: str, params: Any) -> Any:
    return await client.protocol.send_request_async(method, params)


def usage_notified(client: LanguageClient, matches: Callable[[dict[str, Any]], bool]) -> asyncio.Task[dict[str, Any]]:
    """The first ``compact/didChangeUsage`` whose usage ``matches``, waited for from before what should send it (call
    this first, then cause it). One a turn published before, debounced, may come first and is passed over; one that
    never matches fails the caller's deadline."""

    async def wait() -> dict[str, Any]:
        while True:
            note: dict[str, Any] = await client.wait_for_notification("compact/didChangeUsage")
            if matches(note["usage"]):
                return note

    return asyncio.ensure_future(wait())


async def command(client: LanguageClient, name: str, argument: dict[str, Any] | None = None) -> Any:
    from lsprotocol import types

    arguments = [argument] if argument is not None else None
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(command=name, arguments=arguments))


async def new_session(client: LanguageClient, title: str = "test") -> str:
    result = await request(client, "compact/newSession", {"title": title})
    session_id: str = result["sessionId"]
    return session_id


async def read_file(client: LanguageClient, session_id: str, path: str, **extra: Any) -> dict[str, Any]:
    result: dict[str, Any] = await request(client, "compact/readFile", {"sessionId": session_id, "path": path, **extra})
    return result


async def append(client: LanguageClient, session_id: str, messages: list[dict[str, Any]], **extra: Any) -> Any:
    return await request(client, "compact/append", {"sessionId": session_id, "messages": messages, **extra})


def all_text(messages: list[dict[str, Any]]) -> str:
    """Every text the model would see, tool results included."""
    parts: list[str] = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            parts.append(content)
            continue
        for block in content:
            if block.get("type") == "text":
                parts.append(block["text"])
            elif block.get("type") == "tool_result":
                inner = block.get("content", "")
                parts.append(inner if isinstance(inner, str) else " ".join(b.get("text", "") for b in inner))
    return "\n".join(parts)
