"""The evaluation's policy "Claude Code + our hook" on the corpus: what the hook adds to Claude Code's own rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_lsp.engine.compaction.hook_policy import DEFAULT_BUDGET
from compact_lsp.offline import main

CLAUDE_CODE = "Claude Code / Qwen: 5 most recent files, head of big ones"
WITH_HOOK = "Claude Code + our hook (10k more)"


def test_the_hook_cuts_claude_codes_strict_misses_within_its_budget(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(corpus_dir), "--json"]) == 0
    rankers = {r["name"]: r for r in json.loads(capsys.readouterr().out)["rankers"]}
    alone, hooked = rankers[CLAUDE_CODE], rankers[WITH_HOOK]
    assert hooked["needed"] == alone["needed"] > 0
    assert alone["strictMisses"] > 0, "the corpus no longer shows Claude Code's rule missing anything"
    assert hooked["strictMissRate"] <= 0.05
    assert hooked["strictMisses"] < alone["strictMisses"]
    assert 0 < hooked["meanTokens"] - alone["meanTokens"] <= DEFAULT_BUDGET
