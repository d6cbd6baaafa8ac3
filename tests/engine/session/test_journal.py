"""The journal's disk format: pinned here, and independent of the protocol's wire shapes.

A session journal outlives the server that wrote it. ``KEYS`` is the format as written today, record by record;
changing it means a new ``JOURNAL_VERSION`` and a reader for the old one. tests/fixtures/journal/session-v1.jsonl
is a journal written by an earlier build (a microcompaction, a compaction, its undo, then more work): it must
keep loading into the same session.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.conversation.messages import CLEARED_TOOL_RESULT
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.journal import JOURNAL_VERSION, eviction_from_record
from compact_lsp.engine.session.session_loading import replay_session
from compact_lsp.engine.session.session_status import status_of
from compact_lsp.engine.settings import EngineSettings, MicrocompactSettings
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.lsp.protocol import answers
from compact_lsp.lsp.protocol.answers import status_answer

FIXTURE = Path(__file__).parents[2] / "fixtures" / "journal" / "session-v1.jsonl"
FIXTURE_ROOT = "/project"
"""The workspace the fixture was written in (the real temporary path replaced by this one)."""

KEYS: dict[str, set[str]] = {
    "header": {"type", "version", "sessionId", "title", "system", "createdAt"},
    "append": {"type", "messages", "at"},
    "read": {"type", "path", "content", "toolUseId", "startLine", "numLines", "totalLines", "at"},
    "rewrite": {"type", "reason", "changes", "eviction", "at"},
    "rewrite.eviction": {
        "trigger", "tokensBefore", "tokensAfter", "tokensSaved", "cleared", "protected", "evictedReadPaths",
        "unresolved", "mediaCleared", "createdAt",
    },
    "rewrite.eviction.cleared": {"toolUseId", "tool", "paths", "path", "tokens"},
    "compaction": {"type", "boundaryId", "messages", "attached", "result", "boundary", "at"},
    "compaction.result": {
        "tokensBefore", "tokensAfter", "summarizer", "fallback", "rehydrated", "boundaryId", "trigger",
    },
    "compaction.boundary": {
        "boundaryId", "trigger", "tokensBefore", "tokensAfter", "summarizer", "fallback", "createdAt",
        "messagesSummarized",
    },
    "undo": {"type", "boundaryId", "at"},
    "title": {"type", "title", "at"},
}  # fmt: skip


class ListJournal:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def write(self, record: dict[str, Any]) -> None:
        self.records.append(json.loads(json.dumps(record)))


def read_round(i: int, path: Path) -> list[dict[str, Any]]:
    uid = f"toolu_{i:03d}"
    return [
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": uid, "name": "Read", "input": {"file_path": str(path)}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uid, "content": path.read_text()}]},
    ]  # fmt: skip


def settings() -> EngineSettings:
    return EngineSettings(microcompact=MicrocompactSettings(keep_recent=1, size_threshold_tokens=-1, idle_minutes=-1))


def scripted_session(workspace: Path) -> list[dict[str, Any]]:
    """Reads, a served read, a forced microcompaction, a compaction, its undo, one more turn, a rename."""
    for i in range(3):
        (workspace / f"mod{i}.py").write_text(f"# module {i}\n" + "value = 1\n" * 200)
    journal = ListJournal()
    now = [1_780_000_000.0]
    session = ContextSession(
        "ses_journal", settings=settings(), counter=TiktokenCounter(), clock=lambda: now[0],
        workspace_root=str(workspace), journal=journal, title="pinned", system="You are terse.",
    )  # fmt: skip
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Review the modules."}]
    for i in range(3):
        messages += read_round(i, workspace / f"mod{i}.py")
    session.append(messages)
    session.record_read(str(workspace / "mod0.py"), (workspace / "mod0.py").read_text())
    now[0] += 60
    assert session.microcompact("forced") is not None
    now[0] += 60
    session.append([{"role": "assistant", "content": "A long review follows. " + "The module is fine. " * 3000}])
    asyncio.run(session.compact(OfflineSummarizer()))
    now[0] += 60
    session.undo()
    session.append([{"role": "user", "content": "Thanks, that is all."}])
    session.rename("Module review")
    return journal.records


def shape(records: list[dict[str, Any]]) -> dict[str, set[str]]:
    """The keys each record type (and its nested parts) carries, merged over all records of that type."""
    found: dict[str, set[str]] = {}

    def add(name: str, value: dict[str, Any]) -> None:
        found.setdefault(name, set()).update(value)

    for record in records:
        kind = record["type"]
        add(kind, record)
        if kind == "rewrite":
            add("rewrite.eviction", record["eviction"])
            for cleared in record["eviction"]["cleared"]:
                add("rewrite.eviction.cleared", cleared)
        elif kind == "compaction":
            add("compaction.result", record["result"])
            add("compaction.boundary", record["boundary"])
    return found


def test_every_record_type_keeps_its_disk_keys(tmp_path: Path) -> None:
    records = scripted_session(tmp_path)
    assert shape(records) == KEYS
    assert records[0]["version"] == JOURNAL_VERSION


def test_the_disk_format_does_not_follow_the_wire_shapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A field added to (or renamed in) a protocol result must not reach the journal."""
    changed = {"aNewProtocolField": True}
    for name in ("eviction_answer", "microcompaction_answer", "compaction_answer", "stored_compaction_answer"):
        monkeypatch.setattr(answers, name, lambda *_: changed)
    assert shape(scripted_session(tmp_path)) == KEYS


