"""Microcompaction benchmark (issue 2): plan+apply time against conversation length; it must grow linearly.

Run: .venv/bin/python bench/bench_microcompact.py [--quick]
Prints a markdown table and writes bench/results/microcompact.json and .md; exits 1 if
time(20k)/time(2k) > 12.

Conversations are synthetic: a user prompt, then rounds of one assistant tool call and its result (reads of
source and managed-memory files, grep, shell runs, edits, a non-compactable TodoWrite, some errors), each
result a few hundred distinct tokens. "warm" is the steady state in the server, where the usage ledger has
already counted every block (the counter's cache holds them); "cold" starts from an empty counter cache, so
it includes tokenising every result once.

What is measured, and why so: the warm work is linear. Call counts are exactly 10x from 2k to 20k messages, and so are
the instructions (callgrind, warm plan+apply at 2k and 20k: forced 138.2M and 1,385.4M, 10.02x; size 137.8M and
1,381.9M, 10.03x). What made the page's ratios 11.35-13.34 was the measurement: it took the wall time of each run
(``perf_counter``) and the best of 9. On a 2-core machine shared by several people a run waits for a core now and then,
and the best of 9 short runs (16 ms at 2k) often catches one that never waited, while a 190 ms run at 20k always waits
some: the best favours the small size. So each run is timed in CPU time (``process_time``: this process is the only
thread doing the work), and the figure is the median of the repeats (9, interleaved across sizes so that load falls on
all of them alike), as is the cold one (3 runs at 2k and 20k). Each run has the garbage collector paused after a full
collection, as timeit does (a full collection walks the whole heap: its cost would land on whichever run happens to
trigger it, not on the code measured). What is left above 10 is the kernel's, not ours: the user CPU time is 9.6-10.0x
(getrusage over 100 runs at 2k and 10 at 20k: 17.0-17.8 and 170-175 ms), and the rest is system time for page faults. A
plan and its result at 20k messages hold about 6.2 MB (6.7 before the plan's and the record's entries got ``__slots__``,
which also made a run ~10% faster), more than the allocator keeps free between runs, so each run takes 500-1,200 fresh
pages from the kernel (3-10 ms); the 2k run's tenth of that fits in memory already held and faults none. Giving every
cleared result of a plan one reason string instead of a copy each (7.3 MB before) cut those faults by a third to a half.
Under load the rest is not the kernel's either: 15 interleaved runs per size at load 2.7, with no page fault in any of
them, still gave 11.3-11.9 (forced and size, 14 and 165 ms): the 20k run's working set (its messages and the counter's
cache) is far beyond the CPU's caches, which the other processes share.

The ratio itself is not taken from the two sizes' medians either. On this shared host the whole process runs at one
of two speeds for seconds at a time (the 2k median was 18-19 ms in some runs of the script and 26-27 ms in others, at
load 1.0), so medians taken over the whole script compare a 2k from one phase with a 20k from another: three
consecutive runs at 7d40075 gave forced 9.16 / 12.55 / 9.33 and cold 11.85 / 11.85 / 15.25, and the page's run 16.12.
Each ratio is therefore the median of paired ones, a 20k run over the mean of the 2k runs just before and just after
it (a third of a second apart, so both see the same phase): eight runs of that gave 10.43-11.31 where the medians'
ratio gave 9.72-11.65 on the same runs, and three runs of this script 10.14-10.47 (forced), 9.71-9.98 (size) and
10.60-10.75 (cold), where the medians' ratio had given 16.12 on the page at 7d40075.

The cold run has one piece that is not linear: the counter keeps only about ``UNHELD_CHARS`` of texts no message
holds (``TiktokenCounter._forget_unheld``), and it looks for them by walking its whole cache every 512K characters
counted. Counting 20k messages from nothing walks it 15 times (63 ms of 1,570, 4%; never at 2k), so the cold ratio
sits about 0.4 above the warm one. It is the memory bound that following long transcripts relies on, so it stays.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compact_lsp.engine.compaction.eviction import Trigger
from compact_lsp.engine.compaction.microcompact import plan_microcompaction
from compact_lsp.engine.compaction.microcompact_plan import apply_plan
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.tokens import TiktokenCounter, load_encoding
from compact_lsp.engine.settings import MicrocompactSettings

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
MEMORY_ROOT = "/repo/.compact/memory/"
CURVE = (1_000, 2_000, 5_000, 10_000, 20_000, 50_000)
MAX_RATIO = 12.0
SMALL, LARGE = 2_000, 20_000
TRIGGERS_TIMED: tuple[Trigger, ...] = ("forced", "size")

TOOLS: tuple[tuple[str, Callable[[int], dict[str, Any]]], ...] = (
    ("Read", lambda k: {"file_path": f"/repo/src/module_{k % 311}.py"}),
    ("Bash", lambda k: {"command": f"pytest -q tests/test_{k % 97}.py"}),
    ("Grep", lambda k: {"pattern": f"def handler_{k % 53}", "path": "/repo/src"}),
    ("Read", lambda k: {"file_path": f"{MEMORY_ROOT}topic_{k % 7}.md"}),
    ("Edit", lambda k: {"file_path": f"/repo/src/module_{k % 311}.py", "old_string": "a", "new_string": "b"}),
    ("TodoWrite", lambda k: {"todos": [{"content": f"step {k}", "status": "pending"}]}),
    ("read_file", lambda k: {"file_path": f"/repo/lib/util_{k % 41}.py"}),
)


def result_content(k: int) -> str:
    """About 800 characters of distinct, code-like output."""
    return "\n".join(f"{k}:{n} src/module_{(k + n) % 311}.py: value_{n} = compute(item_{k}, {n})" for n in range(14))


def synthetic_conversation(n_messages: int) -> list[Message]:
    messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": "Refactor the handlers."}]}]
    k = 0
    while len(messages) + 2 <= n_messages:
        name, make_input = TOOLS[k % len(TOOLS)]
        tool_use_id = f"toolu_{k:07d}"
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Step {k}: checking."},
                    {"type": "tool_use", "id": tool_use_id, "name": name, "input": make_input(k)},
                ],
            }
        )
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": tool_use_id,
            "content": result_content(k),
        }
        if k % 29 == 0:
            result["is_error"] = True
        messages.append({"role": "user", "content": [result]})
        k += 1
    if len(messages) < n_messages:
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    return messages


def preserve_read(path: str) -> bool:
    return path.startswith(MEMORY_ROOT)


def plan_and_apply(messages: list[Message], counter: TiktokenCounter, trigger: Trigger) -> int:
    mc = MicrocompactSettings(keep_recent=5, size_threshold_tokens=40_000)
    plan = plan_microcompaction(messages, mc, trigger, counter=counter, preserve_read=preserve_read, now=0.0)
    if plan is None:
        return 0
    return len(apply_plan(messages, plan).eviction.cleared)


def time_once(fn: Callable[[], Any]) -> float:
    """CPU seconds of one run with the garbage collector paused after a full collection (see the module doc)."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        fn()
        return time.process_time() - start
    finally:
        gc.enable()


