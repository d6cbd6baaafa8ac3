"""Settings as they enter the server: ``initializationOptions`` and ``workspace/didChangeConfiguration``.

The wire is camelCase (docs/protocol.md); the engine only ever sees ``EngineSettings`` and the agent
``AgentSettings``. Each key is parsed on its own (``SETTINGS``), so a bad value costs only that key: it keeps the
value in force before the change (the default at ``initialize``) and the problem goes back to the user, naming the
key (``microcompact.keepRecent: expected an integer, got "5"``), as ruff's server does. Types are checked here,
ranges where they are declared (engine/settings.py ``limit``). Unknown keys are ignored, so a newer client can
talk to an older server.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from compact_lsp.agent.settings import AgentSettings
from compact_lsp.agents.claude_code.live import ClaudeCodeSettings
from compact_lsp.agents.codex.live import CodexSettings
from compact_lsp.engine.files.usable_path import path_problem
from compact_lsp.engine.rehydration_settings import RehydrationSettings
from compact_lsp.engine.setting_ranges import SettingsError, check_setting
from compact_lsp.engine.settings import (
    AutoCompactSettings,
    EngineSettings,
    MemorySettings,
    MicrocompactSettings,
    SessionMemorySettings,
)

SECTION = "compactLsp"
"""The configuration section clients send under ``workspace/didChangeConfiguration``."""

T = TypeVar("T")

_MISSING = object()


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"' if len(value) <= 40 else f'"{value[:37]}..."'
    if isinstance(value, (int, float)):
        return repr(value)
    return f"a{'n' if type(value).__name__[0] in 'aeiou' else ''} {type(value).__name__}"


def _int(key: str, raw: Any) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, float) and raw.is_integer():  # JSON clients may send 200000.0
        return int(raw)
    raise SettingsError(f"{key}: expected an integer, got {_describe(raw)}")


def _number(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SettingsError(f"{key}: expected a number, got {_describe(value)}")
    return float(value)


def _bool(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise SettingsError(f"{key}: expected true or false, got {_describe(value)}")
    return value


def _str(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(f"{key}: expected a non-empty string, got {_describe(value)}")
    return value.strip()


def _optional(parse: Callable[[str, Any], T]) -> Callable[[str, Any], T | None]:
    def parse_optional(key: str, value: Any) -> T | None:
        return None if value is None else parse(key, value)

    return parse_optional


def _names(key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise SettingsError(f"{key}: expected a list of tool names, got {_describe(value)}")
    names: list[str] = []
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item:
            raise SettingsError(f"{key}[{i}]: expected a non-empty string, got {_describe(item)}")
        names.append(item)
    return tuple(dict.fromkeys(names))


def _paths(key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise SettingsError(f"{key}: expected a list of directory paths, got {_describe(value)}")
    return tuple(dict.fromkeys(_path(f"{key}[{i}]", item) for i, item in enumerate(value)))


def _url(key: str, value: Any) -> str:
    text = _str(key, value)
    if not text.startswith(("http://", "https://")):
        raise SettingsError(f"{key}: expected an http:// or https:// URL, got {_describe(text)}")
    return text.rstrip("/")


def _path(key: str, value: Any) -> str:
    text = _str(key, value)
    problem = path_problem(text)
    if problem is not None:
        raise SettingsError(f"{key}: the path {problem}, so it cannot name a folder")
    return os.path.expanduser(text)


def _threshold(key: str, value: Any) -> tuple[int | None, float | None]:
    """``autoCompact.threshold``: tokens (150000), a percent string ("80%"), or null for the default."""
    if value is None:
        return None, None
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("%"):
            try:
                return None, float(text[:-1])
            except ValueError:
                raise SettingsError(f'{key}: expected a percent like "80%", got {_describe(value)}') from None
        raise SettingsError(f'{key}: expected tokens (150000) or a percent ("80%"), got {_describe(value)}')
    return _int(key, value), None


def _secret(key: str, value: Any) -> str | None:
    """A string whose value never appears in a message (the API key)."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise SettingsError(f"{key}: expected a non-empty string")
    return value.strip()


def _keyed(attr: str, parse: Callable[[str, Any], Any]) -> Callable[[str, Any], dict[str, Any]]:
    return lambda key, value: {attr: parse(key, value)}


def _threshold_fields(key: str, value: Any) -> dict[str, Any]:
    tokens, percent = _threshold(key, value)
    return {"threshold_tokens": tokens, "threshold_percent": percent}


