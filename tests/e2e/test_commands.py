"""Palette commands end to end: microcompaction with managed memory, compaction, undo, status, preview."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from tests.support.messages_api_stub import MessagesApiStub, hang, reply

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import all_text, append, command, new_session, read_file, read_round, request, start

CLEARED = "[Old tool result content cleared]"


def shell_round(use_id: str, output: str) -> list[dict[str, Any]]:
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": use_id, "name": "Bash", "input": {"command": "make"}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use_id, "content": output}]},
    ]


def long_conversation(rounds: int = 6) -> list[dict[str, Any]]:
    messages = start("Build the project and tell me what fails.")
    for i in range(rounds):
        messages += shell_round(f"toolu_sh{i}", "\n".join(f"compiling unit {i}.{j} ... ok" for j in range(300)))
    return messages


async def test_managed_memory_survives_forced_microcompaction(client: LanguageClient, workspace: Workspace) -> None:
    marker = "MEMORY-MARKER-7f3a9c"
    topic = workspace.project_memory / "conventions.md"
    topic.write_text(f"# Conventions\nAlways run the linter. {marker}\n")
    session_id = await new_session(client)

    memory = await read_file(client, session_id, str(topic))
    conversation = start() + read_round("toolu_mem", str(topic), memory["content"])
    ordinary = []
    for i in range(8):
        path = f"src/module_{i}.py"
        workspace.write(path, f"# module {i}\n" + "x = 1\n" * 200)
        read = await read_file(client, session_id, path)
        ordinary.append(read["content"])
        conversation += read_round(f"toolu_{i}", path, read["content"])
    await append(client, session_id, conversation)

    result = await command(client, "compact.microcompact", {"sessionId": session_id})

    assert result["trigger"] == "forced"
    assert result["tokensAfter"] < result["tokensBefore"]
    cleared_ids = {c["toolUseId"] for c in result["cleared"]}
    assert "toolu_mem" not in cleared_ids
    assert {"toolu_0", "toolu_1", "toolu_2"} <= cleared_ids
    assert [p["toolUseId"] for p in result["protected"]] == ["toolu_mem"]
    view = await request(client, "compact/messages", {"sessionId": session_id})
    text = all_text(view["messages"])
    assert marker in text
    assert ordinary[0] not in text and CLEARED in text
    assert ordinary[-1] in text  # the most recent reads are kept
    status = await command(client, "compact.status", {"sessionId": session_id})
    assert status["lastMicrocompaction"]["tokensAfter"] == result["tokensAfter"]


async def test_microcompaction_with_nothing_to_clear_says_so(client: LanguageClient) -> None:
    session_id = await new_session(client)
    await append(client, session_id, start())
    result = await command(client, "compact.microcompact", {"sessionId": session_id})
    assert result["cleared"] == [] and result["tokensBefore"] == result["tokensAfter"]
    assert result["changed"] is False and result["kind"] == "nothing_to_clear"


async def test_commands_without_a_session_id_use_the_most_recent_session(client: LanguageClient) -> None:
    await new_session(client, "first")
    second = await new_session(client, "second")
    assert (await command(client, "compact.status"))["sessionId"] == second
    assert (await command(client, "compact.status", {}))["title"] == "second"


async def test_commands_before_any_session_explain_what_to_do(client: LanguageClient) -> None:
    with pytest.raises(Exception, match="no session yet; create one with compact/newSession"):
        await command(client, "compact.status")


@pytest.mark.parametrize(
    ("name", "argument", "message"),
    [
        pytest.param("compact.status", {"sessionId": "ses_gone"}, "unknown session 'ses_gone'", id="unknown-session"),
        pytest.param("compact.status", {"sessionId": 3}, "'sessionId' must be a string", id="session-id-number"),
        pytest.param("compact.compact", {"instructions": ["x"]}, "'instructions' must be a string", id="instructions"),
    ],
)
async def test_bad_command_input_gets_a_readable_error(
    client: LanguageClient, name: str, argument: dict[str, Any], message: str
) -> None:
    await new_session(client)
    with pytest.raises(Exception, match=message):
        await command(client, name, argument)


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [
        pytest.param("compact.undo", "nothing_to_undo", "no compaction to undo", id="nothing-to-undo"),
        pytest.param("compact.compact", "empty", "nothing to compact yet", id="empty-session"),
        pytest.param("compact.microcompact", "nothing_to_clear", "Nothing to clear", id="nothing-to-clear"),
    ],
)
async def test_a_refusal_that_is_no_failure_is_a_result_with_the_reason(
    client: LanguageClient, name: str, kind: str, reason: str
) -> None:
    session_id = await new_session(client)
    before = await request(client, "compact/messages", {"sessionId": session_id})
    result = await command(client, name, {})
    assert result["changed"] is False and result["kind"] == kind
    assert reason.lower() in result["reason"].lower()
    assert "cancelled" not in result
    assert await request(client, "compact/messages", {"sessionId": session_id}) == before


async def test_a_command_argument_must_be_an_object(client: LanguageClient) -> None:
    await new_session(client)
    params = types.ExecuteCommandParams(command="compact.status", arguments=["ses_1"])
    with pytest.raises(Exception, match="the argument must be an object"):
        await client.workspace_execute_command_async(params)


async def compacting_client(workspace: Workspace, api: MessagesApiStub) -> LanguageClient:
    return await start_server(workspace, workspace.options(baseUrl=api.base_url))


async def test_full_compaction_with_progress_notification_and_undo(
    workspace: Workspace, messages_api: MessagesApiStub
) -> None:
    messages_api.push(reply("<summary>The build ran six times; every unit compiled.</summary>"))
    lsp = await compacting_client(workspace, messages_api)
    try:
        session_id = await new_session(lsp)
        original = long_conversation()
        await append(lsp, session_id, original)
        before = await request(lsp, "compact/messages", {"sessionId": session_id})
        compacted = asyncio.ensure_future(lsp.wait_for_notification("compact/didCompact"))

        result = await command(lsp, "compact.compact", {"sessionId": session_id, "instructions": "Keep failures."})

        assert result["summarizer"] == "anthropic"
        assert result["tokensAfter"] < result["tokensBefore"]
        assert result["boundaryId"]
        note = await asyncio.wait_for(compacted, GUARD)
        assert note == {
            "sessionId": session_id, "kind": "full", "trigger": "manual",
            "tokensBefore": result["tokensBefore"], "tokensAfter": result["tokensAfter"],
            "summarizer": "anthropic", "fallback": False, "fallbackReason": None,
        }  # fmt: skip
        assert result["fallback"] is False and result["fallbackReason"] is None and result["changed"] is True
        assert "Keep failures." in messages_api.requests[0].last_user_text()
        (reports,) = lsp.progress_reports.values()
        kinds = [p.kind for p in reports]
        assert kinds[0] == "begin" and kinds[-1] == "end" and set(kinds[1:-1]) == {"report"}
        assert reports[0].title == "Compacting conversation" and reports[0].cancellable
        view = await request(lsp, "compact/messages", {"sessionId": session_id})
        assert "every unit compiled" in all_text(view["messages"])
        status = await request(lsp, "compact/status", {"sessionId": session_id})
        assert status["lastCompaction"]["boundaryId"] == result["boundaryId"]

        undone = await command(lsp, "compact.undo", {"sessionId": session_id})
        assert undone["restored"] is True and undone["boundaryId"] == result["boundaryId"]
        view = await request(lsp, "compact/messages", {"sessionId": session_id})
        assert view["messages"] == before["messages"]
    finally:
        await stop_server(lsp)


def text_turn(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": text}]}


async def test_undo_after_later_chat_turns_gives_back_the_old_history_and_every_turn_since(
    workspace: Workspace, messages_api: MessagesApiStub
) -> None:
    """The editors' flow: compact, ask in the chat twice, undo; the old history comes back with both exchanges."""
    messages_api.push(
        reply("<summary>The build ran six times; every unit compiled.</summary>"),
        reply("The tests pass too."),
        reply("Released as 1.2."),
    )
    lsp = await compacting_client(workspace, messages_api)
    try:
        session_id = await new_session(lsp)
        await append(lsp, session_id, [*long_conversation(), text_turn("assistant", "Everything compiled.")])
        before = await request(lsp, "compact/messages", {"sessionId": session_id})
        await command(lsp, "compact.compact", {"sessionId": session_id})
        for question in ("And the tests?", "Release it."):
            answer = await request(lsp, "compact/chat", {"sessionId": session_id, "text": question})
            assert answer["stopReason"] == "end_turn"
        # the model saw the question after the summary, as the user's newest words
        assert messages_api.requests[1].last_user_text().endswith("And the tests?")

        undone = await command(lsp, "compact.undo", {"sessionId": session_id})

        assert undone["restored"] is True
        view = await request(lsp, "compact/messages", {"sessionId": session_id})
        assert view["messages"] == before["messages"] + [
            text_turn("user", "And the tests?"), text_turn("assistant", "The tests pass too."),
            text_turn("user", "Release it."), text_turn("assistant", "Released as 1.2."),
        ]  # fmt: skip
        assert "every unit compiled" not in all_text(view["messages"])
    finally:
        await stop_server(lsp)


