"""How a file, plan or skill reads when it comes back after compaction: the attachment text is pinned."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from compact_lsp.engine.compaction.file_excerpts import (
    DEFAULT_EXCERPTS,
    EXCERPTS_BEFORE,
    fit_ranges,
    load_text,
    render_deleted,
    render_excerpt,
    render_file,
    render_plan,
    truncate_to_tokens,
)
from compact_lsp.engine.compaction.over_budget import whole_anyway
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.files.editor_documents import EditorDocument
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.plan_state import PlanState
from compact_lsp.engine.prompts import SKILL_TRUNCATED_NOTE


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


def numbered(n: int) -> list[str]:
    return [f"value_{i} = compute({i}, scale=2)  # step {i}" for i in range(1, n + 1)]


@pytest.mark.parametrize(
    ("rendered", "expected"),
    [
        pytest.param(render_file("src/app.py", "x = 1\n"), '<file path="src/app.py">\nx = 1\n</file>', id="whole-file"),
        pytest.param(
            render_file("a&b.py", "x = 1", dirty=True),
            '<file path="a&amp;b.py" source="editor-buffer" '
            'note="unsaved editor buffer: the file on disk differs">\nx = 1\n</file>',
            id="dirty-buffer-escaped-path",
        ),
        pytest.param(
            render_file("big.py", "y = 2", lines="10-12", note='over "budget"'),
            '<file path="big.py" lines="10-12" partial="true" note="over &quot;budget&quot;">\ny = 2\n</file>',
            id="partial-with-note",
        ),
        pytest.param(
            render_deleted("gone.py"),
            '<file path="gone.py" deleted="true">gone.py was deleted since it was read.</file>',
            id="deleted",
        ),
        pytest.param(
            render_plan(PlanState(text="- [ ] fix login", source="tool")),
            '<plan source="tool" note="the task list as it stood when the conversation was compacted">\n'
            "- [ ] fix login\n</plan>",
            id="plan",
        ),
    ],
)
def test_attachment_text_is_pinned(rendered: str, expected: str) -> None:
    assert rendered == expected


def test_ranges_show_in_file_order_with_omitted_markers(counter: TiktokenCounter) -> None:
    content, label = fit_ranges(numbered(10), [(6, 7), (2, 2)], budget=1000, counter=counter)
    assert label == "2-2,6-7"
    assert content.split("\n") == [
        "[... lines 1-1 omitted: offset=1 limit=1 ...]",
        "value_2 = compute(2, scale=2)  # step 2",
        "[... lines 3-5 omitted: offset=3 limit=3 ...]",
        "value_6 = compute(6, scale=2)  # step 6",
        "value_7 = compute(7, scale=2)  # step 7",
        "[... lines 8-10 omitted: offset=8 limit=3 ...]",
    ]


def test_ranges_fill_in_priority_order_within_the_budget(counter: TiktokenCounter) -> None:
    lines = numbered(40)
    one_line = counter.count_text(lines[0] + "\n")
    _content, label = fit_ranges(lines, [(30, 40), (1, 10)], budget=one_line * 3, counter=counter)
    assert label == "30-32"


@pytest.mark.parametrize(
    ("read_span", "uses", "note_start", "first_line"),
    [
        pytest.param(None, [], "showing its beginning", "value_1 "),
        pytest.param(
            (100, 109), [], "showing only the lines read or edited", "[... lines 1-99 omitted: offset=1 limit=99 ...]"
        ),
        pytest.param(
            None,
            [{"new_string": "value_150 = compute(150, scale=2)"}],
            "showing only the lines read or edited",
            "[... lines 1-146 omitted: offset=1 limit=146 ...]",
        ),
    ],
    ids=["head", "recorded-partial-read", "around-an-edit"],
)
def test_big_file_excerpt(
    counter: TiktokenCounter,
    read_span: tuple[int, int | None] | None,
    uses: list[dict[str, str]],
    note_start: str,
    first_line: str,
) -> None:
    text = "\n".join(numbered(300)) + "\n"
    excerpt = render_excerpt(
        "big.py",
        text,
        uses=uses,
        read_span=read_span,
        full_tokens=counter.count_text(text),
        budget=400,
        cap=400,
        counter=counter,
        dirty=False,
    )
    assert counter.count_text(excerpt.rendered) <= 400
    header, body = excerpt.rendered.split("\n", 1)
    assert (
        f'partial="true" note="partial: big.py has 300 lines, about {counter.count_text(text)} tokens, over ' in header
    )
    assert f"over the 400-token budget per file: {note_start}" in header  # tokens: the unit counted
    assert body.startswith(first_line)


def test_truncation_ends_with_the_note_and_fits(counter: TiktokenCounter) -> None:
    text = "\n".join(numbered(200))
    cut = truncate_to_tokens(text, 100, counter, SKILL_TRUNCATED_NOTE)
    assert cut.endswith("\n\n[... skill content truncated; read full file if needed]")
    assert counter.count_text(cut) <= 100
    assert truncate_to_tokens("short", 100, counter, SKILL_TRUNCATED_NOTE) == "short"


def _unreadable(path: str) -> bytes:
    raise PermissionError(13, "Permission denied", path)


@pytest.mark.parametrize(
    ("read", "dirty", "expected"),
    [
        pytest.param(lambda p: b"on disk", False, ("on disk", "disk", False, None), id="disk"),
        pytest.param(lambda p: b"on disk", True, ("in buffer", "editor-buffer", False, None), id="dirty-buffer"),
        pytest.param(lambda p: b"\x00\x01", False, (None, "disk", False, "binary file"), id="binary"),
        pytest.param(
            lambda p: b"\xff\xfe", False, (None, "disk", False, "binary file (not UTF-8 text)"), id="not-utf8"
        ),
        pytest.param(_unreadable, False, (None, "disk", False, "cannot be read: Permission denied"), id="denied"),
    ],
)
def test_load_text(read: Callable[[str], bytes], dirty: bool, expected: tuple[object, ...]) -> None:
    document = EditorDocument(path="/w/a.py", realpath="/w/a.py", text="in buffer", version=2, dirty=dirty)
    loaded = load_text("/w/a.py", document, read)
    assert (loaded.text, loaded.source, loaded.deleted, loaded.skip) == expected


def test_load_text_of_a_missing_file_is_deleted(tmp_path: Path) -> None:
    assert load_text(str(tmp_path / "missing.py"), None, gated_reader(AllowedRoots.of(str(tmp_path)))).deleted


@pytest.mark.parametrize(
    ("edits", "tokens", "whole"),
    [
        pytest.param(2, 1_500, True, id="worked-on-and-fits-twice-the-cap"),
        pytest.param(1, 1_500, False, id="edited-once"),
        pytest.param(3, 2_500, False, id="over-twice-the-cap"),
        pytest.param(3, 900, False, id="under-the-cap-is-not-an-exception"),
    ],
)
def test_a_file_the_agent_worked_on_comes_back_whole_over_the_cap(edits: int, tokens: int, whole: bool) -> None:
    uses: list[dict[str, object]] = [{"old_string": "a", "new_string": "b"}] * edits + [{"offset": 1}]
    assert whole_anyway(uses, tokens, cap=1_000, allowed=10_000, excerpts=DEFAULT_EXCERPTS) is whole
    assert not whole_anyway(uses, tokens, cap=1_000, allowed=10_000, excerpts=EXCERPTS_BEFORE)
