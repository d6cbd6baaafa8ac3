"""A followed Gemini CLI session's whole conversation for its chat (``compact/transcript``): every message, tool
call and result as it happened, with a marker where each of Gemini's compressions fell. The follower holds what the
model holds now (the message list as it stands at the end of the file); the user's chat keeps what came before.

Gemini CLI 0.61.0 (measured 2026-12-06, docs/gemini-cli.md) writes a message again under its ``id`` when it grows
(its last write is the message) and replaces the list with a ``$set`` of ``messages``: at the start (its session
context), on ``--resume`` (the messages again), and at a compression, whose list is the session context, the summary
and the model's acknowledgement. A list whose summary is new is a compression: its messages are the model's, never
shown (the summary is the marker's), and so is the session context. Gemini compresses by itself at the start of a
user turn, and when the user types ``/compress`` (or ``/summarize``, ``/compact``): the ``info`` record it writes
right after the list tells which (its bundle's ``handleChatCompressionEvent`` and history recording; both seen in
its TUI): "Context compressed from N% to M%." after its own, an empty one (the ``compression`` item the command
shows, which has no text) after the user's. Gemini records no token counts of a compression: the marker's figures
are the prompts Gemini reported (``tokens.input``) on the last model turn before it (what it compared with its
threshold; the command's own "compressed from" figure in the TUI too) and on the first after it. Read from the
session file as the timeline reads it; nothing is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compact_lsp.agents.gemini_cli.chat_log import (
    MAX_SESSION_BYTES,
    SESSION_CONTEXT,
    ChatBuilder,
    GeminiChat,
    parse_line,
)
from compact_lsp.agents.gemini_cli.session_file import summary_message, text_of
from compact_lsp.agents.shown_blocks import STATE_SNAPSHOT, agent_marker
from compact_lsp.engine.files.file_gate import open_regular

MESSAGE_TYPES = ("user", "gemini")


def gemini_cli_chat_entries(path: Path) -> list[dict[str, Any]]:
    """``compact/transcript`` entries of the session file at ``path`` before ``shown_entries`` (see the module
    doc)."""
    with open_regular(str(path), max_bytes=MAX_SESSION_BYTES) as f:
        lines = f.read(MAX_SESSION_BYTES).splitlines()
    order: list[str | dict[str, Any]] = []
    """Message ids as first written, and markers, in order."""
    latest: dict[str, dict[str, Any]] = {}
    known: set[str] = set()
    reported: int | None = None
    waiting: dict[str, Any] | None = None
    """The last marker, until the first model turn after it reports its prompt."""
    untold: dict[str, Any] | None = None
    """The last marker, until the ``info`` record after it (or a message) tells its trigger."""
    for raw in lines:
        record = parse_line(raw)
        if not isinstance(record, dict):
            continue
        patch = record.get("$set")
        listed = patch.get("messages") if isinstance(patch, dict) else None
        if isinstance(listed, list):
            summary = summary_message(listed)
            if summary is not None and str(summary.get("id")) not in known:
                waiting = untold = _marker(summary, reported)
                order.append(waiting)
                known.update(str(m.get("id")) for m in listed if isinstance(m, dict))
                continue
            for message in listed:  # the session's start, or resumed: the messages it holds again
                if isinstance(message, dict) and str(message.get("id")) not in known:
                    _written(message, order, latest, known)
            continue
        if record.get("type") == "info" and untold is not None:
            untold["trigger"], untold = "manual" if not text_of(record.get("content")).strip() else "auto", None
        if not _written(record, order, latest, known):
            continue
        untold = None  # a message first: Gemini's own
        if record.get("type") != "gemini":
            continue
        tokens = record.get("tokens")
        prompt = tokens.get("input") if isinstance(tokens, dict) else None
        if isinstance(prompt, int) and not isinstance(prompt, bool) and prompt > 0:
            reported = prompt
            if waiting is not None:
                waiting["tokensAfter"], waiting = prompt, None
    return _entries(order, latest)


def _written(record: dict[str, Any], order: list[str | dict[str, Any]], latest: dict[str, dict[str, Any]],
             known: set[str]) -> bool:  # fmt: skip
    """A message written (again); False: not a message."""
    key = record.get("id")
    if not isinstance(key, str) or record.get("type") not in MESSAGE_TYPES:
        return False
    if key not in known:
        known.add(key)
        order.append(key)
    latest[key] = record
    return True


def _marker(summary: dict[str, Any], before: int | None) -> dict[str, Any]:
    text = text_of(summary.get("content"))
    snapshot = STATE_SNAPSHOT.match(text)
    stamp = summary.get("timestamp")
    shown = (snapshot.group(1) if snapshot else text).strip() or None
    return agent_marker(0, stamp if isinstance(stamp, str) else None, "auto", before, None, shown)


def _entries(order: list[str | dict[str, Any]], latest: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    chat = GeminiChat("")
    builder = ChatBuilder(chat)
    stamps: list[str | None] = []

    def settle() -> None:
        builder.flush()
        entries.extend({"kind": "message", "at": at, "message": m} for m, at in zip(chat.messages, stamps, strict=True))
        chat.messages.clear()
        stamps.clear()

    for item in order:
        if isinstance(item, dict):
            settle()
            entries.append({**item, "boundaryId": f"agent-{len(entries)}"})
            continue
        record = latest[item]
        if record["type"] == "user" and text_of(record.get("content")).startswith(SESSION_CONTEXT):
            continue  # Gemini's context for the model
        builder.add(record)
        started = len(chat.messages) + (builder.role is not None)  # each message starts with the record it came from
        stamp = record.get("timestamp")
        stamps.extend([stamp if isinstance(stamp, str) else None] * (started - len(stamps)))
    settle()
    return entries
