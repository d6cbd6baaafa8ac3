"""A new user's first start: real Neovim (its TUI, in tmux) with the real lazy.nvim (../shared/vendor, its `stable`
release) in a clean HOME, the spec copied from editors/nvim/README.md. Asserted from what the screen shows."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.editors.nvim_support.runner import PLUGIN_DIR, REPO, nvim_executable
from tests.editors.nvim_support.tui import Screen, clean_home_env, tmux_executable

LAZY = REPO.parent / "shared" / "vendor" / "lazy.nvim"
if not LAZY.is_dir():  # a worktree beside the main checkout
    LAZY = REPO.parents[1] / "shared" / "vendor" / "lazy.nvim"

pytestmark = [
    pytest.mark.skipif(nvim_executable() is None, reason="Neovim is not installed"),
    pytest.mark.skipif(tmux_executable() is None, reason="tmux is not installed"),
    pytest.mark.skipif(not LAZY.is_dir(), reason="lazy.nvim is not in ../shared/vendor"),
]


def readme_spec(which: str) -> str:
    """The lazy.nvim spec of editors/nvim/README.md that starts with ``which`` (``dir =`` or the repository)."""
    readme = (PLUGIN_DIR / "README.md").read_text()
    blocks = re.findall(r"```lua\n(\{\n.*?)```", readme, flags=re.DOTALL)
    return next(block for block in blocks if block.split("\n")[1].strip().startswith(which))


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def repository_copy(target: Path) -> Path:
    """The repository as lazy.nvim would clone it: its files (as committed or being committed), in a git repo."""
    target.mkdir(parents=True)
    for name in ["pyproject.toml", "README.md", "LICENSE"]:
        if (REPO / name).exists():
            shutil.copy2(REPO / name, target / name)
    junk = shutil.ignore_patterns("__pycache__", "*.egg-info", ".venv", "node_modules", ".work", "tags")
    shutil.copytree(REPO / "server", target / "server", ignore=junk)
    shutil.copytree(PLUGIN_DIR, target / "editors" / "nvim", ignore=shutil.ignore_patterns("__pycache__"))
    git("init", "-q", "-b", "main", cwd=target)
    git("add", "-A", cwd=target)
    git("commit", "-q", "-m", "compact-lsp", cwd=target)
    return target


def new_user(tmp_path: Path, spec: str) -> tuple[Path, Path]:
    """A clean HOME whose init.lua is lazy.nvim's bootstrap and the spec, and a project folder."""
    home = tmp_path / "home"
    lazy = home / ".local" / "share" / "nvim" / "lazy" / "lazy.nvim"
    shutil.copytree(LAZY, lazy)
    # what lazy.nvim's bootstrap leaves: a git clone of its stable release
    git("init", "-q", "-b", "stable", cwd=lazy)
    git("add", "-A", cwd=lazy)
    git("commit", "-q", "-m", "lazy.nvim stable", cwd=lazy)
    config = home / ".config" / "nvim"
    config.mkdir(parents=True)
    (config / "init.lua").write_text(
        "local lazypath = vim.fn.stdpath('data') .. '/lazy/lazy.nvim'\n"
        "vim.opt.rtp:prepend(lazypath)\n"
        "vim.o.swapfile = false\n"
        f"require('lazy').setup({{\n{spec}}})\n"
    )
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "main.py").write_text('print("hello")\n')
    return home, project


def start(home: Path, project: Path, *args: str) -> Screen:
    nvim = nvim_executable()
    assert nvim is not None
    env = clean_home_env(home, {"PIP_CACHE_DIR": str(Path.home() / ".cache" / "pip")})
    return Screen([nvim, *args], cwd=project, env=env)


def assert_commands_work(screen: Screen) -> None:
    """The three commands exist and :Compact answers (no E492)."""
    screen.command("echo 'commands:' exists(':Compact') exists(':CompactChat') exists(':CompactInstall')")
    screen.wait_for("commands: 2 2 2")
    screen.command("Compact status")
    shown = screen.wait_for(lambda s: "no session in this workspace yet" in s or "Context " in s)
    assert "E492" not in shown, shown


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_first_start_after_a_lazy_install_has_the_commands_with_no_restart(tmp_path: Path) -> None:
    source = repository_copy(tmp_path / "published")
    spec = readme_spec("'compact-lsp/compact-lsp'").replace("'compact-lsp/compact-lsp'", f"url = '{source}'", 1)
    home, project = new_user(tmp_path, spec)
    # No compact-lsp and no virtualenv on PATH: only the system's python3; the build installs the server.
    with start(home, project) as screen:
        # lazy.nvim clones, then runs the build (a venv and pip install: a minute or two) in its window
        screen.wait_for("Working (1)", timeout=60)
        screen.wait_for("Installed (1)", timeout=330)
        screen.keys("q")  # close lazy.nvim's window, as a user does
        screen.wait_for(lambda s: "Installed (1)" not in s)
        screen.command("edit main.py")
        assert_commands_work(screen)
        screen.command("checkhealth compact_lsp")
        health = screen.wait_for("server found", timeout=60)
        assert "the plugin's own virtual environment" in health, health
    clone = home / ".local" / "share" / "nvim" / "lazy" / "compact-lsp"
    assert (clone / ".venv" / "bin" / "compact-lsp").exists()
    assert not (clone / ".venv" / "bin" / "compact-lsp").is_symlink()


def test_a_local_clone_with_dir_has_the_commands_before_any_file_opens(tmp_path: Path) -> None:
    clone = repository_copy(tmp_path / "src" / "compact-lsp")
    # A clone whose server is installed already (:CompactInstall, run once; here the checkout's own .venv).
    (clone / ".venv").symlink_to(REPO / ".venv")
    spec = readme_spec("dir =").replace("'~/src/compact-lsp'", f"'{clone}'", 1)
    home, project = new_user(tmp_path, spec)
    with start(home, project) as screen:
        screen.wait_for("~")  # Neovim's empty buffer
        # :Compact before any file: lazy.nvim's stand-in loads the plugin, which runs the real command
        screen.command("Compact status")
        shown = screen.wait_for("no session in this workspace yet")
        assert "E492" not in shown, shown
        assert_commands_work(screen)
        screen.command("edit main.py")
        attached = "#vim.lsp.get_clients({ bufnr = 0, name = 'compact_lsp' })"
        screen.command(f"lua vim.wait(20000, function() return {attached} > 0 end); print('attached:', {attached})")
        screen.wait_for("attached: 1", timeout=30)
