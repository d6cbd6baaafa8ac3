"""``compact.installClaudeCodeHook``: merge our ``SessionStart`` hook into Claude Code's settings (or remove it).

The editors offer it as a palette command; the work is ``companion.hook_settings`` (the same as
``compact-lsp claude-code install-hook``). A settings file that cannot be changed safely is an InvalidParams
error naming the file; a file the server cannot write is a RequestFailed error naming it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from compact_lsp.companion.hook_settings import SettingsFileError, install_hook, settings_path, uninstall_hook
from compact_lsp.lsp.errors import invalid_params, request_failed
from compact_lsp.lsp.handlers import command_handler
from compact_lsp.lsp.params import command_argument, optional_str

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

INSTALL_CLAUDE_CODE_HOOK = "compact.installClaudeCodeHook"
SCOPES = ("project", "user")


def register(server: CompactLanguageServer) -> None:
    server.command(INSTALL_CLAUDE_CODE_HOOK)(command_handler(server, install_claude_code_hook_command))


async def install_claude_code_hook_command(server: CompactLanguageServer, args: tuple[object, ...]) -> dict[str, Any]:
    command = INSTALL_CLAUDE_CODE_HOOK
    arg = command_argument(args, command)
    scope = optional_str(arg, "scope", command) or "project"
    if scope not in SCOPES:
        raise invalid_params(f'{command}: \'scope\' must be "project" or "user", got {scope!r}')
    uninstall = arg.get("uninstall", False)
    if not isinstance(uninstall, bool):
        raise invalid_params(f"{command}: 'uninstall' must be a boolean")
    if scope == "project" and server.workspace_root is None:
        raise invalid_params(f'{command}: no workspace folder is open; use scope "user" for all projects')
    path = settings_path(scope, server.workspace_root or "")
    try:
        change = await asyncio.to_thread(uninstall_hook if uninstall else install_hook, path)
    except SettingsFileError as exc:
        raise invalid_params(f"{command}: {exc}") from None
    except OSError as exc:
        raise request_failed(f"cannot write Claude Code settings file {path}: {exc.strerror or exc}") from None
    return {
        "changed": change.changed,
        "path": str(change.path),
        "backup": None if change.backup is None else str(change.backup),
        "message": change.message,
    }
