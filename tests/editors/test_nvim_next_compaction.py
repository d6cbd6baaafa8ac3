"""The warning before compact-lsp compacts one of our own sessions, as Neovim words it (the plugin's next_compaction
module, in real Neovim): how far, what to do (a full compaction with a focus, a pin), and "off" named."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.editors.nvim_support.runner import PLUGIN_DIR, nvim_executable

pytestmark = pytest.mark.skipif(nvim_executable() is None, reason="Neovim is not installed")

NEAR = {"thresholdTokens": 9000, "tokensLeft": 490, "turnsLeft": 1, "perTurn": 4255, "near": True,
        "origin": "autoCompact.threshold: 9,000", "disabledBy": None}  # fmt: skip
OFF = {**NEAR, "thresholdTokens": None, "tokensLeft": None, "turnsLeft": None, "near": False,
       "disabledBy": '"autoCompact.enabled": false'}  # fmt: skip


def words(tmp_path: Path, next_one: dict[str, Any], owner: str | None = None) -> dict[str, str]:
    """The gauge's line and the warning for a session with ``next_one``: ours, or followed from ``owner``."""
    nvim = nvim_executable()
    assert nvim is not None
    listed = [{"sessionId": "s-1", "readOnly": True, "owner": owner}] if owner else []
    script = tmp_path / "next.lua"
    script.write_text(
        f"vim.opt.rtp:prepend({str(PLUGIN_DIR)!r})\n"
        "local next_compaction = require('compact_lsp.next_compaction')\n"
        f"require('compact_lsp.state').sessions = vim.json.decode({json.dumps(json.dumps(listed))})\n"
        f"local next_one = vim.json.decode({json.dumps(json.dumps(next_one))})\n"
        "local out = {line = next_compaction.line('s-1', {nextCompaction = next_one}),\n"
        "  warning = next_compaction.warning('s-1', next_one),\n"
        "  short = select(2, next_compaction.warning('s-1', next_one))}\n"
        "io.stdout:write(vim.json.encode(out))\n"
    )
    argv = [nvim, "--clean", "--headless", "-l", str(script)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_our_own_session_is_warned_before_compact_lsp_compacts_it(tmp_path: Path) -> None:
    shown = words(tmp_path, NEAR)
    assert shown["line"] == "~490 tokens / ~1 turn to compact-lsp's automatic compaction at 9k"
    assert shown["warning"] == (
        "this session compacts by itself in ~490 tokens / ~1 turn: :Compact full with a focus, :Compact pin what "
        "must survive, or let it run (autoCompact.threshold: 9,000)."
    )


def test_our_automatic_compaction_turned_off_is_named(tmp_path: Path) -> None:
    shown = words(tmp_path, OFF)
    off = '"autoCompact.enabled": false'
    assert shown["line"] == f"compact-lsp will not compact this session by itself: {off} turns it off"


def test_an_older_claude_code_rule_is_named_in_the_warning(tmp_path: Path) -> None:
    origin = "Claude Code 2.0.14 compacts at the window less 45,000 (2.1.21 and later: the window less 33,000)"
    shown = words(tmp_path, {**NEAR, "thresholdTokens": 955_000, "tokensLeft": 15_000, "origin": origin}, "Claude Code")
    assert shown["warning"].startswith("Claude Code compacts by itself in ~15k tokens / ~1 turn: /compact with a focus")
    assert shown["warning"].endswith(f"or let it run. {origin}.")


def test_a_warning_cut_to_the_message_line_keeps_what_happens_and_when(tmp_path: Path) -> None:
    origin = "Claude Code's default: the window less 33,000"
    at_next = {**NEAR, "thresholdTokens": 967_000, "tokensLeft": 0, "origin": origin}
    shown = words(tmp_path, at_next, "Claude Code")
    assert shown["warning"].endswith(f"or let it run. {origin}.")  # whole, in :messages
    assert shown["short"] == "Claude Code compacts by itself at its next step (967k reached): /compact or :Compact pin."
    # it fits the message line of a 120-column Neovim with the prefix: when it happens is never the part left out
