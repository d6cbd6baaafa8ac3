"""Full compaction benchmark (issues 8 and 28): time and peak memory against session size, excluding the model.

Run: .venv/bin/python bench/bench_compaction.py [--quick]  — prints a markdown table and writes
bench/results/compaction.json.

Sessions are synthetic rounds of a Read of a real file in a temporary workspace (so rehydration re-reads real
bytes) and its ~1,000-token result, up to 200k tokens. Paths timed through ``ContextSession.compact``:

- session notes: notes already up to date (they are written in the background), so compaction is the
  notes plus rehydration; the goal (issue 28) is <= 10 ms of CPU at 200k tokens for the *first* compaction;
- offline: the offline extractor summarises the whole history;
- model: ``AnthropicSummarizer`` against the loopback Messages API stub (tests/support/messages_api_stub.py),
  which answers at once: the client, request building and streaming, with no model time.

First and again. Each repeat builds its session with a token counter of its own, as a live session's counter
is: every message was counted when it was appended. Rehydration renders each file it re-attaches into a
``<file>`` text no one has counted; a file read whole, unchanged since, has its own text counted already (the
result of the built-in agent's ``read_file``, of ``compact/readFile`` and of these sessions' reads is the file's
text), so only the tags around it are new (``TiktokenCounter.count_joined``, exact: no token spans the joints).
Where the reads showed numbered lines (Claude Code's Read) the files are counted in full, about 21k tokens here,
bounded by the rehydration budget, not by the session: that figure is printed beside, from the same sessions with
numbered reads. "Again" compacts a second session with the same files through the same counter, everything
cached: what the page measured before issue 28 (the best of 3 repeats sharing one counter: every repeat after the
first was "again"). Figures are medians of the repeats, CPU time (both threads: rehydration runs in a worker
thread), on one event loop whose worker thread is already up, as in the server: a fresh ``asyncio.run`` each time
would also time starting that thread (issue 28's 22 ms fits a first compaction that counted every file, on a new
thread each time).

Peak memory is tracemalloc's peak during the session-notes compaction over the memory the session holds at
rest (allocated while building it); the goal is <= 1.5x.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.rehydration_settings import RehydrationSettings
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings, MemorySettings, MicrocompactSettings
from compact_lsp.engine.summarize.anthropic_api import AnthropicSummarizer
from compact_lsp.engine.summarize.base import Summarizer
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.engine.summarize.session_notes import NotesKeeper, NotesSummarizer

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
SIZES = (25_000, 50_000, 100_000, 200_000)
ROUND_TOKENS = 1_000
CODE = "    total = compute_value(index, scale=2, cache=cache)  # keep the cache warm {n}\n"


def numbered(text: str) -> str:
    """``text`` as Claude Code's Read shows it: each line after its number and a tab."""
    return "".join(f"{n:>6}\t{line}" for n, line in enumerate(text.splitlines(keepends=True), start=1))


def build_session(root: Path, tokens: int, counter: TiktokenCounter, *, numbered_reads: bool = False) -> ContextSession:
    settings = EngineSettings(
        context_window=1_000_000,  # room for 200k-token sessions below any threshold; the budgets of a 200k window:
        # since the budgets became shares of the window, 1M would re-attach 100k of files, every file these
        # sessions read, and no compaction would get smaller (the run failed "not smaller")
        rehydration=RehydrationSettings(token_budget=20_000, max_tokens_per_file=8_000),
        microcompact=MicrocompactSettings(idle_minutes=-1, size_threshold_tokens=-1),
        memory=MemorySettings(project_root=str(root / ".mem"), user_root=str(root / ".mem-user")),
    )
    ticks = iter(range(1, 10**9))
    session = ContextSession("bench", settings=settings, counter=counter, workspace_root=str(root),
                             clock=lambda: float(next(ticks)))  # fmt: skip
    session.append([{"role": "user", "content": [{"type": "text", "text": "Refactor the cache layer."}]}])
    n = 0
    while session.usage().total < tokens:
        path = root / "src" / f"module_{n}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(CODE.format(n=f"{n}.{i}") for i in range(ROUND_TOKENS // 20))
        path.write_text(text)
        use_id = f"toolu_{n:05d}"
        session.append(
            [{"role": "assistant", "content": [
                {"type": "text", "text": f"Reading module {n}."},
                {"type": "tool_use", "id": use_id, "name": "Read", "input": {"file_path": str(path)}}]}]
        )  # fmt: skip
        result = {"type": "tool_result", "tool_use_id": use_id, "content": numbered(text) if numbered_reads else text}
        session.append([{"role": "user", "content": [result]}])
        n += 1
    session.append([{"role": "assistant", "content": [{"type": "text", "text": "Done reading."}]}])
    return session


