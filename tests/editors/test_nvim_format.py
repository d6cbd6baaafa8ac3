"""Token figures as Neovim's messages and markers show them (the plugin's format module, in real Neovim)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tests.editors.nvim_support.runner import PLUGIN_DIR, nvim_executable

pytestmark = pytest.mark.skipif(nvim_executable() is None, reason="Neovim is not installed")


def changes(tmp_path: Path, pairs: list[tuple[int, int]]) -> list[str]:
    nvim = nvim_executable()
    assert nvim is not None
    script = tmp_path / "format.lua"
    script.write_text(
        f"vim.opt.rtp:prepend({str(PLUGIN_DIR)!r})\n"
        "local format = require('compact_lsp.format')\nlocal out = {}\n"
        f"for _, p in ipairs(vim.json.decode({json.dumps(pairs)!r})) do out[#out + 1] = format.change(p[1], p[2]) end\n"
        "io.stdout:write(vim.json.encode(out))\n"
    )
    argv = [nvim, "--clean", "--headless", "-l", str(script)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_a_compaction_that_freed_little_still_says_how_much(tmp_path: Path) -> None:
    assert changes(tmp_path, [(48_211, 12_034), (6_934, 6_871), (6_871, 6_934), (900, 900)]) == [
        "48.2k → 12k tokens",
        "6.9k → 6.9k tokens (−63)",
        "6.9k → 6.9k tokens (+63)",
        "900 → 900 tokens",
    ]


def test_a_message_cut_to_fit_keeps_the_subcommand_of_the_command_it_names(tmp_path: Path) -> None:
    nvim = nvim_executable()
    assert nvim is not None
    message = "compact-lsp: read-only: Qwen Code owns this session. :Compact import continues it here as your own copy"
    script = tmp_path / "fit.lua"
    script.write_text(
        f"vim.opt.rtp:prepend({str(PLUGIN_DIR)!r})\n"
        f"io.stdout:write(require('compact_lsp.format').fit_words({json.dumps(message)}, 80))\n"
    )
    done = subprocess.run(
        [nvim, "--clean", "--headless", "-l", str(script)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) <= 80 + 2 and ":Compact import " in done.stdout, done.stdout  # "…" is 3 bytes
