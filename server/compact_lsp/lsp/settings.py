"""Settings as they enter the server: ``initializationOptions`` and ``workspace/didChangeConfiguration``.

The wire is camelCase (docs/protocol.md); the engine only ever sees ``EngineSettings``. Parsing is explicit so
that an error names the key a person has to fix (``microcompact.keepRecent: expected an integer, got "5"``).
Unknown keys are ignored, so a newer client can talk to an older server.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from compact_lsp.engine.settings import (
    AutoCompactSettings,
    EngineSettings,
    MemorySettings,
    MicrocompactSettings,
    RehydrationSettings,
    SessionMemorySettings,
    SettingsError,
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


def _int(key: str, raw: Any, minimum: int | None = None, allow_off: bool = False) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool):
        value = raw
    elif isinstance(raw, float) and raw.is_integer():  # JSON clients may send 200000.0
        value = int(raw)
    else:
        raise SettingsError(f"{key}: expected an integer, got {_describe(raw)}")
    if allow_off and value == -1:
        return value
    if minimum is not None and value < minimum:
        extra = " (or -1 to turn it off)" if allow_off else ""
        raise SettingsError(f"{key}: must be at least {minimum}{extra}, got {value}")
    return value


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


def _url(key: str, value: Any) -> str:
    text = _str(key, value)
    if not text.startswith(("http://", "https://")):
        raise SettingsError(f"{key}: expected an http:// or https:// URL, got {_describe(text)}")
    return text.rstrip("/")


def _path(key: str, value: Any) -> str:
    return os.path.expanduser(_str(key, value))


def _object(key: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SettingsError(f"{key}: expected an object, got {_describe(value)}")
    return value


def _field(raw: Mapping[str, Any], key: str) -> Any:
    return raw.get(key, _MISSING)


def _threshold(key: str, value: Any) -> tuple[int | None, float | None]:
    """``autoCompact.threshold``: tokens (150000), a percent string ("80%"), or null for the default."""
    if value is None:
        return None, None
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("%"):
            try:
                percent = float(text[:-1])
            except ValueError:
                raise SettingsError(f'{key}: expected a percent like "80%", got {_describe(value)}') from None
            if not 0 < percent <= 100:
                raise SettingsError(f"{key}: a percent must be above 0% and at most 100%, got {text}")
            return None, percent
        raise SettingsError(f'{key}: expected tokens (150000) or a percent ("80%"), got {_describe(value)}')
    return _int(key, value, minimum=1), None


def _section(raw: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = _field(raw, name)
    return {} if value is _MISSING or value is None else _object(name, value)


def parse_settings(raw: Any) -> EngineSettings:
    """Parse the camelCase settings object into ``EngineSettings``; raise ``SettingsError`` naming the key."""
    if raw is None:
        return EngineSettings()
    raw = _object("settings", raw)
    top: dict[str, Any] = {}
    scalar_fields: list[tuple[str, str, Callable[[str, Any], Any]]] = [
        ("contextWindow", "context_window", lambda k, v: _int(k, v, minimum=1_000)),
        ("model", "model", _str),
        ("compactionModel", "compaction_model", _optional(_str)),
        ("baseUrl", "base_url", _optional(_url)),
        ("apiKey", "api_key", _optional(_str)),
        ("readTools", "read_tools", _names),
        ("sessionDir", "session_dir", _optional(_path)),
        ("preCompactCommand", "pre_compact_command", _optional(_str)),
    ]
    for key, attr, parse in scalar_fields:
        value = _field(raw, key)
        if value is not _MISSING:
            top[attr] = parse(key, value)

    memory = _section(raw, "memory")
    memory_kwargs = {
        attr: _optional(_path)(f"memory.{key}", memory[key])
        for key, attr in (
            ("projectRoot", "project_root"),
            ("userRoot", "user_root"),
            ("teamRoot", "team_root"),
        )
        if key in memory
    }

    micro = _section(raw, "microcompact")
    micro_kwargs: dict[str, Any] = {}
    if "keepRecent" in micro:
        micro_kwargs["keep_recent"] = _int("microcompact.keepRecent", micro["keepRecent"], minimum=0)
    if "idleMinutes" in micro:
        minutes = _number("microcompact.idleMinutes", micro["idleMinutes"])
        if minutes != -1 and minutes < 0:
            raise SettingsError(f"microcompact.idleMinutes: must be >= 0 or -1 to turn it off, got {minutes:g}")
        micro_kwargs["idle_minutes"] = minutes
    if "sizeThresholdTokens" in micro:
        micro_kwargs["size_threshold_tokens"] = _int(
            "microcompact.sizeThresholdTokens", micro["sizeThresholdTokens"], minimum=1, allow_off=True
        )
    if "compactableTools" in micro:
        micro_kwargs["compactable_tools"] = _names("microcompact.compactableTools", micro["compactableTools"])

    rehydration = _section(raw, "rehydration")
    rehydration_kwargs = {
        attr: _int(f"rehydration.{key}", rehydration[key], minimum=0)
        for key, attr in (
            ("maxFiles", "max_files"),
            ("tokenBudget", "token_budget"),
            ("maxTokensPerFile", "max_tokens_per_file"),
        )
        if key in rehydration
    }

    auto = _section(raw, "autoCompact")
    auto_kwargs: dict[str, Any] = {}
    if "enabled" in auto:
        auto_kwargs["enabled"] = _bool("autoCompact.enabled", auto["enabled"])
    if "threshold" in auto:
        tokens, percent = _threshold("autoCompact.threshold", auto["threshold"])
        auto_kwargs["threshold_tokens"] = tokens
        auto_kwargs["threshold_percent"] = percent

    notes = _section(raw, "sessionMemory")
    notes_kwargs: dict[str, Any] = {}
    for key, attr in (("enabled", "enabled"), ("useModel", "use_model")):
        if key in notes:
            notes_kwargs[attr] = _bool(f"sessionMemory.{key}", notes[key])
    for key, attr in (
        ("firstAfterTokens", "first_after_tokens"),
        ("everyTokens", "every_tokens"),
        ("minToolCalls", "min_tool_calls"),
    ):
        if key in notes:
            notes_kwargs[attr] = _int(f"sessionMemory.{key}", notes[key], minimum=0)

    return EngineSettings(
        session_memory=SessionMemorySettings(**notes_kwargs),
        memory=MemorySettings(**memory_kwargs),
        microcompact=MicrocompactSettings(**micro_kwargs),
        rehydration=RehydrationSettings(**rehydration_kwargs),
        auto_compact=AutoCompactSettings(**auto_kwargs),
        **top,
    )


def unwrap_configuration(raw: Any) -> Any:
    """The settings object inside a ``didChangeConfiguration`` payload (``{"compactLsp": {...}}`` or bare)."""
    if isinstance(raw, Mapping) and isinstance(raw.get(SECTION), Mapping):
        return raw[SECTION]
    return raw


def merge_settings(base: Mapping[str, Any], change: Mapping[str, Any]) -> dict[str, Any]:
    """A partial change on top of the last raw settings: nested sections merge, other values replace."""
    merged = dict(base)
    for key, value in change.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge_settings(merged[key], value)
        else:
            merged[key] = value
    return merged


def settings_or_defaults(raw: Any) -> tuple[EngineSettings, str | None]:
    """Parse; on an invalid value return the defaults and the message to show the user."""
    try:
        return parse_settings(raw), None
    except SettingsError as exc:
        return EngineSettings(), f"compact-lsp: invalid setting, using the defaults instead. {exc}"


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
        memory=MemorySettings(
            project_root=absolute(memory.project_root),
            user_root=absolute(memory.user_root),
            team_root=absolute(memory.team_root),
        ),
    )