def session_notes_summarizer(session: ContextSession) -> Summarizer:
    memory = NotesKeeper()
    asyncio.run(memory.update(session.messages, total_tokens=session.usage().total))  # background work
    return NotesSummarizer(memory, fallback=OfflineSummarizer())


def timed_compaction(
    tokens: int,
    make: Callable[[ContextSession], Summarizer],
    repeat: int,
    *,
    again: bool = False,
    numbered_reads: bool = False,
) -> dict[str, Any]:
    """Median wall and CPU time of ``repeat`` compactions, each of a fresh session with a counter of its own (see
    the module doc); ``again``: time a second session's compaction through that counter instead of the first's;
    ``numbered_reads``: the reads' results show numbered lines, as Claude Code's do."""
    walls, cpus = [], []
    loop = asyncio.new_event_loop()
    loop.run_until_complete(asyncio.to_thread(lambda: None))
    try:
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as tmp:  # compaction replaces the history: a new session each time
                counter = TiktokenCounter()
                session = build_session(Path(tmp), tokens, counter, numbered_reads=numbered_reads)
                if again:
                    loop.run_until_complete(session.compact(make(session)))
                    session = build_session(Path(tmp), tokens, counter, numbered_reads=numbered_reads)
                summarizer = make(session)
                gc.collect()
                start, cpu = time.perf_counter(), time.process_time()
                outcome = loop.run_until_complete(session.compact(summarizer))
                walls.append(time.perf_counter() - start)
                cpus.append(time.process_time() - cpu)
    finally:
        loop.close()
    boundary = outcome.boundary
    return {"ms": statistics.median(walls) * 1000, "cpu_ms": statistics.median(cpus) * 1000,
            "tokens_before": boundary.tokens_before, "tokens_after": boundary.tokens_after}  # fmt: skip


def peak_memory(tokens: int, counter: TiktokenCounter) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        # one compaction first, so lazy imports and one-off caches are not counted as compaction's
        warm = build_session(Path(tmp) / "warm", 40_000, counter)
        asyncio.run(warm.compact(session_notes_summarizer(warm)))
        # and the counter has counted these texts before, as the one every timed run shared had until issue 28: a
        # resize of its cache's table on the way would otherwise be counted as the session's memory at rest
        build_session(Path(tmp) / "seen", tokens, counter)
        del warm
        gc.collect()
        tracemalloc.start()
        session = build_session(Path(tmp), tokens, counter)
        summarizer = session_notes_summarizer(session)
        gc.collect()
        resting, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        asyncio.run(session.compact(summarizer))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return {"resting_mib": resting / 2**20, "peak_mib": peak / 2**20, "ratio": peak / resting}