def measure(sizes: tuple[int, ...], repeat: int, cold_repeat: int) -> list[dict[str, Any]]:
    """Warm timings per size and trigger, interleaved (every repeat visits every size) so that load from other
    processes on the machine falls on all sizes alike; then ``cold_repeat`` cold runs at 2k and 20k."""
    encoding = load_encoding()
    conversations = {n: synthetic_conversation(n) for n in sizes}
    runs: dict[tuple[int, str], tuple[TiktokenCounter, list[float]]] = {}
    rows: dict[int, dict[str, Any]] = {n: {"messages": len(m)} for n, m in conversations.items()}
    for n, messages in conversations.items():
        for trigger in TRIGGERS_TIMED:
            counter = TiktokenCounter(encoding, cache_size=max(65_536, 2 * n))
            # the first run fills the counter's cache, as the usage ledger does in the server
            rows[n][f"{trigger}_cleared"] = plan_and_apply(messages, counter, trigger)
            runs[(n, trigger)] = (counter, [])
    for _ in range(repeat):
        for (n, trigger), (counter, times) in runs.items():
            messages = conversations[n]
            times.append(time_once(lambda m=messages, c=counter, t=trigger: plan_and_apply(m, c, t)))
    for (n, trigger), (_counter, times) in runs.items():
        rows[n][f"{trigger}_ms"] = round(1000 * statistics.median(times), 2)
        rows[n][f"{trigger}_best_ms"] = round(1000 * min(times), 2)
    colds: dict[int, list[float]] = {n: [] for n in (SMALL, LARGE)}
    for _ in range(cold_repeat):
        for n, times in colds.items():
            cold = TiktokenCounter(encoding, cache_size=max(65_536, 2 * n))
            times.append(time_once(lambda m=conversations[n], c=cold: plan_and_apply(m, c, "forced")))
    for n, times in colds.items():
        rows[n]["forced_cold_ms"] = round(1000 * statistics.median(times), 2)
    return [rows[n] for n in sizes]


