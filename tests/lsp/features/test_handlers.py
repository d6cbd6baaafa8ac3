"""Handlers called in-process: module-level functions taking the server, no client or stdio in between.

The end-to-end tiers (tests/e2e) prove the wire; these prove a handler's behaviour directly and fast, with the
notifications the server would send collected in a list.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.lsp.app import create_server
from compact_lsp.lsp.features import commands, lifecycle, methods, session_picker
from compact_lsp.lsp.features.handlers import request_handler
from compact_lsp.lsp.protocol.errors import REQUEST_FAILED, RefusalRecords, request_failed, to_jsonrpc
from compact_lsp.lsp.protocol.wire import EncodedResult
from compact_lsp.lsp.server import CompactLanguageServer


class Recorded:
    def __init__(self) -> None:
        self.notifications: list[tuple[str, dict[str, Any]]] = []
        self.warnings: list[str] = []

    def of(self, method: str) -> list[dict[str, Any]]:
        return [params for name, params in self.notifications if name == method]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[CompactLanguageServer, Recorded]]:
    ls = create_server()
    recorded = Recorded()
    ls.send_notification = lambda method, params: recorded.notifications.append((method, params))  # type: ignore[method-assign,assignment]
    ls.show_warning = recorded.warnings.append  # type: ignore[method-assign,assignment]
    ls.summarizer_factory = lambda settings: OfflineSummarizer()
    ls.protocol.client_capabilities = types.ClientCapabilities()  # what pygls' own initialize would record
    (tmp_path / "ws").mkdir()
    options = {
        "sessionDir": str(tmp_path / "sessions"),
        "memory": {"userRoot": str(tmp_path / "user-memory")},
        "sessionMemory": {"enabled": False},
        "microcompact": {"keepRecent": 1},
    }
    lifecycle.initialize(
        ls, types.InitializeParams(capabilities=types.ClientCapabilities(), root_path=str(tmp_path / "ws"),
                                   initialization_options=options),
    )  # fmt: skip
    yield ls, recorded
    lifecycle.shutdown(ls)


def reads(n: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Look at the files."}]
    for i in range(n):
        uid = f"toolu_{i}"
        messages += [
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": uid, "name": "read_file", "input": {"file_path": f"/ws/f{i}.py"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": uid, "content": f"line {i}\n" * 400}]},
        ]  # fmt: skip
    return messages


async def test_append_then_messages_in_process(server: tuple[CompactLanguageServer, Recorded]) -> None:
    ls, _ = server
    session_id = (await methods.new_session(ls, {"title": "in-process"}))["sessionId"]
    result = await methods.append(ls, {"sessionId": session_id, "messages": reads(2)})
    assert result["usage"]["total"] > 800
    view = await methods.messages(ls, {"sessionId": session_id})
    assert len(view["messages"]) == 5


async def test_forced_microcompaction_notifies_once(server: tuple[CompactLanguageServer, Recorded]) -> None:
    ls, recorded = server
    session_id = (await methods.new_session(ls, {}))["sessionId"]
    await methods.append(ls, {"sessionId": session_id, "messages": reads(3)})
    result = await commands.microcompact_command(ls, ({"sessionId": session_id},))
    assert [c["toolUseId"] for c in result["cleared"]] == ["toolu_0", "toolu_1"]
    [note] = recorded.of("compact/didCompact")
    assert (note["sessionId"], note["kind"], note["trigger"]) == (session_id, "micro", "forced")
    assert (note["tokensBefore"], note["tokensAfter"]) == (result["tokensBefore"], result["tokensAfter"])
    again = await commands.microcompact_command(ls, ({"sessionId": session_id},))
    assert (again["changed"], again["cleared"]) == (False, [])
    assert len(recorded.of("compact/didCompact")) == 1


async def test_compact_command_then_undo(server: tuple[CompactLanguageServer, Recorded]) -> None:
    ls, recorded = server
    session_id = (await methods.new_session(ls, {}))["sessionId"]
    await methods.append(ls, {"sessionId": session_id, "messages": reads(4)})
    compacted = await commands.compact_command(ls, ({"sessionId": session_id},))
    assert compacted["summarizer"] == "offline" and compacted["tokensAfter"] < compacted["tokensBefore"]
    undone = await commands.undo_command(ls, ({"sessionId": session_id},))
    assert undone["restored"] is True
    kinds = [n["kind"] for n in recorded.of("compact/didCompact")]
    assert kinds == ["full", "undo"]


async def test_a_bad_settings_change_keeps_the_rest_in_process(server: tuple[CompactLanguageServer, Recorded]) -> None:
    ls, recorded = server
    session_dir = ls.settings.session_dir
    change = {"compactLsp": {"sessionDir": 7, "contextWindow": 150_000}}
    lifecycle.did_change_configuration(ls, types.DidChangeConfigurationParams(settings=change))
    assert ls.settings.session_dir == session_dir and ls.settings.context_window == 150_000
    assert len(recorded.warnings) == 1 and "sessionDir" in recorded.warnings[0]


async def test_the_error_mapping_answers_invalid_conversations_as_invalid_params(
    server: tuple[CompactLanguageServer, Recorded],
) -> None:
    ls, _ = server
    session_id = (await methods.new_session(ls, {}))["sessionId"]
    orphan = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nope", "content": "x"}]}]
    with pytest.raises(JsonRpcInvalidParams, match="nope"):
        await request_handler(ls, methods.append)({"sessionId": session_id, "messages": orphan})


def test_a_stray_value_error_is_a_bug_logged_with_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    try:
        int("not a number")
    except ValueError as exc:
        with caplog.at_level(logging.ERROR, logger="compact_lsp.lsp.protocol.errors"):
            error = to_jsonrpc(exc)
    assert not isinstance(error, JsonRpcInvalidParams)
    assert isinstance(error, JsonRpcException) and error.code != REQUEST_FAILED
    assert "see the server log" in str(error)
    [record] = caplog.records
    assert record.message == "bug: a handler let ValueError through" and record.exc_info is not None


def pygls_record(exc: Exception) -> logging.LogRecord:
    """What pygls logs for a handler's error answer (``logger.exception`` in ``_send_handler_result``)."""
    return logging.LogRecord(
        "pygls.protocol.json_rpc", logging.ERROR, __file__, 1, 'Exception occurred for message "%s"', (7,),
        (type(exc), exc, None),
    )  # fmt: skip


