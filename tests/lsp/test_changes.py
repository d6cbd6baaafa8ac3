"""'Changed since you read it' notices: a bounded diff of what the model saw against the disk."""

from __future__ import annotations

import pytest

from compact_lsp.tracking.changes import SeenContents, SeenText, change_notice, strip_line_numbers


def test_notice_carries_a_unified_diff() -> None:
    notice = change_notice("src/app.py", "a = 1\nb = 2\n", "a = 1\nb = 3\n")
    assert notice is not None
    assert notice.startswith("src/app.py changed on disk since you read it")
    assert "-b = 2" in notice and "+b = 3" in notice


def test_unchanged_content_gives_no_notice() -> None:
    assert change_notice("a.py", "same\n", "same\n") is None


def test_deleted_file_notice() -> None:
    assert "was deleted" in (change_notice("a.py", "x\n", None) or "")


def test_unknown_previous_content_still_says_changed() -> None:
    assert "read it again" in (change_notice("a.py", None, "x\n") or "")


@pytest.mark.parametrize("size", [pytest.param(1_000, id="many-lines"), pytest.param(5, id="long-lines")])
def test_notice_is_bounded(size: int) -> None:
    width = 10 if size == 1_000 else 5_000
    old = "".join(f"{'o' * width} {i}\n" for i in range(size))
    new = "".join(f"{'n' * width} {i}\n" for i in range(size))
    notice = change_notice("big.txt", old, new, max_lines=60, max_chars=4000)
    assert notice is not None
    assert len(notice) < 4500
    assert "more diff line(s) not shown" in notice


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("     1→import os\n     2→print(1)\n", "import os\nprint(1)\n", id="claude-code-arrows"),
        pytest.param("1\tfoo\n2\tbar", "foo\nbar", id="tab-numbered"),
        pytest.param("plain text\n2→x\n", "plain text\n2→x\n", id="not-all-numbered"),
        pytest.param("", "", id="empty"),
    ],
)
def test_line_numbers_are_stripped_only_from_numbered_reads(text: str, expected: str) -> None:
    assert strip_line_numbers(text) == expected


def test_seen_text_compares_the_same_range() -> None:
    seen = SeenText("c\nd\n", start_line=3, num_lines=2)
    assert seen.same_range_of("a\nb\nc\nd\ne\n") == "c\nd\n"
    assert SeenText("a\n").same_range_of("a\nb\n") == "a\nb\n"


def test_seen_contents_are_bounded_oldest_first() -> None:
    seen = SeenContents(max_chars=10)
    seen.put("/a", SeenText("12345"))
    seen.put("/b", SeenText("12345"))
    seen.put("/c", SeenText("123"))
    assert "/a" not in seen and "/b" in seen and "/c" in seen
    seen.put("/huge", SeenText("x" * 11))
    assert "/huge" not in seen
