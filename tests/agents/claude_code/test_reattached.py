"""Claude Code's re-attachment after a compaction as measured on the real CLI: the five most recent, sizes included."""

from __future__ import annotations

import json

import pytest

from compact_lsp.agents.character_fit import CharCounter
from compact_lsp.agents.claude_code.reattached import (
    REATTACH_MAX_TOKENS,
    claude_code_reattachment,
    estimated_api_tokens,
)
from compact_lsp.engine.compaction.file_excerpts import render_excerpt
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.files.file_use_timeline import FileUse


def _uses(*paths: str, tool: str = "Read") -> list[FileUse]:
    return [FileUse(i, i, tool, p, None, None) for i, p in enumerate(paths)]


def _stub_count(text: str) -> int:
    """The loopback stub's ``count_tokens``: the request body's bytes / 4 (the body Claude Code 2.1.332 sends)."""
    body = {"model": "claude-opus-5-5", "messages": [{"role": "user", "content": text}]}
    return len(json.dumps(body, separators=(",", ":"))) // 4


@pytest.mark.parametrize(
    ("chars", "whole"),
    [
        pytest.param(10_412, True, id="10412-whole"),
        pytest.param(13_231, True, id="13231-whole"),
        pytest.param(26_863, False, id="26863-by-name"),
    ],
)
def test_a_file_past_the_size_cut_comes_back_by_name_only(chars: int, whole: bool) -> None:
    """The issue's files (_headers.py, _state.py, _connection.py): whole, whole, by name, with either count."""
    text = ("x = 1  # a line of code\n" * (chars // 24 + 1))[:chars]
    for count in (_stub_count, estimated_api_tokens):
        got = claude_code_reattachment(_uses("/p/a.py"), lambda _: text, count)
        assert (got.whole, got.by_name) == ((["/p/a.py"], []) if whole else ([], ["/p/a.py"]))


def test_the_cut_is_tokens_not_characters() -> None:
    """The same characters: plain code under the cut, quotes (two bytes each once JSON-escaped) over it."""
    plain = ("def f():\n    return 1  # a line of code of about forty characters\n" * 400)[:18_861]
    quoted = ("S = " + '"' * 36 + "\n") * 500
    quoted = quoted[:18_861]
    assert _stub_count(plain) <= REATTACH_MAX_TOKENS < _stub_count(quoted)
    texts = {"/p/plain.py": plain, "/p/quoted.py": quoted}
    got = claude_code_reattachment(_uses(*texts), texts.get, _stub_count)
    assert (got.whole, got.by_name) == (["/p/plain.py"], ["/p/quoted.py"])


def test_five_most_recent_newest_first_within_the_total() -> None:
    paths = [f"/p/f{k}.py" for k in range(7)]
    got = claude_code_reattachment(_uses(*paths), lambda _: "x\n" * 100)
    assert got.whole == paths[:1:-1] and got.by_name == []
    big = "y" * 4_800 * 4  # 4,800 tokens whole, 19,200 characters: rough 4,800 each
    many = claude_code_reattachment(_uses(*paths), lambda _: big, lambda t: len(t) // 4, limit=12)
    assert len(many.whole) == 7  # 33,600 rough tokens: within the 50,000 total
    gone = claude_code_reattachment(_uses("/p/gone.py", "/p/here.py"), {"/p/here.py": "z\n"}.get)
    assert gone.whole == ["/p/here.py"]


def test_the_hook_tells_the_model_sizes_in_counted_tokens_and_budgets_in_characters() -> None:
    """A hook budgets in characters; the size it states is the file's tokens, counted (cl100k), not guessed."""
    text = "".join(f"value_{i} = compute({i}, scale=2)  # {i}\n" for i in range(400))
    chars = CharCounter()
    whole = chars.count_text(text)
    per_file = render_excerpt("big.py", text, uses=[], read_span=None, full_tokens=whole, budget=4_000, cap=4_000,
                              counter=chars, dirty=False)  # fmt: skip
    tokens = TiktokenCounter().count_text(text)
    assert f"about {tokens} tokens, over the 4,000-character budget per file:" in per_file.rendered
    assert tokens != -(-len(text) // 4)  # what a guess of four characters a token would have said
    assert per_file.reason.startswith("over the per-file budget")
    small = text[: len(text) // 5]  # within one file's budget: cut only by what the files before it left
    total = render_excerpt("small.py", small, uses=[], read_span=None, full_tokens=len(small), budget=1_200,
                           cap=4_000, counter=chars, dirty=False)  # fmt: skip
    assert "more than the 1,200 characters left of the total budget:" in total.rendered
    assert "per-file" not in total.reason and "per file" not in total.rendered
