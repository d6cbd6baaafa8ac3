"""Lines of a Claude Code session log: parsing each into a record, and where Claude Code compacted.

``transcript_log.py`` beside it builds the conversation from these records; a live transcript is parsed a piece at a
time (``agents/claude_code/live.py``), hence line numbers that start where the last piece ended.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from compact_lsp.engine.conversation.messages import (
    MAX_NESTING,
    Message,
    MessageShapeError,
    blocks_of,
    check_finite,
    normalize_message,
)
from compact_lsp.engine.files.file_tool_calls import check_input_paths
from compact_lsp.engine.files.usable_path import UnusablePath

if TYPE_CHECKING:
    import mmap

MESSAGE_TYPES = ("user", "assistant")
_WHERE = {kind: f"{kind} message" for kind in MESSAGE_TYPES}
ATTACHMENT = "attachment"
"""Context Claude Code adds that is in no message (re-attached files, hook output, listings, a sub-agent's
result): its ``rendered`` texts reach the model as a user (or system) message, so they are imported as one."""
BINARY_SNIFF_BYTES = 8192
UNPARSED_KINDS = (b"api-request", b"api-request-blob", b"api-request-shape")
"""Claude Code 2.x's copies of what it sent the API (the system prompt and tools, ~140 KB a blob): bookkeeping
that is never part of the chain. A line that starts ``{"type":"<one of these>"`` is counted, not parsed."""
MAX_RENDERED_PARTS = 64
COUNT_BRACKETS_UP_TO = 4096
"""The longest line whose brackets are counted to skip walking its message for its depth (see ``_check_record``)."""


class _NotFinite(Exception):
    """A record holds NaN, an infinity or a number too big for a float: only then is it searched for one."""


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _NotFinite
    return value


def _no_constant(name: str) -> float:
    raise _NotFinite


_FINITE_JSON = json.JSONDecoder(parse_float=_finite_float, parse_constant=_no_constant)
"""Decodes like ``json.loads`` but stops at the first non-finite number, so the finite records (all of them, in
practice) are not walked again to look for one."""


_SCAN: Callable[[str, int], tuple[Any, int]] = _FINITE_JSON.scan_once  # type: ignore[attr-defined]


def _decode(raw: bytes) -> tuple[Any, bool]:
    """``json.loads`` of a line, and whether every number in it is finite.

    orjson first, from the bytes (half the stdlib's time: JSON decoding was a third of the hook's instructions at
    1M tokens). It refuses whatever the stdlib would refuse, and more besides: NaN and the infinities, a number too
    big for a double, a BOM, a lone surrogate. All of those go to the stdlib (``_stdlib_decode``), which answers
    them as it always did, value or error. The one thing orjson reads differently is an integer beyond 64 bits
    (below -2**63 or over 2**64 - 1) that a double can hold: it becomes the nearest double, as it does in Claude
    Code (JavaScript), which wrote the line. So a value orjson returns is finite throughout."""
    try:
        return orjson.loads(raw), True
    except orjson.JSONDecodeError:
        return _stdlib_decode(raw)


def _stdlib_decode(raw: bytes) -> tuple[Any, bool]:
    """``_decode`` with the stdlib alone: every refusal in its words, and whether every number is finite."""
    text = raw.decode("utf-8")
    if not text.startswith("\ufeff"):  # json.loads refuses a BOM with its own message; JSONDecoder does not
        try:
            return _scanned(text), True
        except _NotFinite:
            pass
    return json.loads(text), False


def _scanned(text: str) -> Any:
    """``_FINITE_JSON.decode(text)``, its scanner called at once when the text is one value and nothing around it
    (every line Claude Code writes); anything else goes through ``decode``, for its answer or its error."""
    if text[:1] not in _AROUND:
        try:
            value, end = _SCAN(text, 0)
        except StopIteration:
            end = -1
        if end == len(text):
            return value
    return _FINITE_JSON.decode(text)


_AROUND = ("", " ", "\t", "\n", "\r")


@dataclass
class LineProblem:
    """A line that could not be imported; ``line_no`` counts from 1."""

    line_no: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line_no}: {self.reason}"


@dataclass(slots=True)
class LogRecord:
    """One line of the log: its number, its JSON object, and its message when it carries one (slots: the hook's
    passes over a million tokens' records read their fields without a ``__dict__`` each)."""

    line_no: int
    data: dict[str, Any]
    message: Message | None = None

    @property
    def uuid(self) -> str | None:
        value = self.data.get("uuid")
        return value if isinstance(value, str) else None

    @property
    def parent(self) -> str | None:
        value = self.data.get("parentUuid")
        return value if isinstance(value, str) else None

    @property
    def is_attachment(self) -> bool:
        return self.data.get("type") == ATTACHMENT

    @property
    def message_id(self) -> str | None:
        raw = self.data.get("message")
        value = raw.get("id") if isinstance(raw, dict) else None
        return value if isinstance(value, str) else None


def starts_with_json_line(data: bytes) -> bool:
    """Whether the first non-blank line is a JSON object, as in every Claude Code log."""
    first = next((line for line in data[:BINARY_SNIFF_BYTES].split(b"\n") if line.strip()), b"")
    try:
        return isinstance(json.loads(first.decode("utf-8")), dict)
    except (ValueError, RecursionError):  # not UTF-8, not JSON, a number too long to convert
        return False


def parse_log_lines(
    data: bytes | mmap.mmap,
    first_line_no: int = 1,
    *,
    start: int = 0,
    end: int | None = None,
    copy: bool = True,
    lean: bool = False,
) -> tuple[list[LogRecord], list[LineProblem]]:
    """The records of whole lines of a session log, ``data[start:end]`` (a mapped file needs no copy first;
    ``first_line_no`` numbers the first line); a last line without its newline is reported as torn.
    ``copy=False``: each message's blocks are its record's own dicts (``normalize_message``), for a reader that
    keeps nothing after it answers (the hook). ``lean``: a record's data keeps of its ``message`` only the id
    (``message_id``; the blocks are in ``LogRecord.message``) and of its ``toolUseResult`` only the type (what the
    hook reads of the side data: did a Write create its file), so the rest (usage, a copy of the file a result
    shows, an edit's patch: a third of a transcript's bytes) is freed while the next lines are parsed."""
    end = len(data) if end is None else end
    torn_last = end > start and data[end - 1 : end] != b"\n"
    records: list[LogRecord] = []
    problems: list[LineProblem] = []
    for line_no, raw in enumerate(_lines(data, start, end), first_line_no):
        if not raw.strip():
            continue
        if raw.startswith(b'{"type":"') and raw[9 : raw.find(b'"', 9)] in UNPARSED_KINDS:
            records.append(LogRecord(line_no, {"type": raw[9 : raw.find(b'"', 9)].decode()}))
            continue
        problem = None
        try:
            value, finite = _decode(raw)
        except UnicodeDecodeError as e:
            problem = f"not UTF-8 text (bad byte at column {e.start + 1})"
        except json.JSONDecodeError as e:
            problem = f"not valid JSON ({e.msg} at column {e.colno})"
            if torn_last and line_no == first_line_no + data[start:end].count(b"\n"):
                problem += "; the file ends mid-record (a torn last write)"
        except (ValueError, RecursionError):  # a number too long to convert, nesting too deep: this line only
            problem = "not readable JSON (a number too long to read, or nesting too deep)"
        else:
            if not isinstance(value, dict):
                problem = f"a JSON {type(value).__name__}, expected an object with a 'type'"
            else:
                record = LogRecord(line_no, value)
                problem = _check_record(record, finite, raw, copy)
        if problem is not None:
            problems.append(LineProblem(line_no, problem))
            continue
        if lean:
            _lighten(record.data)
        records.append(record)
    return records, problems


def _lighten(data: dict[str, Any]) -> None:
    """``parse_log_lines(lean=True)``'s record data: the message's id and the toolUseResult's type."""
    message = data.get("message")
    if isinstance(message, dict):
        data["message"] = {"id": message["id"]} if "id" in message else {}
    side = data.get("toolUseResult")
    if isinstance(side, dict):
        data["toolUseResult"] = {"type": side.get("type")}


def _lines(data: bytes | mmap.mmap, start: int = 0, end: int | None = None) -> Iterator[bytes]:
    """``data[start:end].split(b"\\n")`` a line at a time: each line is freed once parsed, not held beside all the
    others (a 13 MB transcript's lines are 13 MB of fresh pages), and found with memchr, not a byte-by-byte split."""
    end = len(data) if end is None else end
    find = data.find
    while (stop := find(b"\n", start, end)) >= 0:
        yield data[start:stop]
        start = stop + 1
    yield data[start:end]


def is_boundary(record: LogRecord) -> bool:
    return record.data.get("type") == "system" and record.data.get("subtype") == "compact_boundary"


def last_boundary(records: list[LogRecord]) -> int | None:
    """The index of the last compaction boundary in ``records``, or None. A record with a message is a user,
    assistant or attachment record (``_check_record``), never a boundary: only the others' data is looked at."""
    return next(
        (i for i in range(len(records) - 1, -1, -1) if records[i].message is None and is_boundary(records[i])), None
    )


def before_last_boundary(records: list[LogRecord]) -> tuple[list[LogRecord], str | None]:
    """The records before the last compaction boundary, and the summary Claude Code wrote after it."""
    cut = last_boundary(records)
    if cut is None:
        return records, None
    summary = next(
        (
            "\n".join(str(b.get("text", "")) for b in blocks_of(r.message) if b.get("type") == "text")
            for r in records[cut + 1 :]
            if r.message is not None and r.data.get("isCompactSummary") is True
        ),
        None,
    )
    return records[:cut], summary


def _check_record(record: LogRecord, finite: bool, line: bytes, copy: bool = True) -> str | None:
    """None when the record is usable, else why not; parses a message record's ``message`` (``finite``: the
    record holds no NaN or infinity, so its message need not be searched for one; ``line``: its bytes; ``copy``:
    as ``parse_log_lines``)."""
    kind = record.data.get("type")
    if not isinstance(kind, str):
        return "a record without a string 'type'"
    if kind == ATTACHMENT:
        record.message = _rendered(record.data)
        return None
    if kind not in MESSAGE_TYPES:
        return None
    raw = record.data.get("message")
    if not isinstance(raw, dict):
        return f"a {kind} record without a 'message' object"
    if raw.get("role") != kind:
        return f"a {kind} record whose message has role {raw.get('role')!r}"
    try:  # what an append refuses is refused here too: NaN or Infinity, a tool path that names no file
        # A line with at most MAX_NESTING brackets cannot nest deeper than that: only the others are walked. A
        # long line is walked without counting: counting reads every byte twice, a walk visits each container,
        # and a long line's bytes are mostly a text (a file's, in a tool result) with few containers around it.
        shallow = len(line) <= COUNT_BRACKETS_UP_TO and line.count(b"{") + line.count(b"[") <= MAX_NESTING
        where = _WHERE[kind]
        record.message = normalize_message(raw, where=where, nesting=not shallow, copy=copy)
        if not finite:
            check_finite(record.message, where)
        if kind == "assistant":  # tool_use blocks, the only ones with paths, are refused in user messages
            check_input_paths(record.message, where)
    except (MessageShapeError, UnusablePath) as e:
        record.message = None
        return str(e)
    return None


def _rendered(data: dict[str, Any]) -> Message | None:
    """An attachment record's ``rendered`` texts as a user message, or None when it renders nothing."""
    rendered = data.get("rendered")
    if not isinstance(rendered, list):
        return None
    texts = [p.get("content") for p in rendered[:MAX_RENDERED_PARTS] if isinstance(p, dict)]
    blocks = [{"type": "text", "text": t} for t in texts if isinstance(t, str) and t]
    return {"role": "user", "content": blocks} if blocks else None
