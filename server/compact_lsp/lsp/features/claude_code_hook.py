"""``compact.installClaudeCodeHook`` / ``compact.installCodexHook``: merge our ``SessionStart`` hook into the
agent's settings (or remove it).

The editors offer them as palette commands; the work is ``companion.hook_settings`` (the same as
``compact-lsp claude-code install-hook``) and ``companion.codex_settings`` (``compact-lsp codex install-hook``).
A settings file that cannot be changed safely is an InvalidParams error naming the file; a file the server
cannot write is a RequestFailed error naming it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.claude_code import settings as hook_settings
from compact_lsp.agents.codex import settings as codex_settings
from compact_lsp.lsp.features.handlers import command_handler
from compact_lsp.lsp.protocol.errors import invalid_params, request_failed
from compact_lsp.lsp.protocol.params import command_argument, optional_str

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

INSTALL_CLAUDE_CODE_HOOK = "compact.installClaudeCodeHook"
INSTALL_CODEX_HOOK = "compact.installCodexHook"
SCOPES = ("project", "user")


def register(server: CompactLanguageServer) -> None:
    server.command(INSTALL_CLAUDE_CODE_HOOK)(command_handler(server, install_claude_code_hook_command))
    server.command(INSTALL_CODEX_HOOK)(command_handler(server, install_codex_hook_command))


async def install_claude_code_hook_command(server: CompactLanguageServer, args: tuple[object, ...]) -> dict[str, Any]:
    return await _install_hook(server, args, INSTALL_CLAUDE_CODE_HOOK)


async def install_codex_hook_command(server: CompactLanguageServer, args: tuple[object, ...]) -> dict[str, Any]:
    return await _install_hook(server, args, INSTALL_CODEX_HOOK)


async def _install_hook(server: CompactLanguageServer, args: tuple[object, ...], command: str) -> dict[str, Any]:
    arg = command_argument(args, command)
    scope = optional_str(arg, "scope", command) or "project"
    if scope not in SCOPES:
        raise invalid_params(f'{command}: \'scope\' must be "project" or "user", got {scope!r}')
    uninstall = arg.get("uninstall", False)
    if not isinstance(uninstall, bool):
        raise invalid_params(f"{command}: 'uninstall' must be a boolean")
    if scope == "project" and server.workspace_root is None:
        raise invalid_params(f'{command}: no workspace folder is open; use scope "user" for all projects')
    codex = command == INSTALL_CODEX_HOOK
    agent = codex_settings if codex else hook_settings
    path = (
        codex_settings.config_path(scope, server.workspace_root or "")
        if codex
        else hook_settings.settings_path(scope, server.workspace_root or "")
    )
    try:
        if codex:
            change = await asyncio.to_thread(agent.uninstall_hook if uninstall else agent.install_hook, path)
        else:
            project = server.workspace_root if scope == "project" else None
            claude = hook_settings.uninstall_hook if uninstall else hook_settings.install_hook
            change = await asyncio.to_thread(claude, path, project_dir=project)
    except (hook_settings.SettingsFileError, codex_settings.ConfigFileError) as exc:
        raise invalid_params(f"{command}: {exc}") from None
    except OSError as exc:
        what = "Codex config file" if codex else "Claude Code settings file"
        raise request_failed(f"cannot write {what} {path}: {exc.strerror or exc}") from None
    return {
        "changed": change.changed,
        "path": str(change.path),
        "backup": None if change.backup is None else str(change.backup),
        "message": change.message,
    }
