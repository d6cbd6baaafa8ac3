"""Following a live Claude Code transcript or Codex rollout: what one appended line costs, at any length.

Synthetic transcripts shaped as Claude Code writes them (a turn is a prompt, a Read call, its result with
``toolUseResult`` side data, and an answer; every record chained by ``parentUuid``), with a compaction
(``compact_boundary`` and its summary) each time the window reaches ``--window-mib`` of log, as a 1M-token model's
auto-compaction would; and Codex rollouts the same way (a request, an ``exec_command`` read and its output, an
answer, a ``token_count``; ``compacted`` when the window is full). For each size:

- in process: CPU time (``time.process_time``) of ``FollowedSession.update`` (``FollowedCodexSession.update``) for
  each of 200 appended lines, median and p95; the first read's wall time; and a first read's Python memory
  (tracemalloc: its peak and what it holds after), which no allocator's state blurs;
- through the real server (``python -m compact_lsp --stdio`` with ``claudeCode.projectsDir`` or ``codex.home``),
  started on a small warm-up transcript of its own and then shown the measured one (moved into its folder): time
  from its appearing to the session listed by ``compact/sessions`` with its messages, write →
  ``compact/didChangeUsage`` for 40 lines (p50/p95), the server's CPU while nothing is appended (3 s), and what the
  follow added to its resident memory: the base is the server's RSS just before the transcript appears, in the
  same process (after start-up, imports, the tokenizer's encoding, the watcher's and follower's threads, a first
  read and appends of the warm-up transcript, the idle collection), the peak its VmHWM from then, reset through
  ``/proc/<pid>/clear_refs``; both summed over the server's process tree, each process its own peak minus its own
  base (tests/reliability/process_tree.py); the median of ``--server-runs`` identical runs, with their spread. The
  live context is the largest window the server held from its first read to its last, in the log's bytes.

    .venv/bin/python bench/bench_follow.py [--sizes 1000,10000,50000] [--codex-sizes 1000,10000,50000]
        [--corpus-sizes 1000,20000] [--big]

``--corpus-sizes``: transcripts built from the corpus's own lines as well (bench/corpus_transcript.py: what Claude
Code writes, records of every size with their side data), by default never compacted (``--corpus-window-mib``),
as the issue-40 transcript of 20,000 records and 88 MB was: its live context is the whole file.

``--big`` adds the 1M-record (~290 MiB) transcript; run it once, late, under ``nice``. Writes
bench/results/follow.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.corpus_transcript import CorpusTranscriptWriter, write_corpus_transcript  # noqa: E402
from tests.reliability.process_tree import TreeMemory, descendants  # noqa: E402
from tests.reliability.rpc import RawServer, Workspace  # noqa: E402

from compact_lsp.agents.claude_code.live import FollowedSession, project_directory  # noqa: E402
from compact_lsp.agents.claude_code.transcript_window import LiveTranscript  # noqa: E402
from compact_lsp.agents.codex.live import FollowedCodexSession  # noqa: E402
from compact_lsp.engine.conversation.tokens import TiktokenCounter  # noqa: E402
from compact_lsp.engine.session.context_session import ContextSession  # noqa: E402
from compact_lsp.engine.settings import EngineSettings, passive  # noqa: E402

RESULTS = ROOT / "bench" / "results"
SESSION = "0b5e2c1a-1111-4222-8333-944455556666"
THREAD = "7d0c9a3e-2222-4333-8444-955566667777"
WARM_SESSION = "0b5e2c1a-aaaa-4222-8333-944455556666"
WARM_THREAD = "7d0c9a3e-bbbb-4333-8444-955566667777"
WARM_APPENDS = 8
"""Lines appended to the warm-up transcript, each told, before the base is taken."""
IDLE_COLLECTION_S = 2.5
"""Quiet before the base: past the 2 s after which the server's idle collector runs its full pass."""
COUNTER = TiktokenCounter()


