"""The parser's line decoding takes a shortcut (the JSON scanner called at once) that answers exactly as
``JSONDecoder.decode`` does, value or error, on any text; and the branch's record lookup is ``list.index``."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from compact_lsp.engine.claude_code import log_lines
from compact_lsp.engine.claude_code.branch import _position
from compact_lsp.engine.claude_code.log_lines import LogRecord

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)
AROUND = st.sampled_from(["", " ", "\n", "\t", "\r\n", "x", ",", "\ufeff", "]", "NaN"])
JSONISH = st.text(alphabet='{}[]",:0123456789.eE+-tfnrulasNIiy \\\t\n\ufeff\ud800', max_size=40)


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
