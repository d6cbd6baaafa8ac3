"""``compact-lsp <agent> hook | install-hook | uninstall-hook``, for every registered agent (agents/registered.py).

``hook`` is what the agent runs after its compaction (``agents/hook_process.py``: ``cli.main`` starts it without
this parser when its arguments are the hook's own); ``install-hook`` and ``uninstall-hook`` merge it into the
agent's settings file.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import IO, Any

from compact_lsp.agents import registered
from compact_lsp.agents.agent import AgentBeside
from compact_lsp.agents.character_fit import DEFAULT_BUDGET
from compact_lsp.agents.hook_process import run_hook
from compact_lsp.agents.other_installs import also_installed
from compact_lsp.agents.settings_files import SettingsFileError


def add_parsers(sub: Any) -> None:
    for agent in registered.AGENTS:
        add_parser(sub, agent)


def add_parser(sub: Any, agent: AgentBeside) -> None:
    command = sub.add_parser(agent.name, help=f"companion for {agent.owner}: its compaction hook")
    actions = command.add_subparsers(dest="action", required=True)
    hook = actions.add_parser("hook", help=f"run as {agent.owner}'s SessionStart hook (reads its JSON on stdin)")
    hook.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="characters for files and slices")
    hook.add_argument("--check", action="store_true", help="only say that the hook can start, and exit")
    for name, verb in (("install-hook", "merge the hook into"), ("uninstall-hook", "remove the hook from")):
        p = actions.add_parser(name, help=f"{verb} {agent.settings_words}")
        scope = p.add_mutually_exclusive_group()
        for where, text in agent.scope_help.items():
            scope.add_argument(f"--{where}", action="store_const", dest="scope", const=where, help=text)
        p.add_argument("--dir", default=".", help="the project directory (default: the current one)")


def main(argv: list[str], agent: AgentBeside) -> int:
    """``compact-lsp <agent> ...`` without the other subcommands' imports: the hook starts fast."""
    parser = argparse.ArgumentParser(prog="compact-lsp")
    add_parser(parser.add_subparsers(dest="command", required=True), agent)
    return agent_command(parser.parse_args(argv), agent)


def agent_command(
    ns: argparse.Namespace, agent: AgentBeside, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None
) -> int:
    if ns.action == "hook" and ns.check:
        from compact_lsp.agents.hook_launcher import ready

        (stdout or sys.stdout).write(ready(agent.name) + "\n")
        return 0
    if ns.action == "hook":
        return run_hook(stdin or sys.stdin.buffer, stdout or sys.stdout, budget=ns.budget, agent=agent.name)
    scope = ns.scope or "project"
    project_dir = os.path.abspath(ns.dir)
    path = agent.settings_path(scope, project_dir)
    try:
        project = project_dir if scope == "project" else None
        change = (agent.install_hook if ns.action == "install-hook" else agent.uninstall_hook)(path, project)
    except (SettingsFileError, OSError) as exc:
        sys.stderr.write(f"compact-lsp {agent.name} {ns.action}: {exc}\n")
        return 1
    out = stdout or sys.stdout
    out.write(change.message + (f" (backup: {change.backup})" if change.backup else "") + "\n")
    if ns.action == "install-hook":
        out.write("".join(f"{note}\n" for note in also_installed(agent, scope, project_dir)))
    return 0