def test_a_journal_written_before_still_loads() -> None:
    records = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    session = replay_session(records, settings=settings(), counter=TiktokenCounter(), workspace_root=FIXTURE_ROOT)
    assert (session.id, session.title) == ("ses_journal", "pinned")
    # the undo restored the microcompacted view: the two older reads are still cleared, the newest is whole
    results = [b for m in session.view() if m["role"] == "user" for b in m["content"] if b["type"] == "tool_result"]
    assert [b["content"] == CLEARED_TOOL_RESULT for b in results] == [True, True, False]
    assert session.view()[-1] == {"role": "user", "content": [{"type": "text", "text": "Thanks, that is all."}]}
    assert session.last_microcompaction is not None
    assert session.last_microcompaction.cleared_ids == ["toolu_000", "toolu_001"]
    assert session.last_microcompaction.cleared[0].paths == [f"{FIXTURE_ROOT}/mod0.py"]
    assert status_answer(status_of(session))["canUndo"] is False
    assert session.usage().total > 0


@pytest.mark.parametrize(
    ("entry", "paths"),
    [
        pytest.param({"toolUseId": "t1", "tokens": 5, "path": "/a.py"}, ["/a.py"], id="single-path-only"),
        pytest.param({"toolUseId": "t1", "tokens": 5, "paths": ["/a.py", "/b.py"]}, ["/a.py", "/b.py"], id="paths"),
        pytest.param({"toolUseId": "t1", "tokens": 5, "path": ""}, [], id="empty-path"),
        pytest.param({"toolUseId": "t1", "tokens": 5}, [], id="no-path"),
    ],
)
def test_a_cleared_entry_reads_its_paths_from_either_form(entry: dict[str, Any], paths: list[str]) -> None:
    eviction = {"trigger": "size", "tokensBefore": 900, "tokensAfter": 300, "cleared": [entry]}
    assert eviction_from_record(eviction).cleared[0].paths == paths


def test_an_unknown_trigger_in_a_journal_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown microcompaction trigger 'manual'"):
        eviction_from_record({"trigger": "manual", "tokensBefore": 900, "tokensAfter": 300})


def test_a_minimal_eviction_reads_with_empty_details() -> None:
    record = eviction_from_record({"trigger": "size", "tokensBefore": 900, "tokensAfter": 300})
    assert (record.tokens_saved, record.cleared_ids, record.evicted_read_paths, record.media_cleared) == (
        600,
        [],
        [],
        0,
    )


def write_fixture() -> None:  # pragma: no cover - run by hand when the format version changes
    """``python -c 'from tests.engine.session.test_journal import write_fixture; write_fixture()'``"""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = str(Path(tmp).resolve())
        lines = [json.dumps(r).replace(root, FIXTURE_ROOT) for r in scripted_session(Path(root))]
    FIXTURE.write_text("\n".join(lines) + "\n", encoding="utf-8")
