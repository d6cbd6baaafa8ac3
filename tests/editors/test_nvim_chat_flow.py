"""The chat through a day of use, in real Neovim's TUI in tmux against the real server and a loopback Messages API:
what is typed while the agent answers, the edit approval, tool lines and marks as Markdown shows them, a full
compaction that would not pay, long messages, a server that dies. Every assertion reads the screen.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.editors.nvim_support.runner import nvim_executable
from tests.editors.nvim_support.tui import Screen, tmux_executable
from tests.editors.test_nvim_chat import FOLLOWED, PRESS_ENTER, User, no_prompt, shot, window_status
from tests.support.messages_api_stub import MessagesApiStub, api_error, hang, reply, tool_call

pytestmark = [
    pytest.mark.skipif(nvim_executable() is None, reason="Neovim is not installed"),
    pytest.mark.skipif(tmux_executable() is None, reason="tmux is not installed"),
    pytest.mark.timeout(300),
]


def select_followed(screen: Screen) -> None:
    """:Compact session claude-<id>, asked again until the server knows the followed session: since b71cbbb it
    is registered a moment after start, not at once (a user who asks at once reads "unknown session")."""
    for _ in range(60):
        screen.command("Compact session claude-" + FOLLOWED)
        try:
            screen.wait_for("current session: ", timeout=1)
            return
        except AssertionError:
            screen.keys("Enter")
    raise AssertionError("the followed Claude Code session never became known")


def last_chat_line(shown: str) -> str:
    """The chat window's last line of text above its prompt."""
    lines = [line for line in chat_column(shown) if line and line != "~"]
    return lines[lines.index(">") - 1] if ">" in lines else ""


def chat_column(shown: str) -> list[str]:
    """The chat window's lines (the right-hand window), stripped."""
    return [line.split("│")[-1].strip() for line in shown.splitlines()]


def test_typing_while_the_agent_answers_queues_the_message_and_tool_lines_keep_every_character(
    tmp_path: Path,
) -> None:
    held = threading.Event()
    with MessagesApiStub() as stub:
        stub.push(
            tool_call("read_file", {"file_path": "proto/__init__.py"}, text="Reading the package first."),
            reply("The package exports _readers.py helpers.", gate=held),
            reply("Second answer, after the first."),
        )
        user = User(tmp_path, stub)
        (user.project / "proto").mkdir()
        (user.project / "proto" / "__init__.py").write_text("from proto._readers import READERS\n")
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            screen.command("CompactChat")
            # the chat opens in Insert mode at its prompt: the first keys typed are the message
            screen.wait_for(lambda s: "-- INSERT --" in s and "compact-lsp://chat/new" in s)
            screen.keys("First question", "Enter")
            shown = screen.wait_for("⚙ read_file ")
            assert stub.wait_for_requests(2), "the model was not asked again after the read"
            # typed while the agent still answers: queued in sight, nothing glued onto the answer
            screen.keys("Second message", "Enter")
            shown = screen.wait_for("» queued: Second message")
            assert "You: Second message" not in shown, shown
            shot(screen, "nvim-chat-queued.png")
            held.set()
            shown = screen.wait_for("Second answer, after the first.")
            lines = chat_column(shown)
            first_end = next(i for i, line in enumerate(lines) if line.startswith("[done · "))
            answer = next(i for i, line in enumerate(lines) if "exports _readers.py helpers." in line)
            you = lines.index("You: Second message")
            assert answer < first_end < you, lines
            assert "queued:" not in shown, shown
            # Markdown keeps tool lines and marks whole: underscores, brackets
            assert "⚙ read_file proto/__init__.py" in shown, shown
            assert all(not line.startswith("done · ") for line in lines), lines
            assert "Second message" in json.dumps(stub.bodies[2]["messages"][-1])  # sent as its own turn
            no_prompt(shown)
            screen.command("qa!")


WORKING = "Claude is thinking… (<C-c> stops it)"


