"""``compact.installClaudeCodeHook`` through the real server: the project's and the user's Claude Code settings
(a temporary HOME in the server's environment), idempotence, other hooks kept, uninstall, a broken file refused."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import SERVER_ENV, Workspace, initialize_params, make_client, stop_server
from .conversation import command

HOOK = "compact.installClaudeCodeHook"
THEIRS = {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}


@pytest.fixture
async def home_client(tmp_path: Path, workspace: Workspace) -> AsyncIterator[tuple[LanguageClient, Path]]:
    home = tmp_path / "home"
    home.mkdir()
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "compact_lsp"],
        server_env={**SERVER_ENV, "HOME": str(home)},
        client_factory=make_client,
    )
    lsp_client = await config.start()
    assert isinstance(lsp_client, LanguageClient)
    await lsp_client.initialize_session(initialize_params(workspace, None))
    yield lsp_client, home
    await stop_server(lsp_client)


def session_start(path: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads(path.read_text())["hooks"]["SessionStart"]
    return entries


async def test_project_install_is_idempotent_keeps_other_hooks_and_uninstalls(
    home_client: tuple[LanguageClient, Path], workspace: Workspace
) -> None:
    client, home = home_client
    settings = workspace.write(
        ".claude/settings.local.json", json.dumps({"model": "x", "hooks": {"SessionStart": [THEIRS]}})
    )

    first = await command(client, HOOK, {})

    assert first["changed"] is True and first["path"] == str(settings)
    assert first["backup"] == str(settings) + ".bak"
    assert json.loads(Path(first["backup"]).read_text())["hooks"]["SessionStart"] == [THEIRS]
    entries = session_start(settings)
    assert entries[0] == THEIRS and entries[1]["matcher"] == "compact"
    launcher = Path(entries[1]["hooks"][0]["command"])
    assert launcher.is_relative_to(home) and "-m compact_lsp claude-code hook" in launcher.read_text()
    assert json.loads(settings.read_text())["model"] == "x"

    again = await command(client, HOOK, {"scope": "project"})
    assert again["changed"] is False and "already installed" in again["message"]
    assert len(session_start(settings)) == 2

    removed = await command(client, HOOK, {"uninstall": True})
    assert removed["changed"] is True and "removed" in removed["message"]
    assert session_start(settings) == [THEIRS]
    assert not (home / ".claude").exists()


async def test_user_scope_writes_under_the_servers_home(home_client: tuple[LanguageClient, Path]) -> None:
    client, home = home_client

    result = await command(client, HOOK, {"scope": "user"})

    user_settings = home / ".claude" / "settings.json"
    assert result == {
        "changed": True,
        "path": str(user_settings),
        "backup": None,
        "message": f"installed the compact-lsp hook in {user_settings}",
    }
    assert session_start(user_settings)[0]["matcher"] == "compact"
    nothing = await command(client, HOOK, {"scope": "user", "uninstall": True})
    assert nothing["changed"] is True
    nothing = await command(client, HOOK, {"scope": "user", "uninstall": True})
    assert nothing["changed"] is False and "nothing to remove" in nothing["message"]


async def test_a_broken_settings_file_is_refused_naming_it(
    home_client: tuple[LanguageClient, Path], workspace: Workspace
) -> None:
    client, _ = home_client
    settings = workspace.write(".claude/settings.local.json", "{not json")

    with pytest.raises(Exception, match=r"settings\.local\.json is not valid JSON"):
        await command(client, HOOK, {})
    assert settings.read_text() == "{not json"
    with pytest.raises(Exception, match="'scope' must be"):
        await command(client, HOOK, {"scope": "everywhere"})
