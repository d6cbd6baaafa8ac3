"""Permission decisions, the agent's settings parser, and the pinned system prompt."""

from __future__ import annotations

from typing import Any

import pytest

from compact_lsp.agent.permissions import ACTIONS, PermissionRequest, Permissions, decision_for
from compact_lsp.agent.prompts import agent_system_prompt

EDIT = PermissionRequest(kind="edit", tool="edit_file", target="src/app.py", detail="- a\n+ b")


@pytest.mark.parametrize(
    ("title", "decision"),
    [
        pytest.param("Allow once", "allow_once", id="once"),
        pytest.param("Allow for this session", "allow_session", id="session"),
        pytest.param("Deny", "deny", id="deny"),
        pytest.param(None, "deny", id="dismissed"),
        pytest.param("Sure!", "deny", id="unknown-title"),
    ],
)
def test_button_titles_map_to_decisions(title: str | None, decision: str) -> None:
    assert decision_for(title) == decision
    assert ACTIONS == ("Allow once", "Allow for this session", "Deny")


async def test_allow_for_session_covers_the_kind_not_others() -> None:
    asked: list[str] = []

    async def ask(request: PermissionRequest) -> Any:
        asked.append(request.kind)
        return "allow_session" if request.kind == "edit" else "deny"

    permissions = Permissions(ask=ask)
    assert await permissions.request(EDIT, "/ws/src/app.py")
    assert await permissions.request(EDIT, "/ws/src/other.py")
    write = PermissionRequest(kind="write", tool="write_file", target="new.py")
    assert not await permissions.request(write, "/ws/new.py")
    assert asked == ["edit", "write"]
    assert permissions.denied_paths == {"/ws/new.py"}


@pytest.mark.parametrize("ask", [pytest.param(None, id="nobody-to-ask"), pytest.param("raises", id="prompt-fails")])
async def test_no_answer_is_a_denial(ask: str | None) -> None:
    async def failing(request: PermissionRequest) -> Any:
        raise ConnectionError("client went away")

    permissions = Permissions(ask=failing if ask else None)
    assert not await permissions.request(EDIT, "/ws/src/app.py")
    assert permissions.denied_paths == {"/ws/src/app.py"}


def test_prompt_text_names_the_change() -> None:
    assert EDIT.prompt == "The agent wants to edit src/app.py\n\n- a\n+ b"
    shell = PermissionRequest(kind="shell", tool="run_shell_command", target="make test")
    assert shell.prompt == "The agent wants to run a shell command: make test"


def test_system_prompt_is_pinned() -> None:
    text = agent_system_prompt(
        workspace_root="/ws",
        platform="Linux",
        today="2026-01-02",
        tools=[("read_file", "read a text file"), ("grep", "search")],
        session_system="# Managed memory\nindex here",
    )
    assert text.startswith("You are a coding agent working inside the user's editor")
    assert text.endswith(
        "# Workspace\n- Root: /ws\n- Platform: Linux\n- Today: 2026-01-02\n\n"
        "# Tools\n- read_file: read a text file\n- grep: search\n\n"
        "# Managed memory\nindex here"
    )
    assert "Read a file with read_file before you edit or overwrite it." in text
    no_memory = agent_system_prompt(workspace_root=None, platform="Linux", today="d", tools=[], session_system=" ")
    assert no_memory.endswith("# Tools\n")
    assert "(no folder is open" in no_memory
