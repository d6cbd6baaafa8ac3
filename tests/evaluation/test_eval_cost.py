"""The prompt-cache bill of a sequence of requests, worked out by hand."""

from __future__ import annotations

from typing import Any

import pytest

from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.evaluation.cost import CacheMeter


def msg(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": text}]}


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


def test_a_growing_conversation_reads_its_prefix_and_writes_what_is_new(counter: TiktokenCounter) -> None:
    a, b, c = msg("user", "alpha " * 100), msg("assistant", "beta " * 50), msg("user", "gamma " * 20)
    ta, tb, tc = (counter.count_message(m) for m in (a, b, c))
    meter = CacheMeter(counter, ttl=300)
    meter.request([a], at=0)
    meter.request([a, b, c], at=60)
    assert (meter.cache_write, meter.cache_read) == (ta + tb + tc, ta)
    assert meter.billed == pytest.approx(1.25 * (ta + tb + tc) + 0.1 * ta)


def test_a_rewrite_breaks_the_cache_from_the_rewritten_message(counter: TiktokenCounter) -> None:
    a, b, c = msg("user", "alpha " * 100), msg("assistant", "beta " * 50), msg("user", "gamma " * 20)
    cleared = msg("assistant", "[Old tool result content cleared]")
    meter = CacheMeter(counter, ttl=300)
    meter.request([a, b, c], at=0)
    written = meter.cache_write
    meter.request([a, cleared, c], at=10)
    assert meter.cache_read == counter.count_message(a)
    assert meter.cache_write == written + counter.count_message(cleared) + counter.count_message(c)


def test_after_the_cache_lifetime_everything_is_written_again(counter: TiktokenCounter) -> None:
    a = msg("user", "alpha " * 100)
    meter = CacheMeter(counter, ttl=300)
    meter.request([a], at=0)
    meter.request([a], at=301)
    assert (meter.cache_read, meter.cache_write) == (0, 2 * counter.count_message(a))
