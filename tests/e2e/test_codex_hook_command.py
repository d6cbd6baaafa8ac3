"""``compact.installCodexHook`` through the real server: the project's and the user's Codex config (a temporary
HOME and CODEX_HOME in the server's environment), the user's file kept, a linked or broken file refused."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import SERVER_ENV, Workspace, initialize_params, make_client, stop_server
from .conversation import command

HOOK = "compact.installCodexHook"
THEIRS = 'model = "gpt-5.5"  # mine\n'


@pytest.fixture
async def home_client(tmp_path: Path, workspace: Workspace) -> AsyncIterator[tuple[LanguageClient, Path]]:
    codex_home = tmp_path / "home" / ".codex"
    codex_home.mkdir(parents=True)
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "compact_lsp"],
        server_env={**SERVER_ENV, "HOME": str(codex_home.parent), "CODEX_HOME": str(codex_home)},
        client_factory=make_client,
    )
    lsp_client = await config.start()
    assert isinstance(lsp_client, LanguageClient)
    await lsp_client.initialize_session(initialize_params(workspace, None))
    yield lsp_client, codex_home
    await stop_server(lsp_client)


async def test_user_install_keeps_the_users_config_and_says_to_trust_it(
    home_client: tuple[LanguageClient, Path],
) -> None:
    client, codex_home = home_client
    path = codex_home / "config.toml"
    path.write_text(THEIRS)
    first = await command(client, HOOK, {"scope": "user"})
    assert first["changed"] is True and first["path"] == str(path) and first["backup"] == f"{path}.bak"
    assert "/hooks" in first["message"]
    text = path.read_text()
    assert (
        text.startswith(THEIRS) and "compact-lsp/launchers/codex-hook-" in text
    )  # the launcher, which was run once first
    assert (await command(client, HOOK, {"scope": "user"}))["changed"] is False
    removed = await command(client, HOOK, {"scope": "user", "uninstall": True})
    assert removed["changed"] is True and path.read_text() == THEIRS


async def test_project_install_writes_the_workspaces_codex_config(
    home_client: tuple[LanguageClient, Path], workspace: Workspace
) -> None:
    client, _ = home_client
    result = await command(client, HOOK, {})
    assert result["path"] == str(workspace.root / ".codex" / "config.toml")
    assert 'matcher = "compact"' in (workspace.root / ".codex" / "config.toml").read_text()


async def test_a_linked_project_config_is_refused(
    home_client: tuple[LanguageClient, Path], workspace: Workspace, tmp_path: Path
) -> None:
    client, _ = home_client
    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text('secret = "x"\n')
    (workspace.root / ".codex").mkdir()
    (workspace.root / ".codex" / "config.toml").symlink_to(elsewhere)
    with pytest.raises(Exception, match="symbolic link") as caught:
        await command(client, HOOK, {})
    assert getattr(caught.value, "code", None) == types.ErrorCodes.InvalidParams
    assert elsewhere.read_text() == 'secret = "x"\n'
