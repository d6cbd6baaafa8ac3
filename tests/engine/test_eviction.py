"""Eviction records on the wire: what a client or a persisted session file sees, and what is refused."""

from __future__ import annotations

from typing import Any

import pytest

from compact_lsp.engine.eviction import ClearedResult, EvictionRecord, ProtectedResult
from compact_lsp.engine.utc import iso_utc


def _record_wire(**overrides: Any) -> dict[str, Any]:
    wire: dict[str, Any] = {"trigger": "size", "tokensBefore": 900, "tokensAfter": 300}
    wire.update(overrides)
    return wire


def test_unknown_trigger_in_a_persisted_record_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown microcompaction trigger 'manual'"):
        EvictionRecord.from_wire(_record_wire(trigger="manual"))


def test_minimal_record_reads_with_empty_details() -> None:
    record = EvictionRecord.from_wire(_record_wire())
    assert (record.tokens_saved, record.cleared_ids, record.evicted_read_paths, record.media_cleared) == (
        600,
        [],
        [],
        0,
    )


@pytest.mark.parametrize(
    ("wire", "paths"),
    [
        pytest.param({"toolUseId": "t1", "tokens": 5, "path": "/a.py"}, ["/a.py"], id="single-path-only"),
        pytest.param({"toolUseId": "t1", "tokens": 5, "paths": ["/a.py", "/b.py"]}, ["/a.py", "/b.py"], id="paths"),
        pytest.param({"toolUseId": "t1", "tokens": 5, "path": ""}, [], id="empty-path"),
        pytest.param({"toolUseId": "t1", "tokens": 5}, [], id="no-path"),
    ],
)
def test_cleared_result_paths_from_either_wire_form(wire: dict[str, Any], paths: list[str]) -> None:
    assert ClearedResult.from_wire(wire).paths == paths


@pytest.mark.parametrize(
    ("paths", "has_path"),
    [
        pytest.param(["/a.py"], True, id="one-path"),
        pytest.param(["/a.py", "/b.py"], False, id="ambiguous"),
        pytest.param([], False, id="no-path"),
    ],
)
def test_cleared_result_names_a_single_path_only_when_unambiguous(paths: list[str], has_path: bool) -> None:
    wire = ClearedResult("t1", "Read", paths, 10).to_wire()
    assert ("path" in wire) is has_path
    assert wire["paths"] == paths


def test_protected_result_round_trips() -> None:
    protected = ProtectedResult("t2", ["/memory/MEMORY.md"])
    assert ProtectedResult.from_wire(protected.to_wire()) == protected


def test_created_at_is_utc_with_milliseconds() -> None:
    assert iso_utc(1_780_000_000.25, milliseconds=True) == "2026-05-28T20:26:40.250Z"
