"""A Codex session beside Neovim, as its user meets it: real Neovim's TUI in tmux, the real server, a loopback
Messages API, and a rollout in the shapes the real Codex CLI writes (tests/codex/ runs the CLI itself). The
session is Codex's in every word (never Claude Code's), every change is refused in those words, and Import to
continue makes the user's own copy, writable at once, listed once beside Codex's. A Qwen Code session's chat, from
the transcript the real Qwen Code wrote in its TUI, shows each /compress where it was typed. Every assertion reads
the screen.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.editors.nvim_support.runner import PLUGIN_DIR, SERVER_SRC, SUPPORT_DIR, nvim_executable
from tests.editors.nvim_support.tui import Screen, clean_home_env, tmux_executable
from tests.editors.test_nvim_chat import no_prompt
from tests.support.messages_api_stub import MessagesApiStub, reply

pytestmark = [
    pytest.mark.skipif(nvim_executable() is None, reason="Neovim is not installed"),
    pytest.mark.skipif(tmux_executable() is None, reason="tmux is not installed"),
    pytest.mark.timeout(300),
]

THREAD = "01a24915-0369-7163-81ea-9e0d2d33ba44"
SKILLS = "<skills_instructions>\n## Skills\nA skill is a set of local instructions.\n</skills_instructions>"


def item(payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-12-06T02:00:43.671Z", "type": "response_item", "payload": payload}


def text(role: str, words: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return item({"type": "message", "role": role, "content": [{"type": kind, "text": words}]})


def rollout(workspace: Path) -> list[dict[str, Any]]:
    """One Codex turn as Codex 0.171.0 writes it: its skills text (developer), its environment context, the user's
    request, an ``exec_command`` call with its output, the answer and the usage it reported."""
    cwd = str(workspace.resolve())
    arguments = json.dumps({"cmd": "cat main.py", "yield_time_ms": 2000})
    output = "Chunk ID: 2e991e\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\ndef greet():\n"
    usage = {"input_tokens": 9_000, "cached_input_tokens": 0, "output_tokens": 20, "total_tokens": 9_020}
    return [
        {"type": "session_meta", "payload": {"id": THREAD, "cwd": cwd, "cli_version": "0.171.0"}},
        text("developer", SKILLS),
        text("user", f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>"),
        text("user", "explain main.py"),
        item({"type": "function_call", "name": "exec_command", "arguments": arguments, "call_id": "call_1"}),
        item({"type": "function_call_output", "call_id": "call_1", "output": output}),
        text("assistant", "It defines greet(), which prints hello."),
        {"type": "event_msg", "payload": {"type": "token_count", "info": {
            "last_token_usage": usage, "model_context_window": 258_400}}},
    ]  # fmt: skip


HANDOFF = (
    "Another language model started to solve this problem and produced a summary of its thinking process. You "
    "also have access to the state of the tools that were used by that language model. Use this to build on the "
    "work that has already been done and avoid duplicating work. Here is the summary produced by the other "
    "language model, use the information in this summary to assist with your own analysis:\n"
    "Summary: greet() prints hello."
)


def compacted(workspace: Path) -> list[dict[str, Any]]:
    """The turn above, then Codex's own compaction (what it kept, its handoff) and the next turn, after which our
    hook's files arrived as a developer item."""
    env = f"<environment_context>\n  <cwd>{workspace.resolve()}</cwd>\n</environment_context>"
    kept = [
        {"type": "message", "role": r, "content": [{"type": "input_text", "text": t}]}
        for r, t in (("developer", SKILLS), ("user", env), ("user", "explain main.py"), ("user", HANDOFF))
    ]
    return [
        *rollout(workspace),
        {"type": "compacted", "payload": {"message": HANDOFF, "replacement_history": kept}},
        text("developer", "compact-lsp: files Codex's compaction dropped, re-read from disk just now (current "
                          "content). Use them instead of reading them again.\n\n<file path=\"main.py\">\n</file>"),
        text("user", "now say goodbye too"),
        text("assistant", "Added goodbye()."),
    ]  # fmt: skip


