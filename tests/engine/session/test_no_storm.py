"""No storm of compactions or clearings, at any window: each rewrite of the history buys real room.

Every rewrite (a microcompaction, a full compaction) breaks the prompt cache, so each later request pays the whole
prefix again; a session near its threshold must not rewrite on every round. The property: over windows from 8k to
1M, default and configured thresholds and round sizes, at most one rewrite per ~20% of the window added (the
headroom), and an automatic compaction that cannot make room is tried again only after real growth.
"""

from __future__ import annotations

import asyncio
import itertools
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compact_lsp.engine.compaction.full_compaction import CompactionError
from compact_lsp.engine.conversation.messages import Block, Message
from compact_lsp.engine.conversation.tokens import count_block_with
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import AutoCompactSettings, EngineSettings, MemorySettings, MicrocompactSettings
from compact_lsp.engine.summarize.offline import OfflineSummarizer

WINDOWS = (8_000, 30_000, 50_000, 200_000, 1_000_000)


class CharCounter:
    """Four characters a token: exact enough for the property, fast enough for a million-token window."""

    def count_text(self, text: str) -> int:
        return (len(text) + 3) // 4

    def count_block(self, block: Block) -> int:
        return count_block_with(self, block)

    def count_message(self, message: Message) -> int:
        return 3 + sum(self.count_block(b) for b in message["content"])


def words(n: int, tag: str) -> str:
    """About ``n`` tokens of text, one line a word, starting with ``tag``."""
    return tag + "\n" + "wxy\n" * n


def tool_round(k: int, size: int, root: Path, parallel: int) -> list[Message]:
    """The model reads a file or runs a command (``parallel`` calls at once), and the results come back."""
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for j in range(parallel):
        use_id = f"toolu_{k:04d}_{j}"
        if (k + j) % 3 == 0:
            path = root / f"src/mod{(k + j) % 7}.py"
            text = words(size, f"m{k}_")
            path.write_text(text)
            calls.append({"type": "tool_use", "id": use_id, "name": "Read", "input": {"file_path": str(path)}})
        else:
            text = words(size, f"o{k}_")
            calls.append({"type": "tool_use", "id": use_id, "name": "Bash", "input": {"command": f"make {k}"}})
        results.append({"type": "tool_result", "tool_use_id": use_id, "content": text})
    return [{"role": "assistant", "content": calls}, {"role": "user", "content": results}]


@pytest.mark.slow  # 30 examples up to a 1M window: 161 s at load 15, so it starts first (tests/conftest.py)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    window=st.sampled_from(WINDOWS),
    threshold_percent=st.one_of(st.none(), st.integers(50, 95)),
    round_share=st.floats(0.01, 0.08),
    parallel=st.integers(1, 3),
    keep=st.integers(1, 6),
)
def test_no_storm_of_rewrites_at_any_window(
    window: int, threshold_percent: int | None, round_share: float, parallel: int, keep: int
) -> None:
    counter = CharCounter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "src").mkdir()
        engine = EngineSettings(
            context_window=window,
            memory=MemorySettings(project_root=str(root / "memory"), user_root=str(root / "user")),
            microcompact=MicrocompactSettings(keep_recent=keep, idle_minutes=-1),
            auto_compact=AutoCompactSettings(threshold_percent=threshold_percent),
        )
        session = ContextSession("ses_storm", settings=engine, counter=counter, workspace_root=str(root))
        session.append([{"role": "user", "content": "Build the project and fix what fails."}])
        size = max(20, int(window * round_share / parallel))
        added = rewrites = failed = 0
        retry_growth: list[int] = []
        k = 0
        while added < 3 * window:  # three windows' worth: several compactions at every size
            messages = tool_round(k, size, root, parallel)
            added += sum(counter.count_message(m) for m in messages)
            outcome = session.append(messages)
            rewrites += outcome.microcompaction is not None
            if outcome.compaction_due:
                try:
                    asyncio.run(session.compact(OfflineSummarizer(), trigger="auto"))
                    rewrites += 1
                except CompactionError as exc:
                    assert exc.kind == "not_smaller", exc
                    failed += 1
                    retry_growth.append(added)
            k += 1
        headroom = window // 5
        assert rewrites <= 1 + added / headroom, (rewrites, added, window)
        # an automatic compaction that could not make room is tried again only after the context grew
        margin = AutoCompactSettings(threshold_percent=threshold_percent).retry_margin(window)
        assert all(b - a >= margin for a, b in itertools.pairwise(retry_growth)), retry_growth


def test_an_api_report_that_stays_over_the_threshold_compacts_once_not_every_round() -> None:
    """The API's reported usage holds the system prompt and the tools, which no compaction shrinks: with a threshold
    below them, every tool round found the report over it and compacted again (7 summaries in one turn, each saving
    27-116 tokens). After a compaction that freed almost nothing, the next waits for the history to grow."""
    counter = CharCounter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "src").mkdir()
        window = 200_000
        engine = EngineSettings(
            context_window=window,
            memory=MemorySettings(project_root=str(root / "memory"), user_root=str(root / "user")),
            microcompact=MicrocompactSettings(keep_recent=3, idle_minutes=-1, size_threshold_tokens=-1),
            auto_compact=AutoCompactSettings(threshold_tokens=6_000),
        )
        session = ContextSession("ses_report", settings=engine, counter=counter, workspace_root=str(root))
        session.append([{"role": "user", "content": "Build the project and fix what fails."}])
        for k in range(10):  # the work so far, under the threshold by the session's own count
            session.append(tool_round(k, 150, root, 1))
        compactions: list[tuple[int, int]] = []
        failed = 0
        for k in range(10, 22):  # twelve more tool rounds, each reported by the API over the threshold
            report = {"input_tokens": 7_000 + session.usage().total}  # the system prompt and the tools: 7k
            outcome = session.append(tool_round(k, 150, root, 1), report)
            if outcome.compaction_due:
                try:
                    asyncio.run(session.compact(OfflineSummarizer(), trigger="auto"))
                except CompactionError as exc:
                    assert exc.kind == "not_smaller", exc
                    failed += 1
                    continue
                last = session.state.compactions.last or {}
                compactions.append((last.get("tokensBefore", 0), last.get("tokensAfter", 0)))
        assert len(compactions) == 1 and failed == 0, (compactions, failed)
