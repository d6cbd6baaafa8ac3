"""'Changed since you read it' notices: a bounded diff of what the model saw against the disk."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.files.change_notices import SeenFiles, SeenText, change_notice, strip_line_numbers
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.session_loading import replay_session
from compact_lsp.engine.settings import EngineSettings


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
    seen = SeenFiles(max_chars=10)
    seen.put("/a", SeenText("12345"))
    seen.put("/b", SeenText("12345"))
    seen.put("/c", SeenText("123"))
    assert "/a" not in seen and "/b" in seen and "/c" in seen
    seen.put("/huge", SeenText("x" * 11))
    assert "/huge" not in seen


# -- the session's answer: what the model saw against the disk now ------------------------------------------


def _session(root: Path) -> ContextSession:
    return ContextSession("ses_seen", settings=EngineSettings(), counter=TiktokenCounter(), workspace_root=str(root))


def _read(uid: str, path: Path, text: str, **input_: Any) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": uid, "name": "Read", "input": {"file_path": str(path), **input_}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uid, "content": text}]},
    ]  # fmt: skip


@pytest.fixture
def app(tmp_path: Path) -> Path:
    path = tmp_path / "src" / "app.py"
    path.parent.mkdir()
    path.write_text("def rate():\n    return 0.25\n")
    return path


def test_a_read_result_is_diffed_against_the_disk(app: Path) -> None:
    session = _session(app.parent.parent)
    session.append([{"role": "user", "content": "look"}, *_read("toolu_1", app, app.read_text())])
    notice = session.notice_for(str(app), "def rate():\n    return 0.30\n")
    assert notice is not None and notice.startswith("src/app.py changed on disk since you read it")
    assert "-    return 0.25" in notice and "+    return 0.30" in notice


def test_a_numbered_partial_read_is_diffed_over_its_own_lines(app: Path) -> None:
    app.write_text("".join(f"line {i}\n" for i in range(1, 11)))
    session = _session(app.parent.parent)
    shown = "     3→line 3\n     4→line 4\n"
    session.append([{"role": "user", "content": "look"}, *_read("toolu_1", app, shown, offset=3, limit=2)])
    now = app.read_text().replace("line 4\n", "line four\n").replace("line 9\n", "line nine\n")
    notice = session.notice_for(str(app), now) or ""
    assert "-line 4" in notice and "+line four" in notice
    assert "line nine" not in notice  # outside what the model saw


def test_a_read_the_server_served_is_diffed(app: Path) -> None:
    session = _session(app.parent.parent)
    session.append([{"role": "user", "content": "look"}])
    session.record_read(str(app), app.read_text(), start_line=1, num_lines=2, total_lines=2)
    now = "def rate():\n    return 0.30\n"
    assert "+    return 0.30" in (session.notice_for(str(app), now) or "")


def test_replay_rebuilds_what_the_model_saw(app: Path) -> None:
    root = app.parent.parent
    records: list[dict[str, Any]] = []

    class Keep:
        def write(self, record: dict[str, Any]) -> None:
            records.append(json.loads(json.dumps(record)))

    session = ContextSession(
        "ses_seen", settings=EngineSettings(), counter=TiktokenCounter(), workspace_root=str(root), journal=Keep()
    )
    session.append([{"role": "user", "content": "look"}, *_read("toolu_1", app, app.read_text())])
    again = replay_session(records, settings=EngineSettings(), counter=TiktokenCounter(), workspace_root=str(root))
    now = "def rate():\n    return 0.30\n"
    assert again.notice_for(str(app), now) == session.notice_for(str(app), now)
    assert "+    return 0.30" in (again.notice_for(str(app), now) or "")


@pytest.mark.parametrize(
    ("now", "exists", "expected"),
    [
        pytest.param(None, False, "src/app.py was deleted", id="deleted"),
        pytest.param(None, True, "src/app.py changed on disk since you read it; read it again", id="binary-or-huge"),
    ],
)
def test_a_file_without_text_is_reported_without_a_diff(
    app: Path, now: str | None, exists: bool, expected: str
) -> None:
    session = _session(app.parent.parent)
    session.append([{"role": "user", "content": "look"}, *_read("toolu_1", app, app.read_text())])
    assert (session.notice_for(str(app), now, exists=exists) or "").startswith(expected)


def test_without_the_text_the_hash_tells_whether_it_changed(app: Path) -> None:
    session = _session(app.parent.parent)
    written = "x = 1\n"
    session.append([{"role": "user", "content": "write it"}, {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_w", "name": "Write", "input": {"file_path": str(app), "content": written}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_w", "content": "ok"}]}])  # fmt: skip
    assert "-x = 1\n+x = 2" in (session.notice_for(str(app), "x = 2\n") or "")  # the written text, diffed
    session.state.seen.discard(os.path.realpath(app))  # what the model saw forgotten (bounded): the hash is left
    assert session.notice_for(str(app), written) is None  # changed and changed back: the model's copy is right
    assert "read it again before editing it" in (session.notice_for(str(app), "x = 2\n") or "")


def test_a_file_the_model_never_saw_is_no_news(app: Path) -> None:
    session = _session(app.parent.parent)
    session.append([{"role": "user", "content": "hello"}])
    assert session.notice_for(str(app), "anything\n") is None


def test_notice_change_queues_the_notice_for_the_next_view(app: Path) -> None:
    session = _session(app.parent.parent)
    session.append([{"role": "user", "content": "look"}, *_read("toolu_1", app, app.read_text())])
    assert session.notice_change(str(app), app.read_text()) is False
    assert session.notice_change(str(app), "def rate():\n    return 0.30\n") is True
    last = session.view()[-1]["content"][-1]["text"]
    assert "+    return 0.30" in last and "<system-reminder>" in last


def test_the_agents_own_edit_is_what_it_saw_and_a_later_change_is_diffed_against_it(app: Path) -> None:
    """An edit the agent made updates what it saw, live and after a reload: the text it wrote is no news; a change
    on top of it is diffed against the edited text, not against the read before the edit."""
    root = app.parent.parent
    records: list[dict[str, Any]] = []

    class Keep:
        def write(self, record: dict[str, Any]) -> None:
            records.append(json.loads(json.dumps(record)))

    session = ContextSession(
        "ses_seen", settings=EngineSettings(), counter=TiktokenCounter(), workspace_root=str(root), journal=Keep()
    )
    numbered = "     1→def rate():\n     2→    return 0.25\n"
    edit = {"file_path": str(app), "old_string": "0.25", "new_string": "0.30"}
    session.append([
        {"role": "user", "content": "raise it"}, *_read("toolu_1", app, numbered),
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "Edit", "input": edit}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "ok"}]},
    ])  # fmt: skip
    again = replay_session(records, settings=EngineSettings(), counter=TiktokenCounter(), workspace_root=str(root))
    for copy in (session, again):
        assert copy.notice_for(str(app), "def rate():\n    return 0.30\n") is None
        later = copy.notice_for(str(app), "def rate():\n    return 0.35\n") or ""
        assert "-    return 0.30" in later and "+    return 0.35" in later and "0.25" not in later