def test_the_chat_says_it_works_until_the_answer_comes_and_never_leaves_it_behind(tmp_path: Path) -> None:
    """It showed nothing between the message and the model's first words: the user could not tell it worked. The
    working line stands just above the prompt while the model has not answered (after the message, after a tool's
    result); the answer replaces it, a cancel or an error takes it away, and what the user types stays theirs."""
    asked, answered = threading.Event(), threading.Event()
    with MessagesApiStub() as stub:
        stub.push(
            tool_call("read_file", {"file_path": "main.py"}, gate=asked),
            reply("It greets.", gate=answered),
            hang(),
            api_error(400, "invalid_request_error", "prompt is too long"),
        )
        user = User(tmp_path, stub)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            screen.command("CompactChat! What does main.py do?")
            shown = screen.wait_for(WORKING)
            assert stub.wait_for_requests(1), "the model was not asked"
            lines = chat_column(shown)
            assert lines.index(WORKING) == lines.index(">") - 1, lines  # its own line, just above the prompt
            assert lines.index("You: What does main.py do?") < lines.index(WORKING), lines
            screen.keys("a draft")  # typed while it works: the prompt's, and only the prompt's
            screen.wait_for(lambda s: "> a draft" in chat_column(s))
            asked.set()
            shown = screen.wait_for("⚙ read_file main.py")
            assert stub.wait_for_requests(2), "the model was not asked again after the read"
            shown = screen.wait_for(lambda s: "↳" in s and WORKING in chat_column(s))  # the model again
            lines = chat_column(shown)
            assert lines.index(WORKING) == lines.index("> a draft") - 1, lines
            answered.set()
            shown = screen.wait_for(lambda s: "done · " in s and "Claude: It greets." in s)
            assert "thinking" not in shown, shown  # replaced by the answer
            assert "> a draft" in chat_column(shown), shown
            no_prompt(shown)
            # the draft goes; the model hangs; <C-c> stops it and the working line goes with the turn
            screen.keys("Enter")
            shown = screen.wait_for(lambda s: "You: a draft" in s and WORKING in s)
            assert stub.wait_for_requests(3), "the draft was not sent"
            screen.keys("C-c")
            shown = screen.wait_for("[cancelled]")
            assert "thinking" not in shown, shown
            # an error ends the turn: the working line goes too
            screen.keys("Once more", "Enter")
            shown = screen.wait_for("[failed")
            assert stub.wait_for_requests(4), "the last message was not sent"
            assert "thinking" not in shown, shown
            assert "prompt is too long" in shown, shown
            no_prompt(shown)
            screen.command("qa!")


