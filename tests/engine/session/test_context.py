"""The ContextSession facade: journal-first changes, replay, microcompaction, compaction and undo."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.strategies import conversations, raw_messages

from compact_lsp.engine.compaction.full_compaction import CompactionError
from compact_lsp.engine.conversation.messages import CLEARED_TOOL_RESULT, MessageShapeError
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.conversation.validate import validate
from compact_lsp.engine.rehydration_settings import RehydrationSettings
from compact_lsp.engine.session.context_session import ContextSession, ConversationError
from compact_lsp.engine.session.notes_job import update_notes_if_due
from compact_lsp.engine.session.session_loading import replay_session
from compact_lsp.engine.session.session_status import status_of
from compact_lsp.engine.settings import EngineSettings, MemorySettings, MicrocompactSettings
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.engine.summarize.session_notes import NotesSummarizer
from compact_lsp.lsp.protocol.answers import status_answer


class ListJournal:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.fail = False

    def write(self, record: dict[str, Any]) -> None:
        if self.fail:
            raise OSError(28, "No space left on device")
        # What goes to disk is JSON: keep a JSON round trip so replay sees what a reload would see.
        self.records.append(json.loads(json.dumps(record)))


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / ".compact" / "memory").mkdir(parents=True)
    for i in range(8):
        (tmp_path / "src" / f"mod{i}.py").write_text(f"# module {i}\n" + "x = 1\n" * 400)
    (tmp_path / ".compact" / "memory" / "topic.md").write_text("MEMORY-MARKER-7731: always run the linter\n")
    return tmp_path


def make_session(workspace: Path, counter: TiktokenCounter, **kw: Any) -> tuple[ContextSession, ListJournal, Clock]:
    journal = ListJournal()
    clock = Clock()
    settings = kw.pop(
        "settings",
        EngineSettings(
            memory=MemorySettings(project_root=str(workspace / ".compact" / "memory")),
            microcompact=MicrocompactSettings(keep_recent=2, size_threshold_tokens=-1, idle_minutes=-1),
            # these small sessions are all file reads: five files of ~2k tokens leave compaction something to save
            rehydration=RehydrationSettings(max_files=5, max_tokens_per_file=5_000),
        ),
    )
    session = ContextSession(
        "ses_test", settings=settings, counter=counter, clock=clock, workspace_root=str(workspace),
        journal=journal, **kw,
    )  # fmt: skip
    return session, journal, clock


def read_round(i: int, path: Path) -> list[dict[str, Any]]:
    uid = f"toolu_{i:03d}"
    return [
        {"role": "assistant", "content": [
            {"type": "text", "text": f"Reading {path.name}"},
            {"type": "tool_use", "id": uid, "name": "read_file", "input": {"file_path": str(path)}},
        ]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uid, "content": path.read_text()}]},
    ]  # fmt: skip


def reads_session(workspace: Path, counter: TiktokenCounter) -> tuple[ContextSession, ListJournal, Clock]:
    session, journal, clock = make_session(workspace, counter)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Please review the modules."}]
    messages += read_round(0, workspace / ".compact" / "memory" / "topic.md")
    for i in range(1, 7):
        messages += read_round(i, workspace / "src" / f"mod{i}.py")
    session.append(messages)
    return session, journal, clock


def all_text(messages: list[dict[str, Any]]) -> str:
    return json.dumps(messages)


def test_append_counts_tokens_and_rejects_invalid_without_change(workspace: Path, counter: TiktokenCounter) -> None:
    session, journal, _ = reads_session(workspace, counter)
    before = session.usage().total
    records = len(journal.records)
    assert before > 6 * 400  # six files of ~400 lines each were read
    orphan = [{"role": "assistant", "content": "done"}, {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_nope", "content": "x"}]}]  # fmt: skip
    with pytest.raises(ConversationError, match=r"toolu_nope|tool_result"):
        session.append(orphan)
    with pytest.raises(MessageShapeError, match="role"):
        session.append([{"role": "robot", "content": "hi"}])
    assert session.usage().total == before
    assert len(journal.records) == records


def test_user_turns_in_a_row_are_merged_within_an_append_as_across_appends(
    workspace: Path, counter: TiktokenCounter
) -> None:
    """docs/protocol.md: a user message after a user message is merged into it, as the API combines them; in one
    append as across two (issue 38: in one append they were refused). The journal holds the merged message, so a
    replay gives the same view."""
    session, journal, _ = make_session(workspace, counter)
    session.append([{"role": "user", "content": "Fix the totals."}, {"role": "user", "content": "In report.py."}])
    session.append([{"role": "user", "content": "And add a test."}])
    assert session.view() == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Fix the totals."},
                {"type": "text", "text": "In report.py."},
                {"type": "text", "text": "And add a test."},
            ],
        }
    ]
    again = replay_session(journal.records, settings=session.settings, counter=counter, workspace_root=str(workspace))
    assert again.view() == session.view()
    call = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a.py"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}
    with pytest.raises(ConversationError, match="tool_result"):  # merged, a result after text is still refused
        session.append([
            {"role": "assistant", "content": [call]}, {"role": "user", "content": "look"},
            {"role": "user", "content": [result]},
        ])  # fmt: skip


def test_replay_rebuilds_the_same_view_and_usage(workspace: Path, counter: TiktokenCounter) -> None:
    session, journal, _ = reads_session(workspace, counter)
    session.microcompact("forced")
    again = replay_session(journal.records, settings=session.settings, counter=counter, workspace_root=str(workspace))
    assert again.view() == session.view()
    assert again.usage().total == session.usage().total
    assert again.last_microcompaction == session.last_microcompaction


def test_forced_microcompaction_keeps_memory_and_recent(workspace: Path, counter: TiktokenCounter) -> None:
    session, _, _ = reads_session(workspace, counter)
    before = session.usage().total
    eviction = session.microcompact("forced")
    assert eviction is not None
    view = session.view()
    text = all_text(view)
    assert "MEMORY-MARKER-7731" in text  # the managed-memory read survives
    cleared = [c.tool_use_id for c in eviction.cleared]
    assert cleared == ["toolu_001", "toolu_002", "toolu_003", "toolu_004"]  # keep_recent=2 keeps 005 and 006
    assert text.count(CLEARED_TOOL_RESULT) == 4
    assert session.usage().total < before
    assert validate(view) == []
    assert not session.read_state.is_in_history(str(workspace / "src" / "mod1.py"))
    assert session.read_state.is_in_history(str(workspace / "src" / "mod6.py"))


def test_failed_journal_write_changes_nothing(workspace: Path, counter: TiktokenCounter) -> None:
    session, journal, _ = reads_session(workspace, counter)
    view, total = copy.deepcopy(session.view()), session.usage().total
    journal.fail = True
    with pytest.raises(OSError, match="No space"):
        session.append([{"role": "assistant", "content": "more"}])
    with pytest.raises(OSError):
        session.microcompact("forced")
    assert session.view() == view
    assert session.usage().total == total


def test_change_notice_is_shown_then_kept_in_history(workspace: Path, counter: TiktokenCounter) -> None:
    session, _, _ = reads_session(workspace, counter)
    session.add_change_notice("src/mod6.py", "src/mod6.py changed since you read it:\n-x = 1\n+x = 2")
    assert "changed since you read it" in all_text(session.view())
    assert "changed since you read it" not in all_text(session.messages)
    session.append([{"role": "assistant", "content": "Noted."}])
    assert "changed since you read it" in all_text(session.messages)
    assert validate(session.view()) == []


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_compaction_then_undo_is_byte_exact(workspace: Path, counter: TiktokenCounter) -> None:
    session, journal, _ = reads_session(workspace, counter)
    pre = copy.deepcopy(session.view())
    outcome = run(session.compact(OfflineSummarizer()))
    view = session.view()
    assert validate(view) == []
    assert outcome.boundary.tokens_after < outcome.boundary.tokens_before
    assert view[0]["content"][0]["text"].startswith("This session continues from an earlier conversation")
    assert any(r["kind"] == "file" for r in outcome.rehydrated)
    assert session.usage().by_kind["attachments"] > 0  # re-attached files count as attachments, not user text
    # the most recent read came back whole, so the model has it again; an older one did not fit in 5 files
    assert session.read_state.is_in_history(str(workspace / "src" / "mod6.py"))
    assert not session.read_state.is_in_history(str(workspace / "src" / "mod1.py"))
    session.undo()
    assert json.dumps(session.view()) == json.dumps(pre)
    replayed = replay_session(journal.records, settings=session.settings, counter=counter,
                                     workspace_root=str(workspace))  # fmt: skip
    assert json.dumps(replayed.view()) == json.dumps(pre)


def test_compaction_drops_pending_notices_of_files_it_re_attached(workspace: Path, counter: TiktokenCounter) -> None:
    session, _, _ = reads_session(workspace, counter)
    for name in ("mod6.py", "mod1.py"):  # mod6 comes back whole after compaction, mod1 (the oldest) does not
        path = workspace / "src" / name
        path.write_text(path.read_text().replace("= 1", "= 111", 1) + "CHANGED_BEFORE = True\n")
        assert session.notice_change(str(path), path.read_text())
    run(session.compact(OfflineSummarizer()))
    view = all_text(session.view())
    assert "src/mod6.py changed on disk" not in view  # re-attached fresh: the notice would re-add stale lines
    assert "src/mod1.py changed on disk" in view
    # a later change is diffed against what was re-attached, not against the read from before the compaction
    mod6 = workspace / "src" / "mod6.py"
    mod6.write_text(mod6.read_text() + "CHANGED_AFTER = True\n")
    notice = session.notice_for(str(mod6), mod6.read_text())
    assert notice is not None and "+CHANGED_AFTER = True" in notice
    assert "+CHANGED_BEFORE" not in notice and "-x = 1\n" not in notice


def test_undo_keeps_messages_added_after_compaction(workspace: Path, counter: TiktokenCounter) -> None:
    session, _, _ = reads_session(workspace, counter)
    pre = copy.deepcopy(session.view())
    run(session.compact(OfflineSummarizer()))
    later = [{"role": "assistant", "content": "Continuing."}, {"role": "user", "content": "Thanks, go on."}]
    session.append(later)
    session.undo()
    assert session.view() == pre + [{"role": m["role"], "content": [{"type": "text", "text": m["content"]}]}
                                    for m in later]  # fmt: skip
    with pytest.raises(CompactionError, match="no compaction to undo"):
        session.undo()


def as_blocks(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"role": m["role"], "content": [{"type": "text", "text": m["content"]}]} for m in messages]


@pytest.mark.parametrize(
    "later",
    [
        pytest.param([[{"role": "user", "content": "And the tests?"}]], id="a-question-only"),
        pytest.param(
            [[{"role": "user", "content": "And the tests?"}], [{"role": "assistant", "content": "They pass."}]],
            id="one-exchange",
        ),
        pytest.param(
            [
                [{"role": "user", "content": "And the tests?"}, {"role": "assistant", "content": "They pass."}],
                [{"role": "user", "content": "Ship it."}],
                [{"role": "assistant", "content": "Shipped."}],
            ],
            id="two-exchanges",
        ),
    ],
)
def test_undo_after_later_turns_restores_them_as_their_own_turns(
    workspace: Path, counter: TiktokenCounter, later: list[list[dict[str, Any]]]
) -> None:
    session, journal, _ = reads_session(workspace, counter)
    session.append([{"role": "assistant", "content": "I read the modules."}])
    pre = copy.deepcopy(session.view())
    run(session.compact(OfflineSummarizer()))
    for messages in later:
        session.append(messages)
    assert "And the tests?" in all_text(session.view()[:1])  # for the model, the question follows the summary

    session.undo()

    added = as_blocks([m for messages in later for m in messages])
    assert session.view() == pre + added
    assert validate(session.view()) == []
    replayed = replay_session(journal.records, settings=session.settings, counter=counter,
                                     workspace_root=str(workspace))  # fmt: skip
    assert replayed.view() == pre + added


def test_pending_tool_call_survives_compaction(workspace: Path, counter: TiktokenCounter) -> None:
    session, _, _ = reads_session(workspace, counter)
    pending = {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_pending", "name": "read_file",
         "input": {"file_path": str(workspace / "src" / "mod7.py")}}]}  # fmt: skip
    session.append([pending])
    run(session.compact(OfflineSummarizer()))
    view = session.view()
    assert view[-1]["content"][-1]["id"] == "toolu_pending"
    session.append([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_pending",
                                                  "content": "x = 1"}]}])  # fmt: skip
    assert validate(session.view()) == []


def test_compaction_that_would_not_shrink_changes_nothing(workspace: Path, counter: TiktokenCounter) -> None:
    session, journal, _ = make_session(workspace, counter)
    session.append([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    records, view = len(journal.records), copy.deepcopy(session.view())
    with pytest.raises(CompactionError) as info:
        run(session.compact(OfflineSummarizer()))
    assert info.value.kind == "not_smaller"
    assert session.view() == view and len(journal.records) == records


def test_cancelled_compaction_changes_nothing(workspace: Path, counter: TiktokenCounter) -> None:
    session, journal, _ = reads_session(workspace, counter)
    records, view = len(journal.records), copy.deepcopy(session.view())
    cancel = asyncio.Event()
    cancel.set()
    with pytest.raises(CompactionError) as info:
        run(session.compact(OfflineSummarizer(), cancel=cancel))
    assert info.value.kind == "cancelled"
    assert session.view() == view and len(journal.records) == records


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(conversations())
def test_every_engine_output_validates(
    tmp_path_factory: pytest.TempPathFactory, messages: list[dict[str, Any]]
) -> None:
    counter = TiktokenCounter()
    workspace = tmp_path_factory.mktemp("ws")
    session, _, _ = make_session(workspace, counter)
    session.append(messages)
    session.microcompact("forced")
    assert validate(session.view()) == []
    try:
        run(session.compact(OfflineSummarizer()))
    except CompactionError as exc:
        assert exc.kind in ("not_smaller", "empty")
    assert validate(session.view()) == []


class MustNotBeCalled:
    name = "model"

    async def summarize(self, request: Any) -> Any:
        raise AssertionError("the model summariser was called although the notes were up to date")


def test_session_notes_make_compaction_instant_and_survive_reload(workspace: Path, counter: TiktokenCounter) -> None:
    from compact_lsp.engine.summarize.session_notes import NotesPolicy

    session, journal, _ = reads_session(workspace, counter)
    session.notes_keeper.policy = NotesPolicy(first_after_tokens=100, every_tokens=100, min_tool_calls=1)
    assert run(update_notes_if_due(session)) is True
    assert run(update_notes_if_due(session)) is False  # nothing new since
    replayed = replay_session(journal.records, settings=session.settings, counter=counter,
                                     workspace_root=str(workspace))  # fmt: skip
    assert replayed.notes_keeper.notes == session.notes_keeper.notes
    outcome = run(replayed.compact(NotesSummarizer(replayed.notes_keeper, MustNotBeCalled())))
    assert outcome.boundary.summarizer == "session-memory"
    assert "mod6.py" in replayed.view()[0]["content"][0]["text"]


def test_the_agents_own_edit_is_not_reported_as_a_change(workspace: Path, counter: TiktokenCounter) -> None:
    session, _, _ = reads_session(workspace, counter)
    session.add_change_notice("src/mod6.py", "src/mod6.py changed since you read it")
    session.add_change_notice("src/mod5.py", "src/mod5.py changed since you read it")
    target = str(workspace / "src" / "mod6.py")
    edit = {"type": "tool_use", "id": "toolu_edit", "name": "edit_file",
            "input": {"file_path": target, "old_string": "x", "new_string": "y"}}  # fmt: skip
    session.append([{"role": "assistant", "content": [edit]}])
    history = all_text(session.messages)
    assert "src/mod5.py changed" in history
    assert "src/mod6.py changed" not in history


def test_status_lists_the_biggest_items_exactly(workspace: Path, counter: TiktokenCounter) -> None:
    session, _, _ = reads_session(workspace, counter)
    items = status_answer(status_of(session))["biggestItems"]
    assert len(items) == 10
    assert [i["tokens"] for i in items] == sorted((i["tokens"] for i in items), reverse=True)
    first = items[0]
    assert first["kind"] == "toolResult" and first["tool"] == "read_file"
    assert first["tokens"] == counter.count_text((workspace / "src" / "mod1.py").read_text())
    run(session.compact(OfflineSummarizer()))
    kinds = {i["kind"] for i in status_answer(status_of(session))["biggestItems"]}
    assert "attachments" in kinds  # re-attached files are shown as attachments, with their path
    assert any(i["label"].startswith("attached file src/") for i in status_answer(status_of(session))["biggestItems"])


def test_microcompaction_first_when_it_alone_gets_under_the_threshold(
    workspace: Path, counter: TiktokenCounter
) -> None:
    from compact_lsp.engine.settings import AutoCompactSettings

    probe, _, _ = reads_session(workspace, counter)
    total = probe.usage().total
    # a threshold the session crosses, but that clearing the old reads alone gets back under
    settings = EngineSettings(
        memory=MemorySettings(project_root=str(workspace / ".compact" / "memory")),
        microcompact=MicrocompactSettings(keep_recent=2, size_threshold_tokens=-1, idle_minutes=-1),
        auto_compact=AutoCompactSettings(threshold_tokens=total - 100),
    )
    session, _, _ = make_session(workspace, counter, settings=settings)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Please review the modules."}]
    messages += read_round(0, workspace / ".compact" / "memory" / "topic.md")
    for i in range(1, 7):
        messages += read_round(i, workspace / "src" / f"mod{i}.py")
    outcome = session.append(messages)
    assert outcome.compaction_due is False
    assert outcome.microcompaction is not None and len(outcome.microcompaction.cleared) == 4
    assert outcome.usage.total < total - 100
    assert session.state.compactions.standing == []  # no summary was needed


class RecordingSummarizer:
    name = "recording"

    def __init__(self) -> None:
        self.instructions: list[str | None] = []

    async def summarize(self, request: Any) -> Any:
        from compact_lsp.engine.summarize.base import Summary

        self.instructions.append(request.instructions)
        return Summary(text="Short summary.", summarizer=self.name)


@pytest.mark.parametrize(
    ("command", "instructions", "expected"),
    [
        pytest.param("echo focus on the parser", None, "focus on the parser", id="hook-only"),
        pytest.param("echo and the tests", "keep the errors", "keep the errors\n\nand the tests", id="both"),
    ],
)
def test_pre_compaction_hook_adds_instructions(
    workspace: Path, counter: TiktokenCounter, command: str, instructions: str | None, expected: str
) -> None:
    from dataclasses import replace

    session, _, _ = reads_session(workspace, counter)
    session.update_settings(replace(session.settings, pre_compact_command=command))
    summarizer = RecordingSummarizer()
    run(session.compact(summarizer, instructions=instructions))
    assert summarizer.instructions == [expected]


def test_a_failing_pre_compaction_hook_changes_nothing(workspace: Path, counter: TiktokenCounter) -> None:
    from dataclasses import replace

    session, journal, _ = reads_session(workspace, counter)
    session.update_settings(replace(session.settings, pre_compact_command="echo broken >&2; exit 3"))
    records, view = len(journal.records), copy.deepcopy(session.view())
    with pytest.raises(CompactionError, match="exited with 3: broken") as info:
        run(session.compact(RecordingSummarizer()))
    assert info.value.kind == "hook"
    assert session.view() == view and len(journal.records) == records and not session.compacting


def test_a_change_during_compaction_wins_and_the_compaction_changes_nothing(
    workspace: Path, counter: TiktokenCounter
) -> None:
    session, journal, _ = reads_session(workspace, counter)

    class AppendingSummarizer:
        name = "appending"

        async def summarize(self, request: Any) -> Any:
            from compact_lsp.engine.summarize.base import Summary

            # another writer that did not wait for the compaction (the server makes appends wait)
            session.append([{"role": "assistant", "content": "written meanwhile"}])
            return Summary(text="Short summary.", summarizer=self.name)

    with pytest.raises(CompactionError) as info:
        run(session.compact(AppendingSummarizer()))
    assert info.value.kind == "conflict"
    assert session.messages[-1]["content"][0]["text"] == "written meanwhile"
    assert not any(r["type"] == "compaction" for r in journal.records)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(conversations(in_flight=False), st.integers(min_value=0, max_value=40), st.data())
def test_incremental_append_check_agrees_with_full_validation(
    messages: list[dict[str, Any]], cut: int, data: st.DataObject
) -> None:
    """Appends are checked against the tail of the history only; that must accept exactly what a full check
    of the whole conversation accepts (the history itself being valid), user turns in a row merged as append
    merges them."""
    from compact_lsp.engine.conversation.messages import join_messages, merged_user_turns

    counter = TiktokenCounter()
    cut = min(cut, len(messages))
    head, rest = messages[:cut], messages[cut:]
    tail = data.draw(st.one_of(st.just(rest), raw_messages(max_size=4), st.just(rest[:1] + rest[2:3])))
    session = ContextSession("ses_p", settings=EngineSettings(), counter=counter)
    if head:
        session.append(head)
    expected_ok = validate(join_messages(list(head), merged_user_turns(list(tail)))) == []
    try:
        session.append(tail)
        accepted = True
    except (ConversationError, MessageShapeError):
        accepted = False
    assert accepted == expected_ok