SECTIONS: dict[str, type] = {
    "": EngineSettings,
    "memory": MemorySettings,
    "microcompact": MicrocompactSettings,
    "rehydration": RehydrationSettings,
    "autoCompact": AutoCompactSettings,
    "sessionMemory": SessionMemorySettings,
    "agent": AgentSettings,
    "claudeCode": ClaudeCodeSettings,
    "codex": CodexSettings,
}
"""Each settings object on the wire (``""``: the top level) and the class it fills."""

SETTINGS: dict[str, Callable[[str, Any], dict[str, Any]]] = {
    "contextWindow": _keyed("context_window", _int),
    "model": _keyed("model", _str),
    "compactionModel": _keyed("compaction_model", _optional(_str)),
    "baseUrl": _keyed("base_url", _optional(_url)),
    "apiKey": _keyed("api_key", _secret),
    "readTools": _keyed("read_tools", _names),
    "sessionDir": _keyed("session_dir", _optional(_path)),
    "preCompactCommand": _keyed("pre_compact_command", _optional(_str)),
    "additionalDirectories": _keyed("additional_directories", _paths),
    "memory.projectRoot": _keyed("project_root", _optional(_path)),
    "memory.userRoot": _keyed("user_root", _optional(_path)),
    "memory.teamRoot": _keyed("team_root", _optional(_path)),
    "microcompact.keepRecent": _keyed("keep_recent", _int),
    "microcompact.idleMinutes": _keyed("idle_minutes", _number),
    "microcompact.sizeThresholdTokens": _keyed("size_threshold_tokens", _optional(_int)),
    "microcompact.sizeThresholdPercent": _keyed("size_threshold_percent", _number),
    "microcompact.compactableTools": _keyed("compactable_tools", _names),
    "rehydration.maxFiles": _keyed("max_files", _int),
    "rehydration.tokenBudget": _keyed("token_budget", _optional(_int)),
    "rehydration.maxTokensPerFile": _keyed("max_tokens_per_file", _optional(_int)),
    "rehydration.budgetPercent": _keyed("budget_percent", _number),
    "rehydration.filePercent": _keyed("file_percent", _number),
    "autoCompact.enabled": _keyed("enabled", _bool),
    "autoCompact.threshold": _threshold_fields,
    "autoCompact.summaryPercent": _keyed("summary_percent", _number),
    "autoCompact.headroomPercent": _keyed("headroom_percent", _number),
    "sessionMemory.enabled": _keyed("enabled", _bool),
    "sessionMemory.useModel": _keyed("use_model", _bool),
    "sessionMemory.firstAfterTokens": _keyed("first_after_tokens", _int),
    "sessionMemory.everyTokens": _keyed("every_tokens", _int),
    "sessionMemory.minToolCalls": _keyed("min_tool_calls", _int),
    "agent.maxTokens": _keyed("max_tokens", _int),
    "agent.maxRounds": _keyed("max_rounds", _int),
    "agent.shell": _keyed("shell", _bool),
    "agent.maxRetries": _keyed("max_retries", _int),
    "agent.timeout": _keyed("timeout", _number),
    "claudeCode.follow": _keyed("follow", _optional(_bool)),
    "claudeCode.projectsDir": _keyed("projects_dir", _optional(_path)),
    "codex.follow": _keyed("follow", _optional(_bool)),
    "codex.home": _keyed("home", _optional(_path)),
}
"""Every setting by its wire key: a parser of its type, returning the fields it sets (ranges: ``check_setting``)."""


@dataclass(frozen=True)
class ParsedSettings:
    engine: EngineSettings
    agent: AgentSettings
    accepted: dict[str, Any]
    """The settings object as applied: every invalid value replaced by the one in force before, or left out.
    The next partial change merges onto this."""
    problems: list[str]
    """One line per ignored value, naming its key; empty when everything applied."""
    claude_code: ClaudeCodeSettings = field(default_factory=ClaudeCodeSettings)
    codex: CodexSettings = field(default_factory=CodexSettings)

    def follow_settings(self) -> dict[str, Any]:
        """Each agent's follow settings, by its name (agents/registered.py)."""
        return {"claude-code": self.claude_code, "codex": self.codex}

    def message(self) -> str | None:
        """What to tell the user (``window/showMessage``), or None."""
        if not self.problems:
            return None
        return "compact-lsp: ignored invalid settings, the values in force stay: " + "; ".join(self.problems)