def test_the_edit_approval_asks_after_the_diff_is_on_screen(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        stub.push(
            tool_call("read_file", {"file_path": "main.py"}),
            tool_call(
                "edit_file",
                {"file_path": "main.py", "old_string": 'print("hello")', "new_string": 'print("hello, world")'},
                text="Editing.",
            ),
            reply("Edited."),
        )
        user = User(tmp_path, stub)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            screen.command("CompactChat Make it greet the world")
            shown = screen.wait_for("Allow once")
            # the question is there when the choice is asked: the diff drawn in the chat above the picker
            assert "The agent wants to edit" in shown and "hello, world" in shown, shown
            screen.keys("1", "Enter")
            shown = screen.wait_for("Claude: Edited.")
            assert 'print("hello, world")' in (user.project / "main.py").read_text()
            screen.command("qa!")


def test_an_agent_write_to_a_file_with_unsaved_changes_keeps_them_and_says_so_on_one_line(tmp_path: Path) -> None:
    """The user has typed into main.py without saving; the agent rewrites main.py. The buffer keeps the user's
    text, the disk has the agent's, and one line says so with both ways out, without a prompt that stops the
    user mid-turn (it wrapped on 120 columns and waited for Enter, the turn's end drawn behind it)."""
    with MessagesApiStub() as stub:
        stub.push(
            tool_call("read_file", {"file_path": "main.py"}),
            tool_call("write_file", {"file_path": "main.py", "content": "def greet():\n    return 'rewritten'\n"}),
            reply("Rewrote it."),
        )
        user = User(tmp_path, stub)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            screen.keys("G", "o", "# my unsaved note", "Escape")
            screen.command("CompactChat! Rewrite main.py")
            shown = screen.wait_for("Allow once")
            assert "main.py has unsaved changes in Neovim; they stay in your buffer either way" in shown, shown
            screen.keys("1", "Enter")
            shown = screen.wait_for("Claude: Rewrote it.")
            no_prompt(shown)
            # under the write, in the chat (the message line goes when the chat's Insert mode is drawn)
            chat = " ".join(" ".join(chat_column(shown)).split())
            assert chat.index("↳ Overwrote main.py") < chat.index("Claude: Rewrote it."), shown
            note = "⚠ main.py: your unsaved changes stay in the buffer; :e! takes the agent’s version, :w! keeps yours"
            assert note in chat, shown
            assert "# my unsaved note" in shown, shown  # the user's text, still there
            assert (user.project / "main.py").read_text() == "def greet():\n    return 'rewritten'\n"
            shot(screen, "nvim-unsaved-buffer.png")
            screen.command("wincmd h")
            screen.command("echo 'unsaved:' &modified")
            screen.wait_for("unsaved: 1")
            screen.command("messages")
            shown = screen.wait_for("compact-lsp: the agent rewrote main.py on disk; your unsaved changes stay in")
            assert ":e! takes the agent’s version, :w! keeps yours" in " ".join(shown.split()), shown  # whole there
            screen.keys("Enter")
            screen.command("qa!")


CRASHING_SERVER = (
    'import sys; sys.stderr.write(\'Traceback (most recent call last):\\n  File "compact_lsp/__main__.py"\\n'
    "ModuleNotFoundError: No module named \\'pygls\\'\\n'); sys.exit(1)"
)
"""A server that fails as it starts, as one whose Python lacks its packages does (its --version too)."""


def test_a_server_that_stops_as_it_starts_is_one_line_with_why_and_what_to_do(tmp_path: Path) -> None:
    """Neovim said "Client compact_lsp quit with exit code 1 … Check log for errors", then the plugin "did not
    finish starting" at each command, each with "Press ENTER", and started it again for every file opened."""
    with MessagesApiStub() as stub:
        user = User(tmp_path, stub)
        with user.start("main.py", cmd=[sys.executable, "-c", CRASHING_SERVER, "--stdio"]) as screen:
            said = "compact-lsp: the server stops as it starts: ModuleNotFoundError: No module named 'pygls'"
            said += "; :CompactInstall"
            shown = screen.wait_for(said)
            no_prompt(shown)
            assert 'print("hello")' in shown, shown  # the file is drawn, nothing waits for a key
            screen.command("edit other.py")  # not started again for the next file
            screen.wait_for("other.py")
            screen.command("Compact status")  # a command says the same, and starts nothing
            screen.wait_for(lambda s: "Press ENTER" in s or s.rstrip().splitlines()[-1].startswith("compact-lsp: the"))
            screen.keys("Enter")
            screen.command("messages")
            shown = "".join(screen.wait_for("quit with exit code 1").split())  # lines wrapped anywhere: no blanks
            assert shown.count("quitwithexitcode") == 1, shown  # one start, one exit
            whole = "compact-lsp: the server stops as it starts (exit 1: ModuleNotFoundError: No module named 'pygls');"
            whole += " :CompactInstall reinstalls it, :checkhealth compact_lsp says more"
            assert "".join(whole.split()) in shown, shown
            assert "did not finish starting" not in shown, shown
            screen.keys("Enter")
            screen.command("qa!")


def test_a_missing_server_is_said_on_one_line_once_the_file_is_drawn(tmp_path: Path) -> None:
    """It wrapped on 120 columns as Neovim started: "Press ENTER" over an empty screen, the file not drawn."""
    with MessagesApiStub() as stub:
        user = User(tmp_path, stub)
        with user.start("main.py", cmd=["compact-lsp-not-installed", "--stdio"]) as screen:
            shown = screen.wait_for(
                "compact-lsp: server `compact-lsp-not-installed` not found. Install: :CompactInstall"
            )
            no_prompt(shown)
            assert 'print("hello")' in shown, shown
            screen.command("messages")
            shown = "".join(screen.wait_for("not found. Install: :CompactInstall (or: cd ").split())
            assert "python3-mvenv.venv&&.venv/bin/pipinstall.)" in shown, shown  # whole there
            screen.keys("Enter")
            screen.command("qa!")


def test_with_no_server_the_chat_says_why_once_and_each_message_not_sent_points_to_it(tmp_path: Path) -> None:
    """The chat said the missing server's error as it opened, then the same lines again under the message."""
    with MessagesApiStub() as stub:
        user = User(tmp_path, stub)
        with user.start("main.py", cmd=["compact-lsp-not-installed", "--stdio"]) as screen:
            screen.wait_for("main.py")
            screen.command("CompactChat Hello there")
            shown = screen.wait_for("not sent: see the error above")
            chat = "".join("".join(chat_column(shown)).split())  # the chat's column, wrapped anywhere
            assert chat.count("notfound.Install:") == 1, shown
            lines = chat_column(shown)
            assert lines.index("You: Hello there") < lines.index("! not sent: see the error above"), lines
            screen.keys("And again", "Enter")
            shown = screen.wait_for(lambda s: chat_column(s).count("! not sent: see the error above") == 2)
            chat = "".join("".join(chat_column(shown)).split())
            assert chat.count("notfound.Install:") == 1, shown
            assert "You: And again" in chat_column(shown), shown
            assert "thinking" not in shown, shown
            no_prompt(shown)
            assert not stub.requests, "the model was asked without a server"
            screen.command("qa!")


def test_a_second_neovim_on_the_folder_follows_the_first_ones_chat_read_only_and_names_it(tmp_path: Path) -> None:
    """Two Neovims on one project, as a user opens a second window while the agent works in the first: the
    second one's chat is read-only, says whose it is, follows the first one's turn as it lands, and a key typed
    there is refused in the same words (its chat had a prompt, said nothing and stayed at the first message);
    once the first window closes, the session's chat opens there with a prompt, nothing typed, and it goes on."""
    with MessagesApiStub() as stub:
        stub.push(
            tool_call("read_file", {"file_path": "main.py"}, delay=2.0),
            reply("main.py defines greet(), which prints hello.", delay=4.0),
            reply("Continued in the second window."),
        )
        user = User(tmp_path, stub)
        with user.start("main.py") as owner:
            owner.wait_for("main.py")
            owner.command("CompactChat! Explain main.py")
            owner.wait_for("You: Explain main.py")
            with user.start("main.py") as follower:
                follower.wait_for("main.py")
                follower.command("CompactChat")
                shown = follower.wait_for("Open in another editor (process ")
                chat = chat_column(shown)
                who = next(line for line in chat if line.startswith("Open in another editor (process "))
                pid = who.removeprefix("Open in another editor (process ").split(")")[0]
                assert chat[0] == f"read-only: open in another editor (process {pid})", chat  # the window bar
                assert "Continue there, or :CompactChat! for a new chat" in chat, chat
                assert ">" not in chat, chat  # no prompt to type into
                shown = follower.wait_for("Claude: main.py defines greet(), which prints hello.")  # as it lands
                mark = owner.wait_for("done · ")
                figures = re.search(r"done · ([\d.]+k?/200k) tokens \(([\d.]+)%\)", mark)
                assert figures, mark
                status = follower.wait_for(
                    lambda s: (
                        window_status(s, "compact-lsp://chat/")
                        .rstrip()
                        .endswith(f"{figures.group(1)} {figures.group(2)}%")
                    )
                )  # the status line follows the owner's appends
                shot(follower, "nvim-second-window.png")
                follower.keys("i")
                shown = follower.wait_for("compact-lsp: read-only: open in another editor (process " + pid)
                no_prompt(shown)
                assert "Press ENTER" not in status
                # the first window closes: the session continues here at once, nothing typed (its server says so
                # as the other one lets go: compact/didChangeOpenElsewhere), its chat with a prompt and its history,
                # in its window, though the user is in the file's; the cursor and the mode stay where they were
                follower.keys("Escape")
                follower.command("wincmd h")
                owner.command("qa!")
                shown = follower.wait_for(lambda s: ">" in chat_column(s), 30)  # a prompt
                follower.wait_for("compact-lsp: the other window let this session go: it continues here")
                shown = follower.wait_for("Claude: main.py defines greet(), which prints hello.")
                chat = chat_column(shown)
                assert "compact-lsp://chat/Explain main.py " in shown, shown  # its own name, no "(2)"
                assert "Claude: main.py defines greet(), which prints hello." in chat, shown
                assert not any(line.startswith("Open in another editor") for line in chat), shown
                assert not any(line.startswith("read-only: open in") for line in chat), shown  # nor its window bar
                assert "-- INSERT --" not in shown, shown
                follower.keys("x")  # Normal mode in the file's window: x deletes the file's first character
                follower.wait_for(lambda s: s.startswith("ef greet():"), 10)
                follower.keys("u")
                follower.command("wincmd l")
                follower.keys("i", "Go on here", "Enter")
                follower.wait_for("Claude: Continued in the second window.")
                follower.command("qa!")


def test_a_chat_open_in_two_neovims_turns_read_only_in_the_one_that_did_not_write(tmp_path: Path) -> None:
    """Both Neovims open the session's chat with a prompt (nobody writes it yet); the first one sends a message:
    the second one's chat turns read-only at once, naming the first, and follows its answer (it stayed writable
    and refused the message typed there only when sent)."""
    with MessagesApiStub() as stub:
        stub.push(reply("Started."), reply("Written in the first window."))
        user = User(tmp_path, stub)
        with user.start("main.py") as first:
            first.wait_for("main.py")
            first.command("CompactChat! Start")
            first.wait_for("Claude: Started.")
            ended = server_pids(user.state / "server.log")
            first.command("qa!")
        for pid in ended:  # its server lets the session go as it ends
            deadline = time.monotonic() + 30
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.1)  # polling: a process that is not our child has no exit to wait on
        with user.start("main.py") as first, user.start("main.py") as second:
            for screen in (first, second):
                screen.wait_for("main.py")
                screen.command("CompactChat")
                screen.wait_for(lambda s: ">" in chat_column(s) and "Claude: Started." in s)
            first.keys("Go on", "Enter")
            first.wait_for("Claude: Written in the first window.")
            shown = second.wait_for(
                lambda s: (
                    chat_column(s)[0].startswith("read-only: open in another editor (process ")  # its bar
                    and "Claude: Written in the first window." in s
                )
            )  # the message line saying so may already be gone (a redraw): :messages keeps it, below
            chat = chat_column(shown)
            assert ">" not in chat and "-- INSERT --" not in shown, shown  # no prompt, Normal mode
            no_prompt(shown)
            second.command("messages")
            second.wait_for("compact-lsp: read-only here now: another editor (process ")
            second.keys("Enter")
            first.command("qa!")  # and back: the session continues in the second one
            shown = second.wait_for("compact-lsp: the other window let this session go: it continues here")
            assert ">" in chat_column(shown), shown
            second.command("qa!")


