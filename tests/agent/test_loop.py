"""The agent loop against the loopback Messages API: tools, permissions, failures, cancelling, compaction."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from tests.agent.conftest import Chat, Workspace
from tests.support.messages_api_stub import (
    api_error,
    error_mid_stream,
    hang,
    reply,
    reset_mid_stream,
    tool_call,
)

from compact_lsp.agent.model_requests import anthropic_client_factory
from compact_lsp.agent.prompts import CANCELLED_TOOL_RESULT
from compact_lsp.engine.conversation.messages import CLEARED_TOOL_RESULT, result_text, tool_results
from compact_lsp.engine.conversation.validate import validate


def strip_cache(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "role": m["role"],
            "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]],
        }
        for m in messages
    ]


def sent_text(body: dict[str, Any]) -> str:
    """Every text the model was sent in one request: text blocks and tool-result texts."""
    parts = []
    for message in body["messages"]:
        for block in message["content"]:
            if block["type"] == "text":
                parts.append(block["text"])
            elif block["type"] == "tool_result":
                parts.append(result_text(block))
    return "\n".join(parts)


def last_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return list(tool_results(body["messages"][-1]))


async def test_multi_turn_session_reads_greps_and_edits(make_chat, workspace: Workspace) -> None:
    chat: Chat = make_chat()
    chat.stub.push(
        tool_call("read_file", {"file_path": "src/app.py"}, text="Let me look.", tool_id="toolu_read"),
        tool_call("grep", {"pattern": "TIMEOUT"}, tool_id="toolu_grep"),
        reply("app.py greets; TIMEOUT is in util.py."),
    )
    first = await chat.say("What does app.py do?")
    assert first.stop_reason == "end_turn"
    assert first.rounds == 3
    assert chat.text() == "Let me look.app.py greets; TIMEOUT is in util.py."

    bodies = chat.stub.bodies
    # the read came back verbatim, the grep found the line in util.py
    assert result_text(last_results(bodies[1])[0]) == workspace.read("src/app.py")
    assert "src/util.py:1:TIMEOUT = 30" in result_text(last_results(bodies[2])[0])
    # each request is exactly the session's view at that moment
    assert strip_cache(bodies[2]["messages"]) == chat.session.messages[:-1]
    assert chat.session.read_state.get(str(workspace.root / "src/app.py")) is not None

    chat.stub.push(
        tool_call(
            "edit_file",
            {"file_path": "src/app.py", "old_string": "'hello '", "new_string": "'hi '"},
            tool_id="toolu_edit",
        ),
        reply("Done."),
    )
    second = await chat.say("Make it say hi.")
    assert second.stop_reason == "end_turn"
    assert workspace.read("src/app.py") == "def greet(name):\n    return 'hi ' + name\n"
    assert [r.kind for r in chat.prompter.asked] == ["edit"]
    assert chat.prompter.asked[0].target == "src/app.py"
    # the second turn's first request carried the whole first turn, then the new question
    bodies = chat.stub.bodies
    assert strip_cache(bodies[3]["messages"])[:6] == chat.session.messages[:6]
    assert bodies[3]["messages"][-1]["content"][-1]["text"] == "Make it say hi."
    assert validate(chat.session.messages) == []
    assert chat.kinds().count("tool_use") == chat.kinds().count("tool_result") == 3


async def test_request_shape_prompt_caching_and_usage_fed_back(make_chat) -> None:
    chat: Chat = make_chat()
    chat.stub.push(reply("hello", input_tokens=1234, output_tokens=5))
    result = await chat.say("hi")
    body = chat.stub.bodies[0]
    assert body["model"] == "claude-test"
    assert body["stream"] is True
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert all("cache_control" not in t for t in body["tools"][:-1])
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in chat.session.messages[0]["content"][-1]  # the session's copy is untouched
    assert result.usage.reported == 1234
    assert [t["name"] for t in body["tools"]] == [
        "read_file", "list_directory", "glob", "grep", "edit_file", "write_file", "remember",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "expect_edit"),
    [
        pytest.param("allow_once", True, id="allow-once"),
        pytest.param("allow_session", True, id="allow-session"),
        pytest.param("deny", False, id="deny"),
    ],
)
async def test_permission_allowed_and_denied(make_chat, workspace: Workspace, answer: str, expect_edit: bool) -> None:
    chat: Chat = make_chat()
    chat.prompter.answers = [answer]  # type: ignore[list-item]
    chat.stub.push(
        tool_call("read_file", {"file_path": "src/util.py"}),
        tool_call("edit_file", {"file_path": "src/util.py", "old_string": "30", "new_string": "60"}, tool_id="e1"),
        reply("ok"),
    )
    await chat.say("Double the timeout.")
    assert ("TIMEOUT = 60" in workspace.read("src/util.py")) is expect_edit
    result = last_results(chat.stub.bodies[2])[0]
    assert bool(result.get("is_error")) is not expect_edit
    if not expect_edit:
        assert "denied" in result_text(result)
        # a denied path is never rehydrated
        preview = chat.session.rehydration([])
        candidate = next(c for c in preview.candidates if c.path == "src/util.py")
        assert not candidate.included
        # not even after a later successful read: the refusal is remembered (and journalled)
        chat.session.record_read(str(workspace.root / "src" / "util.py"), workspace.read("src/util.py"))
        preview = chat.session.rehydration([])
        assert not any(c.included for c in preview.candidates if c.path == "src/util.py")


async def test_allow_for_session_is_not_asked_again(make_chat, workspace: Workspace) -> None:
    chat: Chat = make_chat()
    chat.prompter.answers = ["allow_session"]
    chat.prompter.default = "deny"
    chat.stub.push(
        tool_call("write_file", {"file_path": "a.txt", "content": "one\n"}),
        tool_call("write_file", {"file_path": "b.txt", "content": "two\n"}),
        reply("ok"),
    )
    await chat.say("Write two files.")
    assert workspace.read("a.txt") == "one\n" and workspace.read("b.txt") == "two\n"
    assert len(chat.prompter.asked) == 1


async def test_edit_refused_after_on_disk_change(make_chat, workspace: Workspace) -> None:
    chat: Chat = make_chat()
    chat.stub.push(tool_call("read_file", {"file_path": "src/util.py"}), reply("read it"))
    await chat.say("Read util.py")
    path = workspace.write("src/util.py", "TIMEOUT = 45\nRETRIES = 3\n")  # someone else saved it
    os.utime(path, ns=(1, 1))
    chat.stub.push(
        tool_call(
            "edit_file",
            {"file_path": "src/util.py", "old_string": "RETRIES = 3", "new_string": "RETRIES = 5"},
        ),
        reply("I will re-read it."),
    )
    await chat.say("Set retries to 5")
    result = last_results(chat.stub.bodies[-1])[0]
    assert result["is_error"] is True
    assert "changed on disk since you last read it" in result_text(result)
    assert workspace.read("src/util.py") == "TIMEOUT = 45\nRETRIES = 3\n"
    assert chat.prompter.asked == []  # never asked about an edit that cannot happen


@pytest.mark.parametrize(
    ("tool_input", "message"),
    [
        pytest.param({"file_path": "src/app.py", "old_string": "x", "new_string": "y"}, "not been read", id="unread"),
        pytest.param({"file_path": "../outside.py", "old_string": "x", "new_string": "y"}, "outside", id="escape"),
        pytest.param({"file_path": "src/app.py"}, "old_string", id="missing-arg"),
    ],
)
async def test_edit_refusals_reach_the_model(make_chat, tool_input: dict[str, Any], message: str) -> None:
    chat: Chat = make_chat()
    chat.stub.push(tool_call("edit_file", tool_input), reply("ok"))
    await chat.say("edit")
    result = last_results(chat.stub.bodies[1])[0]
    assert result["is_error"] is True
    assert message in result_text(result)


async def test_two_edits_of_one_file_in_one_response(make_chat, workspace: Workspace) -> None:
    chat: Chat = make_chat()
    two_edits = tool_call("edit_file", {"file_path": "src/util.py", "old_string": "30", "new_string": "31"})
    two_edits.content.append(
        {"type": "tool_use", "id": "toolu_second", "name": "edit_file",
         "input": {"file_path": "src/util.py", "old_string": "RETRIES = 3", "new_string": "RETRIES = 4"}}
    )  # fmt: skip
    chat.stub.push(tool_call("read_file", {"file_path": "src/util.py"}), two_edits, reply("ok"))
    await chat.say("edit twice")
    assert workspace.read("src/util.py") == "TIMEOUT = 31\nRETRIES = 4\n"
    assert not any(r.get("is_error") for r in last_results(chat.stub.bodies[2]))


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(api_error(500, "api_error", "boom", headers={"x-should-retry": "false"}), id="http-500"),
        pytest.param(api_error(401, "authentication_error", "bad key"), id="auth"),
        pytest.param(error_mid_stream(), id="error-event-mid-stream"),
        pytest.param(reset_mid_stream(), id="connection-reset-mid-stream"),
    ],
)
async def test_api_error_ends_turn_with_error_event_and_valid_transcript(make_chat, failure) -> None:
    chat: Chat = make_chat()
    chat.stub.push(tool_call("read_file", {"file_path": "src/app.py"}), failure)
    result = await chat.say("read app.py")
    assert result.stop_reason == "error"
    errors = [e for e in chat.events if e["kind"] == "error"]
    assert len(errors) == 1 and errors[0]["message"]
    messages = chat.session.messages
    assert validate(messages) == []
    assert messages[-1]["role"] == "user"  # the read's result; nothing of the failed answer
    # the conversation goes on afterwards
    chat.stub.push(reply("recovered"))
    assert (await chat.say("try again")).stop_reason == "end_turn"
    assert validate(chat.session.messages) == []


async def test_an_answer_that_reuses_a_tool_id_ends_the_turn_in_words_and_keeps_nothing(make_chat) -> None:
    """A proxy that hands back a tool id the conversation already holds: the answer cannot join it (the API would
    refuse the next request), so the turn ends as a bad response, said once, and the chat goes on."""
    chat: Chat = make_chat()
    chat.stub.push(
        tool_call("read_file", {"file_path": "src/app.py"}, tool_id="toolu_same"),
        tool_call("read_file", {"file_path": "src/util.py"}, tool_id="toolu_same"),
    )
    result = await chat.say("read both")
    assert (result.stop_reason, result.error_kind) == ("error", "bad_response")
    errors = [e["message"] for e in chat.events if e["kind"] == "error"]
    assert len(errors) == 1 and errors[0].startswith("The API's answer cannot be added to the conversation (")
    assert "Error" not in errors[0].split("(")[0] and "ConversationError" not in errors[0]
    assert validate(chat.session.messages) == []
    assert "util.py" not in str(chat.session.messages)  # nothing of the refused answer
    chat.stub.push(reply("recovered"))
    assert (await chat.say("try again")).stop_reason == "end_turn"


async def test_a_bug_of_ours_is_said_once_in_words_with_the_details_in_the_log(
    make_chat, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    chat: Chat = make_chat()
    loop = chat.build()

    def broken(_calls: Any, _cancel: Any) -> None:
        raise KeyError("no such slot")

    monkeypatch.setattr(loop, "_run_tools", broken)
    chat.stub.push(tool_call("read_file", {"file_path": "src/app.py"}))
    result = await chat.say("read app.py")
    assert (result.stop_reason, result.error_kind) == ("error", "internal")
    errors = [e["message"] for e in chat.events if e["kind"] == "error"]
    assert errors == [result.error]
    assert errors[0].startswith("The agent stopped on an unexpected error (details in the compact-lsp log)")
    assert "KeyError" not in errors[0] and "no such slot" not in errors[0]
    assert "KeyError: 'no such slot'" in caplog.text  # the log has what a bug report needs
    assert validate(chat.session.messages) == []


async def test_without_a_key_the_message_is_not_kept_so_sending_it_again_sends_it_once(make_chat) -> None:
    """No API key: the turn ends as auth before the message joins the conversation (the editors put it back in the
    input), so once a key is set the same message is in the conversation once, not twice."""
    chat: Chat = make_chat()
    chat.client = anthropic_client_factory(chat.session.settings, chat.settings, env={})  # type: ignore[method-assign]
    result = await chat.say("explain app.py")
    assert (result.stop_reason, result.error_kind) == ("error", "auth")
    assert chat.session.messages == [] and chat.stub.bodies == []
    chat.loop = None
    chat.client = Chat.client.__get__(chat)  # type: ignore[method-assign]  # a key now
    chat.stub.push(reply("app.py greets"))
    assert (await chat.say("explain app.py")).stop_reason == "end_turn"
    sent = [m for m in chat.stub.bodies[0]["messages"] if m["role"] == "user"]
    assert sent_text({"messages": sent}).count("explain app.py") == 1


async def test_unknown_tool_and_broken_tool_become_error_results(make_chat) -> None:
    chat: Chat = make_chat()
    chat.stub.push(
        tool_call("no_such_tool", {}),
        tool_call("read_file", {"file_path": "src/app.py", "offset": "three"}),
        reply("ok"),
    )
    assert (await chat.say("go")).stop_reason == "end_turn"
    assert "no tool named" in result_text(last_results(chat.stub.bodies[1])[0])
    assert "'offset' must be an integer" in result_text(last_results(chat.stub.bodies[2])[0])


async def test_cancel_mid_stream_leaves_a_valid_transcript(make_chat) -> None:
    chat: Chat = make_chat()
    chat.stub.push(tool_call("read_file", {"file_path": "src/app.py"}), hang())
    cancel = asyncio.Event()
    turn = asyncio.ensure_future(chat.say("read", cancel=cancel))
    assert await asyncio.to_thread(chat.stub.wait_for_requests, 2)
    cancel.set()
    result = await turn
    assert result.stop_reason == "cancelled"
    assert validate(chat.session.messages) == []
    assert chat.events[-1] == {"kind": "status", "message": "Cancelled."}


async def test_task_cancellation_while_asking_permission_answers_the_open_call(make_chat) -> None:
    chat: Chat = make_chat()
    asked = asyncio.Event()

    async def never_answers(request: Any) -> Any:
        asked.set()
        await asyncio.Event().wait()

    chat.build().permissions.ask = never_answers
    chat.stub.push(tool_call("write_file", {"file_path": "new.txt", "content": "x"}, tool_id="toolu_w"))
    turn = asyncio.ensure_future(chat.say("write"))
    await asyncio.wait_for(asked.wait(), 10)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    last = chat.session.messages[-1]
    assert validate(chat.session.messages) == []
    assert last["content"][0] == {
        "type": "tool_result", "tool_use_id": "toolu_w", "content": CANCELLED_TOOL_RESULT, "is_error": True,
    }  # fmt: skip


async def test_auto_compaction_mid_session_next_request_has_summary_and_files(make_chat, workspace) -> None:
    chat: Chat = make_chat(
        settings={"context_window": 100_000},
    )
    from compact_lsp.engine.rehydration_settings import RehydrationSettings
    from compact_lsp.engine.settings import AutoCompactSettings
    from compact_lsp.engine.summarize.anthropic_api import AnthropicSummarizer

    chat.summarizer = AnthropicSummarizer(model="claude-test", api_key="test-key", base_url=chat.stub.base_url)
    workspace.write("big.txt", "".join(f"line {i} of a long log file\n" for i in range(900)))
    chat.session.update_settings(
        chat.session.settings.__class__(
            **{
                **chat.session.settings.__dict__,
                "auto_compact": AutoCompactSettings(threshold_tokens=9_000),
                "rehydration": RehydrationSettings(max_tokens_per_file=1_000),
            }
        )
    )
    chat.stub.push(
        tool_call("read_file", {"file_path": "src/app.py"}, input_tokens=100),
        tool_call("read_file", {"file_path": "big.txt"}, input_tokens=100),
        reply("<summary>SUMMARY-MARKER: read app.py and a big log.</summary>"),  # the summary request
        reply("Both read.", input_tokens=100),
    )
    await chat.say("Read app.py and big.txt")
    bodies = chat.stub.bodies
    assert len(bodies) == 4
    assert "SUMMARY-MARKER" not in sent_text(bodies[1])
    summary_request, after = bodies[2], bodies[3]
    assert "summar" in summary_request["system"].lower()  # the compaction's own request
    assert "SUMMARY-MARKER: read app.py and a big log." in sent_text(after)
    assert workspace.read("src/app.py") in sent_text(after)  # rehydrated
    assert any(e["kind"] == "status" and e["message"].startswith("Compacted") for e in chat.events)
    assert validate(chat.session.messages) == []
    assert chat.session.state.compactions.standing


@pytest.mark.parametrize(
    "read_path",
    [
        pytest.param("{memory}/test-command.md", id="absolute-path-as-the-tool-says"),
        pytest.param(".compact/memory/test-command.md", id="workspace-relative-path"),
    ],
)
async def test_remember_write_survives_microcompaction(make_chat, workspace: Workspace, read_path: str) -> None:
    chat: Chat = make_chat()
    chat.stub.push(
        tool_call("remember", {"name": "Test command", "description": "how to run the tests",
                               "content": "REMEMBER-MARKER: run pytest -q"}),
        tool_call("read_file", {"file_path": read_path.format(memory=workspace.project_memory)}),
        *[tool_call("read_file", {"file_path": "src/app.py"}) for _ in range(7)],
        reply("noted"),
    )  # fmt: skip
    await chat.say("Remember how to run the tests.")
    assert [r.kind for r in chat.prompter.asked] == ["memory"]
    index = (workspace.project_memory / "MEMORY.md").read_text()
    assert "- [Test command](test-command.md): how to run the tests" in index
    saved = result_text(last_results(chat.stub.bodies[1])[0])
    assert str(workspace.project_memory / "test-command.md") in saved
    eviction = chat.session.microcompact("forced")
    assert eviction is not None and eviction.cleared
    chat.stub.push(reply("still know it"))
    await chat.say("What was the test command?")
    body = chat.stub.bodies[-1]
    text = sent_text(body)
    assert CLEARED_TOOL_RESULT in text  # ordinary reads were cleared ...
    assert text.count("REMEMBER-MARKER: run pytest -q") == 1  # ... the memory read was not
    assert "test-command.md" in body["system"][0]["text"]  # and the index is in the system prompt


async def test_idle_microcompaction_runs_before_the_request_after_a_pause(make_chat) -> None:
    chat: Chat = make_chat()
    chat.stub.push(*[tool_call("read_file", {"file_path": "src/app.py"}) for _ in range(7)], reply("read"))
    await chat.say("read a lot")
    chat.clock.now += 61 * 60
    chat.stub.push(reply("back"))
    await chat.say("hello again")
    assert CLEARED_TOOL_RESULT in sent_text(chat.stub.bodies[-1])
    assert any(e["kind"] == "status" and "(idle)" in e["message"] for e in chat.events)


async def test_compaction_due_at_turn_start_runs_before_the_new_question(make_chat, workspace) -> None:
    from compact_lsp.engine.rehydration_settings import RehydrationSettings
    from compact_lsp.engine.settings import AutoCompactSettings
    from compact_lsp.engine.summarize.offline import OfflineSummarizer

    chat: Chat = make_chat(summarizer=OfflineSummarizer())
    workspace.write("big.txt", "".join(f"line {i} of a long log file\n" for i in range(900)))
    chat.stub.push(tool_call("read_file", {"file_path": "big.txt"}, input_tokens=100), reply("read", input_tokens=100))
    await chat.say("Read big.txt")
    settings = chat.session.settings
    small_files = RehydrationSettings(max_tokens_per_file=1_000)  # a 9k-token window: the big log comes back cut
    chat.session.update_settings(
        settings.__class__(
            **{
                **settings.__dict__,
                "auto_compact": AutoCompactSettings(threshold_tokens=9_000),
                "rehydration": small_files,
            }
        )
    )
    chat.stub.push(reply("answered"))
    await chat.say("QUESTION-MARKER: what did the log say?")
    assert chat.session.state.compactions.standing
    body = chat.stub.bodies[-1]
    first_user = body["messages"][0]["content"]
    assert "QUESTION-MARKER" not in first_user[0]["text"]  # not summarised away ...
    assert first_user[-1]["text"] == "QUESTION-MARKER: what did the log say?"  # ... but asked verbatim, last


async def test_a_blank_text_before_a_call_never_reaches_the_next_request(make_chat) -> None:
    """Models may write ``"\\n\\n"`` before a tool call; the API refuses a blank text block in every later request,
    so the answer is kept without it and the turn goes on (the strict stub refuses what the API refuses)."""
    chat: Chat = make_chat()
    chat.stub.push(
        tool_call("read_file", {"file_path": "src/app.py"}, text="\n\n", tool_id="toolu_read"), reply("Done.")
    )
    result = await chat.say("Read app.py")
    assert result.stop_reason == "end_turn" and result.rounds == 2
    assert chat.stub.refused == []
    assert all(b["type"] != "text" or b["text"].strip() for m in chat.session.messages for b in m["content"])
