"""``compact.installGeminiCLIHook`` through the real server: the user's Gemini CLI settings (a temporary HOME in the
server's environment) kept and given back byte for byte, the project's file written, a linked one refused."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import SERVER_ENV, Workspace, initialize_params, make_client, stop_server
from .conversation import command

HOOK = "compact.installGeminiCLIHook"
THEIRS = '{\n  "model": {"name": "gemini-2.5-pro"}\n}\n'


@pytest.fixture
async def home_client(tmp_path: Path, workspace: Workspace) -> AsyncIterator[tuple[LanguageClient, Path]]:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
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


async def test_user_install_keeps_the_users_settings_and_gives_them_back(
    home_client: tuple[LanguageClient, Path],
) -> None:
    client, home = home_client
    path = home / ".gemini" / "settings.json"
    path.write_text(THEIRS)
    first = await command(client, HOOK, {"scope": "user"})
    assert first["changed"] is True and first["path"] == str(path)
    data = json.loads(path.read_text())
    assert data["model"] == {"name": "gemini-2.5-pro"}
    (entry,) = data["hooks"]["BeforeModel"]
    assert "compact-lsp/launchers/gemini-cli-hook-" in entry["hooks"][0]["command"]
    assert (await command(client, HOOK, {"scope": "user"}))["changed"] is False
    removed = await command(client, HOOK, {"scope": "user", "uninstall": True})
    assert removed["changed"] is True and path.read_text() == THEIRS


async def test_project_install_writes_the_workspaces_settings_and_refuses_a_link(
    home_client: tuple[LanguageClient, Path], workspace: Workspace, tmp_path: Path
) -> None:
    client, _ = home_client
    result = await command(client, HOOK, {})
    assert result["path"] == str(workspace.root / ".gemini" / "settings.json")
    assert "BeforeModel" in json.loads((workspace.root / ".gemini" / "settings.json").read_text())["hooks"]
    await command(client, HOOK, {"uninstall": True})
    (workspace.root / ".gemini" / "settings.json").unlink(missing_ok=True)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("{}\n")
    (workspace.root / ".gemini" / "settings.json").symlink_to(elsewhere)
    with pytest.raises(Exception, match="symbolic link") as caught:
        await command(client, HOOK, {})
    assert getattr(caught.value, "code", None) == types.ErrorCodes.InvalidParams
    assert elsewhere.read_text() == "{}\n"
