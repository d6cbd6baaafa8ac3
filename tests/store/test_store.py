"""The session store: append-only JSONL, durable, private, tolerant of damage, honest about failed writes."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.store.session_store import JournalWriteError, SessionStore, StoreError, parse_lines, workspace_key


def records(n: int) -> list[dict[str, Any]]:
    return [{"type": "append", "n": i, "text": "é ✓ " * i} for i in range(n)]


def test_records_round_trip_in_order(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, "/some/workspace")
    journal = store.journal_for("ses_1")
    for record in records(5):
        journal.write(record)
    loaded, report = store.load("ses_1")
    assert loaded == records(5)
    assert report.clean and report.records == 5


def test_files_and_directories_are_private(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "root", "/ws")
    store.journal_for("ses_1").write({"type": "header"})
    path = store.path_for("ses_1")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.directory.stat().st_mode) == 0o700


def test_sessions_are_kept_apart_by_workspace(tmp_path: Path) -> None:
    a = SessionStore(tmp_path, "/work/app")
    b = SessionStore(tmp_path, "/other/app")
    a.journal_for("ses_1").write({"type": "header"})
    assert [s.session_id for s in a.list_sessions()] == ["ses_1"]
    assert b.list_sessions() == []
    assert a.directory.name.startswith("app-") and a.directory != b.directory


@pytest.mark.parametrize(
    ("root", "prefix"),
    [
        pytest.param("/home/me/my project!", "my-project-", id="sanitized"),
        pytest.param(None, "no-workspace", id="no-workspace"),
        pytest.param("/", "root-", id="filesystem-root"),
    ],
)
def test_workspace_key_is_readable_and_safe(root: str | None, prefix: str) -> None:
    key = workspace_key(root)
    assert key.startswith(prefix)
    assert "/" not in key and " " not in key


def test_list_sessions_most_recent_first(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, "/ws")
    for i, sid in enumerate(["ses_a", "ses_b", "ses_c"]):
        store.journal_for(sid).write({"type": "header"})
        os.utime(store.path_for(sid), (1000 + i, 1000 + i))
    (store.directory / "notes.txt").write_text("not a session")
    assert [s.session_id for s in store.list_sessions()] == ["ses_c", "ses_b", "ses_a"]


def test_torn_last_line_is_ignored_and_reported(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, "/ws")
    journal = store.journal_for("ses_1")
    for record in records(3):
        journal.write(record)
    journal.close()
    with open(store.path_for("ses_1"), "ab") as f:
        f.write(b'{"type": "append", "n": 3, "te')  # the crash happened mid-write
    loaded, report = store.load("ses_1")
    assert loaded == records(3)
    assert report.torn_tail and not report.corrupt
    assert "cut off" in report.describe()


def test_appending_after_a_torn_line_keeps_the_file_parseable(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, "/ws")
    store.journal_for("ses_1").write({"n": 0})
    store.close()
    with open(store.path_for("ses_1"), "ab") as f:
        f.write(b'{"n": 1, "x')
    again = SessionStore(tmp_path, "/ws")
    again.journal_for("ses_1").write({"n": 2})
    loaded, report = again.load("ses_1")
    assert loaded == [{"n": 0}, {"n": 2}]
    assert report.clean


def test_whole_last_record_missing_only_its_newline_is_kept(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, "/ws")
    store.journal_for("ses_1").write({"n": 0})
    store.close()
    with open(store.path_for("ses_1"), "ab") as f:
        f.write(b'{"n": 1}')
    again = SessionStore(tmp_path, "/ws")
    again.journal_for("ses_1").write({"n": 2})
    assert again.load("ses_1")[0] == [{"n": 0}, {"n": 1}, {"n": 2}]


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        pytest.param(b"{not json", "not valid JSON", id="garbage"),
        pytest.param(b"[1, 2]", "must be a JSON object", id="array"),
        pytest.param(b"\xff\xfe", "not valid JSON", id="not-utf8"),
    ],
)
def test_corrupt_middle_line_is_reported_and_the_rest_kept(tmp_path: Path, bad: bytes, reason: str) -> None:
    lines = [json.dumps(r).encode() for r in records(4)]
    data = b"\n".join([*lines[:2], bad, *lines[2:]]) + b"\n"
    loaded, report = parse_lines(data, tmp_path / "x.jsonl")
    assert loaded == records(4)
    assert [c.line for c in report.corrupt] == [3]
    assert reason in report.corrupt[0].reason
    assert not report.torn_tail


def test_blank_lines_are_not_corruption(tmp_path: Path) -> None:
    loaded, report = parse_lines(b'{"a": 1}\n\n{"b": 2}\n', tmp_path / "x.jsonl")
    assert loaded == [{"a": 1}, {"b": 2}] and report.clean


class PartialThenFull:
    """A writer that writes part of the line and then fails as a full disk would."""

    def __init__(self, fail_after_bytes: int) -> None:
        self.fail_after = fail_after_bytes
        self.armed = False

    def __call__(self, fd: int, data: bytes) -> int:
        if not self.armed:
            return os.write(fd, data)
        os.write(fd, data[: self.fail_after])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("partial_bytes", [pytest.param(0, id="nothing-written"), pytest.param(7, id="half-line")])
def test_failed_write_raises_and_leaves_the_file_as_it_was(tmp_path: Path, partial_bytes: int) -> None:
    writer = PartialThenFull(partial_bytes)
    store = SessionStore(tmp_path, "/ws", write=writer)
    journal = store.journal_for("ses_1")
    journal.write({"n": 0})
    before = store.path_for("ses_1").read_bytes()
    writer.armed = True
    with pytest.raises(JournalWriteError) as info:
        journal.write({"n": 1, "big": "x" * 100})
    assert "No space left on device" in str(info.value) and "nothing was changed" in str(info.value)
    assert store.path_for("ses_1").read_bytes() == before
    writer.armed = False
    journal.write({"n": 2})
    assert store.load("ses_1")[0] == [{"n": 0}, {"n": 2}]


def test_short_writes_are_completed(tmp_path: Path) -> None:
    def one_byte_at_a_time(fd: int, data: bytes) -> int:
        return os.write(fd, data[:1])

    store = SessionStore(tmp_path, "/ws", write=one_byte_at_a_time)
    store.journal_for("ses_1").write({"text": "short writes"})
    assert store.load("ses_1")[0] == [{"text": "short writes"}]


@pytest.mark.parametrize(
    "session_id",
    [
        pytest.param("../escape", id="parent"),
        pytest.param("a/b", id="slash"),
        pytest.param(".hidden", id="dotfile"),
        pytest.param("", id="empty"),
    ],
)
def test_bad_session_ids_are_refused(tmp_path: Path, session_id: str) -> None:
    with pytest.raises(StoreError, match="invalid session id"):
        SessionStore(tmp_path, "/ws").journal_for(session_id)


def test_loading_an_unknown_session_says_so(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no saved session 'ses_missing'"):
        SessionStore(tmp_path, "/ws").load("ses_missing")
