"""Eviction records on the wire: what a client sees (the journal's own form is pinned in test_journal.py)."""

from __future__ import annotations

import pytest

from compact_lsp.engine.compaction.eviction import ClearedResult, EvictionRecord, ProtectedResult
from compact_lsp.engine.utc import iso_utc
from compact_lsp.lsp.protocol.answers import eviction_answer


@pytest.mark.parametrize(
    ("paths", "has_path"),
    [
        pytest.param(["/a.py"], True, id="one-path"),
        pytest.param(["/a.py", "/b.py"], False, id="ambiguous"),
        pytest.param([], False, id="no-path"),
    ],
)
def test_cleared_result_names_a_single_path_only_when_unambiguous(paths: list[str], has_path: bool) -> None:
    record = EvictionRecord("forced", 0, 0, [ClearedResult("t1", "Read", paths, 10)], [], [], [], "")
    wire = eviction_answer(record)["cleared"][0]
    assert ("path" in wire) is has_path
    assert wire["paths"] == paths


def test_protected_result_names_its_first_path() -> None:
    record = EvictionRecord("forced", 0, 0, [], [ProtectedResult("t2", ["/memory/MEMORY.md"])], [], [], "")
    wire = eviction_answer(record)["protected"][0]
    assert wire == {"toolUseId": "t2", "paths": ["/memory/MEMORY.md"], "path": "/memory/MEMORY.md"}


def test_created_at_is_utc_with_milliseconds() -> None:
    assert iso_utc(1_780_000_000.25, milliseconds=True) == "2026-05-28T20:26:40.250Z"
