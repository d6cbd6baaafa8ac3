"""Crash trials: SIGKILL the real server at a random moment of an append, a microcompaction or a compaction.

Shared by ``tests/reliability/test_crash.py`` (a small sample) and ``bench/bench_crash.py`` (100+ trials).

One trial: a victim server opens a prepared session, starts one operation, and is killed after a random delay
drawn from ``[0, 1.3 x the operation's measured duration]`` (so most kills land while it runs, some just after).
A fresh server then reloads the session. The reloaded transcript must be exactly the state before the operation
or exactly the state after it (for a pipeline of appends: the state after some prefix of them), never a corrupt,
shorter or duplicated one; an operation the client saw acknowledged must have survived.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from compact_lsp.store.session_store import parse_lines

from .rpc import RawServer, RpcError, Workspace, server_env

Operation = Literal["append", "microcompact", "compact"]
OPERATIONS: tuple[Operation, ...] = ("append", "microcompact", "compact")

BASE_ROUNDS = 24
"""Read rounds in each prepared session (about 40k tokens: big enough that every operation takes a while)."""
APPEND_BATCHES = 12
"""Appends the ``append`` operation pipelines (each one read round) before the kill."""


def file_text(i: int) -> str:
    lines = [f"    total_{i} += line_item_{j}.amount * rate_{j % 7}  # step {j} of module {i}" for j in range(90)]
    return f"def module_{i}():\n" + "\n".join(lines) + "\n"


def read_round(use_id: str, path: str, content: str) -> list[dict[str, Any]]:
    return [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": f"Reading {path}."},
                {"type": "tool_use", "id": use_id, "name": "read_file", "input": {"file_path": path}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use_id, "content": content}]},
    ]


def base_conversation(workspace: Workspace, rounds: int = BASE_ROUNDS) -> list[dict[str, Any]]:
    """A user request, then ``rounds`` reads of workspace files (written to disk too, for rehydration)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Refactor the billing modules."}]
    for i in range(rounds):
        path = f"src/module_{i % 8}.py"
        text = file_text(i % 8)
        workspace.write(path, text)
        messages += read_round(f"toolu_base_{i}", path, text)
    return messages


def append_batches(count: int = APPEND_BATCHES) -> list[list[dict[str, Any]]]:
    return [read_round(f"toolu_new_{k}", f"src/extra_{k}.py", file_text(100 + k)) for k in range(count)]


@dataclass
class Prepared:
    """Sessions ready for trials, with what each operation must turn them into."""

    workspace: Workspace
    sessions: list[str]
    before: list[dict[str, Any]]
    after: dict[Operation, list[dict[str, Any]]]
    duration: dict[Operation, float]
    batches: list[list[dict[str, Any]]]


def _options(workspace: Workspace) -> dict[str, Any]:
    # keepRecent 1 and no size trigger: the appends themselves never microcompact, the forced run clears a lot
    return workspace.options(microcompact={"keepRecent": 1, "sizeThresholdTokens": -1, "idleMinutes": -1})


def _env() -> dict[str, str]:
    return server_env()  # no API key: compaction uses the offline summariser, deterministic and local


def prepare(workspace: Workspace, trials: int) -> Prepared:
    """One server writes ``trials`` identical sessions, and measures each operation on spare copies."""
    batches = append_batches()
    with RawServer(workspace, _options(workspace), env=_env()) as server:
        conversation = base_conversation(workspace)
        sessions = []
        for n in range(trials + len(OPERATIONS)):
            session_id = server.new_session(f"crash trial {n}")
            server.append(session_id, conversation)
            sessions.append(session_id)
        before = server.messages(sessions[0])
        after: dict[Operation, list[dict[str, Any]]] = {}
        duration: dict[Operation, float] = {}
        for op, session_id in zip(OPERATIONS, sessions[trials:], strict=True):
            started = time.perf_counter()
            ids = start_operation(server, op, session_id, batches)
            for msg_id in ids:
                server.wait(msg_id)
            duration[op] = time.perf_counter() - started
            after[op] = server.messages(session_id)
    return Prepared(workspace, sessions[:trials], before, after, duration, batches)


def start_operation(
    server: RawServer, op: Operation, session_id: str, batches: list[list[dict[str, Any]]]
) -> list[int]:
    """Send the operation's request(s) without waiting; the ids, in order."""
    if op == "append":
        return [server.send("compact/append", {"sessionId": session_id, "messages": batch}) for batch in batches]
    command = "compact.microcompact" if op == "microcompact" else "compact.compact"
    return [server.send("workspace/executeCommand", {"command": command, "arguments": [{"sessionId": session_id}]})]


