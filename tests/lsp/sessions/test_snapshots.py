"""The one invariant of lsp/sessions/snapshots.py, held in-process: after any sequence of changes, holds of the
session's lock, compaction claims and settings changes, a status answered without waiting is what measuring the
session afresh gives (while a change holds the lock: what the last completed change gave)."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.lsp.app import create_server
from compact_lsp.lsp.features import lifecycle, methods
from compact_lsp.lsp.server import CompactLanguageServer
from compact_lsp.lsp.sessions.session_slot import SessionSlot
from compact_lsp.lsp.sessions.snapshots import at_once, status_wire


@asynccontextmanager
async def started(base: Path) -> AsyncIterator[CompactLanguageServer]:
    """A server initialised in-process on ``base``, telling nobody anything."""
    ls = create_server()
    ls.send_notification = lambda method, params: None  # type: ignore[method-assign,assignment]
    ls.show_warning = lambda message: None  # type: ignore[method-assign,assignment]
    ls.summarizer_factory = lambda settings: OfflineSummarizer()
    ls.protocol.client_capabilities = types.ClientCapabilities()
    (base / "ws").mkdir()
    options = {
        "sessionDir": str(base / "sessions"),
        "memory": {"userRoot": str(base / "user-memory")},
        "sessionMemory": {"enabled": False},
    }
    lifecycle.initialize(
        ls, types.InitializeParams(capabilities=types.ClientCapabilities(), root_path=str(base / "ws"),
                                   initialization_options=options),
    )  # fmt: skip
    try:
        yield ls
    finally:
        lifecycle.shutdown(ls)


def read_round(n: int) -> list[dict[str, Any]]:
    uid = f"toolu_{n}"
    return [
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": uid, "name": "read_file", "input": {"file_path": f"ws/f{n % 3}.py"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uid, "content": f"line {n}\n" * 50}]},
    ]  # fmt: skip


def configure(ls: CompactLanguageServer, window: int) -> None:
    change = {"compactLsp": {"contextWindow": window}}
    lifecycle.did_change_configuration(ls, types.DidChangeConfigurationParams(settings=change))


def assert_answers_as_measured(slot: SessionSlot) -> None:
    """The invariant, with nobody holding the lock: an answer at once is a fresh measurement."""
    answer = at_once(slot)
    if answer is not None:
        assert answer == status_wire(slot)


STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 20)),
        st.tuples(st.just("status"), st.just(0)),
        st.tuples(st.just("look"), st.just(0)),
        st.tuples(st.just("expect"), st.just(0)),
        st.tuples(st.just("change-under-hold"), st.integers(0, 20)),
        st.tuples(st.just("settings"), st.sampled_from([50_000, 100_000, 200_000])),
        st.tuples(st.just("settings-under-hold"), st.sampled_from([60_000, 120_000])),
        st.tuples(st.just("claim"), st.just(0)),
    ),
    max_size=12,
)


async def run_steps(ls: CompactLanguageServer, steps: list[tuple[str, int]]) -> None:
    session_id = (await methods.new_session(ls, {}))["sessionId"]
    await methods.append(ls, {"sessionId": session_id, "messages": [{"role": "user", "content": "Read them."}]})
    slot = ls.registry().slots[session_id]
    for n, (step, value) in enumerate(steps):
        if step == "append":
            await methods.append(ls, {"sessionId": session_id, "messages": read_round(1000 * n + value)})
        elif step == "status":
            assert await methods.status(ls, {"sessionId": session_id}) == status_wire(slot)
            assert at_once(slot) is not None
        elif step == "look":
            async with slot.lock.looking():  # a look that changes nothing the status shows
                await asyncio.sleep(0)
        elif step == "expect":
            slot.lock.expect()
            assert at_once(slot) is None
        elif step == "change-under-hold":
            async with slot.lock:  # a change that publishes nothing (an agent's tool call, an editor's document)
                slot.session.append(read_round(1000 * n + value))
                assert slot.status_snapshot is not None
                assert at_once(slot) == slot.status_snapshot[1]  # busy: what the last completed change published
        elif step == "settings":
            configure(ls, value)
            answer = at_once(slot)  # right after a settings change: at once, with the new window
            assert answer is not None and answer["usage"]["contextWindow"] == value
        elif step == "settings-under-hold":
            async with slot.lock:
                configure(ls, value)
                assert at_once(slot) is None  # the old thresholds never answer: this status waits for the lock
            await methods.status(ls, {"sessionId": session_id})
        elif step == "claim":
            with slot.session.compaction_claim():
                answer = at_once(slot)
                assert answer is None or answer == {**status_wire(slot), "compacting": True}
                assert (await methods.status(ls, {"sessionId": session_id}))["compacting"] is True
        assert_answers_as_measured(slot)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=STEPS)
def test_a_status_answered_at_once_is_a_fresh_measurement(steps: list[tuple[str, int]]) -> None:
    async def example() -> None:
        with tempfile.TemporaryDirectory() as base:
            async with started(Path(base)) as ls:
                await run_steps(ls, steps)

    asyncio.run(example())


def test_the_check_sees_a_stale_answer(tmp_path: Path) -> None:
    """A snapshot that outlived its change (published, then the session changed with nobody publishing) is the
    drift the property test exists to see."""

    async def example() -> None:
        async with started(tmp_path) as ls:
            session_id = (await methods.new_session(ls, {}))["sessionId"]
            await methods.append(ls, {"sessionId": session_id, "messages": [{"role": "user", "content": "Go."}]})
            slot = ls.registry().slots[session_id]
            slot.session.append(read_round(1))  # outside the lock: the stamp moves, so the snapshot stops answering
            assert at_once(slot) is None
            stale = slot.status_snapshot
            assert stale is not None
            slot.status_snapshot = (slot.stamp(), *stale[1:])  # a publisher that stamped without measuring
            try:
                assert_answers_as_measured(slot)
            except AssertionError:
                return
            raise AssertionError("a stale answer passed the check")

    asyncio.run(example())
