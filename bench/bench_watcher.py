"""Watcher start-up cost follows the tracked files, not the repository: 100k-file workspace vs 100-file one.

For each workspace the same number of files is tracked (spread over a few directories); start-up is the time
from creating the watcher to the first change of a tracked file being delivered on the event loop. Goal: the
100k-file workspace costs <= 1.2x the 100-file one. Usage:

    .venv/bin/python bench/bench_watcher.py [--repeat 7] [--tracked 50]

Writes bench/results/bench_watcher.{json,md} and prints the markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from compact_lsp.tracking.watcher import FileWatcher

RESULTS = Path(__file__).resolve().parent / "results"


def make_workspace(root: Path, files: int, directories: int) -> list[list[Path]]:
    """``files`` files spread evenly over ``directories`` directories; returns the files of each directory."""
    per_dir = files // directories
    layout = []
    for d in range(directories):
        directory = root / f"pkg_{d:04d}"
        directory.mkdir(parents=True)
        paths = [directory / f"mod_{f:04d}.py" for f in range(per_dir)]
        for path in paths:
            path.write_bytes(b"x = 1\n")
        layout.append(paths)
    return layout


async def start_up(tracked: list[Path]) -> float:
    """Seconds from a new watcher to the first tracked change reaching the loop."""
    loop = asyncio.get_running_loop()
    seen = asyncio.Event()
    begin = time.perf_counter()
    watcher = FileWatcher(loop, lambda _path: seen.set(), debounce=0.0, max_delay=0.0)
    watcher.start()
    for path in tracked:
        watcher.track(str(path))
    ready = time.perf_counter()
    tracked[0].write_bytes(b"x = 2\n")
    await asyncio.wait_for(seen.wait(), 10)
    delivered = time.perf_counter()
    watcher.stop()
    tracked[0].write_bytes(b"x = 1\n")
    return ready - begin, delivered - begin


async def recursive_start_up(root: Path, probe: Path) -> float:
    """The alternative we avoid: one recursive watch of the whole workspace (seconds to the first event)."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    loop = asyncio.get_running_loop()
    seen = asyncio.Event()

    class Handler(FileSystemEventHandler):
        def on_modified(self, event: Any) -> None:
            if event.src_path == str(probe):
                loop.call_soon_threadsafe(seen.set)

    begin = time.perf_counter()
    observer = Observer()
    observer.schedule(Handler(), str(root), recursive=True)
    observer.start()
    probe.write_bytes(b"x = 2\n")
    await asyncio.wait_for(seen.wait(), 60)
    elapsed = time.perf_counter() - begin
    observer.stop()
    observer.join()
    return elapsed


def prepare(root: Path, files: int, tracked_count: int) -> tuple[list[list[Path]], list[Path]]:
    # The same tracked set shape in both workspaces (one file in each of ``tracked_count`` directories), so the
    # only difference measured is the size of the repository around it.
    layout = make_workspace(root, files, directories=max(tracked_count, files // 100))
    step = len(layout) // tracked_count
    return layout, [layout[i * step][0] for i in range(tracked_count)]


def summary(layout: list[list[Path]], tracked: list[Path], ready: list[float], delivered: list[float],
            recursive: float) -> dict[str, Any]:  # fmt: skip
    return {
        "recursive_first_event_ms": round(recursive * 1000, 3),
        "files": sum(len(paths) for paths in layout),
        "tracked": len(tracked),
        "directoriesWatched": len({p.parent for p in tracked}),
        "ready_ms_median": round(statistics.median(ready), 3),
        "first_event_ms_median": round(statistics.median(delivered), 3),
    }


async def run(repeat: int, tracked: int) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="bench-watch-small-") as small_dir,
        tempfile.TemporaryDirectory(prefix="bench-watch-large-") as large_dir,
    ):
        workspaces = {
            "small": prepare(Path(small_dir), 100, tracked),
            "large": prepare(Path(large_dir), 100_000, tracked),
        }
        times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in workspaces}
        for _ in range(repeat):  # interleaved, so drift on a busy machine hits both sides alike
            for name, (_, paths) in workspaces.items():
                r, d = await start_up(paths)
                times[name][0].append(r * 1000)
                times[name][1].append(d * 1000)
        result: dict[str, Any] = {}
        for name, (layout, paths) in workspaces.items():
            recursive = await recursive_start_up(Path(layout[0][0]).parents[1], paths[0])
            result[name] = summary(layout, paths, *times[name], recursive)
    # the figure is start-up: the time until every watch is in place
    ratio = result["large"]["ready_ms_median"] / result["small"]["ready_ms_median"]
    return {**result, "ratio": round(ratio, 3), "goal_ratio<=1.2": ratio <= 1.2}


def markdown(result: dict[str, Any]) -> str:
    rows = [
        f"| {r['files']:,} | {r['tracked']} | {r['directoriesWatched']} | {r['ready_ms_median']} | "
        f"{r['first_event_ms_median']} |"
        for r in (result["small"], result["large"])
    ]
    return "\n".join(
        [
            "Watcher start-up (median): watching only the directories of tracked files",
            "",
            "| workspace files | tracked files | directories watched | watches ready (ms) | first change seen (ms) |",
            "|---:|---:|---:|---:|---:|",
            *rows,
            "",
            f"100k/100 ratio (watches ready, the start-up): **{result['ratio']}x** (goal <= 1.2x)",
            "",
            "For comparison, one recursive watch of the whole workspace (what the watcher avoids): "
            f"{result['small']['recursive_first_event_ms']} ms for 100 files, "
            f"{result['large']['recursive_first_event_ms']} ms for 100,000 files.",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--tracked", type=int, default=50)
    ns = parser.parse_args()
    result = asyncio.run(run(ns.repeat, ns.tracked))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_watcher.json").write_text(json.dumps(result, indent=2) + "\n")
    table = markdown(result)
    (RESULTS / "bench_watcher.md").write_text(table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
