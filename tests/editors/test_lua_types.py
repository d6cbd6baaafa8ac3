"""The Neovim plugin's LuaCATS annotations (editors/nvim/lua/compact_lsp/types.lua, and the generated
settings_types.lua) name exactly the fields the protocol schema (docs/protocol.schema.json) defines: each
``compact_lsp.X`` class is the schema's ``$defs/X``, so the Lua side cannot drift from the server unnoticed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.support.protocol_schema import protocol_schema

LUA_DIR = Path(__file__).resolve().parents[2] / "editors" / "nvim" / "lua" / "compact_lsp"
TYPES_LUA = LUA_DIR / "types.lua"
SETTINGS_LUA = LUA_DIR / "settings_types.lua"
"""Generated from the settings' declarations (tests/settings/test_declared_once.py holds it fresh)."""

PLUGIN_ONLY: frozenset[str] = frozenset()
"""Classes of types.lua that are the plugin's own, not protocol shapes (none yet)."""


def lua_classes(text: str) -> dict[str, set[str]]:
    """``---@class compact_lsp.Name`` → the names of its ``---@field`` lines."""
    classes: dict[str, set[str]] = {}
    current: set[str] | None = None
    for line in text.splitlines():
        declared = re.match(r"---@class\s+compact_lsp\.(\w+)", line)
        if declared:
            current = classes.setdefault(declared.group(1), set())
            continue
        field = re.match(r"---@field\s+([A-Za-z_]\w*)", line)
        if field and current is not None:
            current.add(field.group(1))
        elif not line.startswith("---"):
            current = None
    return classes


def schema_fields(name: str) -> set[str]:
    return set(protocol_schema().schema["$defs"][name].get("properties", {}))


CLASSES = lua_classes(TYPES_LUA.read_text(encoding="utf-8")) | lua_classes(SETTINGS_LUA.read_text(encoding="utf-8"))
DEFS = protocol_schema().schema["$defs"]


def test_every_class_is_a_protocol_shape_named_as_in_the_schema() -> None:
    unknown = set(CLASSES) - set(DEFS) - PLUGIN_ONLY
    assert not unknown, f"types.lua classes with no $defs entry of that name in docs/protocol.schema.json: {unknown}"
    assert {"SessionInfo", "Status", "CompactResult", "TranscriptResult", "DidCompactParams"} <= set(CLASSES)
    assert {"Settings", "MicrocompactSettings", "AgentSettings", "ClaudeCodeSettings"} <= set(CLASSES)


@pytest.mark.parametrize("lua_class", sorted(set(CLASSES) - PLUGIN_ONLY))
def test_lua_fields_match_the_schema(lua_class: str) -> None:
    expected = schema_fields(lua_class)
    annotated = CLASSES[lua_class]
    assert annotated == expected, (
        f"compact_lsp.{lua_class}: types.lua has {sorted(annotated - expected)} that the schema does not, "
        f"and lacks {sorted(expected - annotated)} (docs/protocol.schema.json $defs/{lua_class})"
    )


def test_the_comparison_sees_a_drifted_field() -> None:
    drifted = lua_classes("---@class compact_lsp.Usage\n---@field total integer\n---@field budgett integer\n")
    assert drifted["Usage"] != schema_fields("Usage")


def lua_aliases(text: str) -> dict[str, list[str]]:
    """``---@alias compact_lsp.Name 'a'|'b'`` (or a union of classes) → its members, quotes kept."""
    aliases = {}
    for name, members in re.findall(r"^---@alias\s+compact_lsp\.(\w+)\s+(.+)$", text, flags=re.M):
        aliases[name] = [m.strip() for m in members.split("|")]
    return aliases


def alias_drift(aliases: dict[str, list[str]]) -> list[str]:
    """Enum aliases that are not their schema enum, union aliases naming a class the schema lacks."""
    drift = []
    for name, members in aliases.items():
        if name not in DEFS:
            drift.append(f"compact_lsp.{name}: no $defs/{name} in the schema")
        elif all(m.startswith("'") for m in members):
            if [m.strip("'") for m in members] != DEFS[name].get("enum"):
                drift.append(f"compact_lsp.{name}: {members} but the schema's enum is {DEFS[name].get('enum')}")
        else:
            drift += [f"compact_lsp.{name}: {m} is no schema shape" for m in members
                      if m.removeprefix("compact_lsp.") not in DEFS]  # fmt: skip
    return drift


def test_lua_aliases_and_enums_match_the_schema() -> None:
    aliases = lua_aliases(TYPES_LUA.read_text(encoding="utf-8"))
    assert {"SessionSource", "UsageLevel", "Freshness"} <= set(aliases)
    assert alias_drift(aliases) == []


def test_the_alias_comparison_sees_a_missing_enum_value() -> None:
    drifted = lua_aliases("---@alias compact_lsp.SessionSource 'chat'|'import'|'api'\n")
    assert alias_drift(drifted) == [
        f"compact_lsp.SessionSource: [\"'chat'\", \"'import'\", \"'api'\"] but the schema's enum is "
        f"{DEFS['SessionSource']['enum']}"
    ]
