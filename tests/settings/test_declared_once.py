"""Each setting is declared once, on its typed field (engine/settings.py, agent/settings.py, the companions'): the
parser's table, the protocol schema, VS Code's ``contributes.configuration`` and the docs are checked against it,
so a setting renamed, re-ranged or re-defaulted in one place and not the others fails here."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests.lsp.protocol.test_protocol_schema import LEAVES

from compact_lsp.engine.setting_ranges import Limit, setting_key
from compact_lsp.lsp.settings import SECTIONS, SETTINGS

REPO = Path(__file__).resolve().parents[2]
PACKAGE_JSON = REPO / "editors" / "vscode" / "package.json"

SPLIT = {"autoCompact.threshold": ("threshold_tokens", "threshold_percent")}
"""Wire keys that fill several fields: tokens (150000) or a percent ("80%")."""

NOT_A_SETTING = {
    "": {"workspace_folders", "api_key_env", "edit_tools", "write_tools", "read_state_capacity", "memory",
         "microcompact", "rehydration", "auto_compact", "session_memory"},
    "rehydration": {"skill_tokens_each", "skill_tokens_total"},
    "autoCompact": {"max_consecutive_failures", "reserved_output_tokens", "buffer_tokens", "warning_margin_tokens"},
}  # fmt: skip
"""Fields that are not set from the wire: derived ones, nested sections, and values only code chooses."""

CLIENT_ONLY = {"server.command", "server.pythonPath"}
"""VS Code settings about starting the server, never sent to it."""

NOT_IN_VSCODE = {
    "apiKey": "a secret: VS Code keeps it in SecretStorage and sends it, it is never a plain setting",
    "claudeCode.follow": "following Claude Code is on in VS Code by default; the server decides when unset",
    "claudeCode.projectsDir": "Claude Code's own folder, found by the server",
    "codex.follow": "as claudeCode.follow",
    "codex.home": "as claudeCode.projectsDir",
}
"""Server settings VS Code does not offer, each with the reason."""


def field_keys() -> dict[str, tuple[type, dataclasses.Field[Any]]]:
    """Wire key -> (settings class, field), from the typed fields."""
    keys: dict[str, tuple[type, dataclasses.Field[Any]]] = {}
    for section, cls in SECTIONS.items():
        for f in dataclasses.fields(cls):
            if f.name in NOT_A_SETTING.get(section, set()) or f.name.startswith("_"):
                continue
            keys[setting_key(cls, f.name)] = (cls, f)
    return keys


FIELDS = field_keys()


def _default(f: dataclasses.Field[Any]) -> Any:
    value = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
    return list(value) if isinstance(value, tuple) else value


def vscode_settings() -> dict[str, dict[str, Any]]:
    configuration = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))["contributes"]["configuration"]
    properties: dict[str, dict[str, Any]] = {}
    for block in configuration if isinstance(configuration, list) else [configuration]:
        properties.update(block["properties"])
    return {key.removeprefix("compactLsp."): spec for key, spec in properties.items()}


def test_the_parser_reads_exactly_the_declared_fields() -> None:
    split_fields = {name for names in SPLIT.values() for name in names}
    declared = {key for key, (_, f) in FIELDS.items() if f.name not in split_fields} | set(SPLIT)
    assert set(SETTINGS) == declared


def schema_drift(key: str, f: dataclasses.Field[Any], schema: dict[str, Any]) -> list[str]:
    """How the schema's entry for ``key`` differs from its field: a stated default, the declared range."""
    drift = []
    if "default" in schema and schema["default"] != _default(f):
        drift.append(f"{key}: default {schema['default']!r} in the schema, {_default(f)!r} on the field")
    declared: Limit | None = f.metadata.get("limit")
    if declared is not None and not declared.off:
        bound = "exclusiveMinimum" if declared.above else "minimum"
        if schema.get(bound) != declared.minimum or schema.get("maximum") != declared.maximum:
            drift.append(f"{key}: range {schema.get(bound)}..{schema.get('maximum')} in the schema, "
                         f"{declared.minimum}..{declared.maximum} on the field")  # fmt: skip
    return drift


def vscode_drift(key: str, f: dataclasses.Field[Any], spec: dict[str, Any]) -> list[str]:
    """How VS Code's setting differs from its field: its default, a minimum looser than the declared one."""
    drift = []
    if spec.get("default") is not None and spec["default"] != _default(f):  # null: the server's default
        drift.append(f"compactLsp.{key}: default {spec['default']!r} in package.json, {_default(f)!r} on the field")
    declared: Limit | None = f.metadata.get("limit")
    if declared is not None and not declared.off and spec.get("minimum", declared.minimum) < declared.minimum:
        drift.append(f"compactLsp.{key}: package.json allows {spec['minimum']}, the field {declared.minimum}")
    return drift


@pytest.mark.parametrize("key", sorted(set(SETTINGS) - set(SPLIT)))
def test_the_schema_gives_each_setting_its_declared_default_and_range(key: str) -> None:
    assert schema_drift(key, FIELDS[key][1], LEAVES[key]) == []


@pytest.mark.parametrize("key", sorted(set(vscode_settings()) - CLIENT_ONLY - set(SPLIT)))
def test_vscode_offers_each_setting_as_declared(key: str) -> None:
    assert vscode_drift(key, FIELDS[key][1], vscode_settings()[key]) == []


def test_vscode_offers_every_setting_but_the_listed_ones() -> None:
    assert set(SETTINGS) - set(vscode_settings()) == set(NOT_IN_VSCODE)


def docs_defaults() -> dict[str, str]:
    """The settings table of docs/protocol.md: wire key -> its default column."""
    text = (REPO / "docs" / "protocol.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([\w.]+)` \| [^|]+(?:\\\|[^|]+)* \| ([^|]+) \|", text, flags=re.M)
    return {key: default.strip() for key, default in rows if key in SETTINGS}


def docs_drift(key: str, f: dataclasses.Field[Any], shown: str) -> list[str]:
    value = _default(f)
    if isinstance(value, (list, dict)) or shown.startswith(("`", "(", "see")):
        return []  # lists and prose are described, not spelled out
    spelled = "null" if value is None else str(value).lower() if isinstance(value, bool) else f"{value:g}" if (
        isinstance(value, float)) else str(value)  # fmt: skip
    return [] if shown in (spelled, f'"{spelled}"') else [f"{key}: docs/protocol.md shows {shown}, the field {spelled}"]


@pytest.mark.parametrize("key", sorted(set(docs_defaults()) - set(SPLIT)))
def test_the_docs_show_each_declared_default(key: str) -> None:
    assert docs_drift(key, FIELDS[key][1], docs_defaults()[key]) == []


def test_the_checks_see_a_drifted_default_and_range() -> None:
    key = "rehydration.maxFiles"
    _, f = FIELDS[key]
    assert schema_drift(key, f, {"default": 5, "minimum": 0}) == [
        "rehydration.maxFiles: default 5 in the schema, 50 on the field"
    ]
    assert schema_drift(key, f, {"minimum": 1}) != []
    assert vscode_drift(key, f, {"default": 50, "minimum": -5}) != []
    assert vscode_drift(key, f, {"default": 50, "minimum": 10}) == []  # stricter than the engine is fine
    assert docs_drift(key, f, "5") == ["rehydration.maxFiles: docs/protocol.md shows 5, the field 50"]