class TranscriptWriter:
    """Claude Code's records, one turn (4 records) at a time, with a compaction whenever the window is full."""

    def __init__(self, cwd: str, result_bytes: int, window_bytes: int) -> None:
        self.cwd, self.result_bytes, self.window_bytes = cwd, result_bytes, window_bytes
        self.n = 0
        self.parent: str | None = None
        self.window = 0
        """Bytes logged since the last boundary."""

    def _record(self, kind: str, message: dict[str, Any] | None = None, **extra: Any) -> bytes:
        self.n += 1
        uuid = f"{self.n:08x}-0000-4000-8000-000000000000"
        record: dict[str, Any] = {
            "parentUuid": self.parent, "isSidechain": False, "type": kind, "uuid": uuid, "sessionId": SESSION,
            "cwd": self.cwd, "version": "2.1.332", "timestamp": "2026-12-01T12:00:00.000Z", **extra,
        }  # fmt: skip
        if message is not None:
            record["message"] = message
        self.parent = uuid
        line = json.dumps(record, separators=(",", ":")).encode() + b"\n"
        self.window += len(line)
        return line

    def turn(self) -> list[bytes]:
        t = self.n
        body = ("x" * 60 + "\n") * max(1, self.result_bytes // 61)
        call = {"type": "tool_use", "id": f"toolu_{t:012d}", "name": "Read", "input": {"file_path": f"/w/f{t}.py"}}
        usage = {"input_tokens": 1200 + t % 1000, "output_tokens": 40}
        lines = [
            self._record("user", {"role": "user", "content": f"look at f{t}.py"}),
            self._record(
                "assistant",
                {
                    "id": f"msg_{t}a",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [call],
                    "usage": usage,
                },
            ),
            self._record(
                "user",
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": body}]},
                toolUseResult={"type": "text", "file": {"filePath": f"/w/f{t}.py", "content": body}},
            ),
            self._record(
                "assistant",
                {
                    "id": f"msg_{t}b",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": f"f{t}.py reads fine."}],
                    "usage": usage,
                },
            ),
        ]
        if self.window >= self.window_bytes:
            lines += self.compaction()
        return lines

    def compaction(self) -> list[bytes]:
        logical, self.parent = self.parent, None
        boundary = self._record("system", subtype="compact_boundary", logicalParentUuid=logical,
                                content="Conversation compacted", compactMetadata={"trigger": "auto"})  # fmt: skip
        self.window = len(boundary)
        text = {"type": "text", "text": "This session is being continued from a previous conversation. " * 20}
        return [boundary, self._record("user", {"role": "user", "content": [text]}, isCompactSummary=True)]


def write_transcript(path: Path, records: int, result_bytes: int, window_bytes: int) -> TranscriptWriter:
    writer = TranscriptWriter("/w", result_bytes, window_bytes)
    with path.open("wb") as f:
        while writer.n < records:
            f.write(b"".join(writer.turn()))
    return writer


class RolloutWriter:
    """Codex's rollout lines, one turn (a request, a shell read and its output, an answer, a token count) at a
    time, with a compaction (``compacted``, the first request kept) whenever the window is full."""

    def __init__(self, cwd: str, result_bytes: int, window_bytes: int) -> None:
        self.cwd, self.result_bytes, self.window_bytes = cwd, result_bytes, window_bytes
        self.n = 0
        self.window = 0
        """Bytes logged since the last compaction."""

    def _line(self, kind: str, payload: dict[str, Any]) -> bytes:
        self.n += 1
        record = {"timestamp": "2026-12-01T12:00:00.000Z", "ordinal": self.n, "type": kind, "payload": payload}
        line = json.dumps(record, separators=(",", ":")).encode() + b"\n"
        self.window += len(line)
        return line

    def head(self) -> list[bytes]:
        return [self._line("session_meta", {"id": THREAD, "cwd": self.cwd, "model": "gpt-5.5"})]

    def turn(self) -> list[bytes]:
        t = self.n
        body = ("x" * 60 + "\n") * max(1, self.result_bytes // 61)
        text = [{"type": "input_text", "text": f"look at f{t}.py"}]
        lines = [
            self._line("response_item", {"type": "message", "role": "user", "content": text}),
            self._line("response_item", {"type": "function_call", "call_id": f"c{t}", "name": "exec_command",
                                         "arguments": json.dumps({"cmd": f"cat f{t}.py"})}),
            self._line("response_item", {"type": "function_call_output", "call_id": f"c{t}",
                                         "output": f"Process exited with code 0\nOutput:\n{body}"}),
            self._line("response_item", {"type": "message", "role": "assistant",
                                         "content": [{"type": "output_text", "text": f"f{t}.py reads fine."}]}),
            self._line("event_msg", {"type": "token_count",
                                     "info": {"last_token_usage": {"input_tokens": 1200 + t % 1000}}}),
        ]  # fmt: skip
        if self.window >= self.window_bytes:
            kept = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "look at f0.py"}]}
            self.window = 0
            lines.append(self._line("compacted", {"message": "SUMMARY " * 200, "replacement_history": [kept]}))
        return lines


