"""Rehydration benchmark (issues 3 and 28): time to build the post-compaction attachments, excluding the model.

Run: .venv/bin/python bench/bench_rehydration.py  — prints a markdown table and writes
bench/results/rehydration.json. Scenarios: a read-file state full to capacity (4,096 small files), the newest
files big enough to come back as ranges (up to 8 MiB), and kept messages of ~200k tokens searched for verbatim
copies. Each figure is the best of 5 runs with a fresh token counter (its cache would flatter a repeat), CPU time
beside wall (the machine is shared: CPU is the figure to compare). Then 4k, 40k and 400k candidates: rehydration
takes candidates best first and stops once its budget is spent (the first 100 left out are still listed, the rest
only counted), so rehydrate and the preview should cost the same at every size: the goal is 400k / 4k <= 2x in CPU.
The same with the oldest file pinned: pins come first with their recency score, so its place among the records
is searched for (a C-level pass over their keys down to it), shown to say what that linear term costs.
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compact_lsp.engine.compaction.rehydration import rehydrate, rehydration_candidates
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.tokens import TiktokenCounter, load_encoding
from compact_lsp.engine.files.plan_state import PlanState
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.rehydration_settings import RehydrationSettings

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
CANDIDATES = (4_096, 40_960, 409_600)
LINE = "    result = compute_value(index, scale=2, cache=cache)  # keep the cache warm\n"


def build_state(root: Path, small: int, big: int, big_bytes: int) -> ReadFileState:
    ticks = itertools.count(1)
    state = ReadFileState(capacity=4096, cwd=str(root), clock=lambda: float(next(ticks)))
    for i in range(small):
        path = root / f"pkg{i % 64}" / f"mod{i}.py"
        path.parent.mkdir(exist_ok=True)
        text = f"# module {i}\n" + LINE * 20
        path.write_text(text)
        state.record_read(str(path), text)
    for i in range(big):
        path = root / f"big{i}.py"
        text = LINE * (big_bytes // len(LINE))
        path.write_text(text)
        state.record_read(str(path), text[:2000], start_line=1_000 * (i + 1), num_lines=120)
    return state


def build_candidates(root: Path, n: int) -> ReadFileState:
    """``n`` small files read once each, newest last: 64 distinct texts, every path its own hard link to one of
    them (a real file each, without 400k files' worth of disk)."""
    ticks = itertools.count(1)
    state = ReadFileState(capacity=n, cwd=str(root), clock=lambda: float(next(ticks)))
    texts = [f"# module {k}\n" + LINE * 20 for k in range(64)]
    sources = []
    for k, text in enumerate(texts):
        source = root / f"source{k}.py"
        source.write_text(text)
        sources.append(source)
    for i in range(n):
        path = root / f"pkg{i % 256}" / f"mod{i}.py"
        path.parent.mkdir(exist_ok=True)
        os.link(sources[i % 64], path)
        state.record_read(str(path), texts[i % 64])
    return state


def kept_messages(tokens: int) -> list[Message]:
    body = "Ran the tests; 3 failures in test_cache.py, fixed the fixture.\n" * (tokens // 15)
    return [
        {"role": "user", "content": [{"type": "text", "text": "Summary of the earlier conversation..."}]},
        {"role": "assistant", "content": [{"type": "text", "text": body}]},
    ]


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        gc.collect()  # not a collection of the state built before, counted in this run
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def candidate_rows(settings: RehydrationSettings, plan: PlanState, encoding: Any) -> list[dict[str, Any]]:
    """4k, 40k and 400k candidates, as they are and with the oldest file pinned."""
    rows: list[dict[str, Any]] = []
    for n in CANDIDATES:
        with tempfile.TemporaryDirectory() as tmp:
            state = build_candidates(Path(tmp), n)
            oldest = state.ranked()[-1].realpath
            for pinned in ((), (oldest,)):

                def run_n(state: ReadFileState = state, tmp: str = tmp, pinned: tuple[str, ...] = pinned) -> None:
                    counter = TiktokenCounter(encoding)
                    rehydrate(read_state=state, kept_messages=[], settings=settings, counter=counter,
                              workspace_roots=[tmp], plan=plan, pinned=pinned)  # fmt: skip

                def preview_n(state: ReadFileState = state, tmp: str = tmp, pinned: tuple[str, ...] = pinned) -> None:
                    counter = TiktokenCounter(encoding)
                    rehydration_candidates(state, kept_messages=[], settings=settings, counter=counter,
                                           workspace_roots=[tmp], pinned=pinned)  # fmt: skip

                wall, cpu = timed(run_n, 5)
                preview_wall, preview_cpu = timed(preview_n, 5)
                name = f"{n:,} small candidates" + (", the oldest pinned" if pinned else "")
                rows.append({"scenario": name, "candidates": n, "pinned": len(pinned), "rehydrate_ms": wall * 1e3,
                             "rehydrate_cpu_ms": cpu * 1e3, "preview_ms": preview_wall * 1e3,
                             "preview_cpu_ms": preview_cpu * 1e3, "load": os.getloadavg()[0]})  # fmt: skip
                print(rows[-1], file=sys.stderr, flush=True)  # progress; the table is the result
    return rows


def flatness(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """CPU at the largest over the smallest candidate count, for rehydrate and the preview, unpinned (the goal)
    and pinned (what searching for the pin's place costs)."""
    goals: dict[str, Any] = {}
    for pinned, label in ((0, ""), (1, "pinned_")):
        by_n = {r["candidates"]: r for r in rows if r["pinned"] == pinned}
        for key in ("rehydrate", "preview"):
            goals[f"{label}{key}_cpu_ms"] = [by_n[n][f"{key}_cpu_ms"] for n in CANDIDATES]
            goals[f"{label}{key}_ratio"] = by_n[CANDIDATES[-1]][f"{key}_cpu_ms"] / by_n[CANDIDATES[0]][f"{key}_cpu_ms"]
    goals["flat"] = max(goals["rehydrate_ratio"], goals["preview_ratio"]) <= 2
    return goals


def main() -> int:
    encoding = load_encoding()
    settings = RehydrationSettings()
    plan = PlanState(text="- [~] fix the cache (in_progress)", source="tool")
    rows: list[dict[str, Any]] = []
    scenarios = [
        ("4,096 small files", 4_096, 0, 0, 0),
        ("4,091 small + 5 big (1 MiB) files", 4_091, 5, 1 << 20, 0),
        ("4,091 small + 5 big (8 MiB) files", 4_091, 5, 8 << 20, 0),
        ("5 big (1 MiB) + 200k-token kept messages", 0, 5, 1 << 20, 200_000),
    ]
    for name, small, big, big_bytes, kept_tokens in scenarios:
        with tempfile.TemporaryDirectory() as tmp:
            state = build_state(Path(tmp), small, big, big_bytes)
            kept = kept_messages(kept_tokens) if kept_tokens else []

            def run(state: ReadFileState = state, kept: list[Message] = kept, tmp: str = tmp) -> None:
                rehydrate(
                    read_state=state,
                    kept_messages=kept,
                    settings=settings,
                    counter=TiktokenCounter(encoding),
                    workspace_roots=[tmp],
                    plan=plan,
                )

            def preview(state: ReadFileState = state, kept: list[Message] = kept, tmp: str = tmp) -> None:
                rehydration_candidates(
                    state,
                    kept_messages=kept,
                    settings=settings,
                    counter=TiktokenCounter(encoding),
                    workspace_roots=[tmp],
                )

            (wall, cpu), (preview_wall, preview_cpu) = timed(run, 5), timed(preview, 5)
            rows.append({"scenario": name, "rehydrate_ms": wall * 1e3, "rehydrate_cpu_ms": cpu * 1e3,
                         "preview_ms": preview_wall * 1e3, "preview_cpu_ms": preview_cpu * 1e3,
                         "load": os.getloadavg()[0]})  # fmt: skip
    candidates = candidate_rows(settings, plan, encoding)
    rows += candidates
    goals = flatness(candidates)
    print("| scenario | rehydrate (ms) | its CPU (ms) | preview (ms) | its CPU (ms) | load (1 min) |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in rows:
        cpu, preview_cpu = row.get("rehydrate_cpu_ms"), row.get("preview_cpu_ms")
        print(f"| {row['scenario']} | {row['rehydrate_ms']:.1f} | {'–' if cpu is None else f'{cpu:.1f}'} "
              f"| {row['preview_ms']:.1f} | {'–' if preview_cpu is None else f'{preview_cpu:.1f}'} "
              f"| {row.get('load', os.getloadavg()[0]):.2f} |")  # fmt: skip
    per = " / ".join(f"{ms:.1f}" for ms in goals["rehydrate_cpu_ms"])
    pinned = " / ".join(f"{ms:.1f}" for ms in goals["pinned_rehydrate_cpu_ms"])
    print(
        f"\n- rehydrate CPU at 4k / 40k / 400k candidates: {per} ms, 400k / 4k **{goals['rehydrate_ratio']:.2f}x**; "
        f"the preview {goals['preview_ratio']:.2f}x (goal <= 2x): {'ok' if goals['flat'] else 'OVER'}\n"
        f"- with the oldest file pinned (its place searched for): {pinned} ms, {goals['pinned_rehydrate_ratio']:.2f}x"
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    machine = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "system": platform.system(),
    }
    report = {"machine": machine, "rows": rows, "goals": goals}
    (RESULTS / "rehydration.json").write_text(json.dumps(report, indent=2) + "\n")
    return 0 if goals["flat"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