class CodexUser:
    """A project, Codex's home with one session of it, Neovim's and the server's state."""

    def __init__(self, root: Path, stub: MessagesApiStub, records: Any = rollout, *, installed: bool = True) -> None:
        self.root = root
        self.project = root / "project"
        (self.project / ".git").mkdir(parents=True)
        (self.project / "main.py").write_text('def greet():\n    print("hello")\n')
        self.codex_home = root / "home" / ".codex"
        (root / "home").mkdir()
        self.records = records
        self.state = root / "state"
        self.stub = stub
        self.more_settings: dict[str, Any] = {}
        if installed:
            self.codex_runs()

    def codex_runs(self) -> None:
        """Codex's session of the project, written where Codex writes it (every missing folder made at once)."""
        day = self.codex_home / "sessions" / "2026" / "12" / "06"
        day.mkdir(parents=True, exist_ok=True)
        lines = "".join(json.dumps(r) + "\n" for r in self.records(self.project))
        (day / f"rollout-2026-12-06T02-00-43-{THREAD}.jsonl").write_text(lines)

    def start(self, *files: str) -> Screen:
        nvim = nvim_executable()
        assert nvim is not None
        settings = {
            "sessionDir": str(self.state / "sessions"),
            "autoCompact": {"enabled": False},
            "sessionMemory": {"enabled": False},
            "memory": {"userRoot": str(self.state / "user-memory")},
            "claudeCode": {"follow": False},
            "codex": {"home": str(self.codex_home)},
            **self.more_settings,
        }
        config = {
            "plugin_dir": str(PLUGIN_DIR),
            "cmd": [sys.executable, "-m", "compact_lsp", "--stdio", "--log-file", str(self.state / "server.log")],
            "settings": settings,
        }
        env = clean_home_env(
            self.root / "home",
            {
                "COMPACT_TUI_CONFIG": json.dumps(config),
                "PYTHONPATH": str(SERVER_SRC),
                "XDG_STATE_HOME": str(self.state / "nvim-state"),
                "XDG_DATA_HOME": str(self.state / "nvim-data"),
                "ANTHROPIC_API_KEY": "test-key",
                "ANTHROPIC_BASE_URL": self.stub.base_url,
            },
        )
        return Screen([nvim, "-u", str(SUPPORT_DIR / "tui" / "init.lua"), *files], cwd=self.project, env=env)


def select(screen: Screen, session_id: str) -> str:
    """:Compact session <id>, asked again until the server has read the followed rollout (a moment after start)."""
    for _ in range(60):
        screen.command("Compact session " + session_id)
        try:
            return screen.wait_for("current session: ", timeout=1)
        except AssertionError:
            screen.keys("Enter")
    raise AssertionError(f"{session_id} never became known")


def open_chat(screen: Screen, session_id: str, last: str) -> tuple[str, list[str], list[int]]:
    """The followed session's chat as Neovim draws it once ``last`` shows: the screen, the chat column's lines, and
    the lines where the agent's compaction markers start."""
    screen.wait_for("main.py")
    select(screen, session_id)
    screen.command("CompactChat")
    shown = screen.wait_for(last)
    lines = [line.split("│")[-1].strip() for line in shown.splitlines()]
    return (
        shown,
        lines,
        [i for i, line in enumerate(lines) if line.startswith("── conversation compacted by the agent")],
    )


