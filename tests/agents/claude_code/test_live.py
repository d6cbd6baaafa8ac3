"""Following Claude Code's transcripts: where they are, and what an appended line costs."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from tests.agents.claude_code.transcripts import CORPUS, corpus_session

from compact_lsp.agents.claude_code.live import FollowedSession, project_name
from compact_lsp.agents.claude_code.transcript_window import LiveTranscript
from compact_lsp.engine.claude_code.log_lines import parse_log_lines
from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings, passive


@pytest.mark.parametrize(
    ("workspace", "folder"),
    [
        pytest.param("/home/u/repo", "-home-u-repo", id="plain"),
        pytest.param("/home/u/work_repo", "-home-u-work-repo", id="underscore"),
        pytest.param("/home/u/my.app", "-home-u-my-app", id="dot"),
        pytest.param("/home/u/my repo", "-home-u-my-repo", id="space"),
        pytest.param("/home/u/über", "-home-u--ber", id="non-ascii"),
        pytest.param("/home/u/a🚀b", "-home-u-a--b", id="beyond-bmp-two-utf16-units"),
        pytest.param("C:\\Users\\u\\x-y", "C--Users-u-x-y", id="windows"),
    ],
)
def test_claude_code_names_a_project_folder_by_its_path_with_every_other_character_as_a_dash(
    workspace: str, folder: str
) -> None:
    assert project_name(workspace) == folder


# -- following a transcript as Claude Code writes it ---------------------------------------------------------

CORPUS_SESSIONS = sorted(p for p in CORPUS.glob("*/*.jsonl") if not p.name.startswith("agent-"))


def follower(path: Path) -> FollowedSession:
    counter = TiktokenCounter()

    def make(session_id: str, title: str) -> ContextSession:
        return ContextSession(session_id, settings=passive(EngineSettings()), counter=counter, title=title)

    return FollowedSession(LiveTranscript(path), make)


def whole_import(path: Path) -> list[dict[str, Any]]:
    return import_claude_code(path, with_subagents=False).session.messages


@pytest.mark.parametrize("source", CORPUS_SESSIONS, ids=lambda p: p.stem[:8])
def test_a_transcript_followed_line_by_line_holds_what_importing_it_whole_does(source: Path, tmp_path: Path) -> None:
    lines = source.read_bytes().splitlines(keepends=True)
    live = tmp_path / source.name
    live.write_bytes(b"")
    followed = follower(live)
    followed.update()
    rng = random.Random(source.stem)
    at = 0
    with live.open("ab") as f:
        while at < len(lines):
            step = rng.choice([1, 1, 1, 2, 5])
            f.write(b"".join(lines[at : at + step]))
            f.flush()
            at += step
            followed.update()
    assert followed.messages == whole_import(source)
    # each byte is read once; only a fork in the history (a rewind) reads the window again
    assert followed.transcript.bytes_read <= live.stat().st_size * (1 + followed.rebuilds)
    print(source.stem[:8], len(lines), "lines", followed.rebuilds, "rebuilds")
    assert followed.update() is False, "nothing appended: nothing to do"


def compacted_lines(source: Path) -> tuple[list[bytes], int]:
    """The source's lines with a Claude Code compaction halfway: the boundary and summary records, and what
    follows chained to the summary, as Claude Code logs it; and where the boundary is."""
    records = [json.loads(line) for line in source.read_bytes().splitlines() if line.strip()]
    half = len(records) // 2
    boundary = {"type": "system", "subtype": "compact_boundary", "parentUuid": None, "uuid": "boundary-1",
                "logicalParentUuid": records[half - 1].get("uuid"), "content": "Conversation compacted",
                "compactMetadata": {"trigger": "auto", "preTokens": 150000}}  # fmt: skip
    text = {"type": "text", "text": "This session is being continued"}
    summary = {"type": "user", "isCompactSummary": True, "parentUuid": "boundary-1", "uuid": "summary-1",
               "message": {"role": "user", "content": [text]}}  # fmt: skip
    after = [dict(r) for r in records[half:]]
    after[0]["parentUuid"] = "summary-1"
    lines = [json.dumps(r).encode() + b"\n" for r in [*records[:half], boundary, summary, *after]]
    return lines, half


def test_after_a_compaction_the_follower_holds_the_window_the_model_sees_and_the_title_where_it_began(
    tmp_path: Path,
) -> None:
    source = corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e")
    lines, half = compacted_lines(source)
    window = tmp_path / "window.jsonl"
    window.write_bytes(b"".join(lines[half:]))
    expected = whole_import(window)
    title = import_claude_code(source, with_subagents=False).session.title

    live = tmp_path / source.name
    live.write_bytes(b"")
    followed = follower(live)
    with live.open("ab") as f:
        for line in lines:
            f.write(line)
            f.flush()
            followed.update()
    assert followed.messages == expected
    assert followed.messages[0]["content"][0]["text"].startswith("This session is being continued")
    assert followed.title == title and title

    opened_later = follower(live)  # a server started after the compaction reads only the window
    opened_later.update()
    assert opened_later.messages == expected and opened_later.title == title
    assert opened_later.transcript.window.line_no == half + 1


@pytest.mark.parametrize("chunk", [pytest.param(97, id="lines-straddle"), pytest.param(16, id="lines-outgrow-it")])
def test_the_scan_for_the_last_boundary_finds_it_whatever_its_buffer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """The scan reads into one buffer: lines straddling it, and lines longer than it (it grows), are found the same,
    and a torn last line waits for its end."""
    from compact_lsp.agents.claude_code import transcript_window

    source = corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e")
    lines, half = compacted_lines(source)
    live = tmp_path / source.name
    live.write_bytes(b"".join(lines[:-1]) + lines[-1][:10])
    whole = follower(live)
    whole.update()
    monkeypatch.setattr(transcript_window, "SCAN_CHUNK", chunk)
    scanned = follower(live)
    scanned.update()
    assert scanned.transcript.window == whole.transcript.window
    assert scanned.transcript.window.line_no == half + 1
    assert scanned.messages == whole.messages
    with live.open("ab") as f:
        f.write(lines[-1][10:])
    assert scanned.update() is True
    assert scanned.transcript.offset == live.stat().st_size


SPLIT_SESSIONS = ["03eb5929-52b3-4b13-ada3-b93ae35806b8", "71c9afe9-d9cc-4583-86b3-e62ba682b83a"]
"""Small sessions whose messages are logged a block a record, one with an empty first block."""


@pytest.mark.parametrize("session", SPLIT_SESSIONS, ids=lambda s: s[:8])
def test_a_window_split_anywhere_between_its_first_read_and_what_follows_holds_what_importing_it_whole_does(
    session: str,
) -> None:
    """A first read ends where the file or a chunk does, often inside a message still being logged; one that ends
    right after an empty first block (its message dropped for now) must keep that record for the next to hang off."""
    source = corpus_session(session)
    records, _ = parse_log_lines(source.read_bytes())
    expected = whole_import(source)
    for split in range(1, len(records)):
        followed = follower(source)
        followed.transcript.read_new()  # where the window is; its records are handed over below, split
        followed._rebuild(records[:split], None)
        if not followed._extend(records[split:]):
            followed._reimport()
        assert followed.messages == expected, f"split before line {split + 1}"


def test_an_idle_transcript_is_not_read_again(tmp_path: Path) -> None:
    live = tmp_path / "idle.jsonl"
    live.write_bytes(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e").read_bytes())
    followed = follower(live)
    assert followed.update() is True
    read = followed.transcript.bytes_read
    assert [followed.update() for _ in range(5)] == [False] * 5
    assert followed.transcript.bytes_read == read


@pytest.mark.parametrize("source", CORPUS_SESSIONS, ids=lambda p: p.stem[:8])
def test_a_transcript_opened_whole_is_read_a_chunk_at_a_time_into_what_importing_it_whole_does(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compact_lsp.agents.claude_code import transcript_window

    monkeypatch.setattr(transcript_window, "WINDOW_CHUNK", 16 * 1024)  # many chunks even for a small session
    live = tmp_path / source.name
    live.write_bytes(source.read_bytes())
    followed = follower(live)
    assert followed.update() is True
    assert followed.messages == whole_import(source)
    assert followed.title == import_claude_code(source, with_subagents=False).session.title
    # one scan for the last boundary, one read of the window; a rewind inside it reads the window once more, whole
    assert followed.rebuilds <= 1
    assert followed.transcript.bytes_read <= live.stat().st_size * (2 + followed.rebuilds)