@dataclass
class TrialResult:
    operation: Operation
    delay: float
    acknowledged: int
    """Requests of the operation the client saw answered before the kill."""
    outcome: str = ""
    """``before``, ``after``, or for appends ``after k/N``."""
    problems: list[str] = field(default_factory=list)
    torn_tail: bool = False
    """The file ended in a cut-off line (tolerated on load: the state is still before or after)."""

    @property
    def ok(self) -> bool:
        return not self.problems


def kill_during(prepared: Prepared, session_id: str, op: Operation, rng: random.Random) -> TrialResult:
    """Start ``op`` on a fresh victim server and SIGKILL it after a random delay."""
    workspace = prepared.workspace
    delay = rng.uniform(0, prepared.duration[op] * 1.3)
    server = RawServer(workspace, _options(workspace), env=_env())
    try:
        server.request("compact/status", {"sessionId": session_id})  # loaded: the clock starts at the operation
        ids = start_operation(server, op, session_id, prepared.batches)
        time.sleep(delay)  # the crash moment itself is what is random here; no test waits on this
        server.kill()
        acknowledged = sum(1 for msg_id in ids if server.answered(msg_id))
    finally:
        server.kill()
    return TrialResult(op, delay, acknowledged)


def check_reloaded(prepared: Prepared, checker: RawServer, session_id: str, result: TrialResult) -> TrialResult:
    """Compare the reloaded session with the states before and after the interrupted operation."""
    path = prepared.workspace.session_file(session_id)
    _, report = parse_lines(path.read_bytes(), path)
    result.torn_tail = report.torn_tail
    if report.corrupt:
        result.problems.append(f"corrupt lines after reload: {report.describe()}")
    try:
        reloaded = checker.messages(session_id)
    except RpcError as exc:
        result.problems.append(f"the session does not load: {exc.message}")
        return result
    before = prepared.before
    if result.operation == "append":
        candidates = _append_states(before, prepared.batches)
        k = next((k for k, state in enumerate(candidates) if state == reloaded), None)
        if k is None:
            result.problems.append(f"reloaded {len(reloaded)} messages: not the state after any prefix of appends")
        else:
            result.outcome = f"after {k}/{len(prepared.batches)}" if k else "before"
            if k < result.acknowledged:
                result.problems.append(f"{result.acknowledged} appends were acknowledged but only {k} survived")
    else:
        after = prepared.after[result.operation]
        if reloaded == before:
            result.outcome = "before"
            if result.acknowledged:
                result.problems.append(f"the {result.operation} was acknowledged but did not survive")
        elif reloaded == after:
            result.outcome = "after"
        else:
            result.problems.append(
                f"reloaded {len(reloaded)} messages: neither the state before ({len(before)}) nor after "
                f"({len(after)}) the {result.operation}"
            )
    if result.ok:
        _check_still_usable(prepared, checker, session_id, result)
    return result


def _append_states(before: list[dict[str, Any]], batches: Iterable[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    states = [before]
    for batch in batches:
        states.append(states[-1] + batch)
    return states


def _check_still_usable(prepared: Prepared, checker: RawServer, session_id: str, result: TrialResult) -> None:
    """The reloaded session takes new work: a compaction can be undone back to exactly ``before``."""
    if result.operation == "compact" and result.outcome == "after":
        checker.command("compact.undo", {"sessionId": session_id})
        if checker.messages(session_id) != prepared.before:
            result.problems.append("undo after the reloaded compaction did not restore the state before it")
    probe = [
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        {"role": "user", "content": [{"type": "text", "text": "Thanks."}]},
    ]
    reloaded = checker.messages(session_id)
    checker.append(session_id, probe)
    if checker.messages(session_id) != reloaded + probe:
        result.problems.append("an append after the reload was not kept as sent")


def run_trials(base: Path, trials: int, seed: int) -> tuple[Prepared, list[TrialResult]]:
    """``trials`` kills, cycling through the operations, then one server reloads and checks every session."""
    rng = random.Random(seed)
    prepared = prepare(Workspace(base), trials)
    results = [
        kill_during(prepared, session_id, OPERATIONS[n % len(OPERATIONS)], rng)
        for n, session_id in enumerate(prepared.sessions)
    ]
    with RawServer(prepared.workspace, _options(prepared.workspace), env=_env()) as checker:
        for session_id, result in zip(prepared.sessions, results, strict=True):
            check_reloaded(prepared, checker, session_id, result)
    return prepared, results
