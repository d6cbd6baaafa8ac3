"""The session list across a restart: a burst of appends, then a clean shutdown or a crash; the next server lists
every session as the first one did, from the index where it is current (a clean shutdown leaves all of it
current) and rebuilt from the journals where it is not (a crash loses only the last writes of the index)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .load import load_options, round_of
from .rpc import RawServer, Workspace

pytestmark = pytest.mark.timeout(300)

SESSIONS = 4
APPENDS = 15


def burst(server: RawServer) -> list[str]:
    """Appends to every session in turn, as agents sharing one editor do."""
    ids = [server.new_session(f"burst {n}") for n in range(SESSIONS)]
    for step in range(APPENDS):
        for n, session_id in enumerate(ids):
            server.append(session_id, round_of(n, step))
    return ids


def listing(server: RawServer) -> dict[str, tuple[str, int, int]]:
    items = server.request("compact/sessions", {})
    return {item["sessionId"]: (item["title"], item["messages"], item["tokens"]) for item in items}


def stale(workspace: Workspace) -> list[str]:
    """Sessions whose index entry no longer describes their journal: the next lister rebuilds them."""
    index = next(workspace.sessions.rglob("index.json"))
    entries: dict[str, Any] = {e["session_id"]: e for e in json.loads(index.read_text())["sessions"]}
    out = []
    for journal in workspace.session_files():
        entry, st = entries.get(journal.stem), journal.stat()
        if entry is None or (entry["size"], entry["mtime_ns"]) != (st.st_size, st.st_mtime_ns):
            out.append(journal.stem)
    return out


def test_after_a_clean_shutdown_the_next_server_lists_every_session_from_the_index(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    with RawServer(workspace, load_options(workspace)) as server:
        burst(server)
        before = listing(server)
    assert stale(workspace) == []  # nothing for the next server to rebuild
    with RawServer(workspace, load_options(workspace)) as second:
        assert listing(second) == before
    assert len(before) == SESSIONS


def test_after_a_crash_mid_burst_the_listing_is_still_right(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    with RawServer(workspace, load_options(workspace)) as server:
        ids = burst(server)
        deadline = time.monotonic() + 30
        while stale(workspace) and time.monotonic() < deadline:  # the burst's last write of the index, soon after
            time.sleep(0.01)
        assert stale(workspace) == []
        server.append(ids[1], round_of(1, APPENDS))  # within the interval after that write: not written yet
        before = listing(server)
        server.kill()
    assert stale(workspace) == [ids[1]]  # what the crash lost: that entry's freshness, nothing else
    with RawServer(workspace, load_options(workspace)) as second:
        assert listing(second) == before
    assert stale(workspace) == []  # rebuilt, and left current for the next one


def test_another_servers_appends_show_in_the_next_listing(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    with RawServer(workspace, load_options(workspace)) as writer:
        ids = burst(writer)
    with RawServer(workspace, load_options(workspace)) as lister:
        before = listing(lister)
        with RawServer(workspace, load_options(workspace)) as other:
            other.append(ids[0], round_of(0, APPENDS))
        after = listing(lister)
    _, messages, tokens = before[ids[0]]
    assert after[ids[0]][1] == messages + 2 and after[ids[0]][2] > tokens  # its journal changed: rebuilt
    assert {k: v for k, v in after.items() if k != ids[0]} == {k: v for k, v in before.items() if k != ids[0]}


def test_a_settings_change_shows_in_the_next_listing_of_sessions_not_loaded(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    with RawServer(workspace, load_options(workspace)) as writer:
        burst(writer)
    with RawServer(workspace, load_options(workspace)) as lister:  # lists from the index, loads nothing
        windows = {item["usage"]["contextWindow"] for item in lister.request("compact/sessions", {})}
        lister.notify("workspace/didChangeConfiguration", {"settings": {"compactLsp": {"contextWindow": 50_000}}})
        changed = {item["usage"]["contextWindow"] for item in lister.request("compact/sessions", {})}
    assert windows != {50_000} and changed == {50_000}