Writer = TranscriptWriter | RolloutWriter | CorpusTranscriptWriter
"""What writes a transcript a turn at a time: synthetic Claude Code or Codex lines, or the corpus's own."""


def write_rollout(path: Path, cwd: str, records: int, result_bytes: int, window_bytes: int) -> RolloutWriter:
    writer = RolloutWriter(cwd, result_bytes, window_bytes)
    with path.open("wb") as f:
        f.write(b"".join(writer.head()))
        while writer.n < records:
            f.write(b"".join(writer.turn()))
    return writer


def in_process(followed: Any, writer: Writer, appends: int) -> dict[str, Any]:
    """The first read's wall time, then the CPU time of each appended line's update."""
    path = followed.transcript.path
    t0 = time.perf_counter()
    followed.update()
    first = time.perf_counter() - t0
    pending: list[bytes] = []
    cpu: list[float] = []
    with path.open("ab") as f:
        for _ in range(appends):
            if not pending:
                pending = writer.turn()
            f.write(pending.pop(0))
            f.flush()
            c0 = time.process_time()
            followed.update()
            cpu.append(time.process_time() - c0)
        f.write(b"".join(pending))  # the turn's other lines: what a server reads next hangs off them, as in a real log
    return {
        "first_read_s": round(first, 3),
        "cpu_per_line_ms_p50": round(statistics.median(cpu) * 1000, 3),
        "cpu_per_line_ms_p95": round(sorted(cpu)[int(len(cpu) * 0.95)] * 1000, 3),
        "rebuilds": followed.rebuilds,
        "messages": len(followed.messages),
    }


def make_session(session_id: str, title: str) -> ContextSession:
    return ContextSession(session_id, settings=passive(EngineSettings()), counter=COUNTER, title=title)


def proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Followed:
    """Where the server finds the transcript it follows, and the settings that tell it so."""

    live: Path
    session_id: str
    options: dict[str, Any]


def claude_code_place(workspace: Workspace, base: Path) -> Followed:
    projects = base / "projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    options = workspace.options(claudeCode={"projectsDir": str(projects)}, codex={"follow": False})
    return Followed(directory / f"{SESSION}.jsonl", f"claude-{SESSION}", options)


def codex_place(workspace: Workspace, base: Path) -> Followed:
    day = base / "codex-home" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    options = workspace.options(codex={"home": str(base / "codex-home")}, claudeCode={"follow": False})
    return Followed(day / f"rollout-2026-12-01T12-00-00-{THREAD}.jsonl", f"codex-{THREAD}", options)


def wait_listed(server: RawServer, session_id: str, since: float) -> float:
    """Seconds from ``since`` until ``compact/sessions`` lists the session with its messages."""
    while True:
        items = server.request("compact/sessions", {}, timeout=120)
        if any(i["sessionId"] == session_id and i["messages"] for i in items):
            return time.perf_counter() - since
        if time.perf_counter() - since > 300:
            raise TimeoutError(f"{session_id} was not listed within 300 s")
        time.sleep(0.05)


