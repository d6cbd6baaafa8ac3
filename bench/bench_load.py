"""Load over one connection: 5 sessions x 1,000 appends (50 beside it), status requests, a compaction per session.

Every wave pipelines one request per session on the one stdio connection (an append of one read round of a file
in the workspace; at the middle wave a ``compact.compact`` per session), then one session's ``compact/status``
behind them all, and every 10th wave then a ``compact/status`` per session (the "status wave"). Latency is from
writing the request to reading its response, so it includes queueing behind the requests before it.

The goal is judged on that one status behind each wave: what an editor's status bar asks while every session
works. The status wave is reported beside it: 50 answers of up to 200 kB each (a session with 1,000 files read)
written at once, whose last one waits for the client to read the 49 before it; that measures the client and the
pipe as much as the server. Behind the status go a ``compact/sessions`` and a ``compact/currentSession`` (what a
sessions view and a new window ask): the server answers those without any session's lock, in its loop's turn
(the list and the current session are read from the session folder, which other windows write too). Afterwards
every session's ``compact.undo`` must give back exactly the messages sent, and a fresh server must load the same. Usage:

    .venv/bin/python bench/bench_load.py [--sessions 5] [--appends 1000]

The client runs with its garbage collector off during the waves (after a full collection). It keeps every batch it
sent, to check the undo against, so its heap grows to hundreds of MB, and each of Python's full collections over it
stopped the client's reader for 40-360 ms, which the latency then counted against the server: at 2fdc0da, two runs
gave status p99 17.1 and 19.5 ms, max 324 and 363 ms; with the collector off, 7.87 ms, max 24.6 ms (load 1.3-1.6).
Nothing the client holds is cyclic (decoded JSON), so reference counting frees it all the same.

Writes bench/results/bench_load.{json,md} and prints the markdown table with the goal's verdict (issue 37:
``compact/status`` p99 <= 10 ms with 5 busy sessions x 1,000 appends, one process; 50 sessions are reported
without a goal) and the machine's load before and after. Exit status 1
if anything was lost (a missed goal is reported, not an error).
"""

from __future__ import annotations

import argparse
import gc
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
"""Issue 37: ``compact/status`` answers within this, p99, while 5 sessions are busy (50: reported, no goal)."""


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def server_cpu_seconds(pid: int) -> float | None:
    """User + system CPU a process used so far (Linux), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 1)


KINDS = {
    "append": "append",
    "status": "status, one behind each wave",
    "sessions": "session list, behind it",
    "current": "current session, behind it",
    "status_wave": "status wave, every session's at once",
    "compact": "compact",
}


def run(sessions: int, appends: int) -> dict[str, Any]:
    before = load()
    with tempfile.TemporaryDirectory(prefix="bench-load-") as base:
        workspace = Workspace(Path(base))
        with RawServer(workspace, load_options(workspace)) as server:
            gc.collect()
            gc.disable()  # the client's own full collections stall its reader (see the module doc)
            try:
                result = run_load(server, sessions, appends)
            finally:
                gc.enable()
            cpu = server_cpu_seconds(server.proc.pid)
        with RawServer(workspace, load_options(workspace)) as reloaded:
            verify_reloaded(reloaded, result)
    summary = result.summary()
    summary["lost"] = result.lost
    summary["server_cpu_seconds"] = cpu
    summary["error_samples"] = result.errors[:10]
    summary["load"] = f"{before} before, {load()} after (1/5/15-minute averages)"
    status_p99 = summary["latency_ms"]["status"]["p99"]  # one status behind each wave (see the module doc)
    summary["goal"] = {
        "status_p99_ms": STATUS_P99_GOAL_MS,
        "met": status_p99 is not None and status_p99 <= STATUS_P99_GOAL_MS,
    }
    return summary


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"{result['sessions']} sessions x {result['appends_per_session']} appends over one connection: "
        f"{result['requests']} requests in {result['seconds']} s; **{result['lost_sessions']} sessions lost "
        f"messages, {result['errors']} errors**; the server used {result.get('server_cpu_seconds')} s of CPU",
        "",
        "| request | count | p50 (ms) | p99 (ms) | max (ms) |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind, s in result["latency_ms"].items():
        lines.append(f"| {KINDS.get(kind, kind)} | {s['count']} | {s['p50']} | {s['p99']} | {s['max']} |")
    goal, status_p99 = result["goal"], result["latency_ms"]["status"]["p99"]
    verdict = "met" if goal["met"] else "NOT met"
    lines += [
        "",
        f"Goal (issue 37, at 5 sessions): status p99 <= {goal['status_p99_ms']:g} ms, here {result['sessions']}: "
        f"**{verdict}** (p99 {status_p99} ms). Machine load {result['load']}.",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=5)
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
