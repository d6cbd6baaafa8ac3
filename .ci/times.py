"""The timing table .ci/test prints at its end (and docs/testing.md keeps), from that run's own measurements.

Usage: python .ci/times.py STAGES TIER_TIMES [--markdown]
STAGES: lines "name seconds" written by .ci/test (set-up, checks, pytest's wall time); TIER_TIMES: the JSON that
tests/support/tier_times.py wrote. Per tier: tests passed/skipped/failed, the time its tests took summed over the
workers (set-up + call + tear-down), when it ran (from the start of pytest, in the wall clock) and its slowest test.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any


def _m_s(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def table(stages: list[tuple[str, float]], tests: dict[str, dict[str, Any]], markdown: bool) -> str:
    by_tier: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for nodeid, test in tests.items():
        by_tier[test["tier"]].append((nodeid, test))
    t0 = min((t["start"] for t in tests.values()), default=0.0)
    rows: list[list[str]] = []
    for tier, members in sorted(by_tier.items(), key=lambda kv: -sum(t["seconds"] for _, t in kv[1])):
        outcomes = defaultdict(int)
        for _, t in members:
            outcomes[t["outcome"]] += 1
        counts = f"{outcomes['passed']}"
        if outcomes["skipped"]:
            counts += f" ({outcomes['skipped']} skipped)"
        if outcomes["failed"]:
            counts += f" ({outcomes['failed']} FAILED)"
        slow_id, slow = max(members, key=lambda m: m[1]["seconds"])
        span = f"{_m_s(min(t['start'] for _, t in members) - t0)}-{_m_s(max(t['stop'] for _, t in members) - t0)}"
        name = slow_id.split("::", 1)[-1]
        rows.append(
            [tier, counts, f"{sum(t['seconds'] for _, t in members):.0f}", span, f"{name[:48]} {slow['seconds']:.0f}"]
        )
    total = sum(t["seconds"] for t in tests.values())
    stage_rows = [[name, f"{seconds:.0f}", _m_s(seconds)] for name, seconds in stages]
    out: list[str] = []
    if markdown:
        out += ["| step | s | m:ss |", "| --- | ---: | ---: |"]
        out += [f"| {' | '.join(r)} |" for r in stage_rows]
        out += ["", "| tier | tests | test-seconds | ran (m:ss from pytest's start) | slowest test, s |"]
        out += ["| --- | ---: | ---: | --- | --- |"]
        out += [f"| {' | '.join(r)} |" for r in rows]
        out += [f"| all | {len(tests)} | {total:.0f} | | |"]
        return "\n".join(out)
    out.append("== time by step")
    out += [f"  {name:<24} {s:>6} s  {ms:>6}" for name, s, ms in stage_rows]
    out.append("== time by tier (test-seconds: set-up + call + tear-down, summed over the workers)")
    out.append(f"  {'tier':<18} {'tests':>18} {'test-s':>7}  {'ran':<11}  slowest test, s")
    out += [f"  {r[0]:<18} {r[1]:>18} {r[2]:>7}  {r[3]:<11}  {r[4]}" for r in rows]
    out.append(f"  {'all':<18} {len(tests):>18} {total:>7.0f}")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        sys.exit(__doc__)
    stages = [
        (name, float(seconds))
        for name, seconds in (line.rsplit(" ", 1) for line in Path(argv[0]).read_text().splitlines() if line.strip())
    ]
    path = Path(argv[1])
    tests = json.loads(path.read_text())["tests"] if path.is_file() else {}
    print(table(stages, tests, markdown="--markdown" in argv))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
