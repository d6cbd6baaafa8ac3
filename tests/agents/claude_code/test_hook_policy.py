"""The evaluation's policies "<agent> + our hook" on the corpus: what the hook adds to Claude Code's, Codex's, Qwen
Code's and Gemini CLI's own rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_lsp.agents.character_fit import DEFAULT_BUDGET
from compact_lsp.agents.gemini_cli.hook import GEMINI_CONTEXT_LIMIT
from compact_lsp.agents.qwen_code.hook import QWEN_CONTEXT_LIMIT
from compact_lsp.cli.offline import main
from compact_lsp.evaluation.config import CLAUDE_CODE_NAME as CLAUDE_CODE
from compact_lsp.evaluation.config import (
    CODEX_NAME,
    CODEX_WITH_HOOK_NAME,
    GEMINI_CLI_NAME,
    GEMINI_CLI_WITH_HOOK_NAME,
    QWEN_CODE_NAME,
    QWEN_CODE_WITH_HOOK_NAME,
)
from compact_lsp.evaluation.config import WITH_HOOK_NAME as WITH_HOOK


@pytest.mark.slow
def test_the_hook_cuts_claude_codes_strict_misses_within_its_budget(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(corpus_dir), "--json"]) == 0
    rankers = {r["name"]: r for r in json.loads(capsys.readouterr().out)["rankers"]}
    alone, hooked = rankers[CLAUDE_CODE], rankers[WITH_HOOK]
    assert hooked["needed"] == alone["needed"] > 0
    assert alone["strictMisses"] > 0, "the corpus no longer shows Claude Code's rule missing anything"
    # Measured 2026-12-05 (docs/evaluation.md), Claude Code with its size cut (a file past 5,000 tokens by name
    # only): 27 of 101 alone, 19 of 101 with the hook, whose whole answer must fit Claude Code's 10,000-character
    # inline limit and now opens with the working-set ledger (18 before the ledger took its share of the
    # characters); more misses than that is a regression. (Without the cut, as modelled before: 11 and 6.)
    assert hooked["strictMisses"] < alone["strictMisses"]
    assert hooked["strictMisses"] <= 19
    assert 0 < hooked["meanTokens"] - alone["meanTokens"] <= DEFAULT_BUDGET  # characters, so tokens fit too
    # Codex re-attaches no file itself: every need is a miss without the hook. With it (measured 2026-12-05, the
    # corpus replayed as if Codex had compacted it): 23 of 101 needed files not sent at all (22 before the ledger
    # took its share of the characters), 65 not covered whole (63 before),
    # at about 1,110 tokens a point -- what 10,000 characters hold (before gaps were filled and slices carried an
    # outline: 20 not sent, 71 not covered; the outline's characters leave room for two files fewer).
    codex, codex_hooked = rankers[CODEX_NAME], rankers[CODEX_WITH_HOOK_NAME]
    assert codex["neededMisses"] == codex["needed"] == alone["needed"]
    assert codex_hooked["neededMisses"] <= 23 < codex["neededMisses"]
    assert codex_hooked["strictMisses"] <= 65 < codex["strictMisses"]
    assert 0 < codex_hooked["meanTokens"] <= DEFAULT_BUDGET
    # Qwen Code re-reads its five most recent files itself, whole up to ~5,000 tokens (characters / 4), by name past
    # that (measured on 0.24.4; agents/qwen_code/hook.qwen_restored). Measured 2026-12-06 on the corpus: 40 of 101
    # needed files not sent alone; with our hook (24,000 characters, its own budget) none unsent and 19 not covered
    # whole, at about 550 tokens more a point.
    qwen, qwen_hooked = rankers[QWEN_CODE_NAME], rankers[QWEN_CODE_WITH_HOOK_NAME]
    assert qwen["needed"] == alone["needed"] and qwen["neededMisses"] > 0
    assert qwen_hooked["neededMisses"] <= 0 < qwen["neededMisses"]
    assert qwen_hooked["strictMisses"] <= 19 < qwen["strictMisses"]
    assert 0 < qwen_hooked["meanTokens"] - qwen["meanTokens"] <= QWEN_CONTEXT_LIMIT
    # Gemini CLI re-attaches no file itself (0.61.0: its summary). With our BeforeModel hook on the summary (24,000
    # characters, its own budget), measured 2026-12-06 on the corpus: 1 of 101 needed files not sent, 39 not covered
    # whole, about 1,690 tokens a point.
    gemini, gemini_hooked = rankers[GEMINI_CLI_NAME], rankers[GEMINI_CLI_WITH_HOOK_NAME]
    assert gemini["neededMisses"] == gemini["needed"] == alone["needed"]
    assert gemini_hooked["neededMisses"] <= 1 < gemini["neededMisses"]
    assert gemini_hooked["strictMisses"] <= 39 < gemini["strictMisses"]
    assert 0 < gemini_hooked["meanTokens"] <= GEMINI_CONTEXT_LIMIT
