"""End-to-end fixtures: the real server over stdio (``python -m compact_lsp``) driven by pytest-lsp.

Every server gets its own workspace, session directory and memory roots under ``tmp_path`` and XDG directories
in a private temp dir, so no test touches the user's real state or config.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import register_lsp_features
from tests.support.fixtures import messages_api  # noqa: F401 - the loopback Messages API fixture
from tests.support.protocol_schema import assert_no_protocol_problems, watch_client

from compact_lsp.lsp.protocol.wire import json_converter

GUARD = 30.0
"""A hang guard for waits on notifications; they normally arrive within milliseconds."""

_XDG = Path(tempfile.mkdtemp(prefix="compact-lsp-e2e-xdg-"))
SERVER_ENV = {
    **os.environ,
    "XDG_STATE_HOME": str(_XDG / "state"),
    "XDG_CONFIG_HOME": str(_XDG / "config"),
    "XDG_CACHE_HOME": str(_XDG / "cache"),
    "ANTHROPIC_API_KEY": "test-key",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # nothing listens: a test that compacts passes its stub's URL
}


def make_client() -> LanguageClient:
    """pytest-lsp's test client, but custom results and notifications arrive as plain dicts."""
    lsp_client = LanguageClient(converter_factory=json_converter)
    register_lsp_features(lsp_client)
    watch_client(lsp_client)  # every response and notification is checked against docs/protocol.schema.json
    return lsp_client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "compact_lsp"], server_env=SERVER_ENV, client_factory=make_client
)


class Workspace:
    """A temporary workspace with its session directory and memory roots."""

    def __init__(self, root: Path) -> None:
        self.root = root / "ws"
        self.sessions = root / "sessions"
        self.user_memory = root / "user-memory"
        self.project_memory = self.root / ".compact" / "memory"
        for d in (self.root, self.sessions, self.user_memory, self.project_memory):
            d.mkdir(parents=True, exist_ok=True)

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def options(self, **extra: Any) -> dict[str, Any]:
        return {
            "sessionDir": str(self.sessions),
            "memory": {"userRoot": str(self.user_memory)},
            "autoCompact": {"enabled": False},
            # up-to-date background notes would make compactions instant and skip the stub's scripted replies;
            # tests/e2e/test_session_notes.py turns them on
            "sessionMemory": {"enabled": False},
            **extra,
        }


def initialize_params(workspace: Workspace, options: dict[str, Any] | None) -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True),
            workspace=types.WorkspaceClientCapabilities(configuration=True),
        ),
        root_uri=workspace.root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.root.as_uri(), name="ws")],
        initialization_options=workspace.options() if options is None else options,
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


@pytest.fixture
def init_options() -> dict[str, Any] | None:
    """Override in a test module (or parametrise) to start the server with other initializationOptions."""
    return None


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, workspace: Workspace, init_options: dict[str, Any] | None):
    await lsp_client.initialize_session(initialize_params(workspace, init_options))
    yield
    await lsp_client.shutdown_session()
    assert_no_protocol_problems(lsp_client)


async def start_server(workspace: Workspace, options: dict[str, Any] | None = None) -> LanguageClient:
    """A second (or restarted) server for the same workspace; stop it with ``stop_server``."""
    lsp_client = await SERVER.start()
    assert isinstance(lsp_client, LanguageClient)
    await lsp_client.initialize_session(initialize_params(workspace, options))
    return lsp_client


async def stop_server(lsp_client: LanguageClient) -> None:
    await lsp_client.shutdown_session()
    await lsp_client.stop()
    assert_no_protocol_problems(lsp_client)
