"""The chat as a person meets it: real Neovim's TUI in tmux, the real server, a loopback Messages API, and a Claude
Code transcript beside the project. Every assertion reads the screen.

``COMPACT_SCREENSHOTS=DIR`` also draws the screens the README shows into DIR.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.agents.claude_code.transcripts import corpus_session
from tests.editors.nvim_support.runner import PLUGIN_DIR, SERVER_SRC, SUPPORT_DIR, nvim_executable
from tests.editors.nvim_support.tui import Screen, clean_home_env, tmux_executable
from tests.support.messages_api_stub import MessagesApiStub, reply

from compact_lsp.agents.claude_code.live import project_directory

pytestmark = [
    pytest.mark.skipif(nvim_executable() is None, reason="Neovim is not installed"),
    pytest.mark.skipif(tmux_executable() is None, reason="tmux is not installed"),
    pytest.mark.timeout(300),
]

FOLLOWED = "7acd37a8-2745-4b58-a8a9-46164b22ad9e"
PRESS_ENTER = "Press ENTER"


def shot(screen: Screen, name: str) -> None:
    where = os.environ.get("COMPACT_SCREENSHOTS")
    if where:
        screen.png(Path(where) / name)


class User:
    """One user's machine: a project, Claude Code working in it, the state of Neovim and the server."""

    def __init__(self, root: Path, stub: MessagesApiStub) -> None:
        self.root = root
        self.project = root / "project"
        (self.project / ".git").mkdir(parents=True)
        (self.project / "main.py").write_text('def greet():\n    print("hello")\n')
        projects = root / "claude-projects"
        watched = Path(project_directory(str(projects), str(self.project.resolve())))
        watched.mkdir(parents=True)
        shutil.copy(corpus_session(FOLLOWED), watched)
        self.state = root / "state"
        self.settings: dict[str, Any] = {
            "sessionDir": str(self.state / "sessions"),
            "autoCompact": {"enabled": False},
            "sessionMemory": {"enabled": False},
            "memory": {"userRoot": str(self.state / "user-memory")},
            "claudeCode": {"projectsDir": str(projects)},
        }
        self.stub = stub

    def start(
        self, *files: str, keymaps: Any = None, cmd: list[str] | None = None, api_key: str | None = "test-key"
    ) -> Screen:
        """Neovim in tmux on ``files``; ``cmd``: the server command given to setup() instead of the real one;
        ``api_key=None``: no ANTHROPIC_API_KEY in Neovim's environment."""
        nvim = nvim_executable()
        assert nvim is not None
        config: dict[str, Any] = {
            "plugin_dir": str(PLUGIN_DIR),
            "cmd": cmd
            or [sys.executable, "-m", "compact_lsp", "--stdio", "--log-file", str(self.state / "server.log")],
            "settings": self.settings,
        }
        if keymaps is not None:
            config["keymaps"] = keymaps
        env = clean_home_env(
            self.root / "home",
            {
                "COMPACT_TUI_CONFIG": json.dumps(config),
                "PYTHONPATH": str(SERVER_SRC),
                "XDG_STATE_HOME": str(self.state / "nvim-state"),
                "XDG_DATA_HOME": str(self.state / "nvim-data"),
                "ANTHROPIC_BASE_URL": self.stub.base_url,
                **({"ANTHROPIC_API_KEY": api_key} if api_key is not None else {}),
            },
        )
        init = SUPPORT_DIR / "tui" / "init.lua"
        return Screen([nvim, "-u", str(init), *files], cwd=self.project, env=env)


def window_status(screen: str, name: str) -> str:
    """The status line (on screen) of the window whose file name starts with ``name`` (up to the next window's)."""
    line = next(line for line in screen.splitlines() if name in line)
    return line[line.index(name) :]


def no_prompt(shown: str) -> None:
    assert PRESS_ENTER not in shown, shown