def append_lines(server: RawServer, live: Path, writer: Writer, lines: int) -> tuple[list[float], int]:
    """Append ``lines`` of the writer's turns one at a time; the write → ``compact/didChangeUsage`` of each, and
    the largest window the writer reached meanwhile."""
    delays: list[float] = []
    pending: list[bytes] = []
    window = writer.window
    with live.open("ab") as f:
        for _ in range(lines):
            if not pending:
                pending = writer.turn()
                window = max(window, writer.window)
            seen = len(server.notifications_of("compact/didChangeUsage"))
            w0 = time.perf_counter()
            f.write(pending.pop(0))
            f.flush()
            server.wait_for_notification(
                "compact/didChangeUsage",
                lambda _p, seen=seen: len(server.notifications_of("compact/didChangeUsage")) > seen,
                timeout=60,
            )
            delays.append(time.perf_counter() - w0)
            time.sleep(0.15)  # past the notifier's interval: each line is told at once
        f.write(b"".join(pending))  # the turn's other lines, so the transcript ends whole
    return delays, window


def tree_cpu(pid: int) -> float:
    return sum(proc_cpu(p) for p in descendants(pid) if Path(f"/proc/{p}/stat").exists())


def through_server(
    base: Path,
    transcript: Path,
    place: Callable[[Workspace, Path], Followed],
    writer: Writer,
    appends: int,
) -> dict[str, Any]:
    """Start a server following a small warm-up transcript (start-up, imports, encoding, follow thread, appends
    told); then, in that process, take the base and reset the peak, and let the measured transcript appear."""
    workspace = Workspace(base)
    followed = place(workspace, base)
    live = followed.live
    warm = warm_up(place, workspace, live)
    t0 = time.perf_counter()
    with RawServer(workspace, followed.options) as server:
        started = wait_listed(server, warm.session_id, t0)
        append_lines(server, warm.live, warm.writer, WARM_APPENDS)
        time.sleep(IDLE_COLLECTION_S)  # the idle collector's full pass runs now, not during the follow
        pid = server.proc.pid
        memory = TreeMemory(pid).start()
        t1 = time.perf_counter()
        os.replace(transcript, live)
        listed = wait_listed(server, followed.session_id, t1)
        c0 = tree_cpu(pid)
        time.sleep(3)
        idle_cpu = tree_cpu(pid) - c0
        delays, window = append_lines(server, live, writer, appends)
        memory.stop()
    return {
        "window": window,
        "started_s": started,
        "listed_s": listed,
        "idle_cpu_s_per_3s": idle_cpu,
        "base_mib": memory.base_mib(),
        "grown_mib": memory.grown_mib(),
        "processes": memory.processes(),
        "delays": delays,
        "live": live,
    }


