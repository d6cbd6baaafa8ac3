"""The parser's line decoding takes a shortcut (the JSON scanner called at once) that answers exactly as
``JSONDecoder.decode`` does, value or error, on any text; the branch's record lookup is ``list.index``; and a
window of a buffer (a mapped file, as the hook reads it) parses as a copy of that window does."""

from __future__ import annotations

import json
import mmap
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compact_lsp.engine.claude_code import log_lines
from compact_lsp.engine.claude_code.branch import _position
from compact_lsp.engine.claude_code.log_lines import LogRecord
from compact_lsp.engine.conversation.messages import MessageShapeError, normalize_message

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)
AROUND = st.sampled_from(["", " ", "\n", "\t", "\r\n", "x", ",", "\ufeff", "]", "NaN"])
JSONISH_ALPHABET = '{}[]",:0123456789.eE+-tfnrulasNIiy \\\t\n\ufeff\ud800'
JSONISH = st.text(alphabet=JSONISH_ALPHABET, max_size=40)


def answer(decode: Any, text: str) -> tuple[str, Any]:
    try:
        return "value", json.dumps(decode(text))  # dumps: NaN == NaN, and -0.0 told from 0.0
    except Exception as exc:  # the error itself is what is compared
        return type(exc).__name__, str(exc)


@settings(max_examples=2000, deadline=None)
@given(value=JSON_VALUES, before=AROUND, after=AROUND, compact=st.booleans())
def test_a_value_with_anything_around_it_decodes_as_decode_says(value: Any, before: str, after: str,
                                                               compact: bool) -> None:  # fmt: skip
    text = before + json.dumps(value, separators=(",", ":") if compact else None) + after
    assert answer(log_lines._scanned, text) == answer(log_lines._FINITE_JSON.decode, text)


@settings(max_examples=3000, deadline=None)
@given(text=JSONISH)
def test_any_text_decodes_as_decode_says(text: str) -> None:
    assert answer(log_lines._scanned, text) == answer(log_lines._FINITE_JSON.decode, text)


def test_deep_nesting_fails_as_decode_fails() -> None:
    text = "[" * 100_000 + "]" * 100_000
    assert answer(log_lines._scanned, text) == answer(log_lines._FINITE_JSON.decode, text)


def as_javascript_reads_it(value: Any) -> Any:
    """An integer beyond 64 bits that a double can hold, as the nearest double (what orjson and Claude Code make of
    it); everything else as it is."""
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        near = float(value) if abs(value) < 2**1024 else None
        return value if near is None or near in (float("inf"), float("-inf")) else near
    if isinstance(value, list):
        return [as_javascript_reads_it(v) for v in value]
    if isinstance(value, dict):
        return {k: as_javascript_reads_it(v) for k, v in value.items()}
    return value


def line_answer(decode: Any, raw: bytes) -> tuple[str, Any]:
    try:
        value, finite = decode(raw)
    except Exception as exc:
        return type(exc).__name__, str(exc)
    return "value", (json.dumps(as_javascript_reads_it(value)), finite)


BIG_INTEGERS = (
    st.integers() | st.integers(2**62, 2**70) | st.integers(-(2**70), -(2**62)) | st.integers(10**300, 10**320)
)


@settings(max_examples=2000, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.booleans() | BIG_INTEGERS | st.floats() | st.text(),
        lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
        max_leaves=12,
    ),
    before=AROUND,
    after=AROUND,
    compact=st.booleans(),
)
def test_a_line_decodes_as_the_stdlib_decoded_it(value: Any, before: str, after: str, compact: bool) -> None:
    """orjson reads a line first: the value, its finiteness and every refusal are the stdlib's, but for an integer
    beyond 64 bits (NaN, infinities, a BOM, lone surrogates and a 400-digit integer fall back to the stdlib)."""
    text = before + json.dumps(value, separators=(",", ":") if compact else None) + after
    raw = text.encode("utf-8", "surrogatepass")
    assert line_answer(log_lines._decode, raw) == line_answer(log_lines._stdlib_decode, raw)


JSONISH_BYTES = st.text(alphabet=JSONISH_ALPHABET + "\x00\x7f\u00e9", max_size=40).map(
    lambda text: text.encode("utf-8", "surrogatepass")
) | st.binary(max_size=40)
"""JSON-like texts (lone surrogates as the invalid UTF-8 they are on disk) and any bytes at all."""