async def test_a_question_that_triggers_compaction_is_answered_as_asked_and_undo_keeps_it(
    workspace: Workspace, messages_api: MessagesApiStub
) -> None:
    """An external agent appends the user's question; it crosses the threshold and compacts the conversation."""
    messages_api.push(reply("<summary>The build ran six times; every unit compiled.</summary>"))
    lsp = await compacting_client(workspace, messages_api)
    try:
        session_id = await new_session(lsp)
        appended = await append(lsp, session_id, [*long_conversation(), text_turn("assistant", "Everything compiled.")])
        before = await request(lsp, "compact/messages", {"sessionId": session_id})
        # the question crosses the threshold; every result is recent, so clearing old ones cannot help
        threshold = {"enabled": True, "threshold": appended["usage"]["total"] + 5}
        changed = {"autoCompact": threshold, "microcompact": {"keepRecent": 10}}
        lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"compactLsp": changed}))
        question = "Why did unit 3.7 take so long? Keep the answer to one line."
        compacted = asyncio.ensure_future(lsp.wait_for_notification("compact/didCompact"))
        appended = await append(lsp, session_id, [text_turn("user", question)])
        assert appended["compaction"]["changed"] is True
        await asyncio.wait_for(compacted, GUARD)
        view = await request(lsp, "compact/messages", {"sessionId": session_id})
        (only,) = view["messages"]
        assert only["content"][-1] == {"type": "text", "text": question}  # word for word, after the attachments
        await append(lsp, session_id, [text_turn("assistant", "It waited for the linker.")])

        await command(lsp, "compact.undo", {"sessionId": session_id})

        view = await request(lsp, "compact/messages", {"sessionId": session_id})
        assert view["messages"] == before["messages"] + [
            text_turn("user", question), text_turn("assistant", "It waited for the linker.")
        ]  # fmt: skip
    finally:
        await stop_server(lsp)


