"""The settings parser: camelCase wire objects into EngineSettings, with errors that name the key."""

from __future__ import annotations

from typing import Any

import pytest

from compact_lsp.engine.settings import EngineSettings, SettingsError
from compact_lsp.lsp.settings import (
    merge_settings,
    parse_settings,
    resolve_paths,
    settings_or_defaults,
    unwrap_configuration,
)


@pytest.mark.parametrize(
    ("raw", "check"),
    [
        pytest.param(None, lambda s: s == EngineSettings(), id="null-is-defaults"),
        pytest.param({}, lambda s: s == EngineSettings(), id="empty-is-defaults"),
        pytest.param({"contextWindow": 1_000_000}, lambda s: s.context_window == 1_000_000, id="context-window"),
        pytest.param({"contextWindow": 200000.0}, lambda s: s.context_window == 200_000, id="integral-float"),
        pytest.param({"model": " claude-opus-4-1 "}, lambda s: s.model == "claude-opus-4-1", id="model-trimmed"),
        pytest.param(
            {"compactionModel": "claude-haiku-4-5"},
            lambda s: s.compaction_model == "claude-haiku-4-5",
            id="compaction-model",
        ),
        pytest.param({"compactionModel": None}, lambda s: s.compaction_model is None, id="compaction-model-null"),
        pytest.param(
            {"baseUrl": "http://127.0.0.1:8080/"},
            lambda s: s.base_url == "http://127.0.0.1:8080",
            id="base-url-trailing-slash",
        ),
        pytest.param(
            {"memory": {"projectRoot": "/p", "userRoot": "/u", "teamRoot": "/t"}},
            lambda s: (s.memory.project_root, s.memory.user_root, s.memory.team_root) == ("/p", "/u", "/t"),
            id="memory-roots",
        ),
        pytest.param({"memory": None}, lambda s: s.memory.project_root is None, id="memory-null"),
        pytest.param(
            {"microcompact": {"keepRecent": 0}},
            lambda s: s.microcompact.effective_keep_recent == 1,
            id="keep-recent-floored",
        ),
        pytest.param({"microcompact": {"idleMinutes": -1}}, lambda s: s.microcompact.idle_minutes == -1, id="idle-off"),
        pytest.param(
            {"microcompact": {"idleMinutes": 2.5}},
            lambda s: s.microcompact.idle_minutes == 2.5,
            id="idle-fraction",
        ),
        pytest.param(
            {"microcompact": {"sizeThresholdTokens": -1}},
            lambda s: s.microcompact.size_threshold_tokens == -1,
            id="size-off",
        ),
        pytest.param(
            {"microcompact": {"compactableTools": ["Read", "Read", "Bash"]}},
            lambda s: s.microcompact.compactable_tools == ("Read", "Bash"),
            id="tools-deduplicated",
        ),
        pytest.param(
            {"rehydration": {"maxFiles": 0, "tokenBudget": 10, "maxTokensPerFile": 5}},
            lambda s: (
                (s.rehydration.max_files, s.rehydration.token_budget, s.rehydration.max_tokens_per_file) == (0, 10, 5)
            ),
            id="rehydration",
        ),
        pytest.param({"autoCompact": {"enabled": False}}, lambda s: not s.auto_compact.enabled, id="auto-off"),
        pytest.param(
            {"autoCompact": {"threshold": 150000}},
            lambda s: s.auto_compact.threshold_for(200_000) == 150_000,
            id="threshold-tokens",
        ),
        pytest.param(
            {"autoCompact": {"threshold": "80%"}},
            lambda s: s.auto_compact.threshold_for(200_000) == 160_000,
            id="threshold-percent",
        ),
        pytest.param(
            {"autoCompact": {"threshold": " 50.5% "}},
            lambda s: s.auto_compact.threshold_percent == 50.5,
            id="threshold-percent-spaces",
        ),
        pytest.param(
            {"autoCompact": {"threshold": None}},
            lambda s: s.auto_compact.threshold_for(200_000) == 167_000,
            id="threshold-default",
        ),
        pytest.param({"readTools": ["view_file"]}, lambda s: s.read_tools == ("view_file",), id="read-tools"),
        pytest.param(
            {"sessionDir": "~/sessions"},
            lambda s: s.session_dir is not None and not s.session_dir.startswith("~"),
            id="session-dir-home-expanded",
        ),
        pytest.param(
            {"unknownKey": 1, "microcompact": {"future": True}},
            lambda s: s == EngineSettings(),
            id="unknown-keys-ignored",
        ),
    ],
)
def test_valid_settings_parse(raw: Any, check: Any) -> None:
    assert check(parse_settings(raw))


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param([], "settings: expected an object", id="not-an-object"),
        pytest.param({"contextWindow": "200000"}, 'contextWindow: expected an integer, got "200000"', id="string-int"),
        pytest.param({"contextWindow": True}, "contextWindow: expected an integer, got true", id="bool-int"),
        pytest.param({"contextWindow": 999}, "contextWindow: must be at least 1000", id="window-too-small"),
        pytest.param({"contextWindow": 1.5}, "contextWindow: expected an integer", id="fractional-int"),
        pytest.param({"model": ""}, "model: expected a non-empty string", id="empty-model"),
        pytest.param({"model": 4}, "model: expected a non-empty string, got 4", id="numeric-model"),
        pytest.param({"baseUrl": "localhost:8080"}, "baseUrl: expected an http:// or https:// URL", id="url-scheme"),
        pytest.param({"memory": "/p"}, "memory: expected an object", id="memory-not-object"),
        pytest.param({"memory": {"teamRoot": 3}}, "memory.teamRoot: expected a non-empty string", id="team-root"),
        pytest.param(
            {"microcompact": {"keepRecent": -2}},
            "microcompact.keepRecent: must be at least 0",
            id="keep-recent-negative",
        ),
        pytest.param(
            {"microcompact": {"idleMinutes": -5}},
            "microcompact.idleMinutes: must be >= 0 or -1",
            id="idle-negative",
        ),
        pytest.param(
            {"microcompact": {"idleMinutes": "60"}},
            "microcompact.idleMinutes: expected a number",
            id="idle-string",
        ),
        pytest.param(
            {"microcompact": {"sizeThresholdTokens": 0}},
            "microcompact.sizeThresholdTokens: must be at least 1 (or -1 to turn it off)",
            id="size-zero",
        ),
        pytest.param(
            {"microcompact": {"compactableTools": "Read"}},
            "microcompact.compactableTools: expected a list of tool names",
            id="tools-not-list",
        ),
        pytest.param(
            {"microcompact": {"compactableTools": ["Read", 7]}},
            "microcompact.compactableTools[1]: expected a non-empty string",
            id="tools-bad-item",
        ),
        pytest.param(
            {"rehydration": {"tokenBudget": -1}},
            "rehydration.tokenBudget: must be at least 0",
            id="budget-negative",
        ),
        pytest.param(
            {"autoCompact": {"enabled": "yes"}},
            'autoCompact.enabled: expected true or false, got "yes"',
            id="enabled-string",
        ),
        pytest.param({"autoCompact": {"threshold": "80"}}, "autoCompact.threshold: expected tokens", id="no-percent"),
        pytest.param({"autoCompact": {"threshold": "x%"}}, 'expected a percent like "80%"', id="bad-percent"),
        pytest.param({"autoCompact": {"threshold": "0%"}}, "above 0% and at most 100%", id="zero-percent"),
        pytest.param({"autoCompact": {"threshold": "150%"}}, "above 0% and at most 100%", id="over-percent"),
        pytest.param({"autoCompact": {"threshold": 0}}, "autoCompact.threshold: must be at least 1", id="zero-tokens"),
        pytest.param({"readTools": [""]}, "readTools[0]: expected a non-empty string", id="empty-tool-name"),
        pytest.param({"sessionDir": 5}, "sessionDir: expected a non-empty string", id="session-dir-number"),
    ],
)
def test_invalid_settings_name_the_key(raw: Any, message: str) -> None:
    with pytest.raises(SettingsError) as info:
        parse_settings(raw)
    assert message in str(info.value)


