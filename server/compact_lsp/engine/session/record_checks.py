"""Checking a journal record before it is replayed, so that loading never loses a session.

A record that is well-formed JSON can still be one the session cannot apply: a wrong type, a rewrite of a
message that does not exist, an undo with nothing to undo, a read without content, a timestamp that is not a
number. A file written by this version never holds one (every record is checked before it is written, see
``ContextSession``), but an older version, a hand edit or a disk error may leave one. ``check_record`` says
what is wrong before anything is applied, so ``replay_session`` skips the record and reports it like a
torn line instead of giving up on the whole session.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from compact_lsp.engine.conversation.messages import MessageShapeError, blocks_of, normalize_message
from compact_lsp.engine.conversation.titles import TitleError, check_title
from compact_lsp.engine.session.journal import eviction_from_record
from compact_lsp.engine.summarize.session_notes import SessionNotes

RECORD_TYPES = frozenset(
    {
        "append", "notice", "pending", "rewrite", "read", "deny", "pin", "notes", "compaction", "undo", "repair",
        "title", "header", "admit",
    }
)  # fmt: skip


class BadRecord(ValueError):
    """A journal record that cannot be applied; the text says why."""


@dataclass(frozen=True)
class SkippedRecord:
    """A record replay left out."""

    index: int
    """Position among the file's records (0 is the header)."""
    reason: str


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _optional_int(record: dict[str, Any], key: str) -> None:
    value = record.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise BadRecord(f"'{key}' must be an integer")


def _text(record: dict[str, Any], key: str, *, path: bool = False) -> str:
    value = record.get(key)
    if not isinstance(value, str) or (path and (not value or "\x00" in value)):
        raise BadRecord(f"'{key}' must be a {'path' if path else 'string'}")
    return value


def _messages(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise BadRecord("'messages' must be a list")
    try:
        return [normalize_message(m, f"messages[{i}]") for i, m in enumerate(value)]
    except MessageShapeError as exc:
        raise BadRecord(str(exc)) from None


def check_record(record: dict[str, Any], *, history_len: int, undo_boundary: str | None) -> None:
    """Raise ``BadRecord`` unless ``record`` applies to a session with ``history_len`` messages whose newest
    standing compaction is ``undo_boundary`` (None: none stands)."""
    kind = record.get("type")
    if kind not in RECORD_TYPES:
        raise BadRecord(f"unknown record type {kind!r}")
    if kind == "header":
        raise BadRecord("a second header record")
    if "at" in record and not _is_number(record["at"]):
        raise BadRecord("'at' must be a number")
    if kind in ("append", "repair"):
        _messages(record.get("messages"))
        if record.get("usage") is not None and not isinstance(record["usage"], dict):
            raise BadRecord("'usage' must be an object")
    elif kind == "pending":
        _text(record, "path", path=True)
        if record.get("text") is not None:
            _text(record, "text")
    elif kind == "notice":
        _text(record, "text")
        if history_len == 0:
            raise BadRecord("a change notice with no message to attach it to")
    elif kind == "rewrite":
        _check_rewrite(record, history_len)
    elif kind == "read":
        _check_read(record)
    elif kind == "deny":
        _text(record, "path", path=True)
    elif kind == "admit":
        _text(record, "path", path=True)
        if not isinstance(record.get("admitted"), bool):
            raise BadRecord("'admitted' must be true or false")
    elif kind == "title":
        _check_title(record)
    elif kind == "pin":
        _check_pin(record)
    elif kind == "notes":
        notes = record.get("notes")
        try:
            SessionNotes.from_dict(notes)  # type: ignore[arg-type]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise BadRecord("'notes' are not session notes") from None
    elif kind == "compaction":
        _check_compaction(record)
    elif kind == "undo":
        if undo_boundary is None:
            raise BadRecord("an undo with no compaction to undo")
        if record.get("boundaryId") != undo_boundary:
            raise BadRecord(f"an undo of {record.get('boundaryId')!r}, but the newest compaction is {undo_boundary!r}")


def _check_read(record: dict[str, Any]) -> None:
    _text(record, "path", path=True)
    _text(record, "content")
    if record.get("toolUseId") is not None:
        _text(record, "toolUseId")
    for key in ("startLine", "numLines", "totalLines"):
        _optional_int(record, key)


def _check_title(record: dict[str, Any]) -> None:
    try:
        if check_title(record.get("title")) != record["title"]:
            raise BadRecord("'title' has surrounding whitespace")
    except TitleError as exc:
        raise BadRecord(str(exc)) from None


def _check_pin(record: dict[str, Any]) -> None:
    if not isinstance(record.get("pinned"), bool):
        raise BadRecord("'pinned' must be true or false")
    if record.get("toolUseId") is None and record.get("path") is None:
        raise BadRecord("a pin record needs 'toolUseId' or 'path'")
    if record.get("toolUseId") is not None:
        _text(record, "toolUseId")
    if record.get("path") is not None:
        _text(record, "path", path=True)


def _check_rewrite(record: dict[str, Any], history_len: int) -> None:
    changes = record.get("changes")
    if not isinstance(changes, list):
        raise BadRecord("'changes' must be a list")
    for change in changes:
        index = change.get("index") if isinstance(change, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < history_len:
            raise BadRecord(f"a rewrite of message {index!r}, but the history has {history_len}")
        _messages([change.get("message")])
    try:
        eviction_from_record(record["eviction"])
    except (KeyError, TypeError, ValueError, AttributeError):
        raise BadRecord("'eviction' is not an eviction record") from None


def _check_compaction(record: dict[str, Any]) -> None:
    _text(record, "boundaryId")
    messages = _messages(record.get("messages"))
    result = record.get("result")
    if not isinstance(result, dict) or not _is_number(result.get("tokensAfter", 0)):
        raise BadRecord("'result' must be a compaction result")
    attached = record.get("attached", [])
    blocks = blocks_of(messages[0]) if messages else []
    if not isinstance(attached, list):
        raise BadRecord("'attached' must be a list")
    for entry in attached:
        block = entry.get("block") if isinstance(entry, dict) else None
        if not isinstance(block, int) or isinstance(block, bool) or not 0 <= block < len(blocks):
            raise BadRecord(f"an attachment at block {block!r} of a summary with {len(blocks)} blocks")
