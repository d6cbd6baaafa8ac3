"""The active plan re-attached after compaction: the last todo / plan tool call, or a plan file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.conversation.messages import CLEARED_TOOL_RESULT, Message
from compact_lsp.engine.files.plan_state import PlanState, extract_plan

SOUND_RECORDER = "proj_Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"
CACHE_FIXES = "proj_Users-dain-workspace-claude-code-log-sample/326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl"


def corpus_messages(path: Path) -> list[Message]:
    """The user/assistant messages of a Claude Code session log in file order (enough to find the plan)."""
    messages: list[Message] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            message = record.get("message")
            if record.get("type") in ("user", "assistant") and isinstance(message, dict):
                messages.append({"role": message["role"], "content": message["content"]})
    return messages


def todo_call_indexes(messages: list[Message]) -> list[int]:
    return [
        i
        for i, m in enumerate(messages)
        if isinstance(m["content"], list)
        and any(b.get("type") == "tool_use" and b.get("name") == "TodoWrite" for b in m["content"])
    ]


def test_corpus_session_plan_is_the_last_todo_state(corpus_dir: Path) -> None:
    plan = extract_plan(corpus_messages(corpus_dir / SOUND_RECORDER))
    assert plan is not None and plan.source == "tool"
    lines = plan.text.splitlines()
    assert len(lines) == 7
    assert lines[0] == "- [x] Create RecorderWorklet processor for microphone capture (completed)"
    assert lines[5].startswith("- [~] Test recording with new AudioWorklet")
    assert lines[5].endswith("(in_progress)")
    assert lines[6].startswith("- [ ] Test drone synth") and lines[6].endswith("(pending)")
    assert (plan.items, plan.open_items) == (7, 2)


def test_corpus_session_compacted_mid_task(corpus_dir: Path) -> None:
    messages = corpus_messages(corpus_dir / CACHE_FIXES)
    third_call = todo_call_indexes(messages)[2]
    plan = extract_plan(messages[: third_call + 1])
    assert plan is not None
    assert plan.text.splitlines() == [
        "- [x] Fix possibly-unbound-attribute warning for cached_data.version (completed)",
        "- [~] Fix call-non-callable error for pytest.skip() (in_progress)",
    ]


@pytest.mark.parametrize(
    ("include_finished", "expected_items"),
    [
        pytest.param(False, None, id="all-done-is-no-active-plan"),
        pytest.param(True, 2, id="all-done-when-asked"),
    ],
)
def test_corpus_session_finished_plan(corpus_dir: Path, include_finished: bool, expected_items: int | None) -> None:
    plan = extract_plan(corpus_messages(corpus_dir / CACHE_FIXES), include_finished=include_finished)
    assert (plan.items if plan else None) == expected_items


def call(name: str, tool_input: dict[str, Any], id_: str = "toolu_p") -> list[Message]:
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": id_, "name": name, "input": tool_input}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id_, "content": "ok"}]},
    ]


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        pytest.param(
            call("todo_write", {"todos": [{"id": "1", "content": "wire the parser", "status": "in_progress"}]}),
            "- [~] wire the parser (in_progress)",
            id="qwen-todo-write",
        ),
        pytest.param(
            call("write_todos", {"todos": [{"description": "add tests", "status": "pending"}]}),
            "- [ ] add tests (pending)",
            id="gemini-write-todos",
        ),
        pytest.param(
            call(
                "update_plan",
                {
                    "explanation": "Parser first, then the CLI.",
                    "plan": [
                        {"step": "parser", "status": "completed"},
                        {"step": "cli", "status": "in_progress"},
                    ],
                },
            ),
            "Parser first, then the CLI.\n\n- [x] parser (completed)\n- [~] cli (in_progress)",
            id="codex-update-plan",
        ),
        pytest.param(
            call("TodoWrite", {"todos": [{"content": "old", "status": "pending"}]}, "t1")
            + call("TodoWrite", {"todos": [{"content": "new", "status": "pending"}]}, "t2"),
            "- [ ] new (pending)",
            id="last-call-wins",
        ),
    ],
)
def test_plan_tools(messages: list[Message], expected: str) -> None:
    plan = extract_plan(messages)
    assert plan is not None and plan.text == expected


def test_plan_survives_a_cleared_result() -> None:
    messages = call("TodoWrite", {"todos": [{"content": "ship it", "status": "pending"}]})
    messages[1]["content"][0]["content"] = CLEARED_TOOL_RESULT
    assert extract_plan(messages) == PlanState(
        text="- [ ] ship it (pending)", source="tool", tool_use_id="toolu_p", items=1, open_items=1
    )


@pytest.mark.parametrize(
    ("messages", "file_text", "expected"),
    [
        pytest.param([], "# Plan\n1. parser\n", "# Plan\n1. parser", id="plan-file-when-no-tool-plan"),
        pytest.param([], "", None, id="empty-plan-file"),
        pytest.param(
            call("TodoWrite", {"todos": [{"content": "tool plan", "status": "pending"}]}),
            "# Plan\n",
            "- [ ] tool plan (pending)",
            id="tool-plan-wins-over-file",
        ),
        pytest.param(call("TodoWrite", {"todos": []}), "# stale plan\n", None, id="cleared-todo-list-hides-stale-file"),
    ],
)
def test_plan_file(tmp_path: Path, messages: list[Message], file_text: str, expected: str | None) -> None:
    plan_file = tmp_path / "PLAN.md"
    plan_file.write_text(file_text)
    plan = extract_plan(messages, plan_file=str(plan_file))
    assert (plan.text if plan else None) == expected


def test_no_plan(tmp_path: Path) -> None:
    messages: list[Message] = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]
    assert extract_plan(messages) is None
    assert extract_plan(messages, plan_file=str(tmp_path / "missing.md")) is None


def _task_call(
    call_id: str, name: str, tool_input: dict[str, Any], result: str, *, error: bool = False
) -> list[Message]:
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": name, "input": tool_input}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": result,
                                      "is_error": error}]},
    ]  # fmt: skip


def test_claude_codes_task_tools_fold_into_the_plan() -> None:
    """Claude Code 2.1 has TaskCreate/TaskUpdate instead of TodoWrite; the plan is the folded list."""
    messages: list[Message] = [{"role": "user", "content": "Port the parser"}]
    messages += _task_call("t1", "TaskCreate", {"subject": "Read the old parser", "description": "d"},
                           "Task #1 created successfully: Read the old parser")  # fmt: skip
    messages += _task_call("t2", "TaskCreate", {"subject": "Write the new one", "description": "d"},
                           "Task #2 created successfully: Write the new one")  # fmt: skip
    messages += _task_call("t3", "TaskCreate", {"subject": "Drop the shim", "description": "d"}, CLEARED_TOOL_RESULT)
    messages += _task_call("u1", "TaskUpdate", {"taskId": "1", "status": "completed"}, "Updated task #1 status")
    messages += _task_call("u2", "TaskUpdate", {"taskId": "2", "status": "in_progress"}, "Updated task #2 status")
    messages += _task_call("u3", "TaskUpdate", {"taskId": "3", "status": "deleted"}, "Updated task #3 status")
    messages += _task_call("u4", "TaskUpdate", {"taskId": "2", "status": "completed"}, "refused", error=True)
    plan = extract_plan(messages)
    assert plan is not None and plan.source == "tool"
    assert plan.text.splitlines() == [
        "- [x] Read the old parser (completed)",
        "- [~] Write the new one (in_progress)",
    ]
    assert (plan.items, plan.open_items) == (2, 1)
    messages += _task_call("u5", "TaskUpdate", {"taskId": "2", "status": "completed"}, "Updated task #2 status")
    assert extract_plan(messages) is None, "a task list with nothing left to do is no plan"