def _lookup(raw: Mapping[str, Any], key: str) -> Any:
    section, _, name = key.rpartition(".")
    holder = raw.get(section) if section else raw
    return holder.get(name, _MISSING) if isinstance(holder, Mapping) else _MISSING


def _restore(accepted: dict[str, Any], in_force: Mapping[str, Any], key: str) -> Any:
    """Put back the value ``key`` had before (or drop the key); returns that value or ``_MISSING``."""
    section, _, name = key.rpartition(".")
    previous = _lookup(in_force, key)
    holder = accepted
    if section:
        holder = dict(accepted[section])
        accepted[section] = holder
    if previous is _MISSING:
        holder.pop(name, None)
    else:
        holder[name] = previous
    return previous


def _parse_one(key: str, value: Any) -> dict[str, Any]:
    section = key.rpartition(".")[0]
    fields = SETTINGS[key](key, value)
    for attr, parsed in fields.items():
        check_setting(SECTIONS[section], attr, parsed)
    return fields


def parse_settings(raw: Any, in_force: Mapping[str, Any] | None = None) -> ParsedSettings:
    """Parse the camelCase settings; a bad value keeps its value from ``in_force`` (the accepted settings before
    this change; defaults when None) and is reported, every other value applies."""
    in_force = in_force or {}
    problems: list[str] = []
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        problems.append(f"settings: expected an object, got {_describe(raw)}")
        raw = in_force
    accepted: dict[str, Any] = dict(raw)
    for section in SECTIONS:
        value = accepted.get(section) if section else None
        if value is None or isinstance(value, Mapping):
            continue
        problems.append(f"{section}: expected an object, got {_describe(value)}")
        previous = in_force.get(section, _MISSING)
        if previous is _MISSING:
            accepted.pop(section)
        else:
            accepted[section] = previous
    values: dict[str, dict[str, Any]] = {section: {} for section in SECTIONS}
    for key in SETTINGS:
        value = _lookup(accepted, key)
        if value is _MISSING:
            continue
        try:
            values[key.rpartition(".")[0]].update(_parse_one(key, value))
        except SettingsError as exc:
            problems.append(str(exc))
            previous = _restore(accepted, in_force, key)
            if previous is not _MISSING:
                values[key.rpartition(".")[0]].update(_parse_one(key, previous))
    engine = EngineSettings(
        memory=MemorySettings(**values["memory"]),
        microcompact=MicrocompactSettings(**values["microcompact"]),
        rehydration=RehydrationSettings(**values["rehydration"]),
        auto_compact=AutoCompactSettings(**values["autoCompact"]),
        session_memory=SessionMemorySettings(**values["sessionMemory"]),
        **values[""],
    )
    agent = AgentSettings(**values["agent"])
    return ParsedSettings(
        engine, agent, accepted, problems, ClaudeCodeSettings(**values["claudeCode"]), CodexSettings(**values["codex"])
    )


def unwrap_configuration(raw: Any) -> Any:
    """The settings object inside a ``didChangeConfiguration`` payload (``{"compactLsp": {...}}`` or bare)."""
    if isinstance(raw, Mapping) and isinstance(raw.get(SECTION), Mapping):
        return raw[SECTION]
    return raw


def merge_settings(base: Mapping[str, Any], change: Mapping[str, Any]) -> dict[str, Any]:
    """A partial change on top of the last raw settings: nested sections merge, other values replace, and a null
    takes the key out, back to its default (JSON Merge Patch, RFC 7396): an editor whose user reset a setting sends
    it as null, and the value set before must not stay in force."""
    merged = dict(base)
    for key, value in change.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge_settings(merged[key], value)
        elif isinstance(value, Mapping):
            merged[key] = merge_settings({}, value)
        else:
            merged[key] = value
    return merged


def resolve_paths(settings: EngineSettings, workspace_root: str | None) -> EngineSettings:
    """Make relative paths relative to the workspace root, so the engine never depends on the server's cwd."""
    if workspace_root is None:
        return settings

    def absolute(path: str | None) -> str | None:
        if path is None or os.path.isabs(path):
            return path
        return os.path.normpath(os.path.join(workspace_root, path))

    memory = settings.memory
    return replace(
        settings,
        session_dir=absolute(settings.session_dir),
        additional_directories=tuple(p for p in map(absolute, settings.additional_directories) if p),
        memory=MemorySettings(
            project_root=absolute(memory.project_root),
            user_root=absolute(memory.user_root),
            team_root=absolute(memory.team_root),
        ),
    )
