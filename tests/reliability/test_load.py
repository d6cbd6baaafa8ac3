"""Load, scaled down: 5 sessions x 50 appends over one connection, with status requests and a compaction each.

``bench/bench_load.py`` runs 50 x 1,000 and reports p50/p99 latencies; here the point is that nothing is lost.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .load import load_options, run_load, verify_reloaded
from .rpc import RawServer, Workspace

pytestmark = pytest.mark.timeout(300)


def test_interleaved_sessions_lose_nothing(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    with RawServer(workspace, load_options(workspace)) as server:
        result = run_load(server, sessions=5, appends=50)
        assert result.errors == []
        assert result.lost == []
        assert len(result.latencies["compact"]) == 5
        assert len(result.latencies["append"]) == 5 * 50
    with RawServer(workspace, load_options(workspace)) as reloaded:
        verify_reloaded(reloaded, result)
    assert result.lost == []