def test_pygls_logs_a_refusal_as_one_line_and_an_internal_error_with_its_traceback() -> None:
    refusal = pygls_record(request_failed("session x is busy:\ncompacting; try again when it is done"))
    assert RefusalRecords().filter(refusal) is False  # the log's level is WARNING: an INFO line is not shown
    assert refusal.levelno == logging.INFO and refusal.exc_info is None
    said = "session x is busy: compacting; try again when it is done"
    assert refusal.getMessage() == f"request 7 answered with an error (-32803): {said}"
    internal = pygls_record(JsonRpcInternalError("KeyError: 'x'"))
    assert RefusalRecords().filter(internal) is True
    assert internal.levelno == logging.ERROR and internal.exc_info is not None


async def test_status_answers_while_the_session_is_busy(server: tuple[CompactLanguageServer, Recorded]) -> None:
    """A status asked while another call holds the session (a long append, a followed transcript's update) is
    the snapshot published after the last change, at once; once the session is free it is measured again."""
    ls, _ = server
    session_id = (await methods.new_session(ls, {}))["sessionId"]
    appended = await methods.append(ls, {"sessionId": session_id, "messages": reads(2)})
    slot = ls.registry().slots[session_id]
    async with slot.lock:  # busy: whatever holds the lock now, the answer does not wait for it
        status = await asyncio.wait_for(methods.status(ls, {"sessionId": session_id}), 5)
    assert status["usage"]["total"] == appended["usage"]["total"] and status["messageCount"] == 5
    await methods.append(ls, {"sessionId": session_id, "messages": [{"role": "assistant", "content": "Seen."}]})
    status = await methods.status(ls, {"sessionId": session_id})
    assert status["messageCount"] == 6


