"""Compaction as a pure step (a snapshot in, an outcome out) and the session's one decision and one claim."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from compact_lsp.engine.compaction.full_compaction import CompactionError, CompactionSnapshot, run_compaction
from compact_lsp.engine.compaction.rehydration import RehydrationResult
from compact_lsp.engine.conversation.messages import Attachment, Message
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.conversation.usage import ContextUsage
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.session_status import status_of
from compact_lsp.engine.settings import AutoCompactSettings, EngineSettings
from compact_lsp.engine.summarize.base import Summary, SummaryError, SummaryRequest
from compact_lsp.lsp.protocol.answers import status_answer

COUNTER = TiktokenCounter()


class FixedSummarizer:
    name = "fixed"

    def __init__(self, text: str = "Short summary.", error: SummaryError | None = None) -> None:
        self.text = text
        self.error = error
        self.requests: list[SummaryRequest] = []

    async def summarize(self, request: SummaryRequest) -> Summary:
        self.requests.append(request)
        if self.error is not None:
            raise self.error
        return Summary(text=self.text, summarizer=self.name)


def history(rounds: int = 6, pending: bool = False) -> list[Message]:
    messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": "Review the parser."}]}]
    for i in range(rounds):
        messages += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "x = 1\n" * 300}]},
        ]
    if pending:
        messages.append(
            {"role": "assistant", "content": [{"type": "tool_use", "id": "tp", "name": "Read", "input": {}}]}
        )
    return messages


def snapshot(messages: list[Message], revision: int = 7) -> CompactionSnapshot:
    tokens = sum(COUNTER.count_message(m) for m in messages)
    return CompactionSnapshot(messages, revision, "system", tokens, 0, 200_000)


def rehydrated(*texts: str) -> Any:
    calls: list[list[Message]] = []

    def rehydrate(kept: list[Message], room: int | None = None) -> RehydrationResult:
        calls.append(kept)
        attachments = [Attachment(kind="file", path=f"f{i}.py", text=t) for i, t in enumerate(texts)]
        return RehydrationResult(attachments, [], sum(COUNTER.count_text(t) for t in texts))

    return rehydrate, calls


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_a_snapshot_becomes_an_outcome_without_a_session() -> None:
    messages = history(pending=True)
    rehydrate, calls = rehydrated("def parse(): ...")
    summarizer = FixedSummarizer()
    outcome = run(
        run_compaction(snapshot(messages), summarizer, rehydrate=rehydrate, count=COUNTER, clock=lambda: 42.0)
    )
    assert summarizer.requests[0].messages == messages[:-1]  # the pending call is not summarised
    assert calls == [[messages[-1]]]  # rehydration knows what stays
    assert outcome.view[-1] == messages[-1]
    assert outcome.view[0]["content"][1]["text"] == "def parse(): ..."
    assert outcome.boundary.created_at == 42.0
    assert outcome.boundary.tokens_before == snapshot(messages).tokens_before > outcome.boundary.tokens_after
    assert outcome.attached == [{"block": 1, "kind": "file", "path": "f0.py", "partial": False}]


@pytest.mark.parametrize(
    ("messages", "summarizer", "attachment", "kind"),
    [
        pytest.param([], FixedSummarizer(), "", "empty", id="empty"),
        pytest.param(history(), FixedSummarizer(error=SummaryError("rate_limit", "slow down")), "", "rate_limit",
                     id="summariser-failed"),
        pytest.param(history(1), FixedSummarizer(), "y = 2\n" * 2000, "not_smaller", id="not-smaller"),
    ],
)  # fmt: skip
def test_a_compaction_that_cannot_happen_raises(
    messages: list[Message], summarizer: FixedSummarizer, attachment: str, kind: str
) -> None:
    rehydrate, _ = rehydrated(attachment)
    with pytest.raises(CompactionError) as info:
        run(run_compaction(snapshot(messages), summarizer, rehydrate=rehydrate, count=COUNTER, clock=lambda: 0.0))
    assert info.value.kind == kind


def test_a_cancelled_step_raises_cancelled() -> None:
    cancel = asyncio.Event()
    cancel.set()
    rehydrate, calls = rehydrated()
    with pytest.raises(CompactionError) as info:
        run(
            run_compaction(
                snapshot(history()), FixedSummarizer(), rehydrate=rehydrate, count=COUNTER, clock=lambda: 0.0,
                cancel=cancel,
            )
        )  # fmt: skip
    assert info.value.kind == "cancelled" and calls == []


# -- the session: one decision, one claim, the circuit breaker -----------------------------------------------


def session_with(auto: AutoCompactSettings) -> ContextSession:
    session = ContextSession("ses_c", settings=EngineSettings(auto_compact=auto), counter=COUNTER)
    session.append(history())
    return session


def usage(total: int, reported: int | None = None) -> ContextUsage:
    return ContextUsage(total, {}, 200_000, 1000, 800, reported)


@pytest.mark.parametrize(
    ("auto", "measured", "overhead", "compacting", "expected"),
    [
        pytest.param(AutoCompactSettings(), usage(999), 0, False, False, id="under"),
        pytest.param(AutoCompactSettings(), usage(1000), 0, False, True, id="at-threshold"),
        pytest.param(AutoCompactSettings(), usage(900), 100, False, True, id="overhead-tips-it"),
        pytest.param(AutoCompactSettings(), usage(500, reported=1200), 0, False, True, id="api-report-counts"),
        pytest.param(AutoCompactSettings(enabled=False), usage(5000), 0, False, False, id="disabled"),
        pytest.param(AutoCompactSettings(), usage(5000), 0, True, False, id="one-under-way"),
    ],
)
def test_should_compact_is_the_one_decision(
    auto: AutoCompactSettings, measured: ContextUsage, overhead: int, compacting: bool, expected: bool
) -> None:
    session = session_with(auto)
    session.compacting = compacting
    assert session.should_compact(measured, overhead) is expected


def test_automatic_failures_stop_the_decision_until_a_success() -> None:
    session = session_with(AutoCompactSettings(max_consecutive_failures=2))
    failing = FixedSummarizer(error=SummaryError("overloaded", "busy"))
    for _ in range(2):
        with pytest.raises(CompactionError):
            run(session.compact(failing, trigger="auto"))
    assert session.state.compactions.blocked(2) and not session.should_compact(usage(5000))
    with pytest.raises(CompactionError):
        run(session.compact(failing, trigger="manual"))  # a manual failure is not counted, nor a success
    assert session.state.compactions.auto_failures == 2
    run(session.compact(FixedSummarizer(), trigger="manual"))
    assert not session.state.compactions.blocked(2) and session.should_compact(usage(5000))


def test_a_held_claim_refuses_a_second_compaction_and_undo_and_changes_nothing() -> None:
    session = session_with(AutoCompactSettings())
    run(session.compact(FixedSummarizer()))
    view, revision = session.view(), session.revision
    with session.compaction_claim():
        assert status_answer(status_of(session))["compacting"] is True
        attempts = (lambda: run(session.compact(FixedSummarizer())), session.undo, session.compaction_claim().__enter__)
        for attempt in attempts:
            with pytest.raises(CompactionError, match="in progress") as info:
                attempt()
            assert info.value.kind == "in_progress"
        assert session.view() == view and session.revision == revision
        session.append([{"role": "assistant", "content": [{"type": "text", "text": "More work. " * 40}]}])
        outcome = run(session.compact(FixedSummarizer("Again."), claimed=True))  # the holder compacts
        assert session.compacting  # the claim is the holder's to release
    assert not session.compacting and session.view() == outcome.view
    assert session.state.compactions.auto_failures == 0


def test_the_pre_compaction_hook_runs_before_the_snapshot() -> None:
    session = session_with(AutoCompactSettings())
    session.update_settings(replace(session.settings, pre_compact_command="echo keep the parser notes"))
    summarizer = FixedSummarizer()
    run(session.compact(summarizer, instructions="be brief"))
    assert summarizer.requests[0].instructions == "be brief\n\nkeep the parser notes"
