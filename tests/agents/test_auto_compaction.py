"""Each agent's automatic compaction as configured where it runs: the threshold it fires at, and what turns it off
without a word, named with where it is set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_lsp.agents.agent_config import read_config, toml_table
from compact_lsp.agents.claude_code.auto_compaction import claude_code_auto_compaction
from compact_lsp.agents.codex.auto_compaction import codex_auto_compaction
from compact_lsp.agents.followed_window import agent_usage
from compact_lsp.engine.conversation.next_compaction import AutoCompaction, next_compaction
from compact_lsp.engine.settings import EngineSettings


def claude_transcript(home: Path) -> Path:
    path = home / ".claude" / "projects" / "-w" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("")
    return path


@pytest.mark.parametrize(
    ("settings", "global_config", "env", "threshold", "named"),
    [
        pytest.param({}, None, {}, 167_000, None, id="default-200k"),
        pytest.param({}, None, {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}, 90_000, None, id="pct-override"),
        pytest.param({}, None, {"DISABLE_COMPACT": "true"}, None, "DISABLE_COMPACT in the environment", id="env-off"),
        pytest.param({"env": {"DISABLE_AUTO_COMPACT": "1"}}, None, {}, None,
                     "DISABLE_AUTO_COMPACT in ~/.claude/settings.json (env)", id="settings-env-off"),
        pytest.param({}, {"autoCompactEnabled": False}, {}, None, '"autoCompactEnabled": false in ~/.claude.json',
                     id="global-config-off"),
        pytest.param({"env": {"DISABLE_AUTO_COMPACT": "0"}}, None, {}, 167_000, None, id="falsy-is-not-off"),
    ],
)  # fmt: skip
def test_claude_code(
    tmp_path: Path,
    settings: dict[str, object],
    global_config: dict[str, object] | None,
    env: dict[str, str],
    threshold: int | None,
    named: str | None,
) -> None:
    transcript = claude_transcript(tmp_path)
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    if global_config is not None:
        (tmp_path / ".claude.json").write_text(json.dumps(global_config))
    auto = claude_code_auto_compaction(200_000, None, transcript, env)
    assert auto is not None and (auto.threshold, auto.disabled_by) == (threshold, named)


def test_claude_code_without_a_window_yet_has_no_threshold(tmp_path: Path) -> None:
    assert claude_code_auto_compaction(None, None, claude_transcript(tmp_path), {}) is None


@pytest.mark.parametrize(
    ("config", "threshold", "named"),
    [
        pytest.param("", 244_800, None, id="default-90-percent-of-272k"),
        pytest.param("model_auto_compact_token_limit = 120000\n", 120_000, None, id="configured"),
        pytest.param("model_auto_compact_token_limit = 900000\n", None,
                     "model_auto_compact_token_limit = 900,000 in ~/.codex/config.toml: at or past the window, so "
                     "Codex never compacts by itself", id="past-the-window"),
        pytest.param("not [valid toml", 244_800, None, id="unreadable-is-the-default"),
    ],
)  # fmt: skip
def test_codex(tmp_path: Path, config: str, threshold: int | None, named: str | None) -> None:
    home = tmp_path / ".codex"
    rollout = home / "sessions" / "2026" / "12" / "06" / "rollout-x.jsonl"
    rollout.parent.mkdir(parents=True)
    (home / "config.toml").write_text(config)
    auto = codex_auto_compaction(258_400, None, rollout, {})
    assert auto is not None and (auto.threshold, auto.disabled_by) == (threshold, named)


@pytest.mark.parametrize(
    ("total", "turns", "left", "turns_left", "near"),
    [
        pytest.param(50_000, 5, 117_000, 12, False, id="far"),
        pytest.param(140_000, 7, 27_000, 2, True, id="two-turns-away"),
        pytest.param(155_000, 100, 12_000, 8, True, id="within-10-percent"),
        pytest.param(0, 0, 167_000, None, False, id="no-turn-yet"),
    ],
)
def test_how_far_the_next_compaction_is(total: int, turns: int, left: int, turns_left: int | None, near: bool) -> None:
    shown = next_compaction(total, AutoCompaction(167_000, "Claude Code's default"), turns)
    assert (shown.tokens_left, shown.turns_left, shown.near) == (left, turns_left, near)


def test_a_configuration_file_is_parsed_again_only_when_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("model_auto_compact_token_limit = 1000\n")
    assert read_config(path, toml_table) == {"model_auto_compact_token_limit": 1000}
    path.write_text("model_auto_compact_token_limit = 20000\n")  # another size: read again
    assert read_config(path, toml_table) == {"model_auto_compact_token_limit": 20000}
    assert read_config(tmp_path / "missing.toml", toml_table) is None


@pytest.mark.parametrize(
    ("reported", "level"),
    [
        pytest.param(500_000, "ok", id="half-way"),
        pytest.param(940_000, "warning", id="940k-is-near-967k"),
        pytest.param(967_000, "critical", id="at-the-threshold"),
    ],
)
def test_the_gauge_level_is_the_agents_next_compaction(tmp_path: Path, reported: int, level: str) -> None:
    """A followed Claude Code session at 1M compacts at 967,000 by default: its gauge warns when that is near,
    whatever our own thresholds say."""
    auto = claude_code_auto_compaction(1_000_000, None, claude_transcript(tmp_path), {})
    usage = agent_usage({"tool_result": 10_000}, EngineSettings(), reported, 1_000_000, auto, turns=40)
    assert usage.next_compaction is not None and usage.next_compaction.threshold == 967_000
    assert usage.level == level and usage.next_compaction.near == (level != "ok")
    assert usage.warning_threshold <= 940_000 < usage.auto_compact_threshold