def server_figures(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Identical server runs in one row: what the follow added to the tree's RSS as the median run with the
    spread (the allocator's state after start-up decides whether the context lands in pages already resident:
    about +0.02 or +0.55 MiB at 1M records, between identical runs), the appends' delays pooled."""
    grown = sorted(r["grown_mib"] for r in runs)
    delays = sorted(d for r in runs for d in r["delays"])
    result: dict[str, Any] = {
        "window_mib": round(max(r["window"] for r in runs) / 2**20, 2),  # the live context: the largest window held
        "started_s": round(statistics.median(r["started_s"] for r in runs), 2),
        "listed_s": round(statistics.median(r["listed_s"] for r in runs), 2),
        "idle_cpu_s_per_3s": round(max(r["idle_cpu_s_per_3s"] for r in runs), 3),
        "base_rss_mib": round(statistics.median(r["base_mib"] for r in runs), 1),
        "grown_mib": round(statistics.median(grown), 2),
        "grown_mib_runs": [round(g, 2) for g in grown],
        "peak_rss_mib": round(max(r["base_mib"] + r["grown_mib"] for r in runs), 1),
        "processes": max(r["processes"] for r in runs),
        "server_runs": len(runs),
    }
    if delays:
        result["write_to_usage_ms_p50"] = round(statistics.median(delays) * 1000, 1)
        result["write_to_usage_ms_p95"] = round(delays[int(len(delays) * 0.95)] * 1000, 1)
        result["write_to_usage_ms_p99"] = round(delays[int(len(delays) * 0.99)] * 1000, 1)
    return result


@dataclass
class WarmUp:
    """The small transcript a server follows before the measured one appears, and the writer that extends it."""

    live: Path
    session_id: str
    writer: Writer


def warm_up(place: Callable[[Workspace, Path], Followed], workspace: Workspace, live: Path) -> WarmUp:
    """A transcript of a few turns and two compactions beside where the measured one will appear, so every path a
    first read and an append take (the boundary scan, the head's title, the window's import, the tokenizer) has run
    once before the base is taken."""
    if place is codex_place:
        path = live.with_name(f"rollout-2026-12-01T11-00-00-{WARM_THREAD}.jsonl")
        cwd = os.path.realpath(workspace.root)
        return WarmUp(path, f"codex-{WARM_THREAD}", write_rollout(path, cwd, 40, 2_000, 20_000))
    path = live.with_name(f"{WARM_SESSION}.jsonl")
    return WarmUp(path, f"claude-{WARM_SESSION}", write_transcript(path, 40, 2_000, 20_000))


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def traced_first_read(followed: Any) -> dict[str, Any]:
    """The Python memory of a first read (tracemalloc): its peak, and what the follower holds after it. Unlike RSS
    this does not depend on the allocator's state, so it says what the follow holds beyond its window."""
    tracemalloc.start()
    try:
        followed.update()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return {"traced_peak_mib": round(peak / 2**20, 2), "traced_held_mib": round(held / 2**20, 2)}


def follow_row(
    path: Path,
    writer: Writer,
    open_followed: Callable[[Path], Any],
    place: Callable[[Workspace, Path], Followed],
    ns: argparse.Namespace,
) -> dict[str, Any]:
    """One size: in process (CPU per line, the first read traced), then through ``ns.server_runs`` servers in turn,
    each in the same workspace (a Codex rollout names it) and shown the transcript as the last one left it."""
    row: dict[str, Any] = {"records": writer.n, "mib": round(path.stat().st_size / 2**20, 1), "load_before": load()}
    row.update(in_process(open_followed(path), writer, ns.appends))
    row.update(traced_first_read(open_followed(path)))
    runs = []
    for _ in range(ns.server_runs):
        runs.append(through_server(path.parent / "srv", path, place, writer, ns.server_appends))
        os.replace(runs[-1]["live"], path)
        shutil.rmtree(path.parent / "srv")
    row.update(server_figures(runs))
    row["load_after"] = load()
    return row


def measure(records: int, result_bytes: int, window_bytes: int, ns: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-follow-") as tmp:
        path = Path(tmp) / "t.jsonl"
        writer = write_transcript(path, records, result_bytes, window_bytes)
        return follow_row(
            path, writer, lambda p: FollowedSession(LiveTranscript(p), make_session), claude_code_place, ns
        )


def measure_corpus(records: int, window_bytes: int, ns: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-follow-corpus-") as tmp:
        path = Path(tmp) / "t.jsonl"
        writer = write_corpus_transcript(path, "/w", records, window_bytes)
        return follow_row(
            path, writer, lambda p: FollowedSession(LiveTranscript(p), make_session), claude_code_place, ns
        )


def measure_codex(records: int, result_bytes: int, window_bytes: int, ns: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-follow-codex-") as tmp:
        path = Path(tmp) / "rollout.jsonl"
        cwd = os.path.realpath(Workspace(Path(tmp) / "srv").root)
        writer = write_rollout(path, cwd, records, result_bytes, window_bytes)
        return follow_row(path, writer, lambda p: FollowedCodexSession(p, make_session), codex_place, ns)


def table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| records | MiB | window MiB | first read (s) | CPU/line p50 (ms) | p95 | rebuilds | traced held / peak (MiB) "
        "| listed (s) | write→usage p50 (ms) | p95 | p99 | idle CPU (s/3 s) | base RSS (MiB) | peak − base (MiB) "
        "| (peak−base)/window | load (1/5/15) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        over = r["grown_mib"] / max(r["window_mib"], 0.01)
        runs = r.get("grown_mib_runs") or [r["grown_mib"]]
        spread = f" ({runs[0]}–{runs[-1]})" if len(runs) > 1 else ""
        lines.append(
            f"| {r['records']:,} | {r['mib']} | {r['window_mib']} | {r['first_read_s']} | {r['cpu_per_line_ms_p50']} "
            f"| {r['cpu_per_line_ms_p95']} | {r['rebuilds']} | {r['traced_held_mib']} / {r['traced_peak_mib']} "
            f"| {r['listed_s']} | {r.get('write_to_usage_ms_p50')} | {r.get('write_to_usage_ms_p95')} "
            f"| {r.get('write_to_usage_ms_p99')} "
            f"| {r['idle_cpu_s_per_3s']} | {r['base_rss_mib']} | {r['grown_mib']}{spread} | {over:.1f}x "
            f"| {r['load_before']} |"
        )
    return lines


BASE_NOTE = (
    "The base is the server's own resident set (summed over its process tree) just before the transcript appears: "
    "started, warmed on a small transcript of its own (a first read with compactions, appends told), after its "
    "idle collection; the peak is each process's VmHWM from then (reset through /proc/<pid>/clear_refs) to the last "
    "append, so peak − base is what this follow cost, in the same process: the median of identical server runs "
    "(the spread in brackets: whether the context lands in memory already resident varies between them). "
    "Traced: the Python memory a first read holds after it and at its peak (tracemalloc, in process; no "
    "allocator in it). Listed: seconds from the transcript "
    "appearing to `compact/sessions` listing it with its messages. Window: the largest live context the server "
    "held (the log since the last compaction), in the log's bytes."
)


def markdown(result: dict[str, Any]) -> str:
    lines = [f"commit {result['commit']}. {BASE_NOTE}", "", *table(result["rows"])]
    if result.get("corpus_rows"):
        lines += ["", "Transcripts built from the corpus's own lines (bench/corpus_transcript.py), measured the same "
                  "way.", ""]  # fmt: skip
        lines += table(result["corpus_rows"])
    if result.get("codex_rows"):
        lines += ["", "Codex rollouts (`FollowedCodexSession`, `codex.home`), measured the same way.", ""]
        lines += table(result["codex_rows"])
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--codex-sizes", default="1000,10000,50000", help="Codex rollout sizes ('' for none)")
    parser.add_argument("--result-bytes", type=int, default=8_000, help="tool result size (~4.4 KB a record)")
    parser.add_argument("--window-mib", type=float, default=3.0)
    parser.add_argument("--corpus-sizes", default="1000,20000", help="corpus-shaped transcript sizes ('' for none)")
    parser.add_argument("--corpus-window-mib", type=float, default=0.0, help="0: never compacted")
    parser.add_argument("--big", action="store_true", help="add 1M records of ~290 B (~290 MiB)")
    parser.add_argument("--appends", type=int, default=200)
    parser.add_argument("--server-appends", type=int, default=40)
    parser.add_argument("--server-runs", type=int, default=3, help="identical server runs a size (RSS: their median)")
    ns = parser.parse_args()
    import subprocess

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    result: dict[str, Any] = {"commit": commit.stdout.strip(), "rows": [], "corpus_rows": [], "codex_rows": []}
    window = int(ns.window_mib * 2**20)
    for records in [int(s) for s in ns.sizes.split(",") if s]:
        result["rows"].append(measure(records, ns.result_bytes, window, ns))
        print(result["rows"][-1], file=sys.stderr, flush=True)  # progress; the table is the result
    if ns.big:
        result["rows"].append(measure(1_000_000, 40, window, ns))
    for records in [int(s) for s in ns.corpus_sizes.split(",") if s]:
        result["corpus_rows"].append(measure_corpus(records, int(ns.corpus_window_mib * 2**20), ns))
        print(result["corpus_rows"][-1], file=sys.stderr, flush=True)
    codex_sizes = [int(s) for s in ns.codex_sizes.split(",") if s]
    for records in codex_sizes:
        result["codex_rows"].append(measure_codex(records, ns.result_bytes, window, ns))
        print(result["codex_rows"][-1], file=sys.stderr, flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "follow.json").write_text(json.dumps(result, indent=2) + "\n")
    text = markdown(result)
    (RESULTS / "follow.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
