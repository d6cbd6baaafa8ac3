"""Codex's compactions as the real CLI recorded them (tests/fixtures/codex/rollout-two-compactions.jsonl, made by
tests/codex/record_rollout.py): the size before is the response Codex compared with its limit, not the summary's
own request; the size after is the first request on the new history; the receipt is the hook's context as Codex
wrote it into the rollout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.codex.recorded_compactions import recorded_codex_compactions
from compact_lsp.engine.codex.rollout import parse_line

ROLLOUT = Path(__file__).parents[2] / "fixtures" / "codex" / "rollout-two-compactions.jsonl"


def test_each_compaction_with_its_figures_summary_and_receipt() -> None:
    records = [r for raw in ROLLOUT.read_bytes().splitlines() if (r := parse_line(raw)) is not None]
    first, second = recorded_codex_compactions(records)
    assert (first.tokens_before, first.tokens_after) == (90_020, 4_000)  # not the summary request's 800
    assert (second.tokens_before, second.tokens_after) == (90_020, 3_000)
    assert first.summary == "Summary 1: the user asked to read the modules."  # without Codex's lead-in
    assert [r.files for r in first.receipts] == [["first_b.py", "first_a.py"]]
    assert not first.receipts[0].spilled and 3_000 < first.receipts[0].characters < 10_000
    assert any("read the modules" in text for text in first.kept)  # the user's message Codex kept
    assert (first.trigger, second.trigger) == ("auto", "auto")  # both in the middle of ``codex exec``'s turn


def test_a_rollout_without_a_compaction_has_none() -> None:
    records = [r for raw in ROLLOUT.read_bytes().splitlines()[:12] if (r := parse_line(raw)) is not None]
    assert recorded_codex_compactions(records) == []


def started(attributed: bool) -> dict[str, Any]:
    payload: dict[str, Any] = {"type": "task_started", "turn_id": "t"}
    if attributed:
        payload["turn_attribution"] = {"turn_id": "t", "turn_trigger": "user"}
    return {"type": "event_msg", "payload": payload}


def user(text: str) -> dict[str, Any]:
    return {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                 "content": [{"type": "input_text", "text": text}]}}  # fmt: skip


COMPACTION = [
    {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                          "content": [{"type": "output_text", "text": "Summary."}]},
     "metadata": {"compaction_output": True}},
    {"type": "compacted", "payload": {"message": "Summary.", "replacement_history": []}},
]  # fmt: skip
TURN_ENDS = {"type": "event_msg", "payload": {"type": "task_complete"}}


@pytest.mark.parametrize(
    ("records", "trigger"),
    [
        pytest.param([started(True), user("fix it"), *COMPACTION, TURN_ENDS], "auto", id="in-the-middle-of-a-turn"),
        pytest.param([started(True), *COMPACTION, user("go on"), TURN_ENDS], "auto", id="at-a-turns-start"),
        pytest.param([started(False), *COMPACTION, TURN_ENDS, started(True), user("go on")], "manual",
                     id="typed-compact"),
        pytest.param([started(False), user("<environment_context>"), *COMPACTION], "manual",
                     id="typed-compact-with-codexs-own-context"),
        pytest.param([started(False), *COMPACTION, user("go on")], "auto", id="unattributed-turn-with-a-user"),
        pytest.param([*COMPACTION], "auto", id="no-task-recorded"),
    ],
)  # fmt: skip
def test_a_compaction_is_the_users_only_in_a_task_of_its_own(records: list[dict[str, Any]], trigger: str) -> None:
    """The shapes the real TUI records (0.171.0, tests/codex/test_real_tui.py): ``/compact`` runs as a task that
    names no ``turn_attribution`` and holds no user message; Codex compacts by itself inside the user's turn."""
    (row,) = recorded_codex_compactions(records)
    assert row.trigger == trigger
