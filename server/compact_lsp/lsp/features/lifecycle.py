"""initialize, didChangeConfiguration, shutdown: settings in, the store and the watcher up and down."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from compact_lsp.engine.files.allowed_roots import too_wide
from compact_lsp.engine.files.memory import ManagedMemory
from compact_lsp.engine.files.usable_path import path_problem, real_path, real_path_or_none
from compact_lsp.lsp.features.documents import open_documents_in
from compact_lsp.lsp.features.handlers import notification_handler
from compact_lsp.lsp.following.agent_follow import follow_agents, stop_all
from compact_lsp.lsp.sessions.registry import SessionRegistry
from compact_lsp.lsp.sessions.usage_notifier import UsageNotifier
from compact_lsp.lsp.settings import ParsedSettings, merge_settings, parse_settings, resolve_paths, unwrap_configuration
from compact_lsp.lsp.work.in_session import in_session, on_file_changed
from compact_lsp.lsp.work.journal_follow import follow
from compact_lsp.lsp.work.notify import sync_watches
from compact_lsp.runtime.io_threads import SessionThreads
from compact_lsp.store.session_store import SessionStore
from compact_lsp.tracking.watcher import FileWatcher

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer
    from compact_lsp.lsp.sessions.session_slot import SessionSlot

log = logging.getLogger(__name__)

FOLLOWED_READ_WAIT = 10.0
"""Seconds a request naming an unknown session waits for the followed transcripts being read (a huge one is
listed later; the request then answers "unknown session")."""


def register(server: CompactLanguageServer) -> None:
    for method, handler in (
        (types.INITIALIZE, initialize),
        (types.WORKSPACE_DID_CHANGE_CONFIGURATION, did_change_configuration),
        (types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, did_change_workspace_folders),
        (types.SHUTDOWN, shutdown),
    ):
        server.feature(method)(notification_handler(server, handler))


def initialize(server: CompactLanguageServer, params: types.InitializeParams) -> None:
    """Settings in, then the session store, the registry, the usage notifier and the file watcher up."""
    server.loop = asyncio.get_running_loop()
    server.loop.set_default_executor(SessionThreads(thread_name_prefix="compact-session"))
    server.workspace_folders = admitted_roots(server, workspace_folders_from(params), "workspace folder")
    root = workspace_root_from(params)
    if root is not None and not admitted_roots(server, [root], "workspace folder"):
        root = server.workspace_folders[0] if server.workspace_folders else None  # the first one that may be
    server.workspace_root = root
    apply_settings(server, parse_settings(params.initialization_options))
    settings = server.settings
    store = SessionStore(settings.session_dir, server.workspace_root)
    server.sessions = SessionRegistry(
        store,
        settings,
        server.workspace_root,
        on_load_report=server.report_load,
        on_loaded=lambda slot: session_loaded(server, slot),
        followed_reads=lambda: followed_reads(server),
    )
    server.usage_notifier = UsageNotifier(server.send_notification)
    server.watcher = FileWatcher(server.loop, lambda path: on_file_changed(server, path))
    server.watcher.start()
    follow_agents(server)
    log.info("compact-lsp: workspace %s, sessions in %s", server.workspace_root, store.directory)


async def followed_reads(server: CompactLanguageServer) -> None:
    """Wait for the followed transcripts being read now, at most ``FOLLOWED_READ_WAIT`` seconds."""
    for follower in list(server.followers.values()):
        await follower.reads_done(FOLLOWED_READ_WAIT)


def did_change_configuration(server: CompactLanguageServer, params: types.DidChangeConfigurationParams) -> None:
    """A (partial) change merges onto the settings in force; sessions and their read-file state stay."""
    change = unwrap_configuration(params.settings)
    if change is None:
        return
    if not isinstance(change, Mapping):
        server.show_warning("compact-lsp: settings must be an object; keeping the current settings")
        return
    old_dir = server.settings.session_dir
    old_follow = dict(server.follow_settings)
    apply_settings(server, parse_settings(merge_settings(server.raw_settings, change), server.raw_settings))
    registry = server.sessions
    if registry is None:
        return
    registry.update_settings(server.settings)
    follow_agents(server, old_follow)
    if server.settings.session_dir != old_dir:
        registry.use_store(SessionStore(server.settings.session_dir, server.workspace_root))
    server.run_task(usage_after_settings(server), name="usage after a settings change")


def shutdown(server: CompactLanguageServer, params: Any = None) -> None:
    stop_all(server)
    if server.watcher is not None:
        server.watcher.stop()
    if server.usage_notifier is not None:
        server.usage_notifier.close()
    if server.sessions is not None:
        server.sessions.index.flush()  # the last changes' entries, so the next server lists without rebuilding
        server.sessions.store.close()


async def usage_after_settings(server: CompactLanguageServer) -> None:
    """New settings change every loaded session's figures (window, thresholds): tell the client at once."""
    registry = server.sessions
    if registry is None:
        return
    for slot in list(registry.slots.values()):
        if slot.session.compacting:
            continue  # its result will carry the new figures
        await in_session(server, slot, lambda: None, changes=True)


