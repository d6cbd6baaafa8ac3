"""Session notes: notes kept in the background, used at compaction without making the user wait."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from tests.support.messages_api_stub import MessagesApiStub, api_error, reply

from compact_lsp.engine.prompts import NOTES_SECTIONS
from compact_lsp.engine.summarize.anthropic_api import AnthropicSummarizer
from compact_lsp.engine.summarize.base import SummaryRequest
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.engine.summarize.session_notes import (
    ModelNotesWriter,
    NotesKeeper,
    NotesPolicy,
    NotesSummarizer,
    OfflineNotesWriter,
    SessionNotes,
    parse_notes,
)

Message = dict[str, Any]
KEY = "sk-ant-test-session-notes-key"


@pytest.fixture
def messages_api() -> Iterator[MessagesApiStub]:
    with MessagesApiStub() as stub:
        yield stub


def user(text: str) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def read(tool_id: str, path: str) -> list[Message]:
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": path}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "code"}]},
    ]


OLD: list[Message] = [user("OLD-REQUEST: fix the parser"), *read("t1", "/src/old_parser.py")]
NEW: list[Message] = [user("NEW-REQUEST: and add a CLI flag"), *read("t2", "/src/cli.py")]
HAND_WRITTEN = "# Session notes\n\n## Task\n- hand-written note about the parser\n"


def stub_summarizer(stub: MessagesApiStub) -> AnthropicSummarizer:
    return AnthropicSummarizer(model="claude-test", api_key=KEY, base_url=stub.base_url, max_retries=0, env={})


@pytest.mark.parametrize(
    ("total", "tool_calls", "last", "expected"),
    [
        pytest.param(9_999, 10, None, False, id="first-below-10k"),
        pytest.param(10_000, 0, None, True, id="first-at-10k"),
        pytest.param(14_000, 5, 10_000, False, id="grew-under-5k"),
        pytest.param(15_000, 2, 10_000, False, id="too-few-tool-calls"),
        pytest.param(15_000, 3, 10_000, True, id="grew-5k-with-3-calls"),
    ],
)
def test_policy_defaults(total: int, tool_calls: int, last: int | None, expected: bool) -> None:
    assert NotesPolicy().should_update(total, tool_calls, last) is expected


def test_policy_rejects_a_zero_interval() -> None:
    with pytest.raises(ValueError, match="everyTokens"):
        NotesPolicy(every_tokens=0)


async def test_up_to_date_notes_are_the_summary_and_no_request_reaches_the_api(
    messages_api: MessagesApiStub,
) -> None:
    keeper = NotesKeeper()
    notes = await keeper.update(OLD, total_tokens=12_000)
    summarizer = NotesSummarizer(keeper, fallback=stub_summarizer(messages_api))
    summary = await summarizer.summarize(SummaryRequest(messages=OLD))
    assert summary.summarizer == "session-memory"
    assert summary.text == notes.text.strip()
    assert "OLD-REQUEST" in summary.text and "/src/old_parser.py" in summary.text
    assert messages_api.requests == []


async def test_older_notes_are_topped_up_with_only_the_missing_messages(
    messages_api: MessagesApiStub,
) -> None:
    keeper = NotesKeeper()
    keeper.notes = SessionNotes(text=HAND_WRITTEN, covered_upto=len(OLD))
    summarizer = NotesSummarizer(keeper, fallback=stub_summarizer(messages_api))
    summary = await summarizer.summarize(SummaryRequest(messages=OLD + NEW))
    assert "hand-written note about the parser" in summary.text  # the notes are kept
    assert "NEW-REQUEST" in summary.text and "/src/cli.py" in summary.text  # the missing part is added
    assert "OLD-REQUEST" not in summary.text and "old_parser" not in summary.text  # the covered part is not redone
    assert messages_api.requests == []


@pytest.mark.parametrize(
    ("notes", "instructions"),
    [
        pytest.param(None, None, id="no-notes-yet"),
        pytest.param(SessionNotes(text=HAND_WRITTEN, covered_upto=3), "focus on the CLI", id="instructions"),
    ],
)
async def test_fallback_summarizer_is_used_when_notes_cannot_serve(
    messages_api: MessagesApiStub, notes: SessionNotes | None, instructions: str | None
) -> None:
    messages_api.push(reply("<summary>model summary</summary>"))
    keeper = NotesKeeper()
    keeper.notes = notes
    summarizer = NotesSummarizer(keeper, fallback=stub_summarizer(messages_api))
    summary = await summarizer.summarize(SummaryRequest(messages=OLD + NEW, instructions=instructions))
    assert summary.text == "model summary" and summary.summarizer == "anthropic"
    assert len(messages_api.requests) == 1


async def test_offline_updates_accumulate_and_keep_every_section() -> None:
    keeper = NotesKeeper(OfflineNotesWriter())
    await keeper.update(OLD, total_tokens=10_000)
    notes = await keeper.update(OLD + NEW, total_tokens=16_000)
    assert notes.covered_upto == len(OLD + NEW) and notes.tokens_at_update == 16_000
    sections = parse_notes(notes.text)
    assert list(sections)[: len(NOTES_SECTIONS)] == list(NOTES_SECTIONS)
    task = "\n".join(sections["Task"])
    assert task.index("OLD-REQUEST") < task.index("NEW-REQUEST")
    assert task.count("OLD-REQUEST") == 1  # the second update added only the new part
    assert any("/src/cli.py" in line for line in sections["Files and Functions"])


async def test_model_writer_sends_the_notes_prompt_and_stores_the_notes(
    messages_api: MessagesApiStub,
) -> None:
    messages_api.push(reply("<notes>\n# Session notes\n\n## Task\n- model wrote this\n</notes>"))
    keeper = NotesKeeper(ModelNotesWriter(stub_summarizer(messages_api)))
    notes = await keeper.update(OLD)
    assert notes.writer == "model" and "model wrote this" in notes.text
    prompt = messages_api.requests[0].last_user_text()
    assert "<current_notes>" in prompt and "## Worklog" in prompt


async def test_model_writer_failure_tops_up_offline_instead(messages_api: MessagesApiStub) -> None:
    messages_api.push(api_error(529, "overloaded_error", "Overloaded"))
    keeper = NotesKeeper(ModelNotesWriter(stub_summarizer(messages_api)))
    notes = await keeper.update(OLD)
    assert "OLD-REQUEST" in notes.text and notes.covered_upto == len(OLD)


class GatedWriter:
    """A notes writer that waits for the test to let it finish."""

    name = "gated"

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.calls = 0

    async def write_notes(
        self, notes: str, messages: Sequence[Message], since: int, cancel: asyncio.Event | None = None
    ) -> str:
        self.calls += 1
        self.started.set()
        await self.release.wait()
        return f"notes over {len(messages)} messages"


async def test_background_update_works_on_a_snapshot_and_is_not_run_twice() -> None:
    writer = GatedWriter()
    keeper = NotesKeeper(writer)
    messages = list(OLD)
    task = asyncio.create_task(keeper.maybe_update(messages, total_tokens=20_000))
    await writer.started.wait()
    messages.extend(NEW)  # the session grows while the notes are written
    assert await keeper.maybe_update(messages, total_tokens=30_000) is False
    writer.release.set()
    assert await task is True
    assert writer.calls == 1
    assert keeper.notes is not None
    assert keeper.notes.covered_upto == len(OLD) and keeper.notes.text == f"notes over {len(OLD)} messages"


async def test_maybe_update_waits_for_the_session_to_grow() -> None:
    keeper = NotesKeeper(policy=NotesPolicy(first_after_tokens=100, every_tokens=50, min_tool_calls=1))
    assert await keeper.maybe_update(OLD, total_tokens=99) is False
    assert await keeper.maybe_update(OLD, total_tokens=100) is True
    assert await keeper.maybe_update(OLD + NEW, total_tokens=120) is False  # grew too little
    assert await keeper.maybe_update(OLD + NEW, total_tokens=150) is True


def test_notes_round_trip_through_their_wire_form() -> None:
    notes = SessionNotes(text=HAND_WRITTEN, covered_upto=7, tokens_at_update=123, updated_at=1.5, writer="model")
    assert SessionNotes.from_dict(notes.to_dict()) == notes


async def test_rebase_after_compaction_makes_the_notes_cover_the_new_view() -> None:
    keeper = NotesKeeper()
    await keeper.update(OLD + NEW, total_tokens=20_000)
    keeper.rebase(covered_upto=1, total_tokens=3_000)
    assert keeper.notes is not None and keeper.notes.covered_upto == 1
    summary = await NotesSummarizer(keeper, fallback=OfflineSummarizer()).summarize(
        SummaryRequest(messages=[user("the summary")])
    )
    assert summary.summarizer == "session-memory" and "NEW-REQUEST" in summary.text