async def test_a_status_answered_at_once_is_the_json_published_with_the_snapshot(
    server: tuple[CompactLanguageServer, Recorded],
) -> None:
    """The at-once answer is the snapshot's JSON, made when it was published (not per request): the same value
    the handler answers, and during a compaction the snapshot marked ``compacting`` instead."""
    ls, _ = server
    session_id = (await methods.new_session(ls, {}))["sessionId"]
    await methods.append(ls, {"sessionId": session_id, "messages": reads(2)})
    encoded = methods.status_at_once(ls, {"sessionId": session_id})
    assert isinstance(encoded, EncodedResult)
    assert json.loads(encoded) == await methods.status(ls, {"sessionId": session_id})
    slot = ls.registry().slots[session_id]
    with slot.session.compaction_claim():
        marked = methods.status_at_once(ls, {"sessionId": session_id})
    assert isinstance(marked, dict) and marked["compacting"] is True
    assert methods.status_at_once(ls, {"sessionId": "not-loaded"}) is None


async def test_the_session_list_answers_while_a_change_holds_a_session(
    server: tuple[CompactLanguageServer, Recorded],
) -> None:
    """A change writes the journal, then indexes the session, under its lock: a sessions view listing between
    the two (50 agents appending) waited for the change, and its look behind it withdrew the session's status
    snapshot, so the next ``compact/status`` waited too (bench/bench_load.py: status p99 17 ms). The list shows
    the last change that completed; a stale entry of a free session is measured again, and the status published
    before still answers at once."""
    ls, _ = server
    session_id = (await methods.new_session(ls, {"title": "busy"}))["sessionId"]
    await methods.append(ls, {"sessionId": session_id, "messages": reads(2)})
    registry = ls.registry()
    slot, journal = registry.slots[session_id], registry.store.path_for(session_id)

    def written_since_indexed() -> None:
        st = journal.stat()
        os.utime(journal, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))

    async def messages_listed() -> int:
        items = await asyncio.wait_for(session_picker.list_sessions(ls, {}), 5)
        return next(item["messages"] for item in items if item["sessionId"] == session_id)

    async with slot.lock:  # the change holds it, its journal written
        written_since_indexed()
        assert await messages_listed() == 5
    await methods.status(ls, {"sessionId": session_id})  # measured and published again after our own hold
    assert methods.status_at_once(ls, {"sessionId": session_id}) is not None
    written_since_indexed()  # free, and its entry stale: measured again
    assert await messages_listed() == 5
    assert methods.status_at_once(ls, {"sessionId": session_id}) is not None


def test_a_document_uri_naming_no_usable_path_is_ignored_with_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    """``%00`` decodes to a NUL byte: on main the didOpen's background task failed in realpath."""
    from compact_lsp.lsp.features.documents import document_path

    with caplog.at_level(logging.INFO, logger="compact_lsp.lsp.features.documents"):
        assert document_path("file:///tmp/a%00b.py") is None
    assert "holds a NUL byte" in caplog.text
    assert document_path("file:///tmp/a.py") == "/tmp/a.py"
    assert document_path("untitled:Untitled-1") is None


async def test_the_session_list_follows_changes_settings_and_the_current_session(
    server: tuple[CompactLanguageServer, Recorded],
) -> None:
    """Items are kept between listings: each must still change with its session, the settings and the choice."""
    ls, _ = server
    first = (await methods.new_session(ls, {"title": "first"}))["sessionId"]
    second = (await methods.new_session(ls, {"title": "second"}))["sessionId"]

    async def listed() -> dict[str, dict[str, Any]]:
        return {item["sessionId"]: item for item in await session_picker.list_sessions(ls, {})}

    before = await listed()
    assert before == await listed()
    assert (before[first]["current"], before[second]["current"]) == (False, True)
    await methods.append(ls, {"sessionId": first, "messages": reads(1)})
    after_append = await listed()
    assert after_append[first]["messages"] == 3 and after_append[second] == before[second]
    change = {"compactLsp": {"contextWindow": 50_000}}
    lifecycle.did_change_configuration(ls, types.DidChangeConfigurationParams(settings=change))
    after_settings = await listed()
    assert after_settings[first]["usage"]["contextWindow"] == 50_000 != after_append[first]["usage"]["contextWindow"]
    await session_picker.select_session(ls, {"sessionId": first})
    chosen = await listed()
    assert (chosen[first]["current"], chosen[second]["current"]) == (True, False)
