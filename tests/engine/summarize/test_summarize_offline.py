"""The offline summariser: what a user would look for in a summary made without a model."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.claude_code.transcript_log import import_claude_code, iter_session_files
from compact_lsp.engine.conversation.messages import tool_uses
from compact_lsp.engine.prompts import SUMMARY_SECTIONS, summary_message_text
from compact_lsp.engine.summarize.base import SummaryError, SummaryRequest
from compact_lsp.engine.summarize.offline import MAX_USER_MESSAGES, OFFLINE_NOTE, OfflineSummarizer
from compact_lsp.engine.summarize.user_words import USER_WORDS_CHARS

Message = dict[str, Any]


def user(text: str) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def said(text: str) -> Message:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def call(tool_id: str, name: str, tool_input: dict[str, Any], result: str, is_error: bool = False) -> list[Message]:
    """An assistant tool call and its result."""
    result_block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id, "content": result}
    if is_error:
        result_block["is_error"] = True
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}],
        },
        {"role": "user", "content": [result_block]},
    ]


def summarize(messages: list[Message], instructions: str | None = None) -> str:
    return OfflineSummarizer().summarize_messages(messages, instructions)


def section(text: str, name: str) -> str:
    """The body of one numbered section of a summary."""
    number = SUMMARY_SECTIONS.index(name) + 1
    start = text.index(f"{number}. {name}:")
    following = f"{number + 1}. {SUMMARY_SECTIONS[number]}:" if number < len(SUMMARY_SECTIONS) else None
    end = text.index(following) if following else len(text)
    return text[start:end]


SESSION: list[Message] = [
    user("Fix the crash in the login handler"),
    *call("t1", "Read", {"file_path": "/app/login.py", "offset": 10, "limit": 50}, "code"),
    *call("t2", "Read", {"file_path": "/app/db.py"}, "code"),
    *call("t3", "Edit", {"file_path": "/app/login.py", "old_string": "a", "new_string": "b"}, "ok"),
    *call("t4", "Bash", {"command": "pytest -q tests/test_login.py"}, "E   AssertionError: 401\nmore", True),
    *call("t5", "MultiEdit", {"file_path": "/app/db.py", "edits": [{}, {}]}, "denied by user", True),
    *call("t6", "Write", {"file_path": "/app/new.py", "content": "x"}, "ok"),
    *call(
        "t7",
        "TodoWrite",
        {
            "todos": [
                {"content": "Reproduce the crash", "status": "completed"},
                {"content": "Fix the token check", "status": "in_progress"},
                {"content": "Add a regression test", "status": "pending"},
            ]
        },
        "ok",
    ),
    user("also keep the old API working"),
    said("The token check now accepts both header styles; running the tests next."),
]


@pytest.mark.parametrize(
    ("section_name", "expected"),
    [
        pytest.param("Primary Request and Intent", "Fix the crash in the login handler", id="primary-request"),
        pytest.param("Files and Code", "/app/login.py: read lines 10-59; edited once", id="read-range-and-edit"),
        pytest.param("Files and Code", "/app/db.py: read whole file; failed: MultiEdit denied", id="failed-edit"),
        pytest.param("Files and Code", "/app/new.py: written once", id="write"),
        pytest.param("Errors and Fixes", "Bash `pytest -q tests/test_login.py`: E   AssertionError: 401", id="error"),
        pytest.param("Problem Solving", "`pytest -q tests/test_login.py` -> error: E   AssertionError", id="command"),
        pytest.param("All User Messages", "2. also keep the old API working", id="user-messages"),
        pytest.param("Pending Tasks", "- [~] Fix the token check (in_progress)", id="plan-in-progress"),
        pytest.param("Pending Tasks", "- [x] Reproduce the crash (completed)", id="plan-done"),
        pytest.param("Current Work", "accepts both header styles", id="last-assistant-text"),
        pytest.param("Next Step", "Carry on with: Fix the token check", id="next-step-from-plan"),
        pytest.param("Key Technical Concepts", "Read (2)", id="tools-used"),
    ],
)
def test_summary_section_holds(section_name: str, expected: str) -> None:
    assert expected in section(summarize(SESSION), section_name)


def test_every_section_appears_in_order_after_the_offline_note() -> None:
    text = summarize(SESSION)
    assert text.startswith(OFFLINE_NOTE)
    positions = [text.index(f"{n}. {name}:") for n, name in enumerate(SUMMARY_SECTIONS, start=1)]
    assert positions == sorted(positions)


def test_the_failed_edit_is_not_counted_as_an_edit() -> None:
    assert "/app/db.py: read whole file; edited" not in summarize(SESSION)


def test_user_messages_are_capped_and_the_first_request_is_kept() -> None:
    messages = [user("The original request")]
    for i in range(2, 46):
        messages += [said("ok"), user(f"message {i} " + "x" * 400)]
    text = summarize(messages)
    listed = section(text, "All User Messages")
    assert f"({45 - MAX_USER_MESSAGES} earlier messages not listed)" in listed
    assert "45. message 45" in listed and "16. message 16" in listed and "15. message 15" not in listed
    assert "The original request" in section(text, "Primary Request and Intent")
    assert f"45. message 45 {'x' * 400}" in listed  # each whole


def test_the_users_words_stay_whole_and_a_very_long_message_is_cut_at_a_sentence_with_a_marker() -> None:
    constraint = (
        "No, not like that. Let's keep the name of the module as it is, because three other services import it "
        "by that name; rename only the class inside it, and keep the old class name as an alias for one release."
    )
    pasted = "Here is the log. " + "The build printed a line. " * 400 + "Fix the first error only."
    text = summarize([user(constraint), said("ok"), user(pasted)])
    listed = section(text, "All User Messages")
    assert constraint in " ".join(listed.split())
    assert "more characters of this message left out]" in listed
    assert "The build printed a lin…" not in listed  # never mid-sentence
    assert max(len(line) for line in listed.splitlines()) <= USER_WORDS_CHARS + 80


def test_what_the_user_said_rejecting_a_plan_is_kept_whole() -> None:
    reason = "Let's keep the name of the config key, the deploy scripts read it; change only its default to 30."
    rejected = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
        "edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n" + reason
    )
    messages = [user("Plan the timeout change"), *call("t1", "ExitPlanMode", {"plan": "# Timeouts"}, rejected, True)]
    listed = section(summarize(messages), "All User Messages")
    assert f"(rejecting ExitPlanMode) {reason}" in " ".join(listed.split())


def test_an_earlier_compaction_summary_is_carried_over_not_listed_as_a_user_message() -> None:
    messages = [
        user(summary_message_text("Earlier we migrated the schema to v3.")),
        said("ok"),
        user("now add auth"),
    ]
    text = summarize(messages)
    assert "Earlier we migrated the schema to v3." in section(text, "Primary Request and Intent")
    assert "1. now add auth" in section(text, "All User Messages")
    assert "migrated" not in section(text, "All User Messages")


def test_system_reminders_and_local_command_noise_are_not_user_messages() -> None:
    messages = [
        user("Caveat: The messages below were generated by the user while running local commands. DO NOT"),
        user("<command-name>/clear</command-name>"),
        user("fix it <system-reminder>secret context</system-reminder>"),
    ]
    listed = section(summarize(messages), "All User Messages")
    assert "1. fix it" in listed
    assert "Caveat" not in listed and "/clear" not in listed and "secret context" not in listed


def test_instructions_are_noted() -> None:
    text = summarize(SESSION, instructions="the database layer")
    assert "focus on: the database layer" in section(text, "Primary Request and Intent")


def test_nothing_recorded_is_said_rather_than_left_blank() -> None:
    text = summarize([user("hello")])
    assert "(none recorded)" in section(text, "Files and Code")


async def test_summarize_returns_an_offline_summary_and_honours_cancel() -> None:
    summary = await OfflineSummarizer().summarize(SummaryRequest(messages=SESSION))
    assert summary.summarizer == "offline" and not summary.fallback
    assert summary.text == summarize(SESSION)  # deterministic
    cancel = asyncio.Event()
    cancel.set()
    with pytest.raises(SummaryError) as caught:
        await OfflineSummarizer().summarize(SummaryRequest(messages=SESSION, cancel=cancel))
    assert caught.value.kind == "cancelled"


@pytest.mark.parametrize(
    "project",
    [
        pytest.param("proj_Users-dain-workspace-claude-code-log-sample", id="claude-code-log"),
        pytest.param("proj_Users-dain-workspace-JSSoundRecorder", id="js-sound-recorder"),
    ],
)
def test_real_session_summary_names_its_edited_files_and_first_request(corpus_dir: Path, project: str) -> None:
    largest = max(iter_session_files(corpus_dir / project), key=lambda p: p.stat().st_size)
    imported = import_claude_code(largest, with_subagents=False)
    messages = imported.session.messages
    text = summarize(messages)
    edited = {
        str(block["input"]["file_path"])
        for message in messages
        if message["role"] == "assistant"
        for block in tool_uses(message)
        if block["name"] in ("Edit", "MultiEdit", "Write") and "file_path" in block["input"]
    }
    files = section(text, "Files and Code")
    listed = [path for path in edited if f"- {path}:" in files]
    assert listed, "no edited file of the session is listed"
    assert len(listed) == min(len(edited), 40)
    first_request = next(
        b["text"]
        for m in messages
        if m["role"] == "user"
        for b in m["content"]
        if b["type"] == "text" and not b["text"].startswith(("<", "Caveat:"))
    )
    assert first_request[:60] in section(text, "Primary Request and Intent")
    assert len(text) < 40_000  # bounded, however long the session