def test_a_codex_session_is_codexs_refuses_changes_and_imports_as_a_writable_copy(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        stub.push(reply("Continuing from Codex's work."))
        user = CodexUser(tmp_path, stub)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            shown = select(screen, "codex-" + THREAD)
            shown = screen.wait_for("(Codex's, read-only: :Compact import continues it)")
            assert "Claude Code" not in shown, shown

            screen.command("CompactChat")
            shown = screen.wait_for("Codex's, read-only · :Compact import continues it")
            shown = screen.wait_for("Codex: It defines greet(), which prints hello.")
            assert "Claude Code" not in shown and "Claude:" not in shown, shown
            # as Codex's user saw it: the request, the command and its output; none of Codex's plumbing
            assert "You: explain main.py" in shown and "⚙ exec_command cat main.py" in shown, shown
            assert "↳ def greet():" in shown and shown.count("You: explain main.py") == 1, shown
            for plumbing in ("environment_context", "skills_instructions", "Chunk ID", '"cmd"', "yield_time_ms"):
                assert plumbing not in shown, shown
            screen.keys("i")
            shown = screen.wait_for("read-only: Codex owns this session. :Compact import continues it here")
            assert "-- INSERT --" not in shown, shown

            # every change is refused in Codex's words, with the way forward, once, without a prompt
            for change in ("Compact micro", "Compact full"):
                screen.command(change)
                shown = screen.wait_for("read-only: Codex owns this session. :Compact import continues it here")
                assert "another editor" not in shown and "Claude Code" not in shown, shown
                assert "OwnedByCodex" not in shown and "compact/" not in shown, shown
                no_prompt(shown)
                screen.command("echo ''")

            screen.command("Compact import")
            shown = screen.wait_for("compact-lsp: your own copy, now current: explain main.py")
            shown = screen.wait_for(lambda s: "read-only" not in s.split("\n", 1)[-1])
            no_prompt(shown)
            # the copy's earlier answers are still Codex's; what our agent answers from now on is ours
            assert "Codex: It defines greet(), which prints hello." in shown, shown
            assert "Claude: It defines greet()" not in shown, shown
            assert [line for line in shown.splitlines() if line.split("│")[-1].strip() == ">"], shown  # a prompt
            screen.keys("i", "What next?", "Enter")
            shown = screen.wait_for("Claude: Continuing from Codex's work.")
            assert "You: What next?" in shown and "Codex: It defines greet()" in shown, shown
            screen.keys("Escape")

            # the copy is the user's own (its own id), listed once beside Codex's session, which stays Codex's
            screen.command("Compact session")  # the picker, as the user opens it
            shown = screen.wait_for("compact-lsp session")
            shown = screen.wait_for(lambda s: "cx-" + THREAD in s)
            rows = [line for line in shown.splitlines() if THREAD in line]
            assert len(rows) == 2, shown
            followed = [row for row in rows if "codex-" + THREAD in row]
            copy = [row for row in rows if "cx-" + THREAD in row]
            assert len(followed) == 1 and "[read-only]" in followed[0] and "Codex" in followed[0], rows
            assert len(copy) == 1 and "[read-only]" not in copy[0] and "[current]" in copy[0], rows
            screen.keys("Escape")
            screen.command("qa!")


def test_codexs_own_compaction_is_a_marker_not_the_users_words(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        user = CodexUser(tmp_path, stub, compacted)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            select(screen, "codex-" + THREAD)
            screen.command("CompactChat")
            shown = screen.wait_for("Codex: Added goodbye().")
            lines = [line.split("│")[-1].strip() for line in shown.splitlines()]
            # the whole turn before Codex's compaction (as it happened, not what Codex kept), the marker where it
            # fell (the rollout has no usage records: no figures, none made up), the next turn; no handoff, no hook
            assert lines.index("You: explain main.py") < lines.index("⚙ exec_command cat main.py"), lines
            at = lines.index("Codex: It defines greet(), which prints hello.")
            assert lines[at + 1].startswith("── conversation compacted by the agent (its own summary)"), lines
            assert lines.index("You: now say goodbye too") in (at + 2, at + 3), lines  # the marker may wrap
            assert "Another language model" not in shown and "compact-lsp: files" not in shown, shown
            no_prompt(shown)
            screen.command("qa!")


REAL_ROLLOUT = Path(__file__).parent.parent / "fixtures" / "codex" / "rollout-two-compactions.jsonl"
"""What the real Codex 0.171.0 wrote with our hook: four reads, two automatic compactions in one turn, the answer."""


def real_two_compactions(workspace: Path) -> list[dict[str, Any]]:
    real = REAL_ROLLOUT.read_text().replace("/work/proj", str(workspace.resolve()))
    return [json.loads(line) for line in real.splitlines()]


def test_the_chat_of_codexs_real_session_keeps_every_read_with_both_compactions_and_their_figures(
    tmp_path: Path,
) -> None:
    with MessagesApiStub() as stub:
        user = CodexUser(tmp_path, stub, real_two_compactions)
        with user.start("main.py") as screen:
            shown, lines, marks = open_chat(screen, "codex-" + THREAD, "Codex: All done.")
            reads = [lines.index(f"⚙ exec_command cat {name}.py") for name in ("first_a", "first_b", "second_a")]
            assert len(marks) == 2 and reads[1] < marks[0] < reads[2] < marks[1], lines
            first, second = (" ".join(lines[at : at + 2]) for at in marks)  # a marker may wrap
            assert first.startswith("── conversation compacted by the agent automatically: 90k → 4k tokens"), lines
            assert second.startswith("── conversation compacted by the agent automatically: 90k → 3k tokens"), lines
            assert "Another language model" not in shown and "You: Summary" not in shown, shown
            no_prompt(shown)

            # the copy holds what the model held, from Codex's last summary: its marker has that one's figures
            screen.command("Compact import")
            screen.wait_for("compact-lsp: your own copy, now current: ")
            shown = screen.wait_for(lambda s: "read-only" not in s and "conversation compacted by the agent" in s)
            lines = [line.split("│")[-1].strip() for line in shown.splitlines()]
            [mark] = [i for i, line in enumerate(lines) if line.startswith("── conversation compacted by the agent")]
            marker = " ".join(lines[mark : mark + 2])
            assert marker.startswith("── conversation compacted by the agent automatically: 90k → 3k tokens"), lines
            no_prompt(shown)
            screen.command("qa!")


def test_codex_installed_after_neovim_started_is_followed_without_a_restart(tmp_path: Path) -> None:
    """No ~/.codex when Neovim opened the project; Codex's first run makes it, its sessions folder and today's
    folder at once: the session is listed and opens as Codex's, with no restart."""
    with MessagesApiStub() as stub:
        user = CodexUser(tmp_path, stub, installed=False)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            screen.command("Compact session codex-" + THREAD)
            screen.wait_for("unknown session")  # not there yet
            user.codex_runs()
            select(screen, "codex-" + THREAD)
            shown = screen.wait_for("(Codex's, read-only: :Compact import continues it)")
            no_prompt(shown)
            screen.command("qa!")


QWEN_TUI = Path(__file__).parent.parent / "fixtures" / "qwen_code" / "tui-three-compress.jsonl"
"""What the real Qwen Code 0.24.4 wrote in its TUI: reads, /compress, reads, /compress, a turn, /compress, a turn."""
QWEN_SESSION = "157dc538-01e7-4e8a-873e-bbf40d9ccf0a"


def test_the_chat_of_qwens_real_session_shows_each_compress_where_it_was_typed(tmp_path: Path) -> None:
    from compact_lsp.agents.qwen_code.transcript import transcript_dir

    with MessagesApiStub() as stub:
        user = CodexUser(tmp_path, stub, installed=False)
        qwen = tmp_path / "home" / ".qwen"
        chats = Path(transcript_dir(str(user.project.resolve()), str(qwen)))
        chats.mkdir(parents=True)
        recorded = QWEN_TUI.read_text().replace("/tmp/followed-qwen-tui/test_in_the_tui_each_compress_0/proj",
                                                str(user.project.resolve()))  # fmt: skip
        (chats / f"{QWEN_SESSION}.jsonl").write_text(recorded)
        user.more_settings = {"qwenCode": {"home": str(qwen)}}
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            select(screen, "qwen-" + QWEN_SESSION)
            # chosen, the line says whose it is and what continues it, though the whole does not fit
            shown = screen.wait_for(lambda s: "compact-lsp: current session: " in s.splitlines()[-1])
            assert "(Qwen Code's, read-only: :Compact import continues it)" in shown.splitlines()[-1], shown
            shown, lines, marks = open_chat(screen, "qwen-" + QWEN_SESSION, "You are welcome.")
            # Qwen's shell commands as the user typed them; every code span concealed, none left in backticks (a
            # bare `$` opened Markdown's LaTeX up to the next one: the lines between kept their backticks)
            assert "⚙ $ cat notes.md" in lines and "⚙ $ sed -n '1,12p' docs/guide.md" in lines, lines
            assert "`" not in shown, shown
            typed = [i for i, line in enumerate(lines) if line.endswith("/compress")]
            assert len(typed) == 3 and len(marks) == 3, lines
            assert all(t < m for t, m in zip(typed, marks, strict=True)), lines  # as typed: before its marker
            first = " ".join(lines[marks[0] : marks[0] + 2])  # a marker may wrap
            assert first.startswith("── conversation compacted by the agent when asked: 20k → 16.9k tokens"), lines
            assert "review the handlers in big.py" in shown and "state_snapshot" not in shown, shown
            no_prompt(shown)
            screen.keys("i")  # refused in Qwen Code's words; the command that continues it whole, though cut
            shown = screen.wait_for("read-only: Qwen Code owns this session. :Compact import continues it")
            no_prompt(shown)
            screen.command("qa!")


GEMINI_TYPED = Path(__file__).parent.parent / "fixtures" / "gemini_cli" / "typed-compress.jsonl"
"""What the real Gemini CLI 0.61.0 wrote in its TUI: a read, the answer, the user's /compress (the file records no
row for the command), a turn."""


def test_the_chat_of_geminis_real_session_says_the_compress_was_asked_for_in_gemini_clis_words(
    tmp_path: Path,
) -> None:
    with MessagesApiStub() as stub:
        user = CodexUser(tmp_path, stub, installed=False)
        gemini = tmp_path / "home" / ".gemini"
        (gemini / "tmp" / "proj" / "chats").mkdir(parents=True)
        (gemini / "projects.json").write_text(json.dumps({"projects": {str(user.project.resolve()): "proj"}}))
        recorded = GEMINI_TYPED.read_text().replace("/tmp/followed-gcomp/run/proj", str(user.project.resolve()))
        (gemini / "tmp" / "proj" / "chats" / "session-2026-12-06T08-55-c0754914.jsonl").write_text(recorded)
        user.more_settings = {"geminiCli": {"home": str(gemini.parent)}}  # its home: the folder holding .gemini
        with user.start("main.py") as screen:
            shown, lines, marks = open_chat(screen, "gemini-2026-12-06T08-55-c0754914", "Gemini CLI: Answer 3.")
            # the whole conversation, Gemini's words, the marker where the user typed /compress, saying so
            assert lines.index("You: what do the notes say") < lines.index("⚙ read_file notes.md"), lines
            assert len(marks) == 1 and lines.index("Gemini CLI: The notes say 30 seconds.") == marks[0] - 1, lines
            marker = " ".join(lines[marks[0] : marks[0] + 2])  # a marker may wrap
            assert marker.startswith("── conversation compacted by the agent when asked: 8k → 6k tokens"), lines
            assert lines.index("You: and now") > marks[0], lines
            for other in ("Claude", "session_context", "state_snapshot", "Got it. Thanks"):
                assert other not in shown, shown
            screen.command("Compact micro")  # refused in Gemini CLI's words
            shown = screen.wait_for("read-only: Gemini CLI owns this session. :Compact import continues it")
            no_prompt(shown)
            screen.command("Compact timeline")
            shown = screen.wait_for("1 compaction by Gemini CLI")
            assert "compacted (manual): 8k → 6k tokens" in shown and "The user read notes.md." in shown, shown
            screen.keys("q")
            screen.command("qa!")
