"""``compact.install<Agent>Hook`` (``compact.installClaudeCodeHook``, ``compact.installCodexHook``): merge our
``SessionStart`` hook into an agent's settings (or remove it), one command per registered agent
(agents/registered.py), named from its owner words.

The editors offer them as palette commands; the work is the agent's own ``install_hook`` (the same as
``compact-lsp <agent> install-hook``). A settings file that cannot be changed safely is an InvalidParams error
naming the file; a file the server cannot write is a RequestFailed error naming it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from compact_lsp.agents import registered
from compact_lsp.agents.agent import AgentBeside
from compact_lsp.agents.other_installs import also_installed
from compact_lsp.agents.settings_files import SettingsFileError
from compact_lsp.lsp.features.handlers import command_handler
from compact_lsp.lsp.protocol.errors import invalid_params, request_failed
from compact_lsp.lsp.protocol.params import command_argument, optional_str

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

SCOPES = ("project", "user")


def install_command(agent: AgentBeside) -> str:
    """``compact.installClaudeCodeHook`` for Claude Code: the protocol's name for the agent's install command."""
    return f"compact.install{agent.owner.replace(' ', '')}Hook"


def register(server: CompactLanguageServer) -> None:
    for agent in registered.AGENTS:
        server.command(install_command(agent))(command_handler(server, _installer(agent)))


def _installer(agent: AgentBeside) -> Callable[[CompactLanguageServer, tuple[object, ...]], Awaitable[dict[str, Any]]]:
    async def install(server: CompactLanguageServer, args: tuple[object, ...]) -> dict[str, Any]:
        return await install_hook_command(server, args, agent=agent)

    install.__name__ = f"install_{agent.name.replace('-', '_')}_hook"
    return install


async def install_hook_command(
    server: CompactLanguageServer, args: tuple[object, ...], *, agent: AgentBeside
) -> dict[str, Any]:
    command = install_command(agent)
    arg = command_argument(args, command)
    scope = optional_str(arg, "scope", command) or "project"
    if scope not in SCOPES:
        raise invalid_params(f'{command}: \'scope\' must be "project" or "user", got {scope!r}')
    uninstall = arg.get("uninstall", False)
    if not isinstance(uninstall, bool):
        raise invalid_params(f"{command}: 'uninstall' must be a boolean")
    if scope == "project" and server.workspace_root is None:
        raise invalid_params(f'{command}: no workspace folder is open; use scope "user" for all projects')
    path = agent.settings_path(scope, server.workspace_root or "")
    project = server.workspace_root if scope == "project" else None
    try:
        change = await asyncio.to_thread(agent.uninstall_hook if uninstall else agent.install_hook, path, project)
    except SettingsFileError as exc:
        raise invalid_params(f"{command}: {exc}") from None
    except OSError as exc:
        raise request_failed(f"cannot write {agent.settings_words} {path}: {exc.strerror or exc}") from None
    notes = [] if uninstall else await asyncio.to_thread(also_installed, agent, scope, server.workspace_root or "")
    return {
        "changed": change.changed,
        "path": str(change.path),
        "backup": None if change.backup is None else str(change.backup),
        "message": " ".join([change.message, *notes]),
    }
