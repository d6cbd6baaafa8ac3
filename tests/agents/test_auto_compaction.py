"""Each agent's automatic compaction as configured where it runs: the threshold it fires at, and what turns it off
without a word, named with where it is set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_lsp.agents.agent_config import read_config, toml_table
from compact_lsp.agents.claude_code.auto_compaction import claude_code_auto_compaction, recorded_version
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


OLDER = "(2.1.21 and later: the window less 33,000)"


@pytest.mark.parametrize(
    ("version", "window", "env", "threshold", "origin"),
    [
        pytest.param("2.1.332", 1_000_000, {}, 967_000, "Claude Code's default: the window less 33,000", id="2.1.332"),
        pytest.param("2.1.21", 200_000, {}, 167_000, "Claude Code's default: the window less 33,000", id="2.1.21"),
        pytest.param("2.1.20", 200_000, {}, 155_000,
                     f"Claude Code 2.1.20 compacts at the window less 45,000 {OLDER}", id="2.1.20"),
        pytest.param("2.0.0", 1_000_000, {}, 955_000,
                     f"Claude Code 2.0.0 compacts at the window less 45,000 {OLDER}", id="2.0.0-1m"),
        pytest.param("1.0.71", 200_000, {}, 155_000,
                     f"Claude Code 1.0.71 compacts at the window less 45,000 {OLDER}", id="1.0.71"),
        pytest.param("1.0.70", 200_000, {}, 154_560,
                     f"Claude Code 1.0.70 compacts at 92% of (200,000 less 32,000) {OLDER}", id="1.0.70"),
        pytest.param("1.0.24", 200_000, {}, 154_560,
                     f"Claude Code 1.0.24 compacts at 92% of (200,000 less 32,000) {OLDER}", id="1.0.24"),
        pytest.param("1.0.15", 200_000, {}, 165_600,
                     f"Claude Code 1.0.15 compacts at 92% of 180,000 {OLDER}", id="1.0.15"),
        pytest.param("0.2.109", 200_000, {}, 165_600,
                     f"Claude Code 0.2.109 compacts at 92% of 180,000 {OLDER}", id="0.2.109"),
        pytest.param("2.0.19", 200_000, {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}, 155_000,
                     f"Claude Code 2.0.19 compacts at the window less 45,000 {OLDER}", id="pct-override-not-yet"),
        pytest.param("2.0.20", 200_000, {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}, 84_000,
                     "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=50 in the environment", id="pct-override"),
        pytest.param("2.1.74", 1_000_000, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "400000"}, 967_000,
                     "Claude Code's default: the window less 33,000", id="window-override-not-yet"),
        pytest.param("2.1.75", 1_000_000, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "400000"}, 367_000,
                     "CLAUDE_CODE_AUTO_COMPACT_WINDOW in the environment, less 33,000", id="window-override"),
        pytest.param("garbage", 200_000, {}, 167_000, "Claude Code's default: the window less 33,000",
                     id="unreadable-version-is-the-newest"),
    ],
)  # fmt: skip
def test_claude_code_by_the_version_its_transcript_records(
    tmp_path: Path, version: str, window: int, env: dict[str, str], threshold: int, origin: str
) -> None:
    auto = claude_code_auto_compaction(window, None, claude_transcript(tmp_path), env, version)
    assert auto is not None and (auto.threshold, auto.origin) == (threshold, origin)


@pytest.mark.parametrize(
    ("version", "env", "named"),
    [
        pytest.param("2.0.76", {"DISABLE_AUTO_COMPACT": "1"}, None, id="disable-auto-not-yet"),
        pytest.param("2.0.77", {"DISABLE_AUTO_COMPACT": "1"}, "DISABLE_AUTO_COMPACT in the environment", id="2.0.77"),
        pytest.param("2.0.29", {"DISABLE_COMPACT": "1"}, None, id="disable-compact-not-yet"),
        pytest.param("2.0.30", {"DISABLE_COMPACT": "1"}, "DISABLE_COMPACT in the environment", id="2.0.30"),
    ],
)
def test_a_variable_counts_from_the_version_that_reads_it(
    tmp_path: Path, version: str, env: dict[str, str], named: str | None
) -> None:
    auto = claude_code_auto_compaction(200_000, None, claude_transcript(tmp_path), env, version)
    assert auto is not None and auto.disabled_by == named and (auto.threshold is None) == (named is not None)


def test_before_the_first_rule_we_know_nothing_is_said(tmp_path: Path) -> None:
    """0.2.x before 0.2.109 took its share from a server-side flag (0.75 of 190,000 in 0.2.46, 0.95 of 180,000 in
    0.2.70): what it was for a session cannot be told."""
    assert claude_code_auto_compaction(200_000, None, claude_transcript(tmp_path), {}, "0.2.100") is None


def test_the_version_is_the_last_one_the_records_name() -> None:
    records = [{"version": "2.0.14"}, {"type": "summary"}, {"version": "2.1.3"}, {"version": "not a version"}]
    assert recorded_version(records) == "2.1.3"
    assert recorded_version([{"version": 2}, {}]) is None
