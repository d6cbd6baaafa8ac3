"""Editor documents (didOpen/didChange/didSave/didClose) join every session's read-file state."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from compact_lsp.engine.files.usable_path import path_problem
from compact_lsp.lsp.features.handlers import notification_handler

if TYPE_CHECKING:
    from compact_lsp.engine.files.read_state import ReadFileState
    from compact_lsp.lsp.server import CompactLanguageServer
    from compact_lsp.lsp.sessions.session_slot import SessionSlot

log = logging.getLogger(__name__)


def register(server: CompactLanguageServer) -> None:
    for method, handler in (
        (types.TEXT_DOCUMENT_DID_OPEN, did_open),
        (types.TEXT_DOCUMENT_DID_CHANGE, did_change),
        (types.TEXT_DOCUMENT_DID_SAVE, did_save),
        (types.TEXT_DOCUMENT_DID_CLOSE, did_close),
    ):
        server.feature(method)(notification_handler(server, handler))


def document_path(uri: str) -> str | None:
    """The file a document URI names; None (with a log line) for one that is not a file (an untitled buffer, a
    diff view) or names no usable path (``%00`` decodes to a NUL byte)."""
    try:
        path = to_fs_path(uri)
    except (ValueError, UnicodeError) as exc:
        log.info("ignoring the document %r: its URI cannot be read (%s)", uri[:200], exc)
        return None
    if path is None:
        return None
    problem = path_problem(path)
    if problem is not None:
        log.info("ignoring the document %r: its path %s", uri[:200], problem)
        return None
    return path


def each_session(server: CompactLanguageServer, update: Callable[[ReadFileState], object], what: str) -> None:
    """Apply ``update`` to every loaded session's read-file state, in order, under each session's lock."""
    if server.sessions is None:
        return
    for slot in list(server.sessions.slots.values()):
        slot.lock.expect()  # a status read after this notification, before the task runs, must not miss it
        server.run_task(_locked(slot, update), name=f"{what} in {slot.session.id}")


def did_open(server: CompactLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    path = document_path(doc.uri)
    if path is None:
        return
    server.documents[doc.uri] = (path, doc.text, doc.version)
    each_session(server, lambda rs: rs.open_document(path, doc.text, doc.version), "didOpen")


def did_change(server: CompactLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    path = document_path(uri)
    if path is None:
        return
    text = server.workspace.get_text_document(uri).source
    version = params.text_document.version
    server.documents[uri] = (path, text, version)

    def update(rs: ReadFileState) -> None:
        rs.change_document(path, text, version)
        rs.focus_document(path)

    each_session(server, update, "didChange")


def did_save(server: CompactLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    path = document_path(params.text_document.uri)
    if path is None:
        return
    each_session(server, lambda rs: rs.save_document(path), "didSave")


def did_close(server: CompactLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    path = document_path(params.text_document.uri)
    server.documents.pop(params.text_document.uri, None)
    if path is None:
        return
    each_session(server, lambda rs: rs.close_document(path), "didClose")


async def _locked(slot: SessionSlot, update: Callable[[ReadFileState], object]) -> None:
    async with slot.lock:
        update(slot.session.read_state)


def open_documents_in(server: CompactLanguageServer, slot: SessionSlot) -> None:
    """A session created or loaded after documents were opened learns about them too."""
    for path, text, version in server.documents.values():
        slot.session.read_state.open_document(path, text, version)
