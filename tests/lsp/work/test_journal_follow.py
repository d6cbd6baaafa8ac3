"""Two servers on one folder (two editor windows), in-process: the one that follows a session the other writes
applies every record the owner appends, whatever lands between its load and its watch, and whatever a listing
replays of the same journal meanwhile (lsp/work/journal_follow.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types

from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.lsp.app import create_server
from compact_lsp.lsp.features import lifecycle, methods
from compact_lsp.lsp.server import CompactLanguageServer


def window(base: Path) -> CompactLanguageServer:
    """One editor window's server on the shared workspace and session folder, telling nobody anything."""
    ls = create_server()
    ls.send_notification = lambda method, params: None  # type: ignore[method-assign,assignment]
    ls.show_warning = lambda message: None  # type: ignore[method-assign,assignment]
    ls.summarizer_factory = lambda settings: OfflineSummarizer()
    ls.protocol.client_capabilities = types.ClientCapabilities()
    options = {
        "sessionDir": str(base / "sessions"),
        "memory": {"userRoot": str(base / "user-memory")},
        "sessionMemory": {"enabled": False},
        "autoCompact": {"enabled": False},
    }
    lifecycle.initialize(
        ls, types.InitializeParams(capabilities=types.ClientCapabilities(), root_path=str(base / "ws"),
                                   initialization_options=options),
    )  # fmt: skip
    return ls


@asynccontextmanager
async def two_windows(base: Path) -> AsyncIterator[tuple[CompactLanguageServer, CompactLanguageServer, str]]:
    """The owner's server with a session it wrote, and a second server on the same folder."""
    (base / "ws").mkdir()
    owner, follower = window(base), window(base)
    try:
        session_id = (await methods.new_session(owner, {"title": "Shared work"}))["sessionId"]
        await methods.append(owner, {"sessionId": session_id, "messages": [{"role": "user", "content": "Read."}]})
        yield owner, follower, session_id
    finally:
        lifecycle.shutdown(follower)
        lifecycle.shutdown(owner)


def read_round(n: int) -> list[dict[str, Any]]:
    uid = f"toolu_{n}"
    return [
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": uid, "name": "read_file", "input": {"file_path": f"ws/f{n}.py"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uid, "content": f"line {n}\n" * 50}]},
    ]  # fmt: skip


async def until(what: str, condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait on the loop (the follower's watcher and catch-up run there) until ``condition`` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.01)


def test_what_the_owner_appends_while_the_follower_loads_is_applied(tmp_path: Path) -> None:
    """Between the load's read of the journal and the watch on it, an append makes no event the watch sees: it
    was applied only with the owner's next append (a window that showed the owner's work one turn late)."""

    async def example() -> None:
        async with two_windows(tmp_path) as (owner, follower, session_id):
            owned = owner.registry().slots[session_id].session
            store = follower.registry().store
            read = store.load

            def read_then_owner_appends(loaded_id: str) -> Any:
                loaded = read(loaded_id)
                owned.append(read_round(1))  # the owner's turn lands right after the read, before the watch
                return loaded

            store.load = read_then_owner_appends  # type: ignore[method-assign]
            slot = await follower.registry().get(session_id, "test")
            store.load = read  # type: ignore[method-assign]
            await until("the follower has the owner's append", lambda: slot.session.messages == owned.messages)

    asyncio.run(example())


def test_a_listing_that_replays_the_session_meanwhile_does_not_skip_the_owners_append(tmp_path: Path) -> None:
    """A listing that found the session not loaded yet replays its journal for its figures; that replay set the
    size the loaded session had applied, past the owner's new records, so they were never applied."""

    async def example() -> None:
        async with two_windows(tmp_path) as (owner, follower, session_id):
            owned = owner.registry().slots[session_id].session
            registry = follower.registry()
            slot = await registry.get(session_id, "test")
            await until("the follower has caught up", lambda: slot.session.messages == owned.messages)
            owned.append(read_round(2))
            registry._summary_from_disk(session_id)  # the listing's replay, before the watch reports the append
            await until("the follower has the owner's append", lambda: slot.session.messages == owned.messages)

    asyncio.run(example())
