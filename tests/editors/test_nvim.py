"""The Neovim plugin in real headless Neovim 0.11, against the real server over stdio.

Each scenario (``nvim_support/scenarios/*.lua``) drives Neovim like a user would (``:Compact ...``, the status
line, ``:checkhealth``), waits on events rather than time, and writes what it saw to JSON; the tests below
assert on that. One Neovim run serves all the tests of a scenario.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from tests.agents.claude_code.transcripts import corpus_session
from tests.editors.nvim_support.runner import (
    PLUGIN_DIR,
    NvimRun,
    nvim_executable,
    run_scenario,
    server_command,
)

from compact_lsp.agents.claude_code.live import project_directory

pytestmark = pytest.mark.skipif(nvim_executable() is None, reason="Neovim is not installed")

CLEARED = "[Old tool result content cleared]"

# Small figures so that six reads (about 26.3k) reach the warning level (threshold 28k: warning from 25.2k, 90%
# of it, where the next compaction is near) and one forced microcompaction brings the context back to ok.
SETTINGS: dict[str, Any] = {
    "autoCompact": {"enabled": False, "threshold": 28000},
    "microcompact": {"keepRecent": 1, "idleMinutes": -1, "sizeThresholdTokens": -1},
    "rehydration": {"maxFiles": 2, "tokenBudget": 3000, "maxTokensPerFile": 2000},
}


def workspace_in(root: Path) -> tuple[Path, Path]:
    """A project directory (with .git, so it is the root) and a separate state directory."""
    workspace = root / "project"
    (workspace / ".git").mkdir(parents=True)
    state = root / "state"
    state.mkdir()
    return workspace, state


def run_ok(scenario: str, root: Path, **kwargs: Any) -> NvimRun:
    workspace, state = workspace_in(root)
    settings = {**SETTINGS, "memory": {"userRoot": str(state / "user-memory")}}
    run = run_scenario(scenario, workspace, state, settings=settings, **kwargs)
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    return run


@pytest.fixture(scope="module")
def commands(tmp_path_factory: pytest.TempPathFactory) -> NvimRun:
    return run_ok("commands", tmp_path_factory.mktemp("nvim-commands"))


def k_tokens(n: int) -> str:
    """Token figures as the plugin shows them: 950, 2.5k, 200k."""
    return str(n) if n < 1000 else f"{n / 1000:.1f}".removesuffix(".0") + "k"


def messages_of(run: NvimRun) -> list[str]:
    return [n["message"] for n in run.results["notifications"]]


# ---- start-up and sessions ----


def test_opening_a_file_starts_the_server_at_the_project_root(commands: NvimRun) -> None:
    assert commands.results["attached"] is True
    assert Path(commands.results["root_dir"]) == commands.workspace
    assert commands.results["statusline_empty"] == ""


def test_commands_act_on_the_chosen_session(commands: NvimRun) -> None:
    assert commands.results["tracked_session"] == commands.results["session_id"]
    assert commands.results["status"]["result"]["sessionId"] == commands.results["session_id"]


# ---- status line ----


def test_statusline_shows_tokens_window_and_percent_with_a_warning_highlight(commands: NvimRun) -> None:
    usage = commands.results["usage_before"]
    assert usage["level"] == "warning"
    line = commands.results["statusline_before"]
    match = re.fullmatch(r"%#CompactLspWarning#(\d+(?:\.\d)?)k/200k (\d+(?:\.\d)?)%%%\*", line)
    assert match, line
    assert float(match.group(1)) == pytest.approx(usage["total"] / 1000, abs=0.05)
    assert float(match.group(2)) == pytest.approx(usage["percent"], abs=0.05)
    # drawn through the README's snippet: the same figures, '%%' drawn as '%'
    assert commands.results["statusline_snippet"] == f"{match.group(1)}k/200k {match.group(2)}%"


def test_statusline_drops_the_warning_after_microcompaction(commands: NvimRun) -> None:
    after = commands.results["usage_after_micro"]
    assert after["level"] == "ok"
    assert after["total"] < commands.results["usage_before"]["total"]
    assert "%#" not in commands.results["statusline_after_micro"]
    assert commands.results["statusline_after_micro"] != commands.results["statusline_before"]


# ---- :Compact micro | status | files ----


def test_micro_clears_all_but_the_most_recent_read_and_says_so(commands: NvimRun) -> None:
    micro = commands.results["micro"]
    assert "error" not in micro
    cleared = {c["toolUseId"] for c in micro["result"]["cleared"]}
    assert cleared == {f"toolu_read_{i}" for i in range(1, 6)}
    assert any(m.startswith("compact-lsp: cleared 5 tool results") for m in messages_of(commands))
    # The figure the message ends on is the one the status line then shows (both count the whole context).
    after = commands.results["usage_after_micro"]["total"]
    assert micro["result"]["tokensAfter"] == after
    assert commands.results["statusline_after_micro"].startswith(f"{k_tokens(after)}/200k ")


def section(lines: list[str], heading: str) -> list[str]:
    """The lines under the heading that starts with ``heading``, up to the next blank line."""
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    body = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        body.append(line)
    return body


def test_status_float_shows_usage_bar_cleared_results_and_read_files(commands: NvimRun) -> None:
    float_ = commands.results["status_float"]
    assert float_["floating"] is True
    lines = float_["lines"]
    usage = commands.results["status"]["result"]["usage"]
    headline = f"Context  {k_tokens(usage['total'])} / 200k tokens  {usage['percent']:g}%  ok"
    assert headline in lines, lines
    (bar,) = [line for line in lines if line.endswith("░")]
    # the bar is window-scaled: its filled cells are the used share of 50, with no cell given for free
    assert bar.count("█") == round(usage["total"] / usage["contextWindow"] * 50) and len(bar) == 50, bar
    assert any(f"■ tool results {k_tokens(usage['byKind']['toolResult'])}" in line for line in lines), lines
    # Only the most recent read is still in the conversation; the other five were cleared, so the biggest item
    # (exact counts from the server) is that read.
    biggest = section(lines, "Biggest items")
    assert biggest[0].split("  ")[-2:] == ["tool result", "read_file src/mod6.py"], biggest
    # Kinds and tools in the user's words: no raw kind names, no tool-use ids.
    assert not any("toolResult" in line or "toolu_" in line for line in lines), lines
    cleared = section(lines, "Cleared results")
    assert sorted(line.split()[-1] for line in cleared) == [f"src/mod{i}.py" for i in range(1, 6)]
    read = section(lines, "Read files")
    assert len(read) == 6 and all(line.split()[0] == "fresh" for line in read)
    assert any(line.endswith("src/mod1.py  (open)") for line in read), read  # the buffer Neovim has open


def test_pin_keeps_this_buffers_file_and_unpin_takes_it_back(commands: NvimRun) -> None:
    assert commands.results["pin"]["result"]["pinned"] == [{"kind": "file", "path": "src/mod1.py"}]
    assert any(
        m.startswith("compact-lsp: pinned src/mod1.py (re-attached first after a full compaction)")
        for m in messages_of(commands)
    )
    lines = commands.results["pin_float"]["lines"]
    assert section(lines, "Pinned") == ["  file    src/mod1.py"], lines
    assert commands.results["completion_unpin"] == ["src/mod1.py"]
    assert commands.results["unpin"]["result"]["pinned"] == []
    assert "compact-lsp: unpinned src/mod1.py; nothing is pinned now" in messages_of(commands)


def test_a_file_the_agent_read_changing_on_disk_is_noticed(commands: NvimRun) -> None:
    changed = Path(commands.results["changed"])
    assert changed == commands.workspace / "src" / "mod2.py"
    assert "compact-lsp: src/mod2.py changed on disk since the agent read it; the agent is told at its next turn" in (
        messages_of(commands)
    )


def test_files_float_previews_rehydration_within_the_budget(commands: NvimRun) -> None:
    preview = commands.results["files"]["result"]
    float_ = commands.results["files_float"]
    assert float_["floating"] is True
    text = "\n".join(float_["lines"])
    assert "Rehydration preview" not in text  # the border has the title; the text does not repeat it
    included = [c for c in preview["candidates"] if c["included"]]
    assert f"{len(included)} of {len(preview['candidates']) + preview['unlisted']} files" in text
    for candidate in preview["candidates"]:
        mark = "✓" if candidate["included"] else "✗"
        assert re.search(rf"{mark} .*{re.escape(Path(candidate['path']).name)}", text), text


# ---- :Compact full | undo ----


def test_full_compaction_uses_the_offline_summariser_and_shrinks_the_context(commands: NvimRun) -> None:
    full = commands.results["full"]
    assert "error" not in full, full
    result = full["result"]
    assert result["tokensAfter"] < result["tokensBefore"]
    assert result["summarizer"]
    assert any(m.startswith("compact-lsp: compacted the conversation") for m in messages_of(commands))
    assert commands.results["statusline_after_full"] != commands.results["statusline_after_micro"]


def text_of(view: dict[str, Any]) -> str:
    """All the text of a compact/messages view."""
    parts = []
    for message in view["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        parts += [b.get("text") or str(b.get("content", "")) for b in blocks]
    return "\n".join(parts)


def test_full_compaction_summary_follows_the_instructions_given_after_the_command(commands: NvimRun) -> None:
    assert "keep the handler names" in text_of(commands.results["messages_after_full"])


def test_full_compaction_reports_progress_that_vim_lsp_status_shows(commands: NvimRun) -> None:
    progress = commands.results["progress"]
    kinds = [p["kind"] for p in progress]
    assert kinds[0] == "begin" and kinds[-1] == "end", kinds
    assert progress[0]["title"] == "Compacting conversation"
    assert "Compacting conversation" in progress[0]["status"]
    assert not any(p["status"].count("Compacting conversation") > 1 for p in progress)  # the title once
    # On by default without a progress plugin: echoed, with figures formatted as everywhere else.
    before, after = (k_tokens(commands.results["full"]["result"][k]) for k in ("tokensBefore", "tokensAfter"))
    assert f"compact-lsp: Compacted: {before} → {after} tokens" in commands.results["echoed_after_full"]


def test_status_after_a_full_compaction_has_no_stale_cleared_results(commands: NvimRun) -> None:
    lines = commands.results["status_float_after_full"]["lines"]
    assert not any(line.startswith("Cleared results") for line in lines), lines
    assert any(line.startswith("Last compaction: ") for line in lines), lines


def test_undo_restores_and_a_second_undo_says_there_is_nothing_to_undo(commands: NvimRun) -> None:
    undo = commands.results["undo"]
    assert undo["result"]["restored"] is True
    assert undo["result"]["tokensAfter"] == commands.results["full"]["result"]["tokensBefore"]
    restored = text_of(commands.results["messages_after_undo"])
    assert "Read the modules and tell me what they do." in restored
    assert "keep the handler names" not in restored
    again = commands.results["undo_again"]
    # an outcome, not a failure: said once, as information
    assert again.get("error") is None and again["result"]["changed"] is False
    said = [n for n in commands.results["notifications"] if "no compaction to undo" in n["message"]]
    assert [n["level"] for n in said] == [2], said


def test_completion_offers_subcommands(commands: NvimRun) -> None:
    expected = [
        "cancel",
        "claude-hook",
        "codex-hook",
        "files",
        "full",
        "gemini-hook",
        "help",
        "import",
        "micro",
        "pin",
        "qwen-hook",
        "rename",
        "session",
        "status",
        "timeline",
        "undo",
        "unpin",
        "workingset",
    ]
    assert commands.results["completion_all"] == expected
    assert commands.results["completion_f"] == ["files", "full"]
    assert commands.results["session_id"] in commands.results["completion_session"]


# ---- managed memory ----


def test_managed_memory_read_survives_micro_while_ordinary_reads_are_cleared(tmp_path: Path) -> None:
    marker = f"MEMORY-MARKER-{uuid.uuid4().hex}"
    run = run_ok("memory", tmp_path, extra={"marker": marker})
    results = run.results["results"]
    assert marker in results["toolu_memory"]
    assert [results[f"toolu_part_{i}"] for i in range(1, 5)] == [CLEARED] * 4
    assert results["toolu_part_5"] != CLEARED  # the most recent read is kept
    micro = run.results["micro"]["result"]
    assert [p["toolUseId"] for p in micro["protected"]] == ["toolu_memory"]
    assert any("kept 1 managed-memory read" in m for m in messages_of(run))


def test_a_memory_folder_linked_to_slash_is_ignored_with_one_warning(tmp_path: Path) -> None:
    workspace, state = workspace_in(tmp_path)
    (workspace / ".compact").mkdir()
    (workspace / ".compact" / "memory").symlink_to("/")
    settings = {**SETTINGS, "memory": {"userRoot": str(state / "user-memory")}}
    run = run_scenario("memory_link", workspace, state, settings=settings)
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    assert run.results["read_ok"] is False and "outside the workspace" in run.results["read_error"]
    shown = run.stderr + "\n".join(messages_of(run))  # headless Neovim writes window/showMessage to stderr
    assert shown.count("ignoring the project memory folder") == 1
    assert "it resolves to /, outside the workspace" in shown


# ---- :checkhealth ----


@pytest.mark.parametrize(
    ("cmd", "env", "expect_error"),
    [
        pytest.param(None, {}, False, id="healthy"),
        pytest.param(None, {"ANTHROPIC_API_KEY": "sk-ant-test-SECRET-VALUE"}, False, id="api-key-set"),
        pytest.param(["compact-lsp-not-installed", "--stdio"], {}, True, id="server-missing"),
    ],
)
def test_checkhealth(tmp_path: Path, cmd: list[str] | None, env: dict[str, str], expect_error: bool) -> None:
    workspace, state = workspace_in(tmp_path)
    run = run_scenario("health", workspace, state, cmd=cmd or server_command(), env=env)
    assert run.returncode == 0, run.explain()
    text = "\n".join(run.results["lines"])
    assert ("ERROR" in text) is expect_error, text
    if expect_error:
        assert "compact-lsp-not-installed is not executable" in text
        return
    assert "OK version: compact-lsp " in text
    assert re.search(r"OK Python 3\.\d+\.\d+", text)
    assert "OK token encoding" in text
    if "ANTHROPIC_API_KEY" in env:
        assert "OK ANTHROPIC_API_KEY is set" in text
        assert "SECRET" not in text
    else:
        assert "WARNING no API key" in text


# ---- :CompactChat ----


def chat_env(stub: Any) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": stub.base_url}


@pytest.mark.parametrize(
    ("answer", "written"),
    [pytest.param("Allow once", True, id="allowed"), pytest.param("Deny", False, id="denied")],
)
def test_chat_turn_typed_at_the_prompt_with_a_permission_prompt_then_qa(
    tmp_path: Path, answer: str, written: bool
) -> None:
    from tests.support.messages_api_stub import MessagesApiStub, reply, tool_call

    workspace, state = workspace_in(tmp_path)
    with MessagesApiStub() as stub:
        stub.push(
            tool_call("write_file", {"file_path": "notes.md", "content": "hello from the agent\n"}, text="Writing."),
            reply("Finished with the notes."),
        )
        run = run_scenario(
            "chat",
            workspace,
            state,
            settings={**SETTINGS, "baseUrl": stub.base_url},
            env=chat_env(stub),
            extra={"text": "Please write notes.md", "answer": answer},
        )
    # The scenario ends with :qa (not :qa!): a chat buffer that blocked it would fail the run.
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    assert run.results["initial_lines"] == ["> "]  # the prompt shows before the user presses i
    assert run.results["buftype"] == "prompt" and run.results["buflisted"] is False
    # The chat started the server with no file open, and is no document of the project (not attached).
    assert run.results["buf_attached"] is False
    assert run.results["hidden_modified"] is False
    session = run.results["session"]
    assert run.results["buf_name"] == "compact-lsp://chat/Please write notes.md"  # named by its title
    assert run.results["done"]["data"].get("error") is None
    # The session is titled by the first message, and it is the chat's.
    (item,) = run.results["sessions"]
    assert (item["sessionId"], item["title"]) == (session, "Please write notes.md")
    # One short line for the picker; the whole question is in the chat.
    (prompt,) = run.results["prompts"]
    assert prompt["items"] == ["Allow once", "Allow for this session", "Deny"]
    assert "\n" not in prompt["prompt"] and "notes.md" in prompt["prompt"]
    assert (workspace / "notes.md").exists() is written
    lines = run.results["lines"]
    assert lines.count("You: Please write notes.md") == 1
    assert not any(line.startswith("> Please") for line in lines)  # the typed line is not shown twice
    assert "Claude: Writing." in lines
    assert "  ⚙ write_file `notes.md`" in lines  # a code span: Markdown keeps every character
    assert f"    → {answer}" in lines
    assert "Claude: Finished with the notes." in lines  # every text of the turn is labelled
    end = next(line for line in lines if line.startswith("  `["))
    assert re.fullmatch(r"  `\[done · [\d.]+k?/200k tokens \([\d.]+%\) in context\]`", end), end
    assert lines[-1] == "> "
    assert run.results["statusline"] != ""


# ---- automatic compaction ----


def test_automatic_compaction_is_announced(tmp_path: Path) -> None:
    workspace, state = workspace_in(tmp_path)
    # A threshold the discussion (about 10.7k tokens) crosses, with room below it (1% of the window: 2k) that its
    # offline summary (about 6k) fits in.
    settings = {"autoCompact": {"enabled": True, "threshold": 9000, "headroomPercent": 1}}
    run = run_scenario("auto", workspace, state, settings=settings)
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    compacted = run.results["compacted"]["data"]
    assert (compacted["kind"], compacted["trigger"]) == ("full", "auto")
    expected = f"compact-lsp: compacted the conversation (auto): {k_tokens(compacted['tokensBefore'])} → "
    assert any(m.startswith(expected) for m in messages_of(run)), messages_of(run)


# ---- help ----

HELP_TOPICS = [
    "compact_lsp",
    "compact_lsp.txt",
    ":Compact",
    ":Compact-full",
    ":Compact-status",
    ":CompactChat",
    "compact_lsp.statusline()",
    "compact_lsp-events",
    "hl-CompactLspWarning",
    "compact_lsp.Options",
    "compact_lsp-edits",
    ":Compact-pin",
]


def test_help_works_after_a_lazy_style_install_and_the_shipped_tags_are_current(tmp_path: Path) -> None:
    # lazy.nvim's `dir` install: the plugin directory as it is in the repository (copied, so nothing is written
    # there), on 'runtimepath' with no :helptags run.
    plugin_copy = tmp_path / "compact-lsp.nvim"
    shutil.copytree(PLUGIN_DIR, plugin_copy)
    fresh_doc = tmp_path / "fresh" / "doc"
    shutil.copytree(PLUGIN_DIR / "doc", fresh_doc, ignore=shutil.ignore_patterns("tags"))
    workspace, state = workspace_in(tmp_path)
    extra = {"plugin_copy": str(plugin_copy), "doc_dir": str(fresh_doc), "topics": HELP_TOPICS}
    run = run_scenario("help", workspace, state, cmd=server_command(), extra=extra)
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    for topic, line in run.results["opened"].items():
        assert f"*{topic}*" in line, (topic, line)  # the cursor is on the topic's tag
    assert run.results["helptags_error"] == ""
    # The shipped tags are what :helptags makes of the shipped help (regenerate them when the help changes:
    # nvim --headless -c 'helptags editors/nvim/doc' -c q).
    assert (PLUGIN_DIR / "doc" / "tags").read_text() == (fresh_doc / "tags").read_text()


def test_chat_recovers_from_cancel_and_from_a_server_that_dies(tmp_path: Path) -> None:
    from tests.support.messages_api_stub import MessagesApiStub, api_error, hang, reply, tool_call

    workspace, state = workspace_in(tmp_path)
    with MessagesApiStub() as stub:
        stub.push(
            tool_call("read_file", {"file_path": "app.py"}, text="Reading first."),
            hang(),
            reply("Here is the short answer."),
            hang(),
            reply("Yes, on a new server."),
            api_error(400, "invalid_request_error", "prompt is too long"),
        )
        # The scenario waits for these files: the stub holds the 2nd, then the 4th model request.
        flags = [state / "hanging-2", state / "hanging-4"]

        def flag_when_hanging() -> None:
            for count, flag in zip((2, 4), flags, strict=True):
                if not stub.wait_for_requests(count, timeout=60):
                    return
                flag.touch()

        threading.Thread(target=flag_when_hanging, daemon=True).start()
        extra = {"hanging_flags": [str(f) for f in flags]}
        run = run_scenario("chat_cancel", workspace, state, settings=SETTINGS, env=chat_env(stub), extra=extra)
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    assert run.results["cancelled"]["data"]["cancelled"] is True
    after_cancel = run.results["lines_after_cancel"]
    assert after_cancel[-3:] == ["  `[cancelled]`", "", "> "], after_cancel
    second = run.results["second"]["data"]
    assert second.get("error") is None and second["result"]["stopReason"] == "end_turn"
    lines = run.results["lines"]
    assert "You: Say something short" in lines
    assert "Claude: Here is the short answer." in lines
    # No "still answering" refusal, no error shown for a cancel the user asked for.
    assert run.results["warnings"] == []
    # The server died mid-turn: the turn ended with an error line; the next message got a new server.
    third = run.results["third"]["data"]
    assert "server stopped" in third["error"]
    assert "  ! the server stopped; the turn was not finished" in lines
    fourth = run.results["fourth"]["data"]
    assert fourth.get("error") is None and fourth["result"]["stopReason"] == "end_turn"
    assert run.results["new_client"] != run.results["old_client"]
    assert "Claude: Yes, on a new server." in lines
    # An API failure ends the turn as failed, the reason shown once, nothing left running.
    fifth = run.results["fifth"]["data"]
    assert fifth["result"]["stopReason"] == "error" and run.results["turns_left"] == 0
    assert lines[-3].startswith("  `[failed · ") and lines[-2:] == ["", "> "], lines[-4:]
    assert sum("prompt is too long" in line for line in lines) == 1, lines


# ---- agent edits and open buffers ----


def test_agent_edits_reload_clean_buffers_and_never_overwrite_unsaved_changes(tmp_path: Path) -> None:
    from tests.support.messages_api_stub import MessagesApiStub, StubResponse, reply

    def calls(*calls: tuple[str, dict[str, Any]]) -> StubResponse:
        blocks = [
            {"type": "tool_use", "id": f"toolu_{i}_{name}", "name": name, "input": args}
            for i, (name, args) in enumerate(calls)
        ]
        return StubResponse(content=blocks, stop_reason="tool_use")

    def edit(path: str, old: str, new: str) -> tuple[str, dict[str, Any]]:
        return ("edit_file", {"file_path": path, "old_string": old, "new_string": new})

    workspace, state = workspace_in(tmp_path)
    with MessagesApiStub() as stub:
        stub.push(
            calls(*[("read_file", {"file_path": f"{n}.py"}) for n in "abcd"]),
            calls(
                edit("a.py", "return 1", "return 10"),
                edit("b.py", "return 2", "return 20"),
                ("write_file", {"file_path": "c.py", "content": "# rewritten by the agent\n"}),
            ),
            reply("Updated all three."),
        )
        run = run_scenario("edits", workspace, state, settings=SETTINGS, env=chat_env(stub))
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    r = run.results
    assert r["done"]["data"].get("error") is None
    assert [(s["path"].rsplit("/", 1)[-1], s["outcome"]) for s in r["syncs"]] == [
        ("a.py", "reloaded"),
        ("b.py", "merged"),
        ("c.py", "diverged"),
    ]
    # Clean buffer: reloaded, shows the agent's edit, not modified; :w keeps the edit.
    assert r["a"]["lines"] == ["def a():", "    return 10"] and r["a"]["modified"] is False
    assert r["a_after_write"] == "def a():\n    return 10\n"
    # Modified buffer, edit_file: the user's unsaved line stays and the agent's edit is in the buffer too; the
    # disk has the agent's edit only until :w, which then saves both (no "changed since reading" prompt).
    assert r["b"]["lines"] == ["# my unsaved note", "def b():", "    return 20"] and r["b"]["modified"] is True
    assert r["b"]["disk"] == "def b():\n    return 20\n"
    assert r["b_after_write"] == "# my unsaved note\ndef b():\n    return 20\n"
    # Modified buffer, write_file: the buffer keeps the user's text; the user is told how to choose.
    assert r["c"]["lines"] == ["# my unsaved note", "def c():", "    return 3"] and r["c"]["modified"] is True
    assert r["c"]["disk"] == "# rewritten by the agent\n"
    warnings = [n["message"] for n in r["notifications"] if n["level"] == 3]
    assert any("c.py" in m and "unsaved changes" in m and ":e!" in m for m in warnings), warnings
    # The prompts for the modified buffers said so before the user answered.
    prompts = [p["prompt"] for p in r["prompts"]]
    assert len(prompts) == 3
    assert "unsaved" not in prompts[0] and all("unsaved changes" in p for p in prompts[1:]), prompts
    # d.py, read by the agent, changed outside Neovim: one notice. The agent's and Neovim's own writes: none.
    assert [p.rsplit("/", 1)[-1] for p in r["changed"]] == ["d.py"]
    assert any(m.startswith("compact-lsp: d.py changed on disk since the agent read it") for m in messages_of(run))


# ---- no server ----


def test_a_missing_server_is_one_clear_message_with_an_install_command(tmp_path: Path) -> None:
    workspace, state = workspace_in(tmp_path)
    # PATH without the virtualenv: only the checkout's .venv can provide the server.
    env = {"PATH": "/usr/bin:/bin"}
    run = run_scenario("missing", workspace, state, cmd=["compact-lsp-not-installed", "--stdio"], env=env)
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    r = run.results
    install = r["install_command"]
    assert install.startswith(":CompactInstall (or: cd ")
    assert install.endswith(" && python3 -m venv .venv && .venv/bin/pip install .)")
    expected = f"compact-lsp: server `compact-lsp-not-installed` not found. Install: {install}"
    assert [(n["message"], n["level"]) for n in r["on_open"]] == [(expected, 3)]  # one warning on open
    assert r["status"]["error"] == expected  # the command says the same, once
    assert f"  ! {expected.removeprefix('compact-lsp: ')}" in r["chat_lines"]  # the chat's own mark, no prefix
    assert r["clients"] == 0
    everything = "\n".join(n["message"] for n in r["notifications"]) + r["messages"]
    assert "Spawning" not in everything and "traceback" not in everything.lower()
    assert "compact-lsp: compact-lsp:" not in everything  # no doubled prefix
    # The default command: no compact-lsp on this PATH, so the checkout's .venv (what .ci/setup makes).
    assert r["default_cmd"] == [str(Path(PLUGIN_DIR).parents[1] / ".venv" / "bin" / "compact-lsp"), "--stdio"]


# ---- sessions ----


def test_the_chosen_session_is_current_after_a_restart_with_its_history(tmp_path: Path, corpus_dir: Path) -> None:
    workspace, state = workspace_in(tmp_path)
    settings = {**SETTINGS, "memory": {"userRoot": str(state / "user-memory")}}
    log = corpus_dir / "proj_Users-dain-workspace-claude-code-log-sample" / "71c9afe9-d9cc-4583-86b3-e62ba682b83a.jsonl"
    extra = {"phase": "first", "import": str(log)}
    first = run_scenario("sessions", workspace, state, settings=settings, extra=extra)
    assert first.returncode == 0 and "error" not in first.results, first.explain()
    r = first.results
    login, notes, imported = (r["sessions"][k] for k in ("login", "notes", "imported"))
    # <Tab> completes every session of the workspace, not only those this Neovim has seen
    assert {login, notes, imported} <= set(r["completion"])
    # the picker shows titles, where each came from and its size; the current one (the import) marked
    (picker,) = r["prompts"]
    items = {item.rsplit("  ", 1)[-1]: item for item in picker["items"]}
    assert items[login].startswith("Fix the login form  api · 8 messages · ")
    assert items[notes].startswith("Write the release notes  api · ")
    assert "  import · " in items[imported] and "[current]" in items[imported]
    assert [i for i in picker["items"] if "[current]" in i] == [items[imported]]
    assert r["select"]["result"]["sessionId"] == login
    used = r["chosen_usage"]
    assert r["statusline_after_select"].startswith(f"{k_tokens(used['total'])}/200k ")
    assert r["micro"]["result"]["cleared"]  # :Compact micro acted on the chosen session
    # :Compact rename renamed the chosen session; a 201-character title was refused and changed nothing
    assert r["rename"]["result"] == {"sessionId": login, "title": "Login form, fixed"}
    assert "compact-lsp: session renamed: Login form, fixed" in messages_of(first)
    assert "at most 200" in r["rename_too_long"]["error"]
    assert r["titles_after_rename"][login] == "Login form, fixed"
    assert r["titles_after_rename"][notes] == "Write the release notes"

    extra = {"phase": "second", "imported": imported}
    second = run_scenario("sessions", workspace, state, settings=settings, extra=extra)
    assert second.returncode == 0 and "error" not in second.results, second.explain()
    s = second.results
    assert s["session"] == login
    assert s["titles"][login] == "Login form, fixed"  # the new title outlived the restart
    assert s["status"]["result"]["sessionId"] == login
    assert s["statusline"].startswith(k_tokens(s["status"]["result"]["usage"]["total"]) + "/200k ")
    assert s["chat_name"] == "compact-lsp://chat/Login form, fixed"  # named by the session's title
    lines = s["chat_lines"]
    assert lines[0] == "You: Fix the login form"
    assert "  ⚙ read_file `login1.py`" in lines
    assert "Claude: Done with login." in lines
    marker = next(line for line in lines if line.startswith("  ── cleared"))
    assert re.fullmatch(r"  ── cleared 2 old tool results: [\d.]+k? → [\d.]+k? tokens ──", marker), marker
    assert lines[-1] == "> "
    # the imported Claude Code session: completed by id, its conversation shown
    assert imported in s["completion"]
    assert s["imported_name"].startswith("compact-lsp://chat/") and imported not in s["imported_name"]
    shown = s["imported_lines"]
    assert any(line.startswith("You: ") for line in shown)
    assert any(line.startswith("Claude Code: ") for line in shown), shown  # an import: Claude Code's answers
    # Claude Code's terminal records as its user saw them (the server's transcript): the slash command as typed,
    # the shell command a command row, not their markup
    assert "You: /clear" in shown and "  ⚙ Bash `uv run pytest test/test_project_display_name.py`" in shown
    assert not any("<command-name>" in line or "<bash-input>" in line or "Caveat: " in line for line in shown)
    assert s["new_chat_lines"] == ["> "]  # :CompactChat! is a new, empty chat


def test_cancelling_a_full_compaction_is_information_not_an_error(tmp_path: Path) -> None:
    from tests.support.messages_api_stub import MessagesApiStub, hang

    workspace, state = workspace_in(tmp_path)
    with MessagesApiStub() as stub:
        stub.default = hang()
        run = run_scenario(
            "cancel_full", workspace, state, settings={**SETTINGS, "baseUrl": stub.base_url}, env=chat_env(stub)
        )
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    r = run.results
    assert r["full"].get("error") is None and r["full"]["result"]["cancelled"] is True
    assert r["total_after"] == r["total_before"]  # nothing changed
    assert [n["level"] for n in r["notifications"] if n["level"] >= 3] == []
    assert "compact-lsp: The compaction was cancelled; nothing changed" in messages_of(run)


def test_invalid_settings_cost_only_their_own_keys_and_are_reported_once(tmp_path: Path) -> None:
    workspace, state = workspace_in(tmp_path)
    settings = {**SETTINGS, "contextWindow": 150_000, "microcompact": {"keepRecent": "all"}}
    change = {"contextWindow": 120_000, "sessionDir": 5, "autoCompact": {"threshold": "lots"}}
    run = run_scenario("settings", workspace, state, settings=settings, extra={"change": change})
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    assert run.results["window_at_start"] == 150_000  # the bad keepRecent did not reset the window
    assert run.results["window_after_change"] == 120_000  # nor did the bad sessionDir and threshold
    warnings = [line for line in run.stderr.splitlines() if "ignored invalid settings" in line]
    # one at start (not repeated when Neovim sends the same settings right after initialize), one for the change,
    # which lists keepRecent again: the settings Neovim sends still hold it
    assert len(warnings) == 2, run.stderr
    assert 'microcompact.keepRecent: expected an integer, got "all"' in warnings[0]
    assert "sessionDir" not in warnings[0]
    assert "sessionDir: expected a non-empty string, got 5" in warnings[1] and "autoCompact.threshold" in warnings[1]
    # sessionDir kept its value: the session made after the change is stored where the user put the sessions
    assert list((state / "sessions").rglob(f"{run.results['second_session']}*"))


# ---- installing the server: tests/editors/test_nvim_lazy.py (the real lazy.nvim) ----


# ---- Claude Code beside the editor ----


def test_claude_code_sessions_are_listed_read_only_and_the_hook_command_edits_its_settings(tmp_path: Path) -> None:
    workspace, state = workspace_in(tmp_path)
    home = tmp_path / "home"
    projects = tmp_path / "claude-projects"
    watched = Path(project_directory(str(projects), str(workspace.resolve())))
    watched.mkdir(parents=True)
    shutil.copy(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e"), watched)
    settings = {
        **SETTINGS,
        "memory": {"userRoot": str(state / "user-memory")},
        "claudeCode": {"projectsDir": str(projects)},
    }
    run = run_scenario("claude_code", workspace, state, settings=settings, env={"HOME": str(home)})
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    r = run.results
    followed = r["followed"]["sessionId"]
    assert r["followed"]["readOnly"] is True and followed in r["completion"]
    picked = next(p for p in r["prompts"] if p["kind"] == "compact_lsp_session")["items"]
    line = next(item for item in picked if followed in item)
    assert "Claude Code" in line and "[read-only]" in line
    assert r["current"] == followed and r["statusline"] != ""
    messages = [n["message"] for n in r["notifications"]]
    assert any("(Claude Code's, read-only: :Compact import continues it)" in m for m in messages), messages

    assert r["hook_completion"] == ["project", "user", "uninstall"]
    project_settings = workspace / ".claude" / "settings.local.json"
    assert r["install"]["result"]["changed"] is True and r["install"]["result"]["path"] == str(project_settings)
    assert r["again"]["result"]["changed"] is False
    assert r["user"]["result"]["path"] == str(home / ".claude" / "settings.json")
    assert r["uninstall"]["result"]["changed"] is True
    assert not project_settings.exists()  # install made the file; uninstall leaves the project as it found it
    assert any(m.startswith("compact-lsp: installed the compact-lsp hook in") for m in messages)
    assert "settings.json is not valid JSON" in r["broken"]["error"]
    assert (home / ".claude" / "settings.json").read_text() == "{broken"
    assert "unknown argument everywhere" in r["bad_word"]["error"]


def test_codex_sessions_are_listed_read_only_and_the_hook_command_edits_its_config(tmp_path: Path) -> None:
    workspace, state = workspace_in(tmp_path)
    codex_home = tmp_path / "home" / ".codex"
    day = codex_home / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    thread = "01a232fc-ebd3-72c1-961a-c644447bb6bf"
    records = [
        {"type": "session_meta", "payload": {"id": thread, "cwd": str(workspace.resolve()), "model": "gpt-5.5"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "explain main.py"}]}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text", "text": "It prints hello."}]}},
    ]  # fmt: skip
    (day / f"rollout-2026-12-01T19-02-45-{thread}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (codex_home / "config.toml").write_text('model = "gpt-5.5"\n')
    settings = {**SETTINGS, "memory": {"userRoot": str(state / "user-memory")}, "codex": {"home": str(codex_home)}}
    run = run_scenario("codex", workspace, state, settings=settings, env={"HOME": str(tmp_path / "home")})
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    r = run.results
    assert r["followed"]["sessionId"] == f"codex-{thread}" and r["followed"]["readOnly"] is True
    assert r["followed"]["title"] == "explain main.py"
    picked = next(p for p in r["prompts"] if p["kind"] == "compact_lsp_session")["items"]
    line = next(item for item in picked if "explain main.py" in item)
    assert "Codex" in line and "[read-only]" in line
    assert r["hook_completion"] == ["project", "user", "uninstall"]
    assert r["user"]["result"]["changed"] is True and r["user"]["result"]["path"] == str(codex_home / "config.toml")
    assert r["again"]["result"]["changed"] is False
    assert r["uninstall"]["result"]["changed"] is True
    assert (codex_home / "config.toml").read_text() == 'model = "gpt-5.5"\n'
    messages = [n["message"] for n in r["notifications"]]
    assert any("/hooks" in m for m in messages)  # told to trust the hook in Codex