def test_the_chat_renders_markdown_has_its_keys_and_sends_a_selection(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        stub.push(
            reply("Use **bold words** and `greet()` here."),
            reply("It prints a **greeting**."),
            reply("Still here, after the restart."),
        )
        user = User(tmp_path, stub)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            screen.command("CompactChat Explain the greeting")
            shown = screen.wait_for("done · ")  # the turn's end mark (its brackets hidden as markdown hides them)
            # markdown as markdown: no ** or backticks on screen, the words are
            assert "Claude: Use bold words and greet() here." in shown, shown
            assert "**" not in shown and "`" not in shown, shown
            assert "You: Explain the greeting" in shown
            # the buffer is named by the session's title; its window's status line shows that session
            mark = re.search(r"done · ([\d.]+k?)/200k tokens \(([\d.]+)%\) in context", shown)
            assert mark, shown
            chat_status = window_status(shown, "compact-lsp://chat/Explain the greeting")
            assert chat_status.rstrip().endswith(f"{mark.group(1)}/200k {mark.group(2)}%"), chat_status
            shot(screen, "nvim-chat.png")

            # ? shows the keys and commands; q closes the float, then [[ jumps to your message
            screen.keys("Escape", "?")
            help_ = screen.wait_for("Keys (Normal mode")
            assert "q      Close the chat window" in help_ and "[[     Previous message of yours" in help_, help_
            assert ":CompactSend [question]" in help_ and ":Compact import" in help_
            screen.keys("q")
            screen.wait_for(lambda s: "Keys (Normal mode" not in s)
            screen.keys("G", "[", "[")
            screen.command("echo 'at:' getline('.')")
            screen.wait_for("at: You: Explain the greeting")

            # :CompactSend from a Visual selection of main.py
            screen.keys("C-w", "h")
            screen.command("edit main.py")
            screen.keys("g", "g", "V", "j")
            screen.keys(":CompactSend What does it do?", "Enter")
            shown = screen.wait_for("It prints a greeting.")
            assert "You: What does it do?" in shown and 'print("hello")' in shown, shown
            assert "`main.py` lines 1-2:" in shown or "main.py lines 1-2:" in shown, shown
            no_prompt(shown)

            # q closes the chat window
            screen.command("wincmd l")
            screen.keys("q")
            shown = screen.wait_for(lambda s: "compact-lsp://chat/" not in s)
            screen.command("help compact-lsp")
            shown = screen.wait_for("compact_lsp.txt")
            assert "compact_lsp compact-lsp" in shown, shown  # the tag line of our help (its stars concealed)
            screen.command("qa!")

        # After a restart, :CompactChat <text> into the session with history: the history, then You: <text>.
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            screen.command("CompactChat And now?")
            shown = screen.wait_for(lambda s: "Still here, after the restart." in s and "done · " in s)  # turn over
            lines = [line.split("│")[-1].strip() for line in shown.splitlines()]  # the chat window, on the right
            you = [i for i, line in enumerate(lines) if line.startswith("You: ")]
            assert [lines[i] for i in you][-1] == "You: And now?", lines
            assert any("Explain the greeting" in lines[i] for i in you[:-1]), lines  # the history above it
            # Another session made current (Claude Code's): the file window's status line follows it, the chat
            # window's keeps showing the chat's own session.
            chat_before = window_status(shown, "compact-lsp://chat/Explain the greeting").split()[-2:]
            screen.command("Compact session claude-" + FOLLOWED)

            def file_status(shown: str) -> list[str]:
                row = next(line for line in shown.splitlines() if "compact-lsp://chat/" in line)
                return row.split("compact-lsp://chat/")[0].split()[-2:]

            shown = screen.wait_for(lambda s: "current session: " in s and file_status(s) != chat_before)
            chat_after = window_status(shown, "compact-lsp://chat/Explain the greeting").split()[-2:]
            assert chat_after == chat_before, (file_status(shown), chat_after)
            screen.command("qa!")


def test_keymaps_false_leaves_the_chat_without_keys(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        user = User(tmp_path, stub)
        with user.start(keymaps=False) as screen:
            screen.command("CompactChat!")
            screen.wait_for("compact-lsp://chat/new")
            screen.keys("Escape", "?")
            screen.command("echo 'maps:' maparg('q', 'n') == '' maparg('[[', 'n') == ''")
            shown = screen.wait_for("maps:")
            assert "maps: 1 1" in shown and "Keys (Normal mode" not in shown, shown
            # The server's own sentences, written with the plugin's figures (the not-smaller outcome, the
            # agent's compaction status line in the chat)
            reason = "The compacted context (9120 tokens) would not be smaller than the current one (8800 tokens)."
            status = "Compacted the conversation: 26206 → 20116 tokens."
            screen.command(
                "lua local w = require('compact_lsp.words'); "
                f"print(w.outcome({{ reason = '{reason}' }}) .. ' | ' .. w.figures('{status}'))"
            )
            shown = screen.wait_for("20.1k").replace("\n", "")  # this test's long line wraps
            screen.keys("Enter")
            assert "context (9.1k tokens) would not be smaller than the current one (8.8k tokens) | " in shown
            assert "Compacted the conversation: 26.2k → 20.1k tokens." in shown, shown


def test_compact_help_lists_the_subcommands_and_a_mistyped_one_points_to_it(tmp_path: Path) -> None:
    """A new user's first tries: :Compact with no session yet, a mistyped subcommand, :Compact help."""
    with MessagesApiStub() as stub:
        user = User(tmp_path, stub)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            screen.command("Compact")
            no_prompt(screen.wait_for("compact-lsp: no session in this workspace yet: :CompactChat starts one"))
            screen.command("Compact hlep")  # one line with the way on, no hit-enter prompt; the list in :messages
            shown = screen.wait_for("compact-lsp: unknown subcommand hlep: :Compact help says what each does")
            no_prompt(shown)
            screen.command("Compact help")
            shown = screen.wait_for("3. COMMANDS")
            assert ":Compact help" in shown and ":Compact micro" in shown, shown
            screen.command("close")
            # the first chat says what to do under its prompt, until the first message
            stub.push(reply("Hello there."))
            screen.command("CompactChat")
            shown = screen.wait_for("Ask the agent about this project.")
            assert "<CR> sends, ? lists the keys." in shown and "-- INSERT --" in shown, shown
            screen.keys("Hi", "Enter")
            shown = screen.wait_for("Claude: Hello there.")
            assert "Ask the agent about this project" not in shown, shown
            screen.command("qa!")


def test_a_claude_code_session_is_read_only_until_imported(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        stub.push(reply("Continuing from Claude Code's work."))
        user = User(tmp_path, stub)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            # followed, yet not current by itself: the workspace has no session of the user's yet
            screen.command("Compact status")
            shown = screen.wait_for("no session in this workspace yet")
            no_prompt(shown)
            screen.command("Compact session claude-" + FOLLOWED)
            shown = screen.wait_for("current session: ")
            assert ":Compact import continues it" in shown, shown
            no_prompt(shown)

            screen.command("Compact status")
            status = screen.wait_for("Read files")
            assert "estimated here" in status and "reported by the API" in status, status
            assert "unknown" not in status, status
            screen.keys("q")

            screen.command("CompactChat")
            # its history, the end in sight (where Claude Code's next activity comes in), what it is above it
            screen.wait_for("Claude Code's, read-only · :Compact import continues it")
            shown = screen.wait_for('"Noise worklet loaded" in the console.')  # its last answer
            assert not any(line.strip("│ ").startswith("> ") for line in shown.splitlines()), shown  # no prompt
            shot(screen, "nvim-read-only.png")
            screen.keys("i")  # refused on one line (the whole, "… as your own copy", in :messages)
            shown = screen.wait_for("compact-lsp: read-only: Claude Code owns this session. :Compact import continues")
            assert "-- INSERT --" not in shown, shown
            no_prompt(shown)

            # a change is refused in Neovim's words, once, with the command that helps
            screen.command("Compact micro")
            shown = screen.wait_for("read-only: Claude Code owns this session. :Compact import continues it here")
            assert shown.count("Claude Code owns this session") == 1, shown
            assert "compact/" not in shown and "OwnedByClaudeCode" not in shown and "install-hook" not in shown
            no_prompt(shown)

            screen.command("Compact import")
            shown = screen.wait_for("compact-lsp: your own copy, now current: ")
            shown = screen.wait_for(lambda s: "read-only here" not in s)
            no_prompt(shown)
            assert [line for line in shown.splitlines() if line.split("│")[-1].strip() == ">"], shown  # a prompt
            assert "(2)" not in shown  # the read-only chat was replaced, not kept beside the copy
            screen.keys("i", "What next?", "Enter")
            shown = screen.wait_for("Continuing from Claude Code's work.")
            assert "You: What next?" in shown

            # normal flows end without a hit-enter prompt
            screen.keys("Escape")
            screen.command("Compact undo")
            no_prompt(screen.wait_for("no compaction to undo"))
            screen.command("Compact rename " + "A very long title for this session, " * 5)
            no_prompt(screen.wait_for("session renamed: "))
            screen.command("Compact claude-hook")
            no_prompt(screen.wait_for("compact-lsp: installed the compact-lsp hook in .claude/settings.local.json"))
            screen.command("Compact claude-hook uninstall")
            # cut to one line, the settings file it changed kept in it
            shown = screen.wait_for(lambda s: s.rstrip().splitlines()[-1].startswith("compact-lsp: removed the "))
            no_prompt(shown)
            assert ".claude/settings.local.json" in shown.rstrip().splitlines()[-1], shown
            screen.command("qa!")
