"""Rehydration benchmark (issue 3): time to build the post-compaction attachments, excluding the model.

Run: .venv/bin/python bench/bench_rehydration.py  — prints a markdown table and writes
bench/results/rehydration.json. Scenarios: a read-file state full to capacity (4,096 small files), the newest
files big enough to come back as ranges (up to 8 MiB), and kept messages of ~200k tokens searched for verbatim
copies. Each figure is the best of 5 runs with a fresh token counter (its cache would flatter a repeat). Then the same
with 4k, 40k and 400k candidates (``--candidates``): rehydration reads and counts only what can still fit, so its
time should stay flat; the preview lists every candidate, so it grows with them (from what the read-file state
knows, nothing is read past the budget).
"""

from __future__ import annotations

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
from compact_lsp.engine.settings import RehydrationSettings

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


def best_of(fn: Callable[[], Any], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
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

            rows.append({"scenario": name, "rehydrate_ms": best_of(run) * 1e3, "preview_ms": best_of(preview) * 1e3})
    for n in CANDIDATES:
        with tempfile.TemporaryDirectory() as tmp:
            state = build_candidates(Path(tmp), n)

            def run_n(state: ReadFileState = state, tmp: str = tmp) -> None:
                rehydrate(read_state=state, kept_messages=[], settings=settings, counter=TiktokenCounter(encoding),
                          workspace_roots=[tmp], plan=plan)  # fmt: skip

            def preview_n(state: ReadFileState = state, tmp: str = tmp) -> None:
                rehydration_candidates(state, kept_messages=[], settings=settings, counter=TiktokenCounter(encoding),
                                       workspace_roots=[tmp])  # fmt: skip

            rows.append({"scenario": f"{n:,} small candidates", "rehydrate_ms": best_of(run_n, 3) * 1e3,
                         "preview_ms": best_of(preview_n, 3) * 1e3, "load": os.getloadavg()[0]})  # fmt: skip
            print(rows[-1], file=sys.stderr, flush=True)  # progress; the table is the result
    print("| scenario | rehydrate (ms) | preview (ms) |\n|---|---:|---:|")
    for row in rows:
        print(f"| {row['scenario']} | {row['rehydrate_ms']:.1f} | {row['preview_ms']:.1f} |")
    RESULTS.mkdir(parents=True, exist_ok=True)
    machine = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "system": platform.system(),
    }
    (RESULTS / "rehydration.json").write_text(json.dumps({"machine": machine, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
