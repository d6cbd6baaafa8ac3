"""compact/sessions on a fresh server: 30 stored sessions of 60k tokens against 30 of 1k tokens, over real stdio.

Goal: listing the big sessions takes at most 1.5x the time of listing the small ones (the session index means
listing never loads a session). For contrast the same listing is also timed with the index deleted (every
session replayed from its journal to measure it, the cost the index saves; it is rebuilt on that first call).
Each figure is the median over fresh servers (a new process per repeat, nothing cached in memory). Usage:

    .venv/bin/python bench/bench_sessions_list.py [--sessions 30] [--repeats 21]

Writes bench/results/bench_sessions_list.{json,md} and prints the markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lsp import Connection, conversation

RESULTS = Path(__file__).resolve().parent / "results"


class Server:
    """One compact-lsp process for a workspace and session directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.proc: asyncio.subprocess.Process | None = None
        self.conn: Connection | None = None

    async def __aenter__(self) -> Connection:
        env = {**os.environ, "XDG_STATE_HOME": str(self.root / "state"), "XDG_CONFIG_HOME": str(self.root / "config")}
        env.pop("ANTHROPIC_API_KEY", None)
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "compact_lsp", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, env=env,
        )  # fmt: skip
        self.conn = Connection(self.proc)
        options = {
            "sessionDir": str(self.root / "sessions"),
            "memory": {"userRoot": str(self.root / "user-memory")},
            "autoCompact": {"enabled": False},
            "sessionMemory": {"enabled": False},
            "microcompact": {"sizeThresholdTokens": -1, "idleMinutes": -1},
        }
        workspace = self.root / "ws"
        await self.conn.request(
            "initialize", {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {},
                           "initializationOptions": options},
        )  # fmt: skip
        self.conn.notify("initialized", {})
        return self.conn

    async def __aexit__(self, *exc: object) -> None:
        assert self.conn is not None and self.proc is not None
        await self.conn.request("shutdown", None)
        self.conn.notify("exit", None)
        await self.proc.wait()


async def build_store(root: Path, sessions: int, tokens: int) -> int:
    """``sessions`` stored sessions of about ``tokens`` tokens each; returns the total tokens listed."""
    (root / "ws" / "src").mkdir(parents=True)
    async with Server(root) as conn:
        for i in range(sessions):
            session = (await conn.request("compact/newSession", {"title": f"bench {i}"}))["sessionId"]
            messages = (
                conversation(max(0, tokens - 1_000), root / "ws", 5)
                if tokens > 1_000
                else [{"role": "user", "content": "Refactor the billing module. " * 165}]
            )
            await conn.request("compact/append", {"sessionId": session, "messages": messages})
        listed = await conn.request("compact/sessions", {})
    return sum(int(item["tokens"]) for item in listed)


async def list_on_fresh_server(root: Path, *, drop_index: bool) -> tuple[float, int]:
    if drop_index:
        for index in (root / "sessions").glob("*/index.json"):
            index.unlink()
    async with Server(root) as conn:
        start = time.perf_counter()
        listed = await conn.request("compact/sessions", {})
        elapsed = (time.perf_counter() - start) * 1000
    return elapsed, len(listed)


async def run(sessions: int, repeats: int) -> dict[str, Any]:
    sizes = {"1k": 1_000, "60k": 60_000}
    result: dict[str, Any] = {"sessions": sessions, "repeats": repeats, "sizes": {}}
    with tempfile.TemporaryDirectory(prefix="bench-list-") as tmp:
        roots = {name: Path(tmp) / name for name in sizes}
        totals = {name: await build_store(roots[name], sessions, tokens) for name, tokens in sizes.items()}
        indexed: dict[str, list[float]] = {name: [] for name in sizes}
        rebuilt: dict[str, list[float]] = {name: [] for name in sizes}
        for _ in range(repeats):  # interleaved, so both sizes see the same machine state
            for name in sizes:
                ms, count = await list_on_fresh_server(roots[name], drop_index=False)
                assert count == sessions, (name, count)
                indexed[name].append(ms)
        for _ in range(max(1, repeats // 3)):
            for name in sizes:
                rebuilt[name].append((await list_on_fresh_server(roots[name], drop_index=True))[0])
        for name in sizes:
            result["sizes"][name] = {
                "tokensPerSession": totals[name] // sessions,
                "indexed_ms": {
                    "median": round(statistics.median(indexed[name]), 1),
                    "all": [round(v, 1) for v in indexed[name]],
                },
                "without_index_ms": {"median": round(statistics.median(rebuilt[name]), 1)},
            }
    small = result["sizes"]["1k"]["indexed_ms"]["median"]
    big = result["sizes"]["60k"]["indexed_ms"]["median"]
    result["ratio"] = round(big / small, 2)
    result["goals"] = {"ratio<=1.5": big / small <= 1.5}
    return result


def markdown(result: dict[str, Any]) -> str:
    rows = []
    for name, data in result["sizes"].items():
        rows.append(
            f"| {result['sessions']} x {data['tokensPerSession']:,} tokens ({name}) | {data['indexed_ms']['median']} "
            f"| {data['without_index_ms']['median']} |"
        )
    return "\n".join(
        [
            f"compact/sessions, first request on a fresh server, median of {result['repeats']} servers (over stdio)",
            "",
            "| stored sessions | listed from the index (ms) | index deleted: every session replayed (ms) |",
            "|---|---:|---:|",
            *rows,
            "",
            f"60k/1k ratio with the index: **{result['ratio']}x** (goal <= 1.5x)",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=21)
    ns = parser.parse_args()
    result = asyncio.run(run(ns.sessions, ns.repeats))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_sessions_list.json").write_text(json.dumps(result, indent=2) + "\n")
    table = markdown(result)
    (RESULTS / "bench_sessions_list.md").write_text(table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