def test_invalid_settings_fall_back_to_defaults_with_a_message() -> None:
    settings, problem = settings_or_defaults({"contextWindow": 500_000, "microcompact": {"keepRecent": "3"}})
    assert settings == EngineSettings()
    assert problem is not None and "microcompact.keepRecent" in problem and "defaults" in problem


def test_valid_settings_have_no_message() -> None:
    settings, problem = settings_or_defaults({"contextWindow": 500_000})
    assert problem is None and settings.context_window == 500_000


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        pytest.param({"compactLsp": {"model": "m"}}, {"model": "m"}, id="section"),
        pytest.param({"model": "m"}, {"model": "m"}, id="bare"),
        pytest.param(None, None, id="null"),
    ],
)
def test_configuration_payload_is_unwrapped(payload: Any, expected: Any) -> None:
    assert unwrap_configuration(payload) == expected


def test_partial_change_merges_nested_sections() -> None:
    base = {"contextWindow": 100_000, "microcompact": {"keepRecent": 3, "idleMinutes": 5}}
    merged = merge_settings(base, {"microcompact": {"keepRecent": 7}})
    assert merged == {"contextWindow": 100_000, "microcompact": {"keepRecent": 7, "idleMinutes": 5}}
    assert base["microcompact"] == {"keepRecent": 3, "idleMinutes": 5}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param("sessions", "/ws/sessions", id="relative"),
        pytest.param("/abs/sessions", "/abs/sessions", id="absolute"),
        pytest.param(None, None, id="unset"),
    ],
)
def test_relative_paths_resolve_against_the_workspace(given: str | None, expected: str | None) -> None:
    raw: dict[str, Any] = {"memory": {"teamRoot": given}} if given else {}
    if given:
        raw["sessionDir"] = given
    settings = resolve_paths(parse_settings(raw), "/ws")
    assert settings.session_dir == expected
    assert settings.memory.team_root == expected
