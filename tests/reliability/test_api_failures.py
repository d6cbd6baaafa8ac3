"""The Messages API failing, end to end through the real server and the loopback stub.

What really happens (and what these tests pin):
- ``compact.compact`` with a key: the model summariser fails, the offline summariser writes the summary instead.
  The result says ``"fallback": true`` and ``fallbackReason`` starts with the failure kind; ``compact.undo`` gives
  back the conversation byte for byte.
- ``compact/chat``: the turn ends with ``stopReason: "error"``, the error (and an ``error`` chat event with its
  ``errorKind``); the conversation keeps the user's question and nothing of the broken answer.
- Automatic compaction that fails three times in a row stops being tried (the circuit breaker).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.messages_api_stub import (
    MessagesApiStub,
    StubResponse,
    api_error,
    error_mid_stream,
    hang,
    reply,
    reset_mid_stream,
)

from .crash import read_round
from .rpc import RawServer, Workspace, server_env

pytestmark = pytest.mark.timeout(120)

API_KEY = "sk-ant-api03-reliability-test-key-000"
NO_RETRY = {"x-should-retry": "false"}
"""The SDK would otherwise retry 429/5xx with back-off: the tests want the failure itself, at once."""

FAILURES = [
    pytest.param(api_error(401, "authentication_error", "invalid x-api-key"), "auth", id="401"),
    pytest.param(
        api_error(429, "rate_limit_error", "slow down", headers={"retry-after": "7", **NO_RETRY}),
        "rate_limit",
        id="429-retry-after",
    ),
    pytest.param(api_error(529, "overloaded_error", "Overloaded", headers=NO_RETRY), "overloaded", id="529"),
    pytest.param(api_error(500, "api_error", "boom", headers=NO_RETRY), "api", id="500"),
    pytest.param(reset_mid_stream(), "connection", id="reset-mid-stream"),
    pytest.param(error_mid_stream(), "overloaded", id="error-event-mid-stream"),
]


@pytest.fixture
def stub() -> Iterator[MessagesApiStub]:
    with MessagesApiStub() as api:
        yield api


def conversation() -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "Fix the totals."}]}]
    for i in range(6):
        messages += read_round(f"toolu_{i}", f"src/m{i}.py", f"def m{i}():\n" + "    x += 1\n" * 200)
    return messages


def start(tmp_path: Path, stub: MessagesApiStub, **options: Any) -> RawServer:
    workspace = Workspace(tmp_path)
    env = server_env(ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=stub.base_url)
    return RawServer(workspace, workspace.options(**options), env=env)


def test_compaction_with_a_key_gets_the_models_summary(tmp_path: Path, stub: MessagesApiStub) -> None:
    """A session of tool calls, compacted with a key: the strict stub (as strict as the API) accepts the summary
    request, and the model's summary is what replaces the history (issue 38: it was refused and fell back)."""
    summary = "The user asked to fix the totals; m0.py to m5.py were read, nothing is changed yet."
    with start(tmp_path, stub) as server:
        session_id = server.new_session()
        server.append(session_id, conversation())
        stub.push(reply(f"<analysis>six reads</analysis><summary>{summary}</summary>"))

        result = server.command("compact.compact", {"sessionId": session_id})

        assert stub.refused == [] and len(stub.bodies) == 1
        assert result["fallback"] is False and result["summarizer"] == "anthropic"
        assert summary in str(server.messages(session_id)[0]["content"])
        assert "[Tool call #6 read_file]" in str(stub.bodies[0]["messages"])


def test_the_summariser_reads_the_cleared_view_not_the_originals(tmp_path: Path, stub: MessagesApiStub) -> None:
    """What microcompaction cleared reaches the summariser as its placeholder (docs/compaction.md, "The summary
    request"): the call and its input stay, the original content does not come back."""
    with start(tmp_path, stub) as server:
        session_id = server.new_session()
        server.append(session_id, conversation())
        cleared = server.command("compact.microcompact", {"sessionId": session_id})["cleared"]
        assert cleared, "microcompaction cleared nothing: the test would prove nothing"
        stub.push(reply("<summary>Read the modules.</summary>"))
        server.command("compact.compact", {"sessionId": session_id})

        sent = str(stub.bodies[0]["messages"])
        for entry in cleared:
            number = int(entry["toolUseId"].removeprefix("toolu_")) + 1
            assert f"[Tool result #{number} read_file]\\n[Old tool result content cleared]" in sent
            assert f"def m{number - 1}():" not in sent
        assert "def m5():" in sent  # the newest result was kept, and is sent whole


