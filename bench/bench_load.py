"""Load over one connection: 50 sessions x 1,000 appends, status requests and one compaction per session.

Every wave pipelines one request per session on the one stdio connection (an append of one read round; every
10th wave a ``compact/status`` per session too; at the middle wave a ``compact.compact`` per session). Latency is
from writing the request to reading its response, so it includes queueing behind the other sessions' requests
of the same wave. Afterwards every session's ``compact.undo`` must give back exactly the messages sent, and a
fresh server must load the same. Usage:

    .venv/bin/python bench/bench_load.py [--sessions 50] [--appends 1000]

Writes bench/results/bench_load.{json,md} and prints the markdown table. Exit status 1 if anything was lost.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reliability.load import load_options, run_load, verify_reloaded  # noqa: E402
from tests.reliability.rpc import RawServer, Workspace  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def run(sessions: int, appends: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-load-") as base:
        workspace = Workspace(Path(base))
        with RawServer(workspace, load_options(workspace)) as server:
            result = run_load(server, sessions, appends)
        with RawServer(workspace, load_options(workspace)) as reloaded:
            verify_reloaded(reloaded, result)
    summary = result.summary()
    summary["lost"] = result.lost
    summary["error_samples"] = result.errors[:10]
    return summary


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"{result['sessions']} sessions x {result['appends_per_session']} appends over one connection: "
        f"{result['requests']} requests in {result['seconds']} s; **{result['lost_sessions']} sessions lost "
        f"messages, {result['errors']} errors**",
        "",
        "| request | count | p50 (ms) | p99 (ms) | max (ms) |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind, s in result["latency_ms"].items():
        lines.append(f"| {kind} | {s['count']} | {s['p50']} | {s['p99']} | {s['max']} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--appends", type=int, default=1000)
    ns = parser.parse_args()
    result = run(ns.sessions, ns.appends)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_load.json").write_text(json.dumps(result, indent=2) + "\n")
    table = markdown(result)
    (RESULTS / "bench_load.md").write_text(table + "\n")
    print(table)
    return 1 if result["lost_sessions"] or result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