GOAL_MS = 10
"""Issue 28: a session-notes compaction at 200k tokens, CPU time of the first one (see the module doc)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only 25k and 200k tokens, three repeats")
    parser.add_argument("--repeat", type=int, default=None, help="compactions a figure is the median of (7)")
    args = parser.parse_args(argv)
    sizes = (25_000, 200_000) if args.quick else SIZES
    repeat = args.repeat or (3 if args.quick else 7)
    sys.path.insert(0, str(ROOT / "tests"))
    from support.messages_api_stub import MessagesApiStub, reply

    counter = TiktokenCounter()  # peak memory's: shared, as before, so its cache holds these texts at rest already
    rows: list[dict[str, Any]] = []
    with MessagesApiStub() as stub:
        stub.default = reply("<summary>The user asked to refactor the cache layer; every module was read.</summary>")

        def model(_session: ContextSession) -> Summarizer:
            return AnthropicSummarizer(model="claude-bench", api_key="bench-key", base_url=stub.base_url,
                                       max_retries=0, env={})  # fmt: skip

        paths: dict[str, Callable[[ContextSession], Summarizer]] = {
            "session_notes": session_notes_summarizer,
            "offline": lambda _s: OfflineSummarizer(),
            "model_stub": model,
        }
        for make in paths.values():  # warm up: lazy imports (anthropic), first connections
            timed_compaction(40_000, make, 1)
        for tokens in sizes:
            row: dict[str, Any] = {"tokens": tokens}
            for name, make in paths.items():
                result = timed_compaction(tokens, make, repeat)
                row[f"{name}_ms"] = result["ms"]
                row[f"{name}_cpu_ms"] = result["cpu_ms"]
                row["tokens_before"] = result["tokens_before"]
                row[f"{name}_tokens_after"] = result["tokens_after"]
            again = timed_compaction(tokens, session_notes_summarizer, repeat, again=True)
            row["session_notes_again_ms"], row["session_notes_again_cpu_ms"] = again["ms"], again["cpu_ms"]
            row.update({f"memory_{k}": v for k, v in peak_memory(tokens, counter).items()})
            rows.append(row)
        numbered_reads = timed_compaction(sizes[-1], session_notes_summarizer, repeat, numbered_reads=True)
    largest = rows[-1]
    goals = {  # judged on CPU: on a shared machine the wall is mostly waiting for a core (both are reported)
        "session_notes_ms_at_200k": largest["session_notes_ms"],
        "session_notes_cpu_ms_at_200k": largest["session_notes_cpu_ms"],
        "session_notes_again_cpu_ms_at_200k": largest["session_notes_again_cpu_ms"],
        "session_notes_numbered_reads_cpu_ms_at_200k": numbered_reads["cpu_ms"],
        "goal_ms": GOAL_MS,
        "repeat": repeat,
        "load": os.getloadavg()[0],
        "session_notes_ok": largest["session_notes_cpu_ms"] <= GOAL_MS,
        "peak_over_resting": largest["memory_ratio"],
        "peak_ok": largest["memory_ratio"] <= 1.5,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {
        "benchmark": "full compaction",
        "python": platform.python_version(),
        "rows": rows,
        "goals": goals,
    }
    (RESULTS / "compaction.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        f"load {' / '.join(f'{x:.2f}' for x in os.getloadavg())} (1/5/15 min) at the end of the run; "
        f"medians of {repeat} compactions",
        "",
        "| session tokens | session notes, first (ms) | its CPU (ms) | again: CPU (ms) | offline (ms) "
        "| model via stub (ms) | resting MiB | peak MiB | peak / resting |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['tokens_before']:,} | {r['session_notes_ms']:.1f} | {r['session_notes_cpu_ms']:.1f} "
            f"| {r['session_notes_again_cpu_ms']:.1f} | {r['offline_ms']:.1f} | "
            f"{r['model_stub_ms']:.1f} | {r['memory_resting_mib']:.1f} | {r['memory_peak_mib']:.1f} | "
            f"{r['memory_ratio']:.2f} |"
        )
    lines += [
        "",
        f"- session-notes compaction at {largest['tokens_before']:,} tokens, the first: "
        f"**{goals['session_notes_cpu_ms_at_200k']:.1f} ms CPU** ({goals['session_notes_ms_at_200k']:.1f} ms wall "
        f"at load {goals['load']:.2f}; again, its re-attached files counted already: "
        f"{goals['session_notes_again_cpu_ms_at_200k']:.1f} ms CPU; goal <= {GOAL_MS} ms, judged on the first's "
        f"CPU): {'ok' if goals['session_notes_ok'] else 'OVER'}",
        f"- the same first compaction when the reads showed numbered lines (Claude Code's Read), so the files' "
        f"texts were never counted: {goals['session_notes_numbered_reads_cpu_ms_at_200k']:.1f} ms CPU",
        f"- peak memory during compaction / resting: **{goals['peak_over_resting']:.2f}x** (goal <= 1.5x): "
        f"{'ok' if goals['peak_ok'] else 'OVER'}",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0 if goals["session_notes_ok"] and goals["peak_ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
