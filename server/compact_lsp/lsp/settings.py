"""Settings as they enter the server: ``initializationOptions`` and ``workspace/didChangeConfiguration``.

The wire is camelCase (docs/protocol.md); the engine only ever sees ``EngineSettings``, the built-in agent
``AgentSettings`` and each agent beside us its own settings class (``AgentBeside.settings_class``). The table of
keys (``SETTINGS``) is derived at import from the fields that declare a ``setting`` (engine/setting_ranges.py):
a key's reader comes from the field's type or its declared kind, so adding a field or an agent adds its key here
without an edit. Each key is parsed on its own, so a bad value costs only that key: it keeps the
value in force before the change (the default at ``initialize``) and the problem goes back to the user, naming the
key (``microcompact.keepRecent: expected an integer, got "5"``), as ruff's server does. Types are checked here,
ranges where they are declared (engine/settings.py ``limit``). Unknown keys are ignored, so a newer client can
talk to an older server.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields, is_dataclass, replace
from typing import Any, get_args, get_type_hints

from compact_lsp.agent.settings import AgentSettings
from compact_lsp.agents.registered import AGENTS
from compact_lsp.engine.files.usable_path import path_problem
from compact_lsp.engine.setting_ranges import Declared, SettingsError, check_setting, setting_key
from compact_lsp.engine.settings import EngineSettings, MemorySettings

SECTION = "compactLsp"
"""The configuration section clients send under ``workspace/didChangeConfiguration``."""


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


def _threshold_fields(attr: str) -> Callable[[str, Any], dict[str, Any]]:
    """``autoCompact.threshold`` fills ``threshold_tokens`` and its twin ``threshold_percent``."""

    def parse(key: str, value: Any) -> dict[str, Any]:
        tokens, percent = _threshold(key, value)
        return {attr: tokens, attr.removesuffix("_tokens") + "_percent": percent}

    return parse


KINDS: dict[str, Callable[[str, Any], Any]] = {"url": _url, "path": _path, "paths": _paths, "secret": _secret}
"""Readers of the values whose type says too little (``Declared.kind``)."""

TYPES: dict[Any, Callable[[str, Any], Any]] = {int: _int, float: _number, bool: _bool, str: _str,
                                               tuple[str, ...]: _names}  # fmt: skip
"""Readers by the field's type (``X | None``: None, or X's reader)."""


@dataclass(frozen=True)
class WireSetting:
    """One setting on the wire, as its field declares it."""

    key: str
    """Its dotted wire key: ``microcompact.keepRecent``."""
    section: str
    """The object it is in (``""``: the top level)."""
    owner: type
    """The settings class of that object."""
    field: Field[Any]
    hint: Any
    """The field's type (``int | None``)."""
    declared: Declared

    @property
    def optional(self) -> bool:
        return type(None) in get_args(self.hint)

    @property
    def value_type(self) -> Any:
        """The type without None."""
        args = [arg for arg in get_args(self.hint) if arg is not type(None)]
        return args[0] if self.optional and len(args) == 1 else self.hint

    @property
    def default(self) -> Any:
        value = getattr(self.owner(), self.field.name)
        return list(value) if isinstance(value, tuple) else value

    def parse(self, key: str, value: Any) -> dict[str, Any]:
        """The fields this value sets (a ``SettingsError`` naming ``key`` when it cannot)."""
        if self.declared.kind == "threshold":
            return _threshold_fields(self.field.name)(key, value)
        read = KINDS.get(self.declared.kind) or TYPES[self.value_type]
        return {self.field.name: None if value is None and self.optional else read(key, value)}


def settings_sections() -> dict[str, type]:
    """Each settings object on the wire (``""``: the top level) and its class: the engine's, its nested sections,
    the built-in agent's, and each registered agent's beside us (agents/registered.py)."""
    sections: dict[str, type] = {"": EngineSettings}
    for hint in get_type_hints(EngineSettings).values():
        section = getattr(hint, "SECTION", None)
        if isinstance(hint, type) and is_dataclass(hint) and isinstance(section, str):
            sections[section] = hint
    sections[AgentSettings.SECTION] = AgentSettings
    for agent in AGENTS:
        if agent.settings_class is not None:
            sections[agent.settings_class.SECTION] = agent.settings_class  # type: ignore[attr-defined]
    return sections


def declared_settings(sections: Mapping[str, type]) -> dict[str, WireSetting]:
    table: dict[str, WireSetting] = {}
    for section, cls in sections.items():
        hints = get_type_hints(cls)
        for f in fields(cls):
            declared = f.metadata.get("setting")
            if declared is not None:
                key = setting_key(cls, f.name)
                table[key] = WireSetting(key, section, cls, f, hints[f.name], declared)
    return table


SECTIONS = settings_sections()
"""Each settings object on the wire (``""``: the top level) and the class it fills."""

SETTINGS = declared_settings(SECTIONS)
"""Every setting by its wire key, derived from the declarations on the fields (ranges: ``check_setting``)."""

AGENT_SECTIONS = {agent.name: agent.settings_class for agent in AGENTS if agent.settings_class is not None}
"""Each agent beside us with settings, by its name: its settings class."""


@dataclass(frozen=True)
class ParsedSettings:
    engine: EngineSettings
    agent: AgentSettings
    accepted: dict[str, Any]
    """The settings object as applied: every invalid value replaced by the one in force before, or left out.
    The next partial change merges onto this."""
    problems: list[str]
    """One line per ignored value, naming its key; empty when everything applied."""
    agents: dict[str, Any] = field(default_factory=dict)
    """Each agent's settings beside us, by its name (agents/registered.py)."""

    def follow_settings(self) -> dict[str, Any]:
        """Each agent's settings, by its name: what its ``follows`` and ``followed_folder`` are given."""
        return dict(self.agents)

    def message(self) -> str | None:
        """What to tell the user (``window/showMessage``), or None."""
        if not self.problems:
            return None
        return "compact-lsp: ignored invalid settings, the values in force stay: " + "; ".join(self.problems)


_NESTED = [(name, hint) for name, hint in get_type_hints(EngineSettings).items() if hint in SECTIONS.values()]
"""The engine's nested sections: (its field's name, its settings class)."""


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
    wire = SETTINGS[key]
    values = wire.parse(key, value)
    for attr, parsed in values.items():
        check_setting(wire.owner, attr, parsed)
    return values


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
    nested = {name: hint(**values[hint.SECTION]) for name, hint in _NESTED}
    engine = EngineSettings(**nested, **values[""])
    agent = AgentSettings(**values[AgentSettings.SECTION])
    agents = {name: cls(**values[cls.SECTION]) for name, cls in AGENT_SECTIONS.items()}  # type: ignore[attr-defined]
    return ParsedSettings(engine, agent, accepted, problems, agents)


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
