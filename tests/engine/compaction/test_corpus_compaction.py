"""Real Claude Code sessions replayed round by round, compacted whenever a synthetic threshold is crossed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.compaction.full_compaction import CompactionError
from compact_lsp.engine.conversation.rounds import group_rounds
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.conversation.validate import validate
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import AutoCompactSettings, EngineSettings, MemorySettings
from compact_lsp.engine.summarize.offline import OfflineSummarizer

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "claude-code-sessions"
SESSIONS = sorted(p for p in CORPUS.glob("*/*.jsonl") if not p.name.startswith("agent-")) if CORPUS.is_dir() else []


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


def replay(path: Path, counter: TiktokenCounter, tmp_path: Path) -> tuple[ContextSession, int, list[dict[str, Any]]]:
    imported = import_claude_code(path)
    messages = imported.session.messages
    total = ContextSession("probe", settings=EngineSettings(), counter=counter)
    total.append(messages)
    threshold = max(2_000, total.usage().total // 2)  # sessions are small: compact around their middle
    # a window twice the threshold: the default threshold is then half the window, and the budgets its shares
    settings = EngineSettings(
        context_window=2 * threshold,
        memory=MemorySettings(project_root=str(tmp_path / "memory"), user_root=str(tmp_path / "user")),
    )
    assert AutoCompactSettings().threshold_for(settings.context_window) == threshold
    session = ContextSession(imported.session.id, settings=settings, counter=counter, workspace_root=str(tmp_path))
    compactions = []
    for api_round in group_rounds(messages):
        outcome = session.append(messages[api_round.start : api_round.end])
        assert validate(session.view()) == []
        if outcome.compaction_due:
            before = json.dumps(session.view())
            try:
                result = asyncio.run(session.compact(OfflineSummarizer(), trigger="auto"))
            except CompactionError as exc:  # no room: it waits for the context to grow, and says so once
                assert exc.kind == "not_smaller" and json.dumps(session.view()) == before
                assert not session.should_compact(session.usage())
                continue
            compactions.append({"before": before, "result": result})
            assert validate(session.view()) == []
            # a compaction leaves the headroom below the threshold: the next one waits for real growth
            assert result.boundary.tokens_after <= AutoCompactSettings().target_for(settings.context_window)
    return session, threshold, compactions


@pytest.mark.parametrize("path", [pytest.param(p, id=f"{p.parent.name[5:25]}-{p.stem[:8]}") for p in SESSIONS])
def test_real_session_compacts_at_a_synthetic_threshold(path: Path, counter: TiktokenCounter, tmp_path: Path) -> None:
    session, threshold, compactions = replay(path, counter, tmp_path)
    if not compactions:
        pytest.skip(f"{path.name}: never crosses {threshold} tokens")
    first_user = next(
        b["text"] for m in import_claude_code(path).session.messages if m["role"] == "user"
        for b in m["content"] if b.get("type") == "text" and b["text"].strip()
        and not b["text"].startswith(("Caveat:", "<"))  # Claude Code's local-command noise, not a request
    )  # fmt: skip
    summary = session.view()[0]["content"][0]["text"]
    assert summary.startswith("This session continues from an earlier conversation")
    assert " ".join(first_user.split())[:40] in " ".join(summary.split())  # the request survives in the summary
    # undo gives back exactly the view from before the last compaction (plus what came after it, if anything)
    last = compactions[-1]
    added_since = len(session.messages) - session.state.compactions.standing[-1].post_len
    session.undo()
    if added_since == 0:
        assert json.dumps(session.view()) == last["before"]
    assert validate(session.view()) == []


def test_the_corpus_is_there() -> None:
    assert len(SESSIONS) >= 10, f"expected the Claude Code corpus at {CORPUS}"
