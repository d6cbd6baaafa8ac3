"""Codex's compactions as the real CLI recorded them (tests/fixtures/codex/rollout-two-compactions.jsonl, made by
tests/codex/record_rollout.py): the size before is the response Codex compared with its limit, not the summary's
own request; the size after is the first request on the new history; the receipt is the hook's context as Codex
wrote it into the rollout."""

from __future__ import annotations

from pathlib import Path

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


def test_a_rollout_without_a_compaction_has_none() -> None:
    records = [r for raw in ROLLOUT.read_bytes().splitlines()[:12] if (r := parse_line(raw)) is not None]
    assert recorded_codex_compactions(records) == []
