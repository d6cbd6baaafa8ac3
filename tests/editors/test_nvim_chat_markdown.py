"""The chat's Markdown as the user sees it in Neovim's own terminal UI (real Neovim in tmux): snake_case keeps its
underscores in the user's words and the agent's, while `**bold**` and code spans lose their markers."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.editors.nvim_support.runner import PLUGIN_DIR, nvim_executable
from tests.editors.nvim_support.tui import Screen, clean_home_env, tmux_executable

pytestmark = [
    pytest.mark.skipif(nvim_executable() is None, reason="Neovim is not installed"),
    pytest.mark.skipif(tmux_executable() is None, reason="tmux is not installed"),
]

LINES = [
    "You: Use handler_2 in main.py, not handler_1",
    "  ⚙ edit_file `main.py`",
    "Claude: Switched **main.py** to handler_2; see `load_rows`.",
    "",
    "> ",
]


def test_snake_case_keeps_its_underscores_and_markers_are_hidden(tmp_path: Path) -> None:
    nvim = nvim_executable()
    assert nvim is not None
    script = tmp_path / "chat.lua"
    script.write_text(
        f"vim.opt.rtp:prepend({str(PLUGIN_DIR)!r})\n"
        f"vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.json.decode({json_lines()!r}))\n"
        "require('compact_lsp.chat_markdown').start(0)\n"
        "vim.wo.conceallevel = 2\nvim.wo.concealcursor = 'nc'\nvim.cmd('normal! G')\n"
    )
    (tmp_path / "home").mkdir()
    env = clean_home_env(tmp_path / "home")
    with Screen([nvim, "--clean", "-c", f"luafile {script}"], cwd=tmp_path, env=env) as screen:
        shown = screen.wait_for("Claude: Switched")
        assert "You: Use handler_2 in main.py, not handler_1" in shown, shown
        assert "Claude: Switched main.py to handler_2; see load_rows." in shown, shown
        assert "⚙ edit_file main.py" in shown, shown


def json_lines() -> str:
    import json

    return json.dumps(LINES)
