"""The language server object: all state lives on one ``CompactLanguageServer``, built by ``create_server``.

Features (custom requests, commands, document sync, lifecycle) register themselves from the one list in
``features/__init__.py``. Handlers are thin: check params, call the engine under the session's lock, convert.
Nothing here writes to stdout except pygls' JSON-RPC writer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from compact_lsp import __version__
from compact_lsp.agent.settings import AgentSettings
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.engine.summarize.anthropic_api import summarizer_from_settings
from compact_lsp.engine.summarize.base import Summarizer
from compact_lsp.lsp.protocol.errors import request_failed
from compact_lsp.lsp.protocol.wire import AnsweringProtocol, json_converter
from compact_lsp.lsp.sessions.chat_state import ChatState
from compact_lsp.lsp.sessions.registry import SessionRegistry
from compact_lsp.lsp.sessions.usage_notifier import UsageNotifier
from compact_lsp.store.session_index import SessionSummary
from compact_lsp.store.session_store import LoadReport
from compact_lsp.tracking.watcher import FileWatcher

log = logging.getLogger(__name__)

SummarizerFactory = Callable[[EngineSettings], Summarizer]
"""Builds the summariser for a compaction from the settings: the model one when a key is set, else offline."""


class Follower(Protocol):
    """A folder of another agent's transcripts followed read-only (lsp/following/)."""

    def stop(self) -> None: ...

    async def reads_done(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) for the transcripts being read now."""


class CompactLanguageServer(LanguageServer):
    """compact-lsp: sessions, the read-file tracking behind them, and the notifications about them."""

    def __init__(self, settings: EngineSettings) -> None:
        super().__init__(
            "compact-lsp",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Full,
            converter_factory=json_converter,
            protocol_cls=AnsweringProtocol,
        )
        self.settings = settings
        """Current engine settings; replaced whole on a configuration change and pushed into every session."""
        self.raw_settings: dict[str, Any] = {}
        """The settings object as applied (camelCase, invalid values left out), so a partial change merges onto it."""
        self.settings_message: str | None = None
        """The last warning about ignored settings, so the same settings sent again are not warned about twice."""
        self.agent_settings = AgentSettings()
        """The ``agent`` settings, parsed with the rest where they enter."""
        self.workspace_root: str | None = None
        """The first workspace folder (or rootUri) as a real path; relative paths are relative to it."""
        self.workspace_folders: tuple[str, ...] = ()
        """Every workspace folder (multi-root), real paths: with ``additionalDirectories``, the allowed roots."""
        self.sessions: SessionRegistry | None = None
        """Loaded sessions and their store; set in ``initialize``."""
        self.watcher: FileWatcher | None = None
        """Watches the directories of files the model saw; set in ``initialize``."""
        self.usage_notifier: UsageNotifier | None = None
        """Debounces ``compact/didChangeUsage``; set in ``initialize``."""
        self.documents: dict[str, tuple[str, str, int]] = {}
        """Open editor documents: uri → (path, text, version); replayed into sessions loaded later."""
        self.background: set[asyncio.Task[Any]] = set()
        """Tasks started with ``run_task``, kept so they are not garbage-collected mid-flight."""
        self.summarizer_factory: SummarizerFactory = summarizer_from_settings
        """Builds the summariser for a compaction from the current settings (tests inject a loopback one)."""
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop serving the client; worker threads hand results back through it."""
        self.chat = ChatState()
        """The built-in agent's permission answers and running turns, per session (``compact/chat``)."""
        self.follow_settings: dict[str, Any] = {}
        """Each agent's follow settings (``claudeCode.*``, ``codex.*``), by its name (agents/registered.py)."""
        self.followers: dict[str, Follower] = {}
        """The agents whose transcripts are followed now, by name (lsp/following/agent_follow.py)."""
        self.ignored_roots_warned: set[str] = set()
        """Memory roots already reported as ignored (``memory.IgnoredRoot``): each is warned about once."""
        self.session_items: dict[str, tuple[SessionSummary, EngineSettings, dict[str, Any]]] = {}
        """``compact/sessions`` items as last listed, by session, with the summary and settings each was built from
        (lsp/features/session_picker.py): rebuilt only when either is new."""

    # -- helpers used by the features ------------------------------------------------------------------------

    def registry(self) -> SessionRegistry:
        if self.sessions is None:
            raise request_failed("the server is not initialized yet; send 'initialize' first")
        return self.sessions

    def send_notification(self, method: str, params: dict[str, Any]) -> None:
        self.protocol.notify(method, params)

    def show_warning(self, message: str) -> None:
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    def report_load(self, report: LoadReport) -> None:
        """A session file had torn or corrupt lines: tell the user (from any thread)."""
        message = f"compact-lsp: recovered a damaged session file: {report.describe()}"
        log.warning(message)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None and self.loop is not None:
            self.loop.call_soon_threadsafe(self.show_warning, message)
        else:
            self.show_warning(message)

    def run_task(self, work: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Start background work; keeps a reference and logs a failure with its traceback."""
        task = asyncio.get_running_loop().create_task(work, name=name)
        self.background.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self.background.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("background task %s failed", name, exc_info=t.exception())

        task.add_done_callback(done)
        return task