async def test_cancelled_compaction_changes_nothing(workspace: Workspace, messages_api: MessagesApiStub) -> None:
    messages_api.push(hang())
    lsp = await compacting_client(workspace, messages_api)
    try:
        session_id = await new_session(lsp)
        await append(lsp, session_id, long_conversation())
        before = await request(lsp, "compact/messages", {"sessionId": session_id})
        begun = asyncio.ensure_future(lsp.wait_for_notification("$/progress"))
        running = asyncio.ensure_future(command(lsp, "compact.compact", {"sessionId": session_id}))
        await asyncio.wait_for(begun, GUARD)
        (token,) = lsp.progress_reports
        status = await request(lsp, "compact/status", {"sessionId": session_id})
        assert status["compacting"] is True
        with pytest.raises(Exception, match="already in progress"):
            await command(lsp, "compact.compact", {"sessionId": session_id})
        late = {"role": "assistant", "content": [{"type": "text", "text": "Written while compacting."}]}
        queued = asyncio.ensure_future(append(lsp, session_id, [late]))
        await request(lsp, "compact/status", {"sessionId": session_id})  # the append has reached the server
        assert not queued.done()  # it waits for the compaction instead of racing it

        lsp.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))

        cancelled = await asyncio.wait_for(running, GUARD)  # the user's cancel is an outcome, not an error
        assert cancelled["cancelled"] is True and cancelled["changed"] is False
        assert "nothing changed" in cancelled["reason"]
        await asyncio.wait_for(queued, GUARD)
        after = await request(lsp, "compact/messages", {"sessionId": session_id})
        assert after["messages"] == [*before["messages"], late]  # nothing lost, nothing compacted
        assert lsp.progress_reports[token][-1].kind == "end"
        status = await request(lsp, "compact/status", {"sessionId": session_id})
        assert status["compacting"] is False and status["lastCompaction"] is None
    finally:
        await stop_server(lsp)