def test_without_an_api_key_the_chat_says_where_the_key_goes_once_and_asks_the_api_nothing(tmp_path: Path) -> None:
    """It said "set ANTHROPIC_API_KEY for the language server": a server a Neovim user never started by hand."""
    with MessagesApiStub() as stub:
        user = User(tmp_path, stub)
        with user.start("main.py", api_key=None) as screen:
            screen.wait_for("main.py")
            screen.command("CompactChat! Hello there")
            shown = screen.wait_for("[failed")
            chat = " ".join(" ".join(chat_column(shown)).split())
            said = "! no Anthropic API key: the chat needs ANTHROPIC_API_KEY in the environment Neovim starts from"
            assert said + " (export it, then start Neovim again); :Compact full works without it" in chat, shown
            assert chat.count("API key") == 1 and "language server" not in chat, shown
            no_prompt(shown)
            assert stub.requests == []
            screen.command("qa!")


def test_a_full_compaction_that_would_not_pay_says_so_plainly_and_long_messages_stay_whole(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        stub.push(reply("Short."), reply("A summary far longer than the chat itself. " * 60))
        user = User(tmp_path, stub)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            screen.command("CompactChat Hi")
            screen.wait_for("Claude: Short.")
            screen.command("Compact full")
            shown = screen.wait_for(lambda s: s.rstrip().splitlines()[-1].startswith("compact-lsp: not compacted: "))
            no_prompt(shown)
            message = shown.rstrip().splitlines()[-1]
            assert "not compacted: a summary would not be smaller" in message and ":Compact micro" in message, shown
            assert "would not be smaller than the current one" not in shown, shown
            screen.command("messages")
            shown = screen.wait_for(lambda s: ":Compact micro clears old tool results" in s.replace("\n", ""))
            screen.keys("Enter")

            # a long message cut to the line keeps its path and command; :messages keeps all of it
            path = ".codex/config.toml"
            screen.command(
                "lua require('compact_lsp.words').notify('compact-lsp: installed the compact-lsp hook for Codex "
                "with its notify program and a backup of the previous settings kept beside it as instructed in "
                f"{path}; :Compact codex-hook uninstall takes it out')"
            )
            shown = screen.wait_for(lambda s: s.rstrip().splitlines()[-1].startswith("compact-lsp: installed"))
            no_prompt(shown)
            message = shown.rstrip().splitlines()[-1]
            assert ":Compact codex-hook uninstall" in message and "…" in message, message
            screen.command("messages")
            shown = screen.wait_for("backup of the previous settings")
            assert "a backup of the previous settings kept beside it as instructed in" in shown.replace("\n", ""), shown
            screen.keys("Enter")
            screen.command("qa!")


def server_pids(log_file: Path) -> list[int]:
    """The processes of the server writing ``log_file`` (their command lines name it)."""
    found = subprocess.run(["pgrep", "-f", "--", f"--log-file {log_file}"], capture_output=True, text=True, check=False)
    pids = [int(p) for p in found.stdout.split()]
    assert pids, found
    return pids


def test_a_server_that_dies_is_replaced_with_the_open_buffers_attached_and_the_gauge_refreshed(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        stub.push(reply("Before the crash."), reply("After the crash."))
        user = User(tmp_path, stub)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            screen.command("CompactChat Hello")
            shown = screen.wait_for("Claude: Before the crash.")
            screen.wait_for(lambda s: "/200k" in s.splitlines()[-2])  # the gauge, in the status line
            killed = server_pids(user.state / "server.log")
            for pid in killed:  # the server this test started dies
                os.kill(pid, signal.SIGKILL)
            # the gauge of a server that is gone is not shown as if current
            screen.wait_for(lambda s: "/200k" not in s.splitlines()[-2])
            screen.keys("Escape")  # Neovim's own warning ("Client compact_lsp quit with exit code 0 and signal 9")
            # a new server takes its place with nothing typed: the gauge comes back, the line says what happened
            shown = screen.wait_for("compact-lsp: the server stopped (signal 9); a new one took its place", 30)
            assert set(server_pids(user.state / "server.log")) - set(killed), "no new server"
            screen.wait_for(lambda s: "/200k" in s.splitlines()[-2])
            screen.keys("Escape")
            screen.command("wincmd h")
            screen.command(
                "lua print('attached: ' .. "
                "#vim.lsp.get_clients({ name = 'compact_lsp', bufnr = vim.fn.bufnr('main.py') }))"
            )
            shown = screen.wait_for(lambda s: s.rstrip().splitlines()[-1].startswith("attached: "))
            assert shown.rstrip().splitlines()[-1].strip() == "attached: 1", shown
            shown = screen.wait_for(lambda s: "/200k" in s.splitlines()[-2])
            assert PRESS_ENTER not in shown
            screen.command("wincmd l")  # the chat goes on with the new server
            screen.keys("i", "Still there?", "Enter")
            shown = screen.wait_for("Claude: After the crash.")
            assert "Claude: Before the crash." in shown, shown
            screen.command("qa!")


def test_a_followed_sessions_chat_follows_new_activity(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        user = User(tmp_path, stub)
        (transcript,) = (tmp_path / "claude-projects").glob(f"*/{FOLLOWED}.jsonl")
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            select_followed(screen)
            screen.command("CompactChat")
            # the window bar says whose it is however far the chat scrolls (its header is at the top, out of sight)
            screen.wait_for("Claude Code's, read-only · :Compact import continues it")
            screen.wait_for("worklets should load automatically")  # the end of its history, in sight
            # Claude Code answers again in its terminal: the chat shows it without a key pressed
            last = json.loads(transcript.read_text().splitlines()[-1])
            line = {
                **last,
                "uuid": str(uuid.uuid4()),
                "parentUuid": last["uuid"],
                "timestamp": last["timestamp"],
                "message": {
                    **last["message"],
                    "id": "msg_new",
                    "content": [{"type": "text", "text": "New activity from Claude Code, at the end."}],
                },
            }
            with transcript.open("a") as out:
                out.write(json.dumps(line) + "\n")
            shown = screen.wait_for("New activity from Claude Code, at the end.")
            no_prompt(shown)
            screen.command("qa!")


REAL_TRANSCRIPT = Path(__file__).parent.parent / "fixtures" / "claude_code" / "transcript-two-compactions.jsonl"
"""What the real Claude Code wrote with our hook: /compact, then an automatic compaction at 990,694 of 1M tokens."""


def real_transcript(tmp_path: Path, lines: slice = slice(None)) -> Path:
    """The followed session's transcript replaced by (part of) the real one; returns its path."""
    (transcript,) = (tmp_path / "claude-projects").glob(f"*/{FOLLOWED}.jsonl")
    transcript.write_text("".join(REAL_TRANSCRIPT.read_text().splitlines(keepends=True)[lines]))
    return transcript


@contextlib.contextmanager
def following_the_real_transcript(tmp_path: Path) -> Iterator[Screen]:
    """Neovim on main.py with the followed Claude Code session (the real transcript) chosen."""
    with MessagesApiStub() as stub:
        user = User(tmp_path, stub)
        real_transcript(tmp_path)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            select_followed(screen)
            yield screen


def test_the_chat_of_a_followed_claude_code_session_shows_the_typed_compact_before_its_marker(tmp_path: Path) -> None:
    with following_the_real_transcript(tmp_path) as screen:
        screen.command("CompactChat")
        shown = screen.wait_for("Claude Code: Read them all.")
        chat = chat_column(shown)
        # the user's /compact as typed (a row of the user's, as Qwen's /compress), its output, then its marker
        typed = chat.index("You: /compact")
        assert chat[typed - 1] == "Claude Code: Read the first seven.", chat
        assert chat[typed + 2].startswith("── conversation compacted by the agent when asked: 17.9k"), chat
        assert "SlashCommand" not in shown, shown
        automatic = next(i for i, line in enumerate(chat) if "compacted by the agent automatically" in line)
        assert typed < chat.index("You: Now read h.py and i.py") < automatic, chat
        no_prompt(shown)
        screen.command("qa!")


def test_the_compaction_timeline_of_a_followed_claude_code_session_shows_its_receipts(tmp_path: Path) -> None:
    with following_the_real_transcript(tmp_path) as screen:
        screen.command("Compact timeline")
        shown = screen.wait_for("Compaction timeline")
        assert "2 compactions by Claude Code · automatic at 967k tokens" in shown, shown
        assert "compacted (manual): 17.9k → 7.4k tokens" in shown, shown
        assert "hook delivered (SessionStart): 4937 characters, inline, files b.py, a.py" in shown, shown
        assert "compacted (auto): 990.7k → 4.1k tokens (fired at 990.7k, threshold 967k)" in shown, shown
        assert "re-attached by the agent: " in shown and "g.py" in shown, shown
        no_prompt(shown)
        shot(screen, "nvim-timeline.png")
        screen.keys("/summary:", "Enter", "Enter")  # the first summary, opened whole and read-only
        shown = screen.wait_for("This session is being continued from a previous conversation")
        assert "summary of compaction" in shown, shown
        screen.keys("i")
        screen.keys("x")
        shown = screen.wait_for(lambda text: "E21" in text or "readonly" in text.lower() or "modifiable" in text)
        screen.keys("Escape")
        screen.command("close")  # the summary goes; the file is left
        # from a row of the timeline, one key opens the session's working set, the key its help line names
        screen.command("Compact timeline")
        shown = screen.wait_for("Compaction timeline")
        assert "<CR> on a summary or a cleared result opens it · w the working set · q closes" in shown, shown
        screen.keys("/compacted (auto)", "Enter", "w")
        shown = screen.wait_for("Working set · ")
        assert "Compaction timeline" not in shown, shown  # the float gave way to it
        assert f"compact-lsp://working-set/claude-{FOLLOWED}" in shown, shown
        assert "summary of compaction" not in shown and "main.py" in shown, shown
        assert "<CR> or gf on a file opens it · q closes" in shown, shown
        no_prompt(shown)
        shot(screen, "nvim-timeline-working-set.png")
        screen.command("qa!")


def test_the_warning_comes_before_the_followed_sessions_automatic_compaction(tmp_path: Path) -> None:
    """The real transcript grows while Neovim runs: the turn that takes it to 990k of its 1M window (Claude Code
    compacts at 967k) brings one warning with what the user can do, before the boundary is written."""
    lines = REAL_TRANSCRIPT.read_text().splitlines(keepends=True)
    auto = next(i for i, line in enumerate(lines) if '"compact_boundary"' in line and '"auto"' in line)
    big = max(i for i in range(auto) if '"input_tokens": 990000' in lines[i] or '"input_tokens":990000' in lines[i])
    with MessagesApiStub() as stub:
        user = User(tmp_path, stub)
        transcript = real_transcript(tmp_path, slice(None, big))
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            select_followed(screen)
            screen.command("Compact status")
            shown = screen.wait_for("~949k tokens / ~53 turns to Claude Code's automatic compaction at 967k")
            assert "(Claude Code's default: the window less 33,000)" in shown, shown
            assert "compacts by itself in" not in shown, shown
            screen.keys("q")
            with transcript.open("a") as out:
                out.write("".join(lines[big:auto]))
            shown = screen.wait_for("compact-lsp: Claude Code compacts by itself at its next step (967k reached)")
            no_prompt(shown)  # one line, cut to fit; whole in :messages
            shot(screen, "nvim-warning.png")
            screen.command("messages")
            shown = screen.wait_for("compacts by itself at its next step (967k reached): /compact with a focus")
            assert ":Compact pin what must survive, or let it run" in shown.replace("\n", ""), shown
            screen.keys("Enter")
            screen.command("qa!")


CODEX_ROLLOUT = Path(__file__).parent.parent / "fixtures" / "codex" / "rollout-two-compactions.jsonl"
"""What the real Codex wrote with our hook: two automatic compactions in one turn (limit 50,000)."""
CODEX_THREAD = "01a24922-191a-7333-9cdb-081049550edc"


def test_the_compaction_timeline_of_a_followed_codex_session_has_its_figures_and_receipts(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        user = User(tmp_path, stub)
        home = tmp_path / "codex-home"
        day = home / "sessions" / "2026" / "12" / "06"
        day.mkdir(parents=True)
        rollout = CODEX_ROLLOUT.read_text().replace("/work/proj", str(user.project.resolve()))
        (day / f"rollout-2026-12-06T02-15-01-{CODEX_THREAD}.jsonl").write_text(rollout)
        (home / "config.toml").write_text("model_auto_compact_token_limit = 50000\n")  # as it was recorded
        user.settings["codex"] = {"home": str(home)}
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            for _ in range(60):  # registered a moment after start
                screen.command("Compact session codex-" + CODEX_THREAD)
                try:
                    screen.wait_for("current session: ", timeout=1)
                    break
                except AssertionError:
                    screen.keys("Enter")
            screen.command("Compact timeline")
            shown = screen.wait_for("Compaction timeline")
            assert "2 compactions by Codex · automatic at 50k tokens" in shown, shown
            assert "compacted (auto): 90k → 4k tokens (fired at 90k, threshold 50k)" in shown, shown
            receipt = "hook delivered (SessionStart): 3128 characters, inline, files first_b.py, first_a.py"
            assert receipt in shown, shown
            assert "files second_b.py, second_a.py" in shown, shown
            assert "summary: Summary 1: the user asked to read the modules." in shown, shown
            no_prompt(shown)
            shot(screen, "nvim-timeline-codex.png")
            screen.command("qa!")


def test_our_sessions_timeline_has_a_micro_a_full_and_an_undone_compaction_and_opens_a_cleared_result(
    tmp_path: Path,
) -> None:
    """Claude Code's session imported as the user's own copy, then :Compact micro, full and undo: the timeline has
    the three rows, and <CR> on a cleared result opens what the tool returned, read-only."""
    with MessagesApiStub() as stub:
        stub.push(reply("Summary: the user added a noise worklet and a recording button."))
        user = User(tmp_path, stub)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            select_followed(screen)
            screen.command("Compact import")
            screen.wait_for("compact-lsp: your own copy, now current: ")
            screen.command("Compact micro")
            screen.wait_for(lambda s: "cleared " in s.splitlines()[-1] and "tool result" in s.splitlines()[-1])
            screen.command("Compact full")
            screen.wait_for("compacted the conversation, ")
            screen.command("Compact undo")
            screen.wait_for(lambda s: "undo" in s.splitlines()[-1].lower() or "restored" in s.splitlines()[-1])
            screen.command("Compact timeline")
            shown = screen.wait_for("Compaction timeline")
            assert "3 compactions by compact-lsp" in shown, shown
            assert "automatic compaction is off: autoCompact.enabled is false in the settings" in shown, shown
            assert "cleared old tool results (forced): 38.8k → 18.4k tokens" in shown, shown
            no_prompt(shown)
            shot(screen, "nvim-timeline-ours.png")
            screen.keys("G")  # the float's end: the full compaction and its undo
            shown = screen.wait_for("compaction undone (manual)")
            assert "compacted (manual): " in shown, shown
            assert "summary: Summary: the user added a noise worklet" in shown, shown
            screen.keys("g", "g", "/cleared: ", "Enter", "Enter")
            shown = screen.wait_for("cleared result: ")
            shot(screen, "nvim-cleared-result.png")
            screen.keys("i")
            shown = screen.wait_for(lambda text: "E21" in text or "modifiable" in text)
            screen.command("qa!")


def test_a_compaction_while_the_chat_is_open_draws_its_marker_at_once(tmp_path: Path) -> None:
    with MessagesApiStub() as stub:
        long_answer = "A long answer about the report module. " * 120
        stub.push(reply("Short."), reply(long_answer), reply("<summary>S</summary>"))
        user = User(tmp_path, stub)
        with user.start("main.py") as screen:
            screen.wait_for("main.py")
            screen.command("CompactChat Hi")
            screen.wait_for("Claude: Short.")
            screen.command("CompactSend Tell me everything")
            # the long answer is in: its request reached the API and the chat's last line before the prompt is a mark
            screen.wait_for(lambda s: len(stub.requests) == 2 and last_chat_line(s).startswith("[done"))
            screen.command("Compact full")
            shown = screen.wait_for(lambda s: "── conversation compacted: " in s)
            marker = next(line for line in chat_column(shown) if line.startswith("── conversation compacted"))
            assert "→" in marker and "tokens (anthropic" in marker, marker
            screen.command("qa!")
