"""The agent's tools called directly: confinement, bounds, read-before-write, memory, the shell switch."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests.agent.conftest import Clock, Prompter, Workspace, make_session

from compact_lsp.agent.permissions import Permissions
from compact_lsp.agent.python_grep import MAX_GREP_LINES
from compact_lsp.agent.reading import MAX_READ_CHARS, grep_tool
from compact_lsp.agent.session_access import DirectAccess
from compact_lsp.agent.tools import MAX_OUTPUT_CHARS, Tool, ToolContext, ToolError, bound
from compact_lsp.agent.toolset import default_tools
from compact_lsp.agent.writing import index_line, topic_slug
from compact_lsp.engine.conversation.messages import result_text
from compact_lsp.engine.session.session_status import status_of
from compact_lsp.lsp.protocol.answers import status_answer


class Harness:
    def __init__(self, workspace: Workspace, *, shell: bool = False, ripgrep: str | None = None) -> None:
        self.workspace = workspace
        self.session = make_session(workspace, Clock())
        self.prompter = Prompter()
        self.permissions = Permissions(ask=self.prompter)
        tools = default_tools(shell=shell)
        if ripgrep is not None:
            tools = [t if t.name != "grep" else grep_tool(ripgrep) for t in tools]
        self.tools: dict[str, Tool] = {t.name: t for t in tools}

    async def call(self, tool: str, **args: Any) -> str:
        ctx = ToolContext(
            self.session, str(self.workspace.root), self.permissions, DirectAccess(self.session), "toolu_x"
        )
        output = await self.tools[tool].run(ctx, args)
        assert not output.is_error
        return result_text({"content": output.content})

    async def refused(self, tool: str, **args: Any) -> str:
        with pytest.raises(ToolError) as info:
            await self.call(tool, **args)
        return str(info.value)


@pytest.fixture
def tools(workspace: Workspace) -> Harness:
    return Harness(workspace)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.txt").write_text("SECRET-TIMEOUT = 1\n")
    return secret


# -- read_file -----------------------------------------------------------------------------------------------


async def test_read_range_says_where_to_read_on(tools: Harness, workspace: Workspace) -> None:
    workspace.write("log.txt", "".join(f"line {i}\n" for i in range(1, 11)))
    text = await tools.call("read_file", file_path="log.txt", offset=3, limit=2)
    assert text == "line 3\nline 4\n\n[log.txt: lines 3-4 of 10; read on with offset=5]"


async def test_huge_read_is_cut_at_a_line_and_recorded_as_partial(tools: Harness, workspace: Workspace) -> None:
    workspace.write("wide.txt", ("x" * 999 + "\n") * 150)
    ctx = ToolContext(tools.session, str(workspace.root), tools.permissions, DirectAccess(tools.session))
    output = await tools.tools["read_file"].run(ctx, {"file_path": "wide.txt"})
    assert output.read is not None
    assert len(output.read.content) <= MAX_READ_CHARS and output.read.content.endswith("\n")
    assert output.read.truncated and output.read.num_lines == 100
    assert "read on with offset=101" in result_text({"content": output.content})


@pytest.mark.parametrize(
    ("path", "message"),
    [
        pytest.param("../secret/key.txt", "denied", id="dotdot-escape-denied"),
        pytest.param("link/key.txt", "denied", id="symlink-escape-denied"),
        pytest.param("link", "outside the workspace", id="folder-outside-never-asked"),
        pytest.param("src", "is a directory", id="directory"),
        pytest.param("blob.bin", "binary", id="binary"),
        pytest.param("missing.py", "no such file", id="missing"),
    ],
)
async def test_read_refusals(tools: Harness, workspace: Workspace, outside: Path, path: str, message: str) -> None:
    (workspace.root / "link").symlink_to(outside)
    (workspace.root / "blob.bin").write_bytes(b"\x00\x01\x02")
    tools.prompter.default = "deny"
    assert message in await tools.refused("read_file", file_path=path)
    asked = [(r.kind, r.target) for r in tools.prompter.asked]
    assert asked == ([("read_outside", str((outside / "key.txt").resolve()))] if message == "denied" else [])


async def test_a_file_outside_the_workspace_is_admitted_by_the_users_approval_alone(
    tools: Harness, outside: Path
) -> None:
    key, other = (outside / "key.txt").resolve(), outside / "other.txt"
    other.write_text("OTHER = 2\n")
    assert await tools.call("read_file", file_path=str(key)) == "SECRET-TIMEOUT = 1\n"
    assert status_answer(status_of(tools.session))["admittedFiles"] == [{"path": str(key), "reason": "read"}]
    assert await tools.call("read_file", file_path=str(key)) == "SECRET-TIMEOUT = 1\n"  # admitted: not asked again
    assert [r.kind for r in tools.prompter.asked] == ["read_outside"]
    tools.prompter.default = "deny"
    assert "denied" in await tools.refused("read_file", file_path=str(other))  # its folder did not open
    assert len(tools.prompter.asked) == 2
    tools.session.admit(str(key), admitted=False)
    assert "denied" in await tools.refused("read_file", file_path=str(key))  # revoked: asked again
    assert len(tools.prompter.asked) == 3


async def test_an_edit_outside_the_workspace_asks_once_with_the_change(tools: Harness, outside: Path) -> None:
    key = (outside / "key.txt").resolve()
    await tools.call("read_file", file_path=str(key))
    tools.session.read_state.record_read(str(key), key.read_text())  # the loop records it once in the conversation
    await tools.call("edit_file", file_path=str(key), old_string="= 1", new_string="= 5")
    assert key.read_text() == "SECRET-TIMEOUT = 5\n"
    edits = [r for r in tools.prompter.asked if r.kind != "read_outside"]
    assert [(r.kind, r.target) for r in edits] == [("edit_outside", str(key))]
    assert "- = 1" in edits[0].detail and "+ = 5" in edits[0].detail
    assert status_answer(status_of(tools.session))["admittedFiles"] == [{"path": str(key), "reason": "edit"}]


async def test_read_of_user_memory_outside_the_workspace_is_allowed(tools: Harness, workspace: Workspace) -> None:
    (workspace.user_memory / "prefs.md").write_text("tabs, never spaces\n")
    text = await tools.call("read_file", file_path=str(workspace.user_memory / "prefs.md"))
    assert text == "tabs, never spaces\n"


# -- list_directory and glob ---------------------------------------------------------------------------------


async def test_list_directory_marks_folders(tools: Harness) -> None:
    assert await tools.call("list_directory") == "README.md\nsrc/"
    assert await tools.call("list_directory", path="src") == "app.py\nutil.py"
    assert "outside the workspace" in await tools.refused("list_directory", path="..")


async def test_glob_never_walks_through_a_link_out_of_the_roots(
    tools: Harness, workspace: Workspace, outside: Path
) -> None:
    """On main '**' followed a symlink to '/' (a PermissionError from /proc/1/cwd for a user) and listed files
    reached through a folder outside; now links to folders are not entered at all, and a file link counts only
    when it resolves inside the roots."""
    workspace.write("src/app.py", "x = 1\n")
    os.symlink("/", workspace.root / "rootlink")
    os.symlink(outside, workspace.root / "outlink")
    os.symlink(workspace.root / "src" / "app.py", outside / "back.py")  # outside, leading back in
    os.symlink(workspace.root / "src" / "app.py", workspace.root / "alias.py")
    assert await tools.call("glob", pattern="**/*.py") == "alias.py\nsrc/app.py\nsrc/util.py"
    assert await tools.call("glob", pattern="*/*.py") == "src/app.py\nsrc/util.py"  # not outlink/back.py
    assert await tools.call("glob", pattern="*/etc/passwd") == "[no files match */etc/passwd]"


async def test_glob_finds_files_but_not_through_escaping_links_or_git(
    tools: Harness, workspace: Workspace, outside: Path
) -> None:
    workspace.write("pkg/deep/mod.py", "")
    workspace.write(".git/hooks/hook.py", "")
    (workspace.root / "link").symlink_to(outside)
    (workspace.root / "link2.py").symlink_to(outside / "key.txt")
    assert await tools.call("glob", pattern="**/*.py") == "pkg/deep/mod.py\nsrc/app.py\nsrc/util.py"
    assert await tools.call("glob", pattern="link/*") == "[no files match link/*]"
    assert "at most 2 times" in await tools.refused("glob", pattern="**/**/**/*.py")  # work grows as depth^3
    assert "must not contain '..'" in await tools.refused("glob", pattern="../*")


# -- grep ----------------------------------------------------------------------------------------------------


GREP_ENGINES = [
    pytest.param(None, id="python"),
    pytest.param(
        "rg",
        id="ripgrep",
        marks=pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not on PATH"),
    ),
]


@pytest.mark.parametrize("engine", GREP_ENGINES)
async def test_grep_matches_filters_and_stays_inside(workspace: Workspace, outside: Path, engine: str | None) -> None:
    tools = Harness(workspace, ripgrep=shutil.which(engine) if engine else None)
    (workspace.root / "link").symlink_to(outside)
    workspace.write(".hidden/conf.txt", "TIMEOUT\n")
    assert await tools.call("grep", pattern="TIMEOUT") == "src/util.py:1:TIMEOUT = 30"
    assert await tools.call("grep", pattern="timeout", ignore_case=True, glob="*.md") == (
        "[no matches for 'timeout' in .]"
    )
    assert await tools.call("grep", pattern="return", path="src/app.py") == "src/app.py:2:    return 'hello ' + name"
    assert await tools.call("grep", pattern="HELLO", path="src", ignore_case=True) == (
        "src/app.py:2:    return 'hello ' + name"
    )
    assert "outside the workspace" in await tools.refused("grep", pattern="x", path="link")


async def test_python_grep_reports_a_bad_pattern(tools: Harness) -> None:
    assert "invalid regular expression" in await tools.refused("grep", pattern="(unclosed")


async def test_grep_output_is_bounded(tools: Harness, workspace: Workspace) -> None:
    workspace.write("many.txt", "needle\n" * (MAX_GREP_LINES * 2))
    text = await tools.call("grep", pattern="needle")
    assert text.count("many.txt:") == MAX_GREP_LINES
    assert text.endswith("narrow the search]")


def test_bound_cuts_at_a_line_and_says_how_much() -> None:
    text = "abc\n" * (MAX_OUTPUT_CHARS // 2)
    cut = bound(text)
    assert len(cut) < MAX_OUTPUT_CHARS + 100
    assert cut.endswith("more characters not shown]")
    assert bound("short") == "short"


# -- write_file, remember, shell -----------------------------------------------------------------------------


async def test_write_new_file_creates_folders_but_overwrite_needs_a_read(tools: Harness, workspace: Workspace) -> None:
    assert await tools.call("write_file", file_path="docs/new.md", content="# new\n") == "Created docs/new.md (1 line)."
    assert workspace.read("docs/new.md") == "# new\n"
    assert "has not been read" in await tools.refused("write_file", file_path="src/app.py", content="x")
    await tools.call("read_file", file_path="src/app.py")
    tools.session.read_state.record_read(str(workspace.root / "src/app.py"), workspace.read("src/app.py"))
    assert await tools.call("write_file", file_path="src/app.py", content="x\n") == "Overwrote src/app.py (1 line)."


async def test_write_outside_memory_roots_is_refused(tools: Harness, workspace: Workspace) -> None:
    target = workspace.user_memory / "x.md"
    assert "outside the workspace" in await tools.refused("write_file", file_path=str(target), content="x")
    assert not target.exists()


async def test_remember_replaces_the_same_topic_and_keeps_other_lines(tools: Harness, workspace: Workspace) -> None:
    workspace.project_memory.mkdir(parents=True)
    (workspace.project_memory / "MEMORY.md").write_text("# Memory\n- [Style](style.md): code style\n")
    await tools.call("remember", name="Build & test", description="old", content="make")
    await tools.call("remember", name="Build & test", description="how to build\nand test", content="make test")
    index = (workspace.project_memory / "MEMORY.md").read_text()
    assert index.splitlines() == [
        "# Memory",
        "- [Style](style.md): code style",
        "- [Build & test](build-test.md): how to build and test",
    ]
    assert (workspace.project_memory / "build-test.md").read_text() == "# Build & test\n\nmake test\n"
    assert "build-test.md" in tools.session.system_prompt()


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        pytest.param("Build & test commands", "build-test-commands", id="punctuation"),
        pytest.param("../../etc/passwd", "etc-passwd", id="traversal"),
        pytest.param("!!!", "", id="nothing-left"),
    ],
)
def test_topic_slug_never_leaves_the_root(name: str, slug: str) -> None:
    assert topic_slug(name) == slug
    assert index_line("A", "a", "one\n two") == "- [A](a.md): one two"


async def test_shell_tool_only_when_enabled(workspace: Workspace) -> None:
    assert "run_shell_command" not in Harness(workspace).tools
    shell = Harness(workspace, shell=True)
    assert await shell.call("run_shell_command", command="echo hi && pwd") == f"hi\n{workspace.root}\n[exit code 0]"
    assert [r.kind for r in shell.prompter.asked] == ["shell"]
    shell.prompter.default = "deny"
    assert "denied" in await shell.refused("run_shell_command", command="rm -rf src")
    assert os.path.isdir(workspace.root / "src")


async def test_shell_timeout_stops_the_command(workspace: Workspace) -> None:
    shell = Harness(workspace, shell=True)
    message = await shell.refused("run_shell_command", command="sleep 30 & wait", timeout_seconds=0.2)
    assert "did not finish within 0.2 s" in message


# -- allowed roots: other workspace folders and added directories --------------------------------------------


@pytest.mark.parametrize(
    "setting",
    [
        pytest.param("additional_directories", id="added-directory"),
        pytest.param("workspace_folders", id="second-folder"),
    ],
)
async def test_an_allowed_root_can_be_read_and_written(workspace: Workspace, outside: Path, setting: str) -> None:
    tools = Harness(workspace)
    tools.session.update_settings(replace(tools.session.settings, **{setting: (str(outside),)}))
    assert await tools.call("read_file", file_path=str(outside / "key.txt")) == "SECRET-TIMEOUT = 1\n"
    await tools.call("write_file", file_path=str(outside / "new.txt"), content="hello\n")
    assert (outside / "new.txt").read_text() == "hello\n"
    sibling = outside.parent / "sibling"
    sibling.mkdir()
    (sibling / "x.txt").write_text("no\n")
    tools.prompter.default = "deny"
    assert "denied" in await tools.refused("read_file", file_path=str(sibling / "x.txt"))
    assert "additionalDirectories" in await tools.refused("write_file", file_path=str(sibling / "y.txt"), content="x")
    assert not (sibling / "y.txt").exists()


async def test_without_the_setting_an_outside_directory_stays_closed(tools: Harness, outside: Path) -> None:
    tools.prompter.default = "deny"
    assert "denied" in await tools.refused("read_file", file_path=str(outside / "key.txt"))
