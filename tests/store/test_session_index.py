"""The session index: what a picker lists without loading sessions, trusted only while the journal is unchanged."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.store import session_index
from compact_lsp.store.session_index import (
    SessionIndex,
    SessionSummary,
    first_request,
    first_request_in_records,
    source_of,
)


def summary(session_id: str = "ses_1", size: int = 100, mtime_ns: int = 7, **extra: Any) -> SessionSummary:
    fields: dict[str, Any] = {
        "title": "fix login",
        "source": "chat",
        "created_at": 1.0,
        "updated_at": 2.0,
        "messages": 3,
        "by_kind": {"user_text": 10},
        **extra,
    }
    return SessionSummary(session_id=session_id, size=size, mtime_ns=mtime_ns, **fields)


def test_an_entry_is_trusted_only_while_its_journal_is_unchanged(tmp_path: Path) -> None:
    SessionIndex(tmp_path).put(summary())
    fresh = SessionIndex(tmp_path)  # as a restarted server reads it
    assert fresh.get("ses_1", 100, 7) == summary()
    assert fresh.get("ses_1", 140, 7) is None  # appended to by someone else since
    assert fresh.get("ses_1", 100, 8) is None
    assert fresh.known("ses_1") == summary()  # still the title to keep when it is rebuilt
    assert (tmp_path / "index.json").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b'{"version": 2, "sessions": [{"session_id": "ses_1"', id="torn"),
        pytest.param(b"\x00\x01", id="binary"),
        pytest.param(b'{"version": 999, "sessions": []}', id="other-version"),
        pytest.param(b'{"version": 2, "sessions": [{"session_id": "ses_1", "messages": "many"}]}', id="bad-entry"),
    ],
)
def test_a_damaged_index_costs_a_rebuild_never_a_failure(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "index.json").write_bytes(content)
    index = SessionIndex(tmp_path)
    assert index.get("ses_1", 100, 7) is None
    index.put(summary())
    assert json.loads((tmp_path / "index.json").read_text())["sessions"][0]["session_id"] == "ses_1"


def test_entries_of_deleted_sessions_are_forgotten(tmp_path: Path) -> None:
    index = SessionIndex(tmp_path)
    index.put(summary("ses_1"))
    index.put(summary("ses_2"))
    index.forget(["ses_2"])
    index.flush()
    assert SessionIndex(tmp_path).known("ses_1") is None
    assert SessionIndex(tmp_path).known("ses_2") is not None


def on_disk(directory: Path) -> dict[str, int]:
    """Each entry's message count as a restarted server would read it."""
    data = json.loads((directory / "index.json").read_text())
    return {entry["session_id"]: entry["messages"] for entry in data["sessions"]}


def test_a_burst_of_changes_is_written_once_an_interval_and_flushed_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[Path] = []
    real = session_index._write_atomically
    monkeypatch.setattr(session_index, "_write_atomically", lambda path, data: (writes.append(path), real(path, data)))
    index = SessionIndex(tmp_path, write_interval=3600)  # the interval never passes during the test
    for n in range(200):
        index.put(summary(f"ses_{n % 20}", messages=n))
    assert len(writes) == 1  # the first change, at once; the rest wait for the interval
    assert index.get("ses_19", 100, 7) == summary("ses_19", messages=199)  # current in memory all along
    index.flush()  # what shutdown does
    assert len(writes) == 2
    assert on_disk(tmp_path) == {f"ses_{n}": 180 + n for n in range(20)}
    index.flush()
    assert len(writes) == 2  # nothing new: nothing written


def test_the_last_change_of_a_burst_is_written_soon_without_a_flush(tmp_path: Path) -> None:
    index = SessionIndex(tmp_path, write_interval=0.05)
    for n in range(5):
        index.put(summary("ses_1", messages=n))
    deadline = time.monotonic() + 10
    while on_disk(tmp_path) != {"ses_1": 4} and time.monotonic() < deadline:
        time.sleep(0.01)
    assert on_disk(tmp_path) == {"ses_1": 4}


def test_the_current_session_survives_a_restart(tmp_path: Path) -> None:
    assert SessionIndex(tmp_path).current() is None
    SessionIndex(tmp_path).set_current("ses_9")
    assert SessionIndex(tmp_path).current() == "ses_9"


@pytest.mark.parametrize(
    ("messages", "title"),
    [
        pytest.param([{"role": "user", "content": "Fix the login bug\nIt fails on Safari."}], "Fix the login bug",
                     id="first-line"),
        pytest.param(
            [{"role": "user", "content": [
                {"type": "text", "text": "<ide_opened_file>The user opened a.py in the IDE.</ide_opened_file>"},
                {"type": "text", "text": "Why is a.py slow?"}]}],
            "Why is a.py slow?",
            id="ide-notice-skipped",
        ),
        pytest.param(
            [{"role": "user", "content": "<command-name>/clear</command-name>"},
             {"role": "assistant", "content": "ok"},
             {"role": "user", "content": "Add a test"}],
            "Add a test",
            id="slash-command-skipped",
        ),
        pytest.param([{"role": "user", "content": "x" * 200}], "x" * 79 + "…", id="long-cut-at-80"),
        pytest.param([{"role": "assistant", "content": "hello"}], None, id="no-user-text"),
    ],
)  # fmt: skip
def test_the_title_is_the_users_first_own_request(messages: list[dict[str, Any]], title: str | None) -> None:
    assert first_request(messages) == title


def test_the_title_comes_from_the_journal_when_the_view_was_compacted() -> None:
    records = [
        {"type": "header", "sessionId": "ses_1"},
        {"type": "append", "messages": [{"role": "user", "content": "Speed up the importer"}]},
        {"type": "compaction", "messages": [{"role": "user", "content": "This session continues ..."}]},
    ]
    assert first_request_in_records(records) == "Speed up the importer"


@pytest.mark.parametrize(
    ("header", "session_id", "source"),
    [
        pytest.param({"source": "chat"}, "ses_1", "chat", id="recorded"),
        pytest.param({}, "cc-7acd", "import", id="older-import"),
        pytest.param({}, "ses_1", "api", id="older-api"),
        pytest.param({"source": "robot"}, "ses_1", "api", id="unknown-value"),
    ],
)
def test_source(header: dict[str, Any], session_id: str, source: str) -> None:
    assert source_of(header, session_id) == source
