"""Running engine calls for handlers: under the session's lock, off the event loop, then telling the client.

``in_session`` is the one path every mutating handler takes: it runs the call in a worker thread under the
session's lock, snapshots the usage there (the counter is not safe to touch from two threads), then on the
loop updates the watched files and schedules ``compact/didChangeUsage``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from compact_lsp.engine.messages import is_cleared, result_text, tool_results
from compact_lsp.tracking.changes import SeenText, change_notice, content_hash, strip_line_numbers

from .sessions import SessionSlot

if TYPE_CHECKING:
    from .server import CompactLanguageServer

log = logging.getLogger(__name__)

T = TypeVar("T")


async def in_session(
    server: CompactLanguageServer, slot: SessionSlot, call: Callable[[], T], *, changes: bool = True
) -> T:
    """Run ``call`` in a thread under the session's lock; when it ``changes`` the session, tell the client."""
    async with slot.lock:
        result, usage = await asyncio.to_thread(_call_and_measure, slot, call, changes)
    if changes:
        changed(server, slot, usage)
    return result


def _call_and_measure(slot: SessionSlot, call: Callable[[], T], measure: bool) -> tuple[T, dict[str, Any] | None]:
    result = call()
    return result, slot.session.usage().to_wire() if measure else None


def changed(server: CompactLanguageServer, slot: SessionSlot, usage: dict[str, Any] | None) -> None:
    """After a change: follow the session's files with the watcher, and schedule a usage notification."""
    sync_watches(server, slot)
    if usage is not None:
        slot.usage_wire = usage
        if server.usage_notifier is not None:
            server.usage_notifier.changed(slot.session.id, usage)


def sync_watches(server: CompactLanguageServer, slot: SessionSlot) -> None:
    """Track exactly the files in the session's read-file state (their directories, non-recursively)."""
    watcher = server.watcher
    if watcher is None:
        return
    wanted = {record.realpath for record in slot.session.read_state.ranked()}
    for path in wanted - slot.watched:
        watcher.track(path)
    for path in slot.watched - wanted:
        watcher.untrack(path)
        slot.seen.discard(path)
    slot.watched = wanted


def remember_appended_reads(slot: SessionSlot, messages: list[Any]) -> None:
    """Keep what read-tool results showed the model, so a later change can be shown as a diff."""
    read_state = slot.session.read_state
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        for block in tool_results(message):
            use_id = block.get("tool_use_id")
            if not isinstance(use_id, str) or block.get("is_error") or is_cleared(block):
                continue
            paths = read_state.paths_for(use_id)
            if len(paths) != 1:
                continue
            record = read_state.get(paths[0])
            if record is None or record.kind != "read" or record.tool_use_id != use_id:
                continue
            start = record.start_line or record.offset or 1
            count = record.num_lines if record.num_lines is not None else record.limit
            slot.seen.put(record.realpath, SeenText(strip_line_numbers(result_text(block)), start, count))


def on_file_changed(server: CompactLanguageServer, path: str) -> None:
    """The watcher saw ``path`` change: re-read it off the loop and notify every session that saw it."""
    registry = server.sessions
    if registry is None:
        return
    slots = [slot for slot in registry.slots.values() if path in slot.watched]
    if slots:
        server.run_task(_notice_change(server, path, slots), name=f"file-changed {path}")


async def _notice_change(server: CompactLanguageServer, path: str, slots: list[SessionSlot]) -> None:
    now = await asyncio.to_thread(read_current_text, path)
    exists = now is not None or await asyncio.to_thread(os.path.lexists, path)
    display = _display(path, server.workspace_root)
    for slot in slots:
        session = slot.session
        record = session.read_state.get(path)
        if record is None:
            continue
        seen = slot.seen.get(path)
        if not exists:
            notice = change_notice(display, None, None)
        elif now is None:  # there but binary, unreadable or huge: say so without a diff
            notice = change_notice(display, None, "")
        elif seen is not None:
            notice = change_notice(display, seen.text, seen.same_range_of(now))
        elif record.content_hash == content_hash(now):
            notice = None
        else:
            notice = change_notice(display, None, now)
        if notice is None:
            continue  # touched, or changed and changed back: the model's copy is still right
        async with slot.lock:
            session.add_change_notice(display, notice)
            usage = await asyncio.to_thread(_usage_wire, slot)
        changed(server, slot, usage)


def _usage_wire(slot: SessionSlot) -> dict[str, Any]:
    return slot.session.usage().to_wire()


def read_current_text(path: str, max_bytes: int = 10 * 1024 * 1024) -> str | None:
    """The file's text now; None when it is gone, unreadable, binary or too big to diff."""
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError:
        return None
    if len(data) > max_bytes or b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _display(path: str, root: str | None) -> str:
    if root:
        rel = os.path.relpath(path, root)
        if not rel.startswith(os.pardir):
            return rel
    return path
