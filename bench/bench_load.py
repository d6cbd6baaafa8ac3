"""Load over one connection: 50 sessions x 1,000 appends, status requests and one compaction per session.

Every wave pipelines one request per session on the one stdio connection (an append of one read round; every
10th wave a ``compact/status`` per session too; at the middle wave a ``compact.compact`` per session). Latency is
from writing the request to reading its response, so it includes queueing behind the other sessions' requests
of the same wave. Afterwards every session's ``compact.undo`` must give back exactly the messages sent, and a
fresh server must load the same. Usage:

    .venv/bin/python bench/bench_load.py [--sessions 50] [--appends 1000]

Writes bench/results/bench_load.{json,md} and prints the markdown table with the goal's verdict (issue 28:
``compact/status`` p99 <= 10 ms with 50 busy sessions) and the machine's load before and after. Exit status 1
if anything was lost (a missed goal is reported, not an error).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reliability.load import load_options, run_load, verify_reloaded  # noqa: E402
from tests.reliability.rpc import RawServer, Workspace  # noqa: E402

RESULTS = ROOT / "bench" / "results"
STATUS_P99_GOAL_MS = 10.0
"""Issue 28: ``compact/status`` answers within this, p99, while every session is busy."""


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def run(sessions: int, appends: int) -> dict[str, Any]:
    before = load()
    with tempfile.TemporaryDirectory(prefix="bench-load-") as base:
        workspace = Workspace(Path(base))
        with RawServer(workspace, load_options(workspace)) as server:
            result = run_load(server, sessions, appends)
        with RawServer(workspace, load_options(workspace)) as reloaded:
            verify_reloaded(reloaded, result)
    summary = result.summary()
    summary["lost"] = result.lost
    summary["error_samples"] = result.errors[:10]
    summary["load"] = f"{before} before, {load()} after (1/5/15-minute averages)"
    status_p99 = summary["latency_ms"]["status"]["p99"]
    summary["goal"] = {
        "status_p99_ms": STATUS_P99_GOAL_MS,
        "met": status_p99 is not None and status_p99 <= STATUS_P99_GOAL_MS,
    }
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
    goal, status_p99 = result["goal"], result["latency_ms"]["status"]["p99"]
    verdict = "met" if goal["met"] else "NOT met"
    lines += [
        "",
        f"Goal (issue 28): status p99 <= {goal['status_p99_ms']:g} ms with {result['sessions']} busy sessions: "
        f"**{verdict}** (p99 {status_p99} ms). Machine load {result['load']}.",
    ]
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
