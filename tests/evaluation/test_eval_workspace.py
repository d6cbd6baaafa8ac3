"""The replay workspace: the author's paths mapped under a temporary root, files written as the log shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_lsp.evaluation.workspace import ReplayWorkspace

CWD = "/home/dev/proj"


@pytest.fixture
def ws(tmp_path: Path) -> ReplayWorkspace:
    return ReplayWorkspace(tmp_path, CWD)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param("/home/dev/proj/src/a.py", "ws/src/a.py", id="inside-cwd"),
        pytest.param("/home/dev/proj", "ws", id="the-cwd-itself"),
        pytest.param("/home/dev/project2/a.py", "outside/home/dev/project2/a.py", id="lookalike-prefix"),
        pytest.param("/home/dev/.claude/CLAUDE.md", "outside/home/dev/.claude/CLAUDE.md", id="outside-cwd"),
        pytest.param("src/a.py", "ws/src/a.py", id="relative"),
        pytest.param("/home/dev/proj/src/../b.py", "ws/b.py", id="dot-dot-normalised"),
    ],
)
def test_paths_map_under_the_replay_root(ws: ReplayWorkspace, tmp_path: Path, given: str, expected: str) -> None:
    assert ws.map_path(given) == str(tmp_path / expected)


def test_tool_use_paths_are_mapped_and_the_original_messages_untouched(ws: ReplayWorkspace) -> None:
    use = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": f"{CWD}/a.py", "limit": 3}}
    original = [{"role": "assistant", "content": [use]}]
    mapped = ws.map_messages(original)
    assert mapped[0]["content"][0]["input"] == {"file_path": str(ws.root / "a.py"), "limit": 3}
    assert use["input"]["file_path"] == f"{CWD}/a.py"


def _read_side(content: str, start: int, total: int) -> dict[str, object]:
    return {"file": {"filePath": "x", "content": content, "startLine": start,
                     "numLines": content.count("\n") + 1, "totalLines": total}}  # fmt: skip


def test_a_partial_read_writes_the_lines_it_showed_and_blanks_elsewhere(ws: ReplayWorkspace) -> None:
    path = ws.apply_result("Read", {"file_path": str(ws.root / "a.py")}, _read_side("three\nfour", 3, 5))
    assert path is not None
    assert Path(path).read_text() == "\n\nthree\nfour\n"


def test_a_later_full_read_replaces_what_was_known(ws: ReplayWorkspace) -> None:
    target = {"file_path": str(ws.root / "a.py")}
    ws.apply_result("Read", target, _read_side("three", 3, 3))
    ws.apply_result("Read", target, _read_side("one\ntwo\nthree", 1, 3))
    assert (ws.root / "a.py").read_text() == "one\ntwo\nthree"


def test_a_slice_of_a_known_file_keeps_the_rest(ws: ReplayWorkspace) -> None:
    target = {"file_path": str(ws.root / "a.py")}
    ws.apply_result("Read", target, _read_side("one\ntwo\nthree", 1, 3))
    ws.apply_result("Read", target, _read_side("TWO", 2, 3))
    assert (ws.root / "a.py").read_text() == "one\nTWO\nthree"


def test_edit_applies_to_the_logged_original(ws: ReplayWorkspace) -> None:
    target = str(ws.root / "a.py")
    tool_input = {"file_path": target, "old_string": "b = 1", "new_string": "b = 2"}
    ws.apply_result("Edit", tool_input, {"originalFile": "a = 0\nb = 1\n"})
    assert Path(target).read_text() == "a = 0\nb = 2\n"


def test_multiedit_applies_every_edit_in_order(ws: ReplayWorkspace) -> None:
    target = str(ws.root / "a.py")
    edits = [
        {"old_string": "x", "new_string": "y", "replace_all": True},
        {"old_string": "y = 1", "new_string": "z"},
    ]
    ws.apply_result("MultiEdit", {"file_path": target, "edits": edits}, {"originalFileContents": "x = 1\nx = 2"})
    assert Path(target).read_text() == "z\ny = 2"


def test_write_creates_parent_folders(ws: ReplayWorkspace) -> None:
    target = str(ws.root / "new" / "deep" / "w.txt")
    ws.apply_result("Write", {"file_path": target, "content": "hello"}, None)
    assert Path(target).read_text() == "hello"


@pytest.mark.parametrize(
    ("tool", "side"),
    [
        pytest.param("Read", None, id="read-without-side-data"),
        pytest.param("Edit", {}, id="blind-edit-of-an-unknown-file"),
        pytest.param("Bash", {"stdout": "hi"}, id="not-a-file-tool"),
    ],
)
def test_nothing_is_written_without_honest_content(ws: ReplayWorkspace, tool: str, side: object) -> None:
    target = str(ws.root / "a.py")
    tool_input = {"file_path": target, "old_string": "a", "new_string": "b"}
    assert ws.apply_result(tool, tool_input, side) is None  # type: ignore[arg-type]
    assert not Path(target).exists()


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        pytest.param("1\tone\n2\ttwo\n", "one\ntwo", id="tab-gutter"),
        pytest.param("     3→three\n     4→four", "\n\nthree\nfour", id="arrow-gutter-from-line-3"),
        pytest.param("1\tone\nnot numbered", None, id="a-line-without-gutter"),
        pytest.param("1\tone\n3\tthree", None, id="numbers-skip"),
        pytest.param("", None, id="empty"),
    ],
)
def test_a_read_without_side_data_is_taken_from_its_numbered_lines(
    ws: ReplayWorkspace, result: str, expected: str | None
) -> None:
    target = str(ws.root / "a.py")
    path = ws.apply_result("Read", {"file_path": target}, None, result)
    if expected is None:
        assert path is None and not Path(target).exists()
    else:
        assert Path(target).read_text() == expected


def test_messages_as_logged_name_the_authors_paths_again(ws: ReplayWorkspace) -> None:
    original = [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": f"{CWD}/src/a.py"}},
        {"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "/etc/hosts"}},
    ]}]  # fmt: skip
    [mapped] = ws.map_messages(original)
    assert mapped != original[0]
    assert ws.as_logged(mapped) == original[0]


def test_the_lines_the_log_never_showed_are_known_as_padding(ws: ReplayWorkspace) -> None:
    target = {"file_path": str(ws.root / "a.py")}
    path = ws.apply_result("Read", target, _read_side("three\nfour", 3, 5))
    assert path is not None
    assert ws.shown(path) == (frozenset({1, 2, 5}), 5)
    ws.apply_result("Read", target, _read_side("one", 1, 5))
    assert ws.shown(path) == (frozenset({2, 5}), 5)


def test_an_edit_of_a_file_known_in_part_keeps_its_padding_marked(ws: ReplayWorkspace) -> None:
    """The edit adds a line above the padding: the unseen line moves down with it, and is still not text."""
    target = str(ws.root / "a.py")
    ws.apply_result("Read", {"file_path": target}, _read_side("one\ntwo", 1, 3))
    ws.apply_result("Edit", {"file_path": target, "old_string": "one", "new_string": "one\nzero"}, {})
    assert Path(target).read_text() == "one\nzero\ntwo\n"
    assert ws.shown(target) == (frozenset({4}), 4)


def test_a_file_shown_whole_has_no_padding(ws: ReplayWorkspace) -> None:
    path = ws.apply_result("Write", {"file_path": str(ws.root / "a.py"), "content": "x\ny\n"}, None)
    assert path is not None and ws.shown(path) == (frozenset(), 3)