async def test_rehydration_preview_ranks_files_read(client: LanguageClient, workspace: Workspace) -> None:
    session_id = await new_session(client)
    conversation = start()
    for i in range(3):
        path = f"src/file_{i}.py"
        workspace.write(path, f"value = {i}\n")
        read = await read_file(client, session_id, path)
        conversation += read_round(f"toolu_{i}", path, read["content"])
    await append(client, session_id, conversation)
    preview = await command(client, "compact.rehydrationPreview", {"sessionId": session_id})
    assert preview["budget"] == {"maxFiles": 50, "tokenBudget": 20_000, "maxTokensPerFile": 8_000}
    assert [c["path"] for c in preview["candidates"]] == ["src/file_2.py", "src/file_1.py", "src/file_0.py"]
    assert all(isinstance(c["reason"], str) and c["reason"] for c in preview["candidates"])


async def test_automatic_compaction_that_cannot_make_room_waits_for_growth_and_says_so_once(
    workspace: Workspace, messages_api: MessagesApiStub
) -> None:
    """A memory index that fills most of an 8k window: no compaction can get below it. The user hears so once."""
    rule = "- always run the linter, the type checker and the unit tests before you commit anything at all\n"
    (workspace.project_memory / "MEMORY.md").write_text("# Memory\n" + rule * 150)
    for _ in range(8):
        messages_api.push(reply("<summary>The build ran; every unit compiled.</summary>"))
    options = workspace.options(baseUrl=messages_api.base_url, contextWindow=8_000, autoCompact={"enabled": True},
                                microcompact={"keepRecent": 20, "sizeThresholdTokens": -1})  # fmt: skip
    lsp = await start_server(workspace, options)
    try:
        session_id = await new_session(lsp)
        await append(lsp, session_id, start("Build the project and tell me what fails."))
        attempts: list[int] = []
        for i in range(14):
            output = "\n".join(f"compiling unit {i}.{j} ... ok" for j in range(40))
            result = await append(lsp, session_id, shell_round(f"toolu_sh{i}", output))
            if "compactionError" in result:
                attempts.append(result["usage"]["total"])
                assert "would not get down to" in result["compactionError"]
        warnings = [m.message for m in lsp.messages if m.type == types.MessageType.Warning]
        told = [w for w in warnings if "waits until the context has grown" in w]
        assert len(told) == 1 and "rehydration.budgetPercent (now 10%)" in told[0]
        assert len(attempts) >= 2  # it did try again, once the context had grown
        margin = 1_600  # the headroom at 8k: 20% of the window
        assert all(b - a >= margin for a, b in itertools.pairwise(attempts)), attempts
    finally:
        await stop_server(lsp)
