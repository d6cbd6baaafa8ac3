"""Renaming a session: the title record is journalled after it is checked, and replay applies the newest one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compact_lsp.engine.conversation.titles import TITLE_MAX_CHARS, TitleError
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.session_loading import replay_session
from compact_lsp.engine.settings import EngineSettings


class ListJournal:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def write(self, record: dict[str, Any]) -> None:
        self.records.append(json.loads(json.dumps(record)))


def new_session(journal: ListJournal) -> ContextSession:
    return ContextSession(
        "ses_t", settings=EngineSettings(), counter=TiktokenCounter(), journal=journal, title="first", clock=lambda: 5.0
    )


def replayed(records: list[dict[str, Any]], skipped: list[str] | None = None) -> ContextSession:
    return replay_session(
        records, settings=EngineSettings(), counter=TiktokenCounter(),
        on_skipped=lambda bad: (skipped if skipped is not None else []).append(bad.reason),
    )  # fmt: skip


def test_replay_keeps_the_newest_title() -> None:
    journal = ListJournal()
    session = new_session(journal)
    session.append([{"role": "user", "content": "hello"}])
    session.rename("  Second  ")
    session.rename("Third — with ünïcode")
    assert session.title == "Third — with ünïcode"
    assert journal.records[-1] == {"type": "title", "title": "Third — with ünïcode", "at": 5.0}
    again = replayed(journal.records)
    assert again.title == "Third — with ünïcode"
    assert again.messages == session.messages  # a rename is not a message


@pytest.mark.parametrize(
    "title",
    ["", "   ", "x" * (TITLE_MAX_CHARS + 1), "a\x00b", "line\nbreak", "esc\x1b[31m", None, 7, ["t"]],
)
def test_a_bad_title_is_refused_before_anything_is_written(title: Any) -> None:
    journal = ListJournal()
    session = new_session(journal)
    before = list(journal.records)
    with pytest.raises(TitleError):
        session.rename(title)
    assert journal.records == before and session.title == "first"


def test_the_longest_title_allowed_is_kept_whole() -> None:
    journal = ListJournal()
    session = new_session(journal)
    session.rename("y" * TITLE_MAX_CHARS)
    assert replayed(journal.records).title == "y" * TITLE_MAX_CHARS


@pytest.mark.parametrize(
    "record",
    [
        {"type": "title", "title": "", "at": 1.0},
        {"type": "title", "title": "bad\x00", "at": 1.0},
        {"type": "title", "at": 1.0},
        {"type": "title", "title": " padded ", "at": 1.0},
    ],
)
def test_a_damaged_title_record_is_skipped_on_replay(record: dict[str, Any]) -> None:
    journal = ListJournal()
    session = new_session(journal)
    session.rename("good")
    skipped: list[str] = []
    again = replayed([*journal.records, record], skipped)
    assert again.title == "good" and len(skipped) == 1
