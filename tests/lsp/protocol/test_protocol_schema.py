"""docs/protocol.schema.json against the rest of the contract: docs/protocol.md names the same methods, commands,
notifications and settings; the server's settings parser knows exactly the schema's settings and accepts their
defaults; and shapes that drifted before (a numeric rehydration budget, a compaction result without its
fallback fields) are refused. Every real response is checked against the schema in tests/e2e (conftest)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from tests.support.protocol_schema import ProtocolMismatch, protocol_schema

from compact_lsp.lsp.settings import SETTINGS, parse_settings

DOCS = (Path(__file__).resolve().parents[3] / "docs" / "protocol.md").read_text(encoding="utf-8")
SCHEMA = protocol_schema()


def settings_leaves(schema: dict[str, Any], prefix: str = "") -> dict[str, dict[str, Any]]:
    """Dotted wire key → its schema, for every setting (objects are sections, not settings)."""
    defs = SCHEMA.schema["$defs"]
    if "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[1]]
    leaves: dict[str, dict[str, Any]] = {}
    for name, sub in schema["properties"].items():
        resolved = defs[sub["$ref"].rsplit("/", 1)[1]] if "$ref" in sub else sub
        if resolved.get("type") == "object" and "properties" in resolved:
            leaves.update(settings_leaves(resolved, f"{prefix}{name}."))
        else:
            leaves[f"{prefix}{name}"] = resolved
    return leaves


LEAVES = settings_leaves(SCHEMA.schema["properties"]["settings"])


def nested(key: str, value: Any) -> dict[str, Any]:
    section, _, name = key.rpartition(".")
    return {section: {name: value}} if section else {name: value}


def test_docs_and_schema_name_the_same_requests_commands_and_notifications() -> None:
    documented_requests = set(re.findall(r"^### `(compact/\w+)`", DOCS, re.M)) - {"compact/chatEvent"}
    assert documented_requests == set(SCHEMA.requests)
    documented_commands = set(re.findall(r"^\| `(compact\.\w+)` \|", DOCS, re.M))
    assert documented_commands == set(SCHEMA.commands)
    documented_notifications = set(re.findall(r"^- `(compact/did\w+)`", DOCS, re.M)) | {"compact/chatEvent"}
    assert documented_notifications == set(SCHEMA.notifications)
    assert "docs/protocol.schema.json" in DOCS  # the human contract names the machine one


def test_docs_and_schema_list_the_same_settings() -> None:
    tables = DOCS.split("## Initialization options and settings", 1)[1].split("## Shared shapes", 1)[0]
    tables += DOCS.split("### Settings (`agent` object", 1)[1]
    documented = set(re.findall(r"^\| `([a-zA-Z]+(?:\.[a-zA-Z]+)?)` \| ", tables, re.M))
    assert documented == set(LEAVES)


def test_the_settings_parser_knows_exactly_the_schema_settings() -> None:
    assert set(SETTINGS) == set(LEAVES)


@pytest.mark.parametrize("key", sorted(k for k, s in LEAVES.items() if "default" in s))
def test_the_schema_default_of_a_setting_is_accepted_by_the_server(key: str) -> None:
    parsed = parse_settings(nested(key, LEAVES[key]["default"]))
    assert parsed.problems == []


@pytest.mark.parametrize("key", sorted(LEAVES))
def test_a_value_the_schema_refuses_is_refused_by_the_server_naming_the_key(key: str) -> None:
    bad = {"not": "a setting value"}
    with pytest.raises(ProtocolMismatch):
        SCHEMA.check_settings(nested(key, bad))
    parsed = parse_settings(nested(key, bad))
    assert any(key in problem for problem in parsed.problems), parsed.problems


USAGE = {
    "total": 10, "contextWindow": 200_000, "percent": 0.0, "autoCompactThreshold": 167_000,
    "warningThreshold": 147_000, "level": "ok", "estimated": 10,
    "byKind": {"system": 0, "userText": 10, "assistantText": 0, "toolUse": 0, "toolResult": 0, "attachments": 0,
               "memory": 0},
}  # fmt: skip
COMPACTED = {
    "changed": True, "tokensBefore": 9000, "tokensAfter": 1000, "summarizer": "offline", "fallback": True,
    "fallbackReason": "overloaded: the API is overloaded", "rehydrated": [], "boundaryId": "cmp_1", "trigger": "auto",
}  # fmt: skip


@pytest.mark.parametrize(
    ("command", "result"),
    [
        pytest.param(
            "compact.rehydrationPreview", {"budget": 50_000, "candidates": []}, id="numeric-budget-the-NaNM-bug"
        ),
        pytest.param(
            "compact.compact",
            {k: v for k, v in COMPACTED.items() if k != "fallbackReason"},
            id="compaction-without-fallback-reason",
        ),
        pytest.param("compact.undo", {"changed": False, "reason": "no"}, id="outcome-without-kind"),
        pytest.param("compact.compact", {**COMPACTED, "surprise": 1}, id="undocumented-field"),
    ],
)
def test_shapes_that_drifted_are_refused(command: str, result: dict[str, Any]) -> None:
    with pytest.raises(ProtocolMismatch):
        SCHEMA.check_result("workspace/executeCommand", {"command": command}, result)


def test_the_documented_shapes_are_accepted() -> None:
    SCHEMA.check_result("workspace/executeCommand", {"command": "compact.compact"}, COMPACTED)
    cancelled = {"changed": False, "cancelled": True, "kind": "cancelled", "reason": "cancelled; nothing changed."}
    SCHEMA.check_result("workspace/executeCommand", {"command": "compact.compact"}, cancelled)
    SCHEMA.check_notification("compact/didChangeUsage", {"sessionId": "ses_1", "usage": USAGE})
    SCHEMA.check_result("compact/currentSession", {}, {"sessionId": None})
