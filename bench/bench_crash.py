"""Crash safety in numbers: SIGKILL the real server at random moments of appends, microcompactions, compactions.

Each trial starts a server on a prepared ~40k-token session, starts one operation (a pipeline of 12 appends, a
forced microcompaction or an offline full compaction), kills the process with SIGKILL after a random delay in
[0, 1.3 x the operation's measured duration], and a fresh server reloads the session. A trial passes when the
reloaded transcript is exactly the state before or after the operation (for appends: after some prefix of them,
never fewer than were acknowledged), the file has no corrupt line, an undo of a surviving compaction gives back
the state before, and the session takes a new append. Usage:

    .venv/bin/python bench/bench_crash.py [--trials 120] [--seed 1]

Writes bench/results/bench_crash.{json,md} and prints the markdown table. Exit status 1 when any trial failed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reliability.crash import OPERATIONS, run_trials  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def run(trials: int, seed: int) -> dict[str, Any]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-crash-") as base:
        prepared, results = run_trials(Path(base), trials, seed)
    elapsed = time.perf_counter() - started
    by_op: dict[str, Any] = {}
    for op in OPERATIONS:
        mine = [r for r in results if r.operation == op]
        outcomes = Counter(
            "before" if r.outcome == "before" else "after" if r.outcome.startswith("after") else "failed" for r in mine
        )
        by_op[op] = {
            "trials": len(mine),
            "duration_ms": round(prepared.duration[op] * 1000, 1),
            "median_kill_ms": round(statistics.median(r.delay for r in mine) * 1000, 1) if mine else None,
            "before": outcomes["before"],
            "after": outcomes["after"],
            "partial_prefix": sum(1 for r in mine if r.outcome.startswith("after ") and not r.outcome.endswith(
                f"{len(prepared.batches)}/{len(prepared.batches)}")),
            "torn_tail": sum(1 for r in mine if r.torn_tail),
            "acknowledged_then_killed": sum(1 for r in mine if r.acknowledged),
            "failed": sum(1 for r in mine if not r.ok),
        }  # fmt: skip
    return {
        "trials": len(results),
        "seed": seed,
        "seconds": round(elapsed, 1),
        "failed": sum(1 for r in results if not r.ok),
        "problems": [f"{r.operation} @ {r.delay * 1000:.1f} ms: {p}" for r in results for p in r.problems],
        "operations": by_op,
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"{result['trials']} SIGKILL trials (seed {result['seed']}, {result['seconds']} s); "
        f"**{result['failed']} failed**",
        "",
        "| operation | trials | op time (ms) | median kill at (ms) | reloaded before | reloaded after | "
        "appends: partial prefix | torn last line | acked before kill | failed |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for op, o in result["operations"].items():
        lines.append(
            f"| {op} | {o['trials']} | {o['duration_ms']} | {o['median_kill_ms']} | {o['before']} | {o['after']} | "
            f"{o['partial_prefix'] if op == 'append' else '-'} | {o['torn_tail']} | "
            f"{o['acknowledged_then_killed']} | {o['failed']} |"
        )
    lines += [f"- {p}" for p in result["problems"]]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=120)
    parser.add_argument("--seed", type=int, default=1)
    ns = parser.parse_args()
    result = run(ns.trials, ns.seed)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_crash.json").write_text(json.dumps(result, indent=2) + "\n")
    table = markdown(result)
    (RESULTS / "bench_crash.md").write_text(table + "\n")
    print(table)
    return 1 if result["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
