"""The settings tier: camelCase wire objects into EngineSettings and AgentSettings.

A bad value never costs more than its own key: it keeps the value in force before the change and the problem is
reported, naming the key. Ranges are declared once on the settings fields, so the engine objects built directly
say the same thing as the parser.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from compact_lsp.agent.settings import AgentSettings
from compact_lsp.engine.rehydration_settings import RehydrationSettings
from compact_lsp.engine.setting_ranges import SettingsError
from compact_lsp.engine.settings import AutoCompactSettings, EngineSettings, MicrocompactSettings, SessionNotesSettings
from compact_lsp.lsp.settings import merge_settings, parse_settings, resolve_paths, unwrap_configuration


def engine_of(raw: Any) -> EngineSettings:
    parsed = parse_settings(raw)
    assert parsed.problems == []
    return parsed.engine


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
        pytest.param(
            {"additionalDirectories": ["/srv/lib", "/srv/lib", "../sibling"]},
            lambda s: s.additional_directories == ("/srv/lib", "../sibling"),
            id="additional-directories-deduplicated",
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
    assert check(engine_of(raw))


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
            "microcompact.idleMinutes: must be at least 0 (or -1 to turn it off)",
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
        pytest.param(
            {"additionalDirectories": "/srv"},
            "additionalDirectories: expected a list of directory paths",
            id="additional-directories-not-a-list",
        ),
        pytest.param(
            {"additionalDirectories": ["/srv", ""]},
            "additionalDirectories[1]: expected a non-empty string",
            id="additional-directory-empty",
        ),
    ],
)
def test_invalid_settings_name_the_key(raw: Any, message: str) -> None:
    parsed = parse_settings(raw)
    assert len(parsed.problems) == 1
    assert message in parsed.problems[0]
    assert parsed.message() is not None and message in parsed.message()
    assert parsed.engine == EngineSettings()  # at initialize, the value in force is the default


def test_a_bad_key_costs_only_itself() -> None:
    parsed = parse_settings({"contextWindow": 500_000, "microcompact": {"keepRecent": "3", "idleMinutes": 5}})
    assert parsed.engine.context_window == 500_000
    assert parsed.engine.microcompact.idle_minutes == 5
    assert parsed.engine.microcompact.keep_recent == MicrocompactSettings().keep_recent
    assert parsed.problems == ['microcompact.keepRecent: expected an integer, got "3"']
    assert parsed.accepted == {"contextWindow": 500_000, "microcompact": {"idleMinutes": 5}}


def test_valid_settings_have_no_message() -> None:
    parsed = parse_settings({"contextWindow": 500_000})
    assert parsed.message() is None and parsed.engine.context_window == 500_000


IN_FORCE: dict[str, Any] = {
    "sessionDir": "/data/sessions",
    "apiKey": "sk-ant-in-force",
    "contextWindow": 500_000,
    "microcompact": {"keepRecent": 2, "idleMinutes": 5},
    "agent": {"maxRounds": 7},
}


@pytest.mark.parametrize(
    ("change", "check"),
    [
        pytest.param({"sessionDir": 5}, lambda p: p.engine.session_dir == "/data/sessions", id="session-dir"),
        pytest.param({"sessionDir": ""}, lambda p: p.engine.session_dir == "/data/sessions", id="session-dir-empty"),
        pytest.param({"apiKey": 1234}, lambda p: p.engine.api_key == "sk-ant-in-force", id="api-key"),
        pytest.param({"contextWindow": 10}, lambda p: p.engine.context_window == 500_000, id="range"),
        pytest.param(
            {"microcompact": {"keepRecent": -1}}, lambda p: p.engine.microcompact.keep_recent == 2, id="nested"
        ),
        pytest.param(
            {"microcompact": "off"},
            lambda p: (p.engine.microcompact.keep_recent, p.engine.microcompact.idle_minutes) == (2, 5),
            id="section-not-an-object",
        ),
        pytest.param({"agent": {"maxRounds": 0}}, lambda p: p.agent.max_rounds == 7, id="agent"),
    ],
)
def test_a_bad_change_keeps_the_value_in_force_not_the_default(change: dict[str, Any], check: Any) -> None:
    parsed = parse_settings(merge_settings(IN_FORCE, change), IN_FORCE)
    assert check(parsed)
    assert len(parsed.problems) == 1
    assert parsed.engine.api_key == "sk-ant-in-force"
    assert parsed.engine.session_dir == "/data/sessions"
    # the next change merges onto what was applied, so the bad value does not come back
    assert parse_settings(parsed.accepted, parsed.accepted).problems == []


def test_a_bad_change_still_applies_its_good_keys() -> None:
    change = {"contextWindow": 300_000, "sessionDir": None, "microcompact": {"keepRecent": "all"}}
    parsed = parse_settings(merge_settings(IN_FORCE, change), IN_FORCE)
    assert parsed.engine.context_window == 300_000
    assert parsed.engine.session_dir is None  # null is a valid value: the user's state dir
    assert parsed.engine.microcompact.keep_recent == 2


def test_a_bad_api_key_is_never_echoed() -> None:
    parsed = parse_settings({"apiKey": ["sk-ant-secret-value"]})
    assert parsed.problems == ["apiKey: expected a non-empty string"]
    assert "sk-ant" not in (parsed.message() or "")


def test_settings_that_are_not_an_object_keep_everything() -> None:
    parsed = parse_settings([1, 2], IN_FORCE)
    assert parsed.problems == ["settings: expected an object, got a list"]
    assert parsed.engine.context_window == 500_000 and parsed.agent.max_rounds == 7


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(None, AgentSettings(), id="absent"),
        pytest.param({"maxTokens": 1024, "shell": True}, AgentSettings(max_tokens=1024, shell=True), id="values"),
        pytest.param({"timeout": 30, "maxRetries": 0}, AgentSettings(timeout=30.0, max_retries=0), id="numbers"),
    ],
)
def test_agent_settings_parse_with_the_rest(raw: Any, expected: AgentSettings) -> None:
    parsed = parse_settings({"agent": raw})
    assert parsed.problems == [] and parsed.agent == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param({"maxRounds": 0}, "agent.maxRounds: must be at least 1, got 0", id="rounds"),
        pytest.param({"shell": "yes"}, 'agent.shell: expected true or false, got "yes"', id="shell"),
        pytest.param({"timeout": "10"}, 'agent.timeout: expected a number, got "10"', id="timeout"),
        pytest.param({"maxRetries": -1}, "agent.maxRetries: must be at least 0, got -1", id="retries"),
    ],
)
def test_agent_settings_problems_are_reported(raw: Any, message: str) -> None:
    parsed = parse_settings({"agent": raw})
    assert parsed.problems == [message]
    assert parsed.agent == AgentSettings()


@pytest.mark.parametrize(
    ("build", "message"),
    [
        pytest.param(lambda: EngineSettings(context_window=999), "contextWindow: must be at least 1000", id="window"),
        pytest.param(
            lambda: MicrocompactSettings(idle_minutes=-5),
            "microcompact.idleMinutes: must be at least 0 (or -1 to turn it off), got -5",
            id="idle",
        ),
        pytest.param(
            lambda: RehydrationSettings(max_files=-1), "rehydration.maxFiles: must be at least 0, got -1", id="files"
        ),
        pytest.param(
            lambda: AutoCompactSettings(threshold_percent=0),
            "autoCompact.threshold: must be above 0% and at most 100%, got 0%",
            id="percent",
        ),
        pytest.param(
            lambda: SessionNotesSettings(every_tokens=-1),
            "sessionMemory.everyTokens: must be at least 0, got -1",
            id="notes",
        ),
        pytest.param(lambda: AgentSettings(max_tokens=0), "agent.maxTokens: must be at least 1, got 0", id="agent"),
    ],
)
def test_settings_built_directly_say_what_the_parser_says(build: Any, message: str) -> None:
    with pytest.raises(SettingsError, match=re.escape(message)):
        build()


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


def test_a_setting_reset_in_the_editor_goes_back_to_its_default() -> None:
    """VS Code sends every setting, an unset one as null: the low threshold set before must not stay in force."""
    in_force = {"contextWindow": 100_000, "autoCompact": {"threshold": 3000, "enabled": True}}
    before = parse_settings(in_force)
    assert before.engine.auto_compact.threshold_tokens == 3000
    change = {"contextWindow": None, "autoCompact": {"threshold": None, "enabled": True}, "compactionModel": None}
    merged = merge_settings(in_force, change)
    assert merged == {"autoCompact": {"enabled": True}}
    after = parse_settings(merged, in_force)
    assert after.problems == []
    assert after.engine == parse_settings({}).engine  # every value back to its default


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
    settings = resolve_paths(engine_of(raw), "/ws")
    assert settings.session_dir == expected
    assert settings.memory.team_root == expected


def test_additional_directories_are_resolved_against_the_workspace_root() -> None:
    settings = resolve_paths(
        parse_settings({"additionalDirectories": ["../sibling", "/srv/lib", "~/notes"]}).engine, "/ws/app"
    )
    assert settings.additional_directories[:2] == ("/ws/sibling", "/srv/lib")
    assert os.path.isabs(settings.additional_directories[2]) and "~" not in settings.additional_directories[2]
