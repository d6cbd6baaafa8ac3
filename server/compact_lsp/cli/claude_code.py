"""``compact-lsp claude-code hook | install-hook | uninstall-hook``: the companion for Claude Code users.

``hook`` is what Claude Code runs (``agents/hook_process.py``: ``cli.main`` starts it without this parser when
its arguments are the hook's own); ``install-hook`` and ``uninstall-hook`` merge it into Claude Code's settings.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import IO, Any

from compact_lsp.agents.character_fit import DEFAULT_BUDGET
from compact_lsp.agents.hook_process import run_hook


def add_parser(sub: Any) -> None:
    cc = sub.add_parser("claude-code", help="companion for Claude Code: its compaction hook")
    actions = cc.add_subparsers(dest="action", required=True)
    hook = actions.add_parser("hook", help="run as Claude Code's SessionStart hook (reads its JSON on stdin)")
    hook.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="characters for files and slices")
    hook.add_argument("--check", action="store_true", help="only say that the hook can start, and exit")
    for name, verb in (("install-hook", "merge the hook into"), ("uninstall-hook", "remove the hook from")):
        p = actions.add_parser(name, help=f"{verb} Claude Code's settings")
        scope = p.add_mutually_exclusive_group()
        scope.add_argument("--project", action="store_const", dest="scope", const="project",
                           help="this project's .claude/settings.local.json (the default)")  # fmt: skip
        scope.add_argument("--user", action="store_const", dest="scope", const="user", help="~/.claude/settings.json")
        p.add_argument("--dir", default=".", help="the project directory (default: the current one)")


def main(argv: list[str]) -> int:
    """``compact-lsp claude-code ...`` without the other subcommands' imports: the hook starts fast."""
    parser = argparse.ArgumentParser(prog="compact-lsp")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return claude_code_command(parser.parse_args(argv))


def claude_code_command(ns: argparse.Namespace, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    if ns.action == "hook" and ns.check:
        from compact_lsp.agents.hook_launcher import ready

        (stdout or sys.stdout).write(ready("claude-code") + "\n")
        return 0
    if ns.action == "hook":
        return run_hook(stdin or sys.stdin.buffer, stdout or sys.stdout, budget=ns.budget)
    from compact_lsp.agents.claude_code.settings import SettingsFileError, install_hook, settings_path, uninstall_hook

    path = settings_path(ns.scope or "project", os.path.abspath(ns.dir))
    try:
        project = os.path.abspath(ns.dir) if (ns.scope or "project") == "project" else None
        change = (install_hook if ns.action == "install-hook" else uninstall_hook)(path, project_dir=project)
    except (SettingsFileError, OSError) as exc:
        sys.stderr.write(f"compact-lsp claude-code {ns.action}: {exc}\n")
        return 1
    out = stdout or sys.stdout
    out.write(change.message + (f" (backup: {change.backup})" if change.backup else "") + "\n")
    return 0