@settings(max_examples=3000, deadline=None)
@given(raw=JSONISH_BYTES)
def test_any_bytes_decode_as_the_stdlib_decoded_them(raw: bytes) -> None:
    assert line_answer(log_lines._decode, raw) == line_answer(log_lines._stdlib_decode, raw)


@given(lines=st.lists(st.integers(0, 5), min_size=1, max_size=12), pick=st.integers(0, 11))
def test_position_is_list_index(lines: list[int], pick: int) -> None:
    records = [LogRecord(n, {"uuid": str(n % 3)}) for n in lines]
    target = records[pick % len(records)]
    probe = LogRecord(target.line_no, dict(target.data))  # equal, not the same object
    assert _position(records, target) == records.index(target)
    assert _position(records, probe) == records.index(probe)


@given(data=st.binary(max_size=200) | st.lists(st.sampled_from([b"", b"\n", b"{}", b"ab", b"\r", b" "])).map(b"".join))
def test_lines_are_split_lines(data: bytes) -> None:
    assert list(log_lines._lines(data)) == data.split(b"\n")


@given(
    data=st.binary(max_size=200) | st.lists(st.sampled_from([b"", b"\n", b"{}", b"ab", b"\r", b" "])).map(b"".join),
    cuts=st.tuples(st.integers(0, 200), st.integers(0, 200)),
)
def test_the_lines_of_a_window_are_its_split_lines(data: bytes, cuts: tuple[int, int]) -> None:
    start, end = min(cuts[0], len(data)), min(max(cuts), len(data))
    assert list(log_lines._lines(data, start, end)) == data[start:end].split(b"\n")


LOG_LINES = st.sampled_from([
    '{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}',
    '{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}',
    '{"type":"system","subtype":"compact_boundary","parentUuid":null}', '{"type":"api-request","x":1}',
    '{"type":"user","message":{"role":"assistant","content":"x"}}', '{"type":', "[1]", "", " ", "NaN", "\ufeff{}",
])  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(lines=st.lists(LOG_LINES, max_size=8), newline_at_end=st.booleans(), cuts=st.tuples(st.integers(0, 400),
       st.integers(0, 400)), first=st.integers(1, 5))  # fmt: skip
def test_a_window_parses_as_its_copy_does(tmp_path_factory: pytest.TempPathFactory, lines: list[str],
                                          newline_at_end: bool, cuts: tuple[int, int], first: int) -> None:  # fmt: skip
    data = ("\n".join(lines) + ("\n" if newline_at_end else "")).encode()
    start, end = min(cuts[0], len(data)), min(max(cuts), len(data))
    expected = log_lines.parse_log_lines(data[start:end], first)
    assert log_lines.parse_log_lines(data, first, start=start, end=end) == expected
    if data:  # and straight from the mapped file, as the hook reads it
        path = tmp_path_factory.mktemp("window") / "t.jsonl"
        path.write_bytes(data)
        with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            assert log_lines.parse_log_lines(mapped, first, start=start, end=end) == expected


@settings(max_examples=400, deadline=None)
@given(
    depth=st.integers(1, 110),
    pad=st.integers(0, 2 * log_lines.COUNT_BRACKETS_UP_TO),
    brackets=st.integers(0, 150),
)
def test_a_line_is_refused_for_its_depth_as_a_walk_of_its_message_says(depth: int, pad: int, brackets: int) -> None:
    """Counting a line's brackets, or walking a long line's message, refuses what walking every message refuses:
    brackets in a text count without nesting, and the line's length picks the way."""
    deep: Any = []
    for _ in range(depth - 1):
        deep = [deep]
    block = {
        "type": "tool_use",
        "id": "t1",
        "name": "Read",
        "input": {"deep": deep, "text": "x" * pad + "{[" * brackets},
    }
    raw = {"role": "assistant", "content": [block]}
    line = json.dumps({"type": "assistant", "message": raw}, separators=(",", ":")).encode()
    _, problems = log_lines.parse_log_lines(line + b"\n")
    try:
        normalize_message(raw, where="assistant message")
        walked = None
    except MessageShapeError as exc:
        walked = str(exc)
    assert [p.reason for p in problems] == ([walked] if walked else [])
