"""The Neovim plugin in real headless Neovim 0.11, against the real server over stdio.

Each scenario (``nvim_support/scenarios/*.lua``) drives Neovim like a user would (``:Compact ...``, the status
line, ``:checkhealth``), waits on events rather than time, and writes what it saw to JSON; the tests below
assert on that. One Neovim run serves all the tests of a scenario.
"""

from __future__ import annotations

import re
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from tests.editors.nvim_support.runner import (
    PLUGIN_DIR,
    NvimRun,
    nvim_executable,
    run_scenario,
    server_command,
)

pytestmark = pytest.mark.skipif(nvim_executable() is None, reason="Neovim is not installed")

CLEARED = "[Old tool result content cleared]"

# Small figures so that a few reads reach the warning level (threshold 30k: warning from 10k) and one
# forced microcompaction brings the context back to ok.
SETTINGS: dict[str, Any] = {
    "autoCompact": {"enabled": False, "threshold": 30000},
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
    assert any(line.startswith("█") and line.endswith("░") for line in lines)  # the bar, window-scaled
    assert any(f"■ tool results {k_tokens(usage['byKind']['toolResult'])}" in line for line in lines), lines
    # Only the most recent read is still in the conversation; the other five were cleared, so the biggest item
    # (exact counts from the server) is that read.
    biggest = section(lines, "Biggest items")
    assert "toolResult" in biggest[0] and biggest[0].endswith("src/mod6.py"), biggest
    cleared = section(lines, "Cleared results")
    assert sorted(line.split()[-1] for line in cleared) == [f"src/mod{i}.py" for i in range(1, 6)]
    read = section(lines, "Read files")
    assert len(read) == 6 and all(line.split()[0] == "fresh" for line in read)
    assert any(line.endswith("src/mod1.py  (open)") for line in read), read  # the buffer Neovim has open


def test_files_float_previews_rehydration_within_the_budget(commands: NvimRun) -> None:
    preview = commands.results["files"]["result"]
    float_ = commands.results["files_float"]
    assert float_["floating"] is True
    text = "\n".join(float_["lines"])
    included = [c for c in preview["candidates"] if c["included"]]
    assert f"{len(included)} of {len(preview['candidates'])} files" in text
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


def test_undo_restores_and_a_second_undo_is_an_error_the_user_sees(commands: NvimRun) -> None:
    undo = commands.results["undo"]
    assert undo["result"]["restored"] is True
    assert undo["result"]["tokensAfter"] == commands.results["full"]["result"]["tokensBefore"]
    restored = text_of(commands.results["messages_after_undo"])
    assert "Read the modules and tell me what they do." in restored
    assert "keep the handler names" not in restored
    again = commands.results["undo_again"]
    assert "result" not in again and again["error"]
    errors = [n for n in commands.results["notifications"] if n["level"] == 4]
    assert any(again["error"] in n["message"] for n in errors)


def test_completion_offers_subcommands(commands: NvimRun) -> None:
    expected = ["cancel", "files", "full", "micro", "session", "status", "undo"]
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


@pytest.mark.parametrize(
    ("answer", "written"),
    [pytest.param("Allow once", True, id="allowed"), pytest.param("Deny", False, id="denied")],
)
def test_chat_turn_with_a_permission_prompt_answered_in_neovim(tmp_path: Path, answer: str, written: bool) -> None:
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
            env={"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": stub.base_url},
            extra={"text": "Please write notes.md", "answer": answer},
        )
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    # With no file open, the chat's prompt buffer started the server and is attached to it.
    assert run.results["buftype"] == "prompt" and run.results["buf_attached"] is True
    assert run.results["buf_name"].startswith("compact-lsp://chat/ses_")
    if "chat_unavailable" in run.results:
        pytest.skip(f"the server has no compact/chat yet: {run.results['chat_unavailable']}")
    assert run.results["done"]["data"].get("error") is None
    assert [p["items"] for p in run.results["prompts"]] == [["Allow once", "Allow for this session", "Deny"]]
    assert (workspace / "notes.md").exists() is written
    transcript = "\n".join(run.results["lines"])
    assert "You: Please write notes.md" in transcript
    assert "Claude: Writing." in transcript
    assert "⚙ write_file notes.md" in transcript
    assert f"→ {answer}" in transcript
    assert "Finished with the notes." in transcript
    assert run.results["statusline"] != ""


# ---- automatic compaction ----


def test_automatic_compaction_is_announced(tmp_path: Path) -> None:
    workspace, state = workspace_in(tmp_path)
    settings = {"autoCompact": {"enabled": True, "threshold": 5000}}
    run = run_scenario("auto", workspace, state, settings=settings)
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    compacted = run.results["compacted"]["data"]
    assert (compacted["kind"], compacted["trigger"]) == ("full", "auto")
    expected = f"compact-lsp: compacted the conversation (auto): {k_tokens(compacted['tokensBefore'])} → "
    assert any(m.startswith(expected) for m in messages_of(run)), messages_of(run)


# ---- help ----

HELP_TOPICS = [
    "compact_lsp.txt",
    ":Compact",
    ":Compact-full",
    ":Compact-status",
    ":CompactChat",
    "compact_lsp.statusline()",
    "compact_lsp-events",
    "hl-CompactLspWarning",
    "compact_lsp.Options",
]


def test_help_tags_build_and_topics_open(tmp_path: Path) -> None:
    # helptags writes a tags file: build it on a copy, not in the repository.
    doc = tmp_path / "rtp" / "doc"
    shutil.copytree(PLUGIN_DIR / "doc", doc)
    workspace, state = workspace_in(tmp_path)
    extra = {"doc_dir": str(doc), "topics": HELP_TOPICS}
    run = run_scenario("help", workspace, state, cmd=server_command(), extra=extra)
    assert run.returncode == 0 and "error" not in run.results, run.explain()
    assert run.results["helptags_error"] == ""
    for topic, line in run.results["opened"].items():
        assert f"*{topic}*" in line, (topic, line)  # the cursor is on the topic's tag