def paired_ratio(run: Callable[[int], float], repeat: int) -> float:
    """The median over ``repeat`` triples of time(20k) / mean(time(2k) just before, time(2k) just after): see the module
    doc for why not the ratio of two medians."""
    ratios = []
    for _ in range(repeat):
        before, large, after = run(SMALL), run(LARGE), run(SMALL)
        ratios.append(large / ((before + after) / 2))
    return statistics.median(ratios)


def measure_ratios(repeat: int, cold_repeat: int) -> dict[str, float]:
    encoding = load_encoding()
    conversations = {n: synthetic_conversation(n) for n in (SMALL, LARGE)}
    ratios = {}

    def warm(trigger: Trigger) -> Callable[[int], float]:
        counters = {n: TiktokenCounter(encoding, cache_size=max(65_536, 2 * n)) for n in conversations}
        for n, counter in counters.items():
            plan_and_apply(conversations[n], counter, trigger)  # fills the counter's cache, as in measure
        return lambda n: time_once(lambda: plan_and_apply(conversations[n], counters[n], trigger))

    for trigger in TRIGGERS_TIMED:
        ratios[f"{trigger} (warm)"] = paired_ratio(warm(trigger), repeat)

    def cold(n: int) -> float:
        counter = TiktokenCounter(encoding, cache_size=max(65_536, 2 * n))
        return time_once(lambda: plan_and_apply(conversations[n], counter, "forced"))

    ratios["forced (cold)"] = paired_ratio(cold, cold_repeat)
    return ratios


def markdown(rows: list[dict[str, Any]], ratios: dict[str, float]) -> str:
    lines = [
        "| messages | forced, warm (ms CPU) | size, warm (ms CPU) | forced, cold (ms CPU) | cleared by forced |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        cold = f"{r['forced_cold_ms']:.1f}" if "forced_cold_ms" in r else "–"
        cells = [
            f"{r['messages']:,}",
            f"{r['forced_ms']:.1f}",
            f"{r['size_ms']:.1f}",
            cold,
            f"{r['forced_cleared']:,}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for name, ratio in ratios.items():
        verdict = "ok" if ratio <= MAX_RATIO else "TOO HIGH"
        lines.append(
            f"- CPU time(20k)/time(2k), {name}, median of paired runs: **{ratio:.2f}**"
            f" (limit {MAX_RATIO:g}, linear is 10): {verdict}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only 2k and 20k messages, fewer repeats")
    args = parser.parse_args(argv)
    sizes = (2_000, 20_000) if args.quick else CURVE
    rows = measure(sizes, repeat=5 if args.quick else 9, cold_repeat=1 if args.quick else 3)
    ratios = measure_ratios(repeat=5 if args.quick else 15, cold_repeat=1 if args.quick else 5)
    table = markdown(rows, ratios)
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {
        "benchmark": "microcompaction plan+apply",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "rows": rows,
        "ratio_20k_over_2k": {k: round(v, 3) for k, v in ratios.items()},
        "max_ratio": MAX_RATIO,
    }
    (RESULTS / "microcompact.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / "microcompact.md").write_text(table + "\n")
    sys.stdout.write(table + "\n")
    return 0 if all(r <= MAX_RATIO for r in ratios.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
