"""What the summary keeps (issue 13): the user's own first request, later messages verbatim, the approved plan,
errors with their decisive lines and every file touched, on synthetic cases and on real corpus sessions."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from tests.engine.summarize.test_summarize_offline import call, said, summarize, user

from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.conversation.messages import tool_uses
from compact_lsp.engine.files.artifact_trail import artifact_trail
from compact_lsp.engine.files.plan_state import extract_plan
from compact_lsp.engine.summarize.failure_lines import decisive_lines

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "claude-code-sessions"
SESSIONS = sorted(p for p in CORPUS.glob("*/*.jsonl") if not p.name.startswith("agent-")) if CORPUS.is_dir() else []
FILE_TOOLS = {"Read", "Edit", "MultiEdit", "Write", "NotebookEdit"}

PYTEST_OUTPUT = """\
============================= test session starts ==============================
collected 12 items

tests/test_auth.py ..F.........                                          [100%]

=================================== FAILURES ===================================
___________________________ test_login_rejects_expired ___________________________

    def test_login_rejects_expired():
>       assert login("bob", expired=True) is None
E       AssertionError: assert <Session bob> is None

tests/test_auth.py:41: AssertionError
=========================== short test summary info ============================
FAILED tests/test_auth.py::test_login_rejects_expired - AssertionError: assert <Session bob> is None
========================= 1 failed, 11 passed in 0.12s ========================="""


def section(text: str, number: int) -> str:
    return text.split(f"\n{number}. ", 1)[1].split(f"\n{number + 1}. ", 1)[0]


def test_the_primary_request_is_the_users_own_words_not_ide_or_harness_text() -> None:
    messages = [
        {"role": "user", "content": [
            {"type": "text", "text": "<ide_opened_file>The user opened /w/app.py.</ide_opened_file>"},
            {"type": "text", "text": "<system-reminder>Remember the rules.</system-reminder>"},
        ]},
        said("ok"),
        user("<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"),
        said("cleared"),
        user("<local-command-stdout>done</local-command-stdout>"),
        said("noted"),
        user("Make login reject expired sessions.\nKeep the public API unchanged."),
        said("On it"),
        user("Also add a test."),
    ]  # fmt: skip
    text = summarize(messages)
    # continuation lines are indented, so no line of the user's text can pass for a heading
    assert "The user's first request: Make login reject expired sessions.\n   Keep the public API unchanged." in text
    listed = section(text, 6)
    assert "1. Make login reject expired sessions.\n   Keep the public API unchanged." in listed
    assert "2. Also add a test." in listed and "3." not in listed
    assert "<" not in listed


def test_a_failing_test_keeps_its_name_and_assertion() -> None:
    messages = [user("Run the tests"), *call("t1", "Bash", {"command": "pytest -q"}, PYTEST_OUTPUT, is_error=True)]
    errors = section(summarize(messages), 4)
    assert "FAILED tests/test_auth.py::test_login_rejects_expired" in errors
    assert "AssertionError: assert <Session bob> is None" in errors
    assert "1 failed, 11 passed" in errors


def test_decisive_lines_take_the_exception_from_a_traceback() -> None:
    trace = "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n    f()\nKeyError: 'user'"
    assert decisive_lines(trace) == "Traceback (most recent call last): | KeyError: 'user'"


RUFF_OUTPUT = """src/store.py:41:10: SIM115 Use a context manager for opening files
   |
40 |     def load(self):
41 |         handle = open(self.path)
   |                  ^^^^ SIM115
   |