def did_change_workspace_folders(server: CompactLanguageServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    """Folders added to or removed from a multi-root workspace: the allowed roots follow, sessions keep going."""

    def paths(folders: Sequence[types.WorkspaceFolder]) -> list[str]:
        return [real_path(p) for p in (folder_path(f.uri) for f in folders) if p]

    removed = set(paths(params.event.removed))
    kept = [f for f in server.workspace_folders if f not in removed]
    added = admitted_roots(server, paths(params.event.added), "workspace folder")
    server.workspace_folders = tuple(dict.fromkeys([*kept, *added]))
    server.settings = replace(server.settings, workspace_folders=server.workspace_folders)
    if server.sessions is not None:
        server.sessions.update_settings(server.settings)
    log.info("compact-lsp: workspace folders now %s", ", ".join(server.workspace_folders) or "none")


def session_loaded(server: CompactLanguageServer, slot: SessionSlot) -> None:
    """A session joined the server: it learns the open documents, and the watcher follows its files."""
    follow(server, slot)
    open_documents_in(server, slot)
    sync_watches(server, slot)


def apply_settings(server: CompactLanguageServer, parsed: ParsedSettings) -> None:
    """Swap in the parsed settings; the values it ignored are reported to the user, the rest apply."""
    message = parsed.message()
    # a client that sends the same settings again (Neovim does right after initialize) is not warned twice
    repeated = message == server.settings_message and parsed.accepted == server.raw_settings
    server.settings_message = message
    if message is not None and not repeated:
        log.warning(message)
        server.show_warning(message)
    server.raw_settings = parsed.accepted
    settings = resolve_paths(parsed.engine, server.workspace_root)
    server.settings = replace(settings, workspace_folders=server.workspace_folders)
    server.agent_settings = parsed.agent
    server.follow_settings = parsed.follow_settings()
    admitted_roots(server, server.settings.additional_directories, "additionalDirectories entry")
    for ignored in ManagedMemory.from_settings(server.settings.memory, server.workspace_root).ignored:
        if ignored.warning not in server.ignored_roots_warned:
            server.ignored_roots_warned.add(ignored.warning)
            log.warning(ignored.warning)
            server.show_warning(ignored.warning)


def admitted_roots(server: CompactLanguageServer, paths: Iterable[str], what: str) -> tuple[str, ...]:
    """``paths`` without those that may never be a work root (``too_wide``: ``/``, the home directory, a link to
    either); each one left out is named once in a warning."""
    admitted: list[str] = []
    for path in paths:
        problem = too_wide(path)
        if problem is None:
            admitted.append(path)
            continue
        warning = (
            f"compact-lsp: ignoring the {what} {path}: {problem}. The root of the disk and your home directory are "
            "never work roots (they hold ~/.ssh and every other secret); open a project folder instead."
        )
        if warning not in server.ignored_roots_warned:
            server.ignored_roots_warned.add(warning)
            log.warning(warning)
            server.show_warning(warning)
    return tuple(admitted)


def folder_path(uri: str) -> str | None:
    """The folder a workspace URI names; None for one that is not a file URI or names no usable path."""
    try:
        path = to_fs_path(uri)
    except (ValueError, UnicodeError):
        path = None
    if path is None or path_problem(path) is not None:
        log.warning("ignoring the workspace folder %r: it names no folder on this machine", uri[:200])
        return None
    return path


def workspace_root_from(params: types.InitializeParams) -> str | None:
    """The first workspace folder (else rootUri, else rootPath) as a real path."""
    if params.workspace_folders:
        uri: str | None = params.workspace_folders[0].uri
    else:
        uri = params.root_uri
    path = folder_path(uri) if uri else params.root_path
    return real_path_or_none(path) if path else None


def workspace_folders_from(params: types.InitializeParams) -> tuple[str, ...]:
    """Every workspace folder (multi-root) as a real path, the first one first."""
    paths = (folder_path(folder.uri) for folder in params.workspace_folders or ())
    return tuple(dict.fromkeys(real for p in paths if p and (real := real_path_or_none(p))))
