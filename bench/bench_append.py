"""Append latency vs session length (engine only): the cost of one append should follow the append, not the
session. Run: .venv/bin/python bench/bench_append.py — prints a markdown table, writes bench/results/append.json."""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings

RESULTS = Path(__file__).resolve().parents[1] / "bench" / "results"


def round_of(i: int) -> list[dict[str, object]]:
    use_id = f"toolu_{i:07d}"
    return [
        {"role": "assistant", "content": [
            {"type": "text", "text": f"Step {i}: reading the next file."},
            {"type": "tool_use", "id": use_id, "name": "read_file", "input": {"file_path": f"/w/src/m{i % 300}.py"}},
        ]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use_id,
                                      "content": f"# module {i}\n" + "value = compute(x, y)\n" * 40}]},
    ]  # fmt: skip


def main() -> None:
    counter = TiktokenCounter()
    session = ContextSession("bench", settings=EngineSettings(context_window=10_000_000), counter=counter)
    session.append([{"role": "user", "content": "Go through every module."}])
    rows = []
    i = 0
    for size in (1_000, 5_000, 20_000):
        while len(session.messages) < size:
            session.append(round_of(i))
            i += 1
        samples = []
        for _ in range(50):
            start = time.perf_counter()
            session.append(round_of(i))
            samples.append(time.perf_counter() - start)
            i += 1
        rows.append({"messages": size, "p50_ms": statistics.median(samples) * 1e3,
                     "p99_ms": sorted(samples)[int(len(samples) * 0.99) - 1] * 1e3})  # fmt: skip
    ratio = rows[-1]["p50_ms"] / rows[0]["p50_ms"]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "append.json").write_text(json.dumps({"rows": rows, "ratio_20k_1k": ratio}, indent=2))
    print("| session messages | append p50 (ms) | append p99 (ms) |")
    print("|---:|---:|---:|")
    for row in rows:
        print(f"| {row['messages']:,} | {row['p50_ms']:.2f} | {row['p99_ms']:.2f} |")
    print(f"\np50 at 20k messages / p50 at 1k: {ratio:.2f}x (flat means the cost follows the append)")


if __name__ == "__main__":
    main()
