"""``compact-lsp codex hook | install-hook | uninstall-hook``: the companion for Codex CLI users.

``hook`` is what Codex runs, with the Claude Code hook's rules (``companion/hook_process.run_hook``): whatever happens
it exits 0, prints one JSON object or nothing, and logs why (``codex-hook.log``, 0600).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import IO, Any

from compact_lsp.agents.character_fit import DEFAULT_BUDGET
from compact_lsp.agents.hook_process import run_hook


def add_parser(sub: Any) -> None:
    cx = sub.add_parser("codex", help="companion for Codex CLI: its compaction hook")
    actions = cx.add_subparsers(dest="action", required=True)
    hook = actions.add_parser("hook", help="run as Codex's SessionStart hook (reads its JSON on stdin)")
    hook.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="characters for files and slices")
    hook.add_argument("--check", action="store_true", help="only say that the hook can start, and exit")
    for name, verb in (("install-hook", "merge the hook into"), ("uninstall-hook", "remove the hook from")):
        p = actions.add_parser(name, help=f"{verb} Codex's config.toml")
        scope = p.add_mutually_exclusive_group()
        scope.add_argument("--project", action="store_const", dest="scope", const="project",
                           help="this project's .codex/config.toml (default; read in trusted projects)")  # fmt: skip
        scope.add_argument("--user", action="store_const", dest="scope", const="user",
                           help="$CODEX_HOME/config.toml (~/.codex/config.toml)")  # fmt: skip
        p.add_argument("--dir", default=".", help="the project directory (default: the current one)")


def main(argv: list[str]) -> int:
    """``compact-lsp codex ...`` without the other subcommands' imports."""
    parser = argparse.ArgumentParser(prog="compact-lsp")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return codex_command(parser.parse_args(argv))


def codex_command(ns: argparse.Namespace, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    if ns.action == "hook" and ns.check:
        from compact_lsp.agents.hook_launcher import ready

        (stdout or sys.stdout).write(ready("codex") + "\n")
        return 0
    if ns.action == "hook":
        return run_hook(stdin or sys.stdin.buffer, stdout or sys.stdout, budget=ns.budget, agent="codex")
    from compact_lsp.agents.codex.settings import ConfigFileError, config_path, install_hook, uninstall_hook

    path = config_path(ns.scope or "project", os.path.abspath(ns.dir))
    try:
        change = install_hook(path) if ns.action == "install-hook" else uninstall_hook(path)
    except (ConfigFileError, OSError) as exc:
        sys.stderr.write(f"compact-lsp codex {ns.action}: {exc}\n")
        return 1
    out = stdout or sys.stdout
    out.write(change.message + (f" (backup: {change.backup})" if change.backup else "") + "\n")
    return 0
