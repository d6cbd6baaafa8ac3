"""Our own automatic compaction as the gauge shows it: where it fires by the settings, what keeps it from firing,
and the wait after a compaction that freed little, the same as ``should_compact`` decides."""

from __future__ import annotations

import pytest

from compact_lsp.engine.conversation.usage import build_usage
from compact_lsp.engine.session.own_auto_compaction import own_auto_compaction, own_usage
from compact_lsp.engine.session.session_compactions import SessionCompactions
from compact_lsp.engine.settings import AutoCompactSettings, EngineSettings


@pytest.mark.parametrize(
    ("auto", "threshold", "origin"),
    [
        pytest.param(AutoCompactSettings(), 167_000, "compact-lsp's default: 85% of the window, at most the window "
                     "less 33,000", id="default"),
        pytest.param(AutoCompactSettings(threshold_tokens=150_000), 150_000, "autoCompact.threshold: 150,000",
                     id="tokens"),
        pytest.param(AutoCompactSettings(threshold_percent=80), 160_000, "autoCompact.threshold: 80% of the window",
                     id="percent"),
    ],
)  # fmt: skip
def test_the_threshold_and_where_it_comes_from(auto: AutoCompactSettings, threshold: int, origin: str) -> None:
    settings = EngineSettings(context_window=200_000, auto_compact=auto)
    usage = own_usage({"tool_result": 100_000}, settings, None, SessionCompactions(), turns=4)
    assert usage.next_compaction is not None
    assert (usage.next_compaction.threshold, usage.next_compaction.origin) == (threshold, origin)
    assert usage.next_compaction.tokens_left == threshold - 100_000 and usage.next_compaction.turns_left is not None


def test_turned_off_or_stopped_by_failures_it_is_named() -> None:
    off = EngineSettings(auto_compact=AutoCompactSettings(enabled=False))
    usage = own_usage({"tool_result": 10}, off, None, SessionCompactions(), turns=1)
    assert usage.next_compaction is not None and usage.next_compaction.threshold is None
    assert usage.next_compaction.disabled_by == '"autoCompact.enabled": false'
    compactions = SessionCompactions()
    for _ in range(3):
        compactions.finished("auto", ok=False)
    stopped = own_usage({"tool_result": 10}, EngineSettings(), None, compactions, turns=1).next_compaction
    assert stopped is not None and stopped.disabled_by == "3 failed automatic compactions in a row (until one succeeds)"


def test_after_a_compaction_that_freed_little_the_next_waits_for_growth() -> None:
    settings = EngineSettings(context_window=200_000)
    compactions = SessionCompactions()
    compactions.freed_little(170_000, 10_000)  # waits until our count reaches 180,000
    usage = build_usage({"tool_result": 170_000}, settings, 175_000)
    auto = own_auto_compaction(settings, compactions, usage, size=175_000)
    assert auto.threshold == 185_000 and auto.origin.startswith("waits for ~10,000 tokens more")
    at_it = own_usage({"tool_result": 170_000}, settings, 175_000, compactions, turns=10)
    assert at_it.level != "critical"  # over 167,000, but the next request does not compact