Found 1 error."""


@pytest.mark.parametrize(
    ("output", "kept"),
    [
        pytest.param('Exit code 1\nno pull requests found for branch "fix-login"', ["no pull requests found"], id="gh"),
        pytest.param("Exit code 1\n" + RUFF_OUTPUT, ["SIM115 Use a context manager", "Found 1 error."], id="ruff"),
        pytest.param(
            "Exit code 2\n" + "\n".join(f"collecting {i}" for i in range(50)) + "\nE   ModuleNotFoundError: no x",
            ["Exit code 2", "ModuleNotFoundError: no x"],
            id="tail",
        ),
    ],
)
def test_a_failed_command_keeps_what_decides_not_just_its_exit_code(output: str, kept: list[str]) -> None:
    messages = [user("Open the PR"), *call("t1", "Bash", {"command": "gh pr view"}, output, is_error=True)]
    errors = section(summarize(messages), 4)
    for text in kept:
        assert text in errors


PLAN = "# Expire sessions\n\n1. Add `expires_at` to Session\n2. Reject expired sessions in login()\n3. Add a test"


@pytest.mark.parametrize(
    ("source", "tool", "tool_input"),
    [
        pytest.param("plan-mode", "ExitPlanMode", {"plan": PLAN}, id="plan-mode"),
        pytest.param(
            "file", "Write", {"file_path": "/home/u/.claude/plans/expire.md", "content": PLAN}, id="plan-file"
        ),
    ],
)
def test_the_approved_plan_replaces_an_older_finished_todo_list(
    source: str, tool: str, tool_input: dict[str, Any]
) -> None:
    old = {"todos": [{"content": "Read the auth module", "status": "completed"}]}
    messages = [user("Plan the expiry work"), *call("t1", "TodoWrite", old, "ok"), *call("t2", tool, tool_input, "ok")]
    plan = extract_plan(messages)
    assert plan is not None and plan.source == source and plan.text == PLAN
    pending = section(summarize(messages), 7)
    assert "# Expire sessions" in pending and "Read the auth module" not in pending
    # then the agent works through it: open items stay pending, done items show as done
    todos = {
        "todos": [{"content": "Add expires_at", "status": "completed"}, {"content": "Reject", "status": "pending"}]
    }
    messages += call("t3", "TodoWrite", todos, "ok")
    plan = extract_plan(messages)
    assert plan is not None and plan.text.startswith(PLAN) and plan.open_items == 1
    assert "- [x] Add expires_at (completed)" in plan.text and "- [ ] Reject (pending)" in plan.text


def test_a_rejected_plan_is_not_the_plan() -> None:
    messages = [user("Plan it"), *call("t1", "ExitPlanMode", {"plan": PLAN}, "The user doesn't want to proceed", True)]
    assert extract_plan(messages) is None


def test_the_plan_reattached_by_a_compaction_is_found_again() -> None:
    reattached = f'<plan source="plan-mode" note="the task list">\n{PLAN}\n</plan>'
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "summary"}, {"type": "text", "text": reattached}]}
    ]
    plan = extract_plan(messages)
    assert plan is not None and plan.text == PLAN and plan.source == "plan-mode"


@pytest.mark.parametrize("path", SESSIONS, ids=[p.name[:8] for p in SESSIONS])
def test_on_real_sessions_every_file_touched_is_in_the_summary_and_no_harness_text_is_a_user_message(
    path: Path,
) -> None:
    messages = import_claude_code(path, with_subagents=False).session.messages
    touched = {
        str(use["input"].get("file_path") or use["input"].get("notebook_path"))
        for m in messages
        for use in tool_uses(m)
        if use.get("name") in FILE_TOOLS and isinstance(use.get("input"), dict)
    } - {"None", ""}
    text = summarize(messages)
    files = section(text, 3)
    assert all(f"- {p}:" in files for p in touched), sorted(p for p in touched if f"- {p}:" not in files)
    assert {e.path for e in artifact_trail(messages)} >= touched
    users = section(text, 6)
    assert not re.search(r"<(ide_|system-reminder|command-|local-command)", users)
    primary = section(text, 1)
    assert "<ide_" not in primary and "<command-" not in primary


def test_a_second_offline_compaction_merges_with_the_first_instead_of_nesting_it() -> None:
    first_part = [
        user("Make login reject expired sessions.\n2. Keep the public API unchanged."),
        *call("r1", "Read", {"file_path": "/w/auth.py"}, "def login(): ..."),
        *call("e1", "Edit", {"file_path": "/w/auth.py", "old_string": "a", "new_string": "b"}, "ok"),
        *call("t1", "Bash", {"command": "pytest -q"}, PYTEST_OUTPUT, is_error=True),
    ]
    first = summarize(first_part)
    from compact_lsp.engine.prompts import summary_message_text

    second_part = [
        user(summary_message_text(first)),
        said("Continuing"),
        user("Now also log the rejection."),
        *call("w1", "Write", {"file_path": "/w/log.py", "content": "x"}, "ok"),
    ]
    second = summarize(second_part)
    assert "from an earlier compaction" not in second and second.count("1. Primary Request and Intent:") == 1
    assert (
        "The user's first request: Make login reject expired sessions.\n   2. Keep the public API unchanged." in second
    )
    users = section(second, 6)
    assert "1. Make login reject expired sessions." in users and "2. Now also log the rejection." in users
    files = section(second, 3)
    assert "- /w/auth.py: read whole file; edited once" in files and "- /w/log.py: written once" in files
    assert "FAILED tests/test_auth.py::test_login_rejects_expired" in section(second, 4)
