"""Two real headless Neovims on one folder (two editor windows): the second one may look at the session the first
one writes, but its writes are refused with the owner named, its chat is read-only and says so, and its status
line and chat follow the owner's work."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from tests.editors.nvim_support.runner import NvimRun, nvim_executable, run_scenario

pytestmark = [pytest.mark.skipif(nvim_executable() is None, reason="Neovim is not installed"), pytest.mark.timeout(200)]


def test_the_second_window_follows_read_only_and_names_the_owner(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    (workspace / ".git").mkdir(parents=True)
    settings: dict[str, Any] = {
        "sessionDir": str(tmp_path / "sessions"),
        "autoCompact": {"enabled": False},
        "sessionMemory": {"enabled": False},
        "microcompact": {"keepRecent": 1, "idleMinutes": -1, "sizeThresholdTokens": -1},
    }
    runs: dict[str, NvimRun] = {}

    def run(name: str) -> None:
        state = tmp_path / name
        state.mkdir()
        settings_here = {**settings, "memory": {"userRoot": str(state / "user-memory")}}
        runs[name] = run_scenario(f"two_windows_{name}", workspace, state, settings=settings_here)

    threads = [threading.Thread(target=run, args=(name,)) for name in ("owner", "follower")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    owner, follower = runs["owner"], runs["follower"]
    # the owner waits on the follower, so a follower that failed explains an owner that timed out
    assert follower.returncode == 0 and "error" not in follower.results, follower.explain() + owner.explain()
    assert owner.returncode == 0 and "error" not in owner.results, owner.explain()

    assert owner.results["session"] in follower.results["listed"]
    refusal = follower.results["refused"]
    # In Neovim's words: what happened and the command that helps, no protocol method or exception class.
    assert refusal.startswith("compact-lsp: read-only: open in another editor (process ")
    assert refusal.endswith(". Continue there, or :CompactChat! for a new chat")
    assert "compact/" not in refusal and "SessionBusy" not in refusal
    shown = [n["message"] for n in follower.results["notifications_after_refusal"]]
    assert [m for m in shown if "open in another editor" in m] == [refusal], shown  # shown once
    assert follower.results["followed_total"] == owner.results["total"]
    # listed as open in the owner's window, by the process the refusal names
    pid = follower.results["elsewhere"]["pid"]
    assert f"(process {pid})" in refusal and "host" not in follower.results["elsewhere"]
    # the chat opens read-only and says whose it is at its top and in its window bar; no prompt, nothing sent
    chat = follower.results["chat_lines"]
    assert chat[:2] == [
        f"Open in another editor (process {pid}): read-only here, it follows that window's work.",
        "Continue there, or :CompactChat! for a new chat",
    ], chat
    assert follower.results["chat_winbar"].endswith(f"read-only: open in another editor (process {pid})")
    assert "Hello from the second window" not in "\n".join(chat) and "> " not in chat, chat
    said = [n["message"] for n in follower.results["notifications_after_chat"]]
    assert said[len(shown) :] == [refusal], said  # the message typed there: refused in the same words, once
    # and it follows the owner's work
    assert "Claude: Read b.py too." in follower.results["chat_after"]
    assert all("SessionBusy" not in line and "compact/" not in line for line in follower.results["chat_after"])