def test_no_model_call_when_nothing_could_be_smaller(tmp_path: Path, stub: MessagesApiStub) -> None:
    """A one-message conversation, and a conversation compacted a moment ago with nothing new: "not smaller" is
    decided before a summary is paid for, and the stub records no request for either."""
    stub.default = reply("<summary>never wanted</summary>")
    with start(tmp_path, stub) as server:
        short = server.new_session()
        server.append(short, [{"role": "user", "content": [{"type": "text", "text": "Fix the totals."}]}])
        first = server.command("compact.compact", {"sessionId": short})
        assert first["changed"] is False and first["kind"] == "not_smaller"
        assert "already smaller than a compacted context could be" in first["reason"]
        assert stub.bodies == []

        session_id = server.new_session()
        server.append(session_id, conversation())
        done = server.command("compact.compact", {"sessionId": session_id})
        assert done["fallback"] is False and len(stub.bodies) == 1
        again = server.command("compact.compact", {"sessionId": session_id})
        assert again["changed"] is False and again["kind"] == "not_smaller"
        assert "Nothing was added since the last compaction" in again["reason"]
        assert len(stub.bodies) == 1

        server.append(session_id, [{"role": "assistant", "content": [{"type": "text", "text": "Totals fixed."}]}])
        server.command("compact.compact", {"sessionId": session_id})
        assert len(stub.bodies) == 2  # something new: worth a summary again


TRUNCATED = reply("<summary>the first half of a summ", stop_reason="max_tokens")


@pytest.mark.parametrize(
    ("failure", "kind"), [*FAILURES, pytest.param(TRUNCATED, "bad_summary", id="max-tokens-truncation")]
)
def test_compaction_falls_back_and_says_why(
    tmp_path: Path, stub: MessagesApiStub, failure: StubResponse, kind: str
) -> None:
    with start(tmp_path, stub) as server:
        session_id = server.new_session()
        server.append(session_id, conversation())
        before = server.messages(session_id)
        stub.push(failure)

        result = server.command("compact.compact", {"sessionId": session_id})

        assert len(stub.bodies) == 1  # the model was asked once, then the offline summariser answered
        assert result["fallback"] is True
        assert result["fallbackReason"].startswith(f"{kind}: ")
        assert API_KEY not in result["fallbackReason"]
        status = server.request("compact/status", {"sessionId": session_id})
        assert status["lastCompaction"]["fallbackReason"] == result["fallbackReason"]
        server.command("compact.undo", {"sessionId": session_id})
        assert server.messages(session_id) == before


CHAT_FAILURES = [
    *FAILURES,
    pytest.param(hang(), "timeout", id="timeout"),
]


@pytest.mark.parametrize(("failure", "kind"), CHAT_FAILURES)
def test_chat_turn_reports_the_failure_kind_and_keeps_only_the_question(
    tmp_path: Path, stub: MessagesApiStub, failure: StubResponse, kind: str
) -> None:
    timeout = 1 if failure.hang else 30  # a short timeout only where it is the failure: a busy machine is slow
    with start(tmp_path, stub, agent={"maxRetries": 0, "timeout": timeout}) as server:
        session_id = server.new_session()
        server.append(
            session_id, [*conversation()[:1], {"role": "assistant", "content": [{"type": "text", "text": "Sure."}]}]
        )
        before = server.messages(session_id)
        stub.push(failure)

        result = server.request("compact/chat", {"sessionId": session_id, "text": "Now rename it."})

        assert result["stopReason"] == "error"
        assert result["error"]
        events = [e for e in server.notifications_of("compact/chatEvent") if e["kind"] == "error"]
        assert [e.get("errorKind") for e in events] == [kind]
        assert API_KEY not in str(result) + str(events)
        after = server.messages(session_id)
        assert after[: len(before)] == before
        added = after[len(before) :]
        assert [m["role"] for m in added] == ["user"]
        assert "Now rename it." in str(added[0]["content"])
        assert "partial" not in str(added)


def test_automatic_compaction_that_cannot_get_smaller_waits_for_growth(tmp_path: Path, stub: MessagesApiStub) -> None:
    """This tiny context is smaller than any compacted one could be: the first try says so without asking the
    model (issue 38), and automatic compaction then waits until the context has grown by a real margin (a share of
    the window, issue 24), so nothing is tried again on every append."""
    stub.default = api_error(500, "api_error", "down", headers=NO_RETRY)
    options = {"autoCompact": {"enabled": True, "threshold": 40}}
    with start(tmp_path, stub, **options) as server:
        session_id = server.new_session()
        results = []
        for turn in range(6):
            results.append(server.append(session_id, [
                {"role": "user", "content": [{"type": "text", "text": f"Question {turn} about the totals?"}]},
                {"role": "assistant", "content": [{"type": "text", "text": f"Answer {turn}: they add up."}]},
            ]))  # fmt: skip
        over = [i for i, r in enumerate(results) if r["usage"]["total"] >= 40]
        tried = [i for i, r in enumerate(results) if "compactionError" in r]
        assert len(over) > 3
        assert tried == over[:1]  # the first append over the threshold tried, the later ones wait for growth
        assert all("already smaller than a compacted context" in results[i]["compactionError"] for i in tried)
        assert stub.bodies == []  # the model is never asked
        assert len(server.messages(session_id)) == 12  # every append kept

        manual = server.command("compact.status", {"sessionId": session_id})
        assert manual["lastCompaction"] is None
