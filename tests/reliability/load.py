"""Load over one connection: many sessions appending at once, with status requests and one compaction each.

Shared by ``tests/reliability/test_load.py`` (5 x 50) and ``bench/bench_load.py`` (50 x 1,000). The client works
like many agents sharing one editor, each reading files of the workspace: in each wave every session has one
request in flight (an append of one read round; at the middle wave a ``compact.compact`` instead), all pipelined on
the one connection; behind them one session's ``compact/status``, and every ``status_every`` waves then every
session's. Afterwards ``compact.undo`` on
each session must give back exactly every message sent, in order: nothing lost, nothing doubled.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from .rpc import RawServer, Workspace


def load_options(workspace: Workspace) -> dict[str, Any]:
    # no automatic clearing or compaction: the transcript must come back exactly as sent
    return workspace.options(microcompact={"sizeThresholdTokens": -1, "idleMinutes": -1})


def file_of(session: int, step: int) -> tuple[str, str]:
    """The workspace file a session reads at a step, and its text (what the read's result shows)."""
    return f"src/s{session}_{step}.py", "\n".join(
        f"line {j}: value_{session}_{step}_{j} = compute({j})" for j in range(12)
    )


def round_of(session: int, step: int) -> list[dict[str, Any]]:
    use_id = f"toolu_{session}_{step}"
    path, body = file_of(session, step)
    messages: list[dict[str, Any]] = []
    if step == 0:
        messages.append({"role": "user", "content": [{"type": "text", "text": f"Session {session}: go."}]})
    messages += [
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": use_id, "name": "read_file", "input": {"file_path": path}}
        ]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use_id, "content": body}]},
    ]  # fmt: skip
    return messages


@dataclass
class LoadResult:
    sessions: int
    appends: int
    seconds: float = 0.0
    latencies: dict[str, list[float]] = field(
        default_factory=lambda: {
            "append": [],
            "status": [],
            "sessions": [],
            "current": [],
            "status_wave": [],
            "compact": [],
        }
    )
    """Seconds per request: ``status`` is one session's status sent behind each wave (what an editor's status bar
    asks while every session works), ``sessions`` and ``current`` the session list and the current session sent
    behind it (what the editor's sessions view and a new window ask); ``status_wave`` every session's at once,
    every ``status_every`` waves."""
    lost: list[str] = field(default_factory=list)
    """Sessions whose transcript did not come back exactly as sent."""
    errors: list[str] = field(default_factory=list)
    sent: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Every message sent, by session, in order."""

    def summary(self) -> dict[str, Any]:
        def pct(values: list[float], q: float) -> float | None:
            if not values:
                return None
            ordered = sorted(values)
            return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)

        return {
            "sessions": self.sessions,
            "appends_per_session": self.appends,
            "seconds": round(self.seconds, 1),
            "requests": sum(len(v) for v in self.latencies.values()),
            "lost_sessions": len(self.lost),
            "errors": len(self.errors),
            "latency_ms": {
                kind: {
                    "count": len(values),
                    "p50": pct(values, 0.5),
                    "p99": pct(values, 0.99),
                    "max": round(max(values) * 1000, 2) if values else None,
                    "mean": round(statistics.fmean(values) * 1000, 2) if values else None,
                }
                for kind, values in self.latencies.items()
            },
        }


def run_load(server: RawServer, sessions: int, appends: int, status_every: int = 10) -> LoadResult:
    result = LoadResult(sessions, appends)
    for n in range(sessions):  # the files the agents read are there, as in a real workspace (and watched)
        for step in range(appends):
            server.workspace.write(*file_of(n, step))
    ids = [server.new_session(f"load {n}") for n in range(sessions)]
    sent = result.sent = {sid: [] for sid in ids}
    compact_at = appends // 2
    started = time.perf_counter()
    for step in range(appends + 1):
        wave: list[tuple[str, int]] = []
        for n, sid in enumerate(ids):
            if step == compact_at:
                compact = {"command": "compact.compact", "arguments": [{"sessionId": sid}]}
                wave.append(("compact", server.send("workspace/executeCommand", compact)))
            else:
                batch = round_of(n, step if step < compact_at else step - 1)
                sent[sid] += batch
                wave.append(("append", server.send("compact/append", {"sessionId": sid, "messages": batch})))
        # what an editor asks while all of them work: one session's status, behind the whole wave on the connection
        wave.append(("status", server.send("compact/status", {"sessionId": ids[step % sessions]})))
        wave.append(("sessions", server.send("compact/sessions", {})))
        wave.append(("current", server.send("compact/currentSession", {})))
        if step % status_every == 0:  # and every session's at once
            wave += [("status_wave", server.send("compact/status", {"sessionId": sid})) for sid in ids]
        for kind, msg_id in wave:
            try:
                server.wait(msg_id)
            except Exception as exc:  # counted and reported, the run goes on
                result.errors.append(f"{kind}: {exc}")
            result.latencies[kind].append(server.latency.pop(msg_id, float("nan")))
    result.seconds = time.perf_counter() - started
    for sid in ids:
        server.command("compact.undo", {"sessionId": sid})
        if server.messages(sid) != sent[sid]:
            result.lost.append(sid)
    return result


def verify_reloaded(server: RawServer, result: LoadResult) -> None:
    """A fresh server over the same sessions sees every transcript exactly as sent."""
    for sid, messages in result.sent.items():
        if server.messages(sid) != messages:
            result.lost.append(f"{sid} (after reload)")
