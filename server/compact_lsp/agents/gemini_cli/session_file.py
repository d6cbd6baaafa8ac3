"""Gemini CLI's session file as records, light: what the hook reads on every request after a compression, before
it knows whether it needs the engine (request.py), and what the hook's reader builds on (transcript.py).

A ``$set`` of ``messages`` replaces the message list; any other record with an ``id`` and a ``type`` is a message,
written again whole under the same ``id`` when it grows (``MessageList``). A ``gemini`` message's ``toolCalls``
carry each call's ``result`` (``result_of``). The file is untrusted: a line that is not a JSON object is skipped,
a field of another shape counts as absent, and a text is cut at ``MAX_TEXT_CHARS``.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from compact_lsp.agents.gemini_cli.marks import COMPRESSION_ACK

MAX_TEXT_CHARS = 1_000_000


def text_of(content: Any) -> str:
    """A message's text: a string, or the ``text`` of its parts joined."""
    if isinstance(content, str):
        return content[:MAX_TEXT_CHARS]
    if isinstance(content, list):
        return "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))[
            :MAX_TEXT_CHARS
        ]
    return ""


def summary_message(messages: list[Any]) -> dict[str, Any] | None:
    """The summary message of a compression's message list (the user message before ``COMPRESSION_ACK``), or None
    when the list is not a compression's."""
    for before, after in itertools.pairwise(messages):
        if (
            isinstance(before, dict)
            and isinstance(after, dict)
            and before.get("type") == "user"
            and after.get("type") == "gemini"
            and text_of(after.get("content")).strip() == COMPRESSION_ACK
        ):
            return before
    return None


def summary_of(messages: list[Any]) -> str | None:
    """The summary's text of a compression's message list (``summary_message``), or None."""
    found = summary_message(messages)
    return text_of(found.get("content")) if found is not None else None


Messages = dict[str, dict[str, Any]]
"""A message list by id, in order (a message written again keeps its place)."""


@dataclass(eq=False)
class MessageList:
    """The session's message list as it stands after the records applied so far."""

    by_id: Messages = field(default_factory=dict)

    def apply(self, record: dict[str, Any]) -> tuple[list[Any], Messages] | None:
        """One record applied; a ``$set`` of ``messages`` replaces the list: (that list, the list it replaced)."""
        patch = record.get("$set")
        if isinstance(patch, dict):
            listed = patch.get("messages")
            if not isinstance(listed, list):
                return None
            replaced, self.by_id = self.by_id, {str(m.get("id")): m for m in listed if isinstance(m, dict)}
            return listed, replaced
        if isinstance(record.get("id"), str) and isinstance(record.get("type"), str):
            self.by_id[record["id"]] = record
        return None


def tool_calls(messages: Messages) -> list[dict[str, Any]]:
    """The tool calls of the ``gemini`` messages, in order."""
    calls: list[dict[str, Any]] = []
    for message in messages.values():
        found = message.get("toolCalls")
        if message.get("type") == "gemini" and isinstance(found, list):
            calls += [c for c in found if isinstance(c, dict)]
    return calls


def result_of(call: dict[str, Any]) -> tuple[str, bool] | None:
    """(output text, failed) of a recorded tool call, or None when it has no result yet."""
    result = call.get("result")
    if not isinstance(result, list):
        return None
    texts: list[str] = []
    for part in result:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            value = body.get("error", body.get("output"))
            texts.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return "".join(texts)[:MAX_TEXT_CHARS], call.get("status") != "success"
