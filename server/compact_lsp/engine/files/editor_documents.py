"""Documents open in the editor: their text and version, whether unsaved, and the order they were focused in.

The editor's ``didOpen``/``didChange``/``didSave``/``didClose`` and focus changes are tracked apart from the
model's reads: an open document is not something the model has seen, but rehydration ranks a focused file
higher and brings back a dirty buffer's text rather than the stale bytes on disk. ``ReadFileState`` owns one
``EditorDocuments`` and delegates its document methods to it.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)


def display_path(path: str, root: str | None) -> str:
    """``path`` relative to ``root`` when it lies inside it, else as given."""
    if root:
        try:
            rel = os.path.relpath(path, root)
        except ValueError:  # another drive on Windows
            return path
        if rel != os.pardir and not rel.startswith(os.pardir + os.sep):
            return rel
    return path


@dataclass
class EditorDocument:
    """A document open in the editor (didOpen/didChange/didClose), tracked apart from the model's reads."""

    path: str
    realpath: str
    text: str
    version: int
    display_path: str = ""
    dirty: bool = False
    focused_at: float = 0.0
    """When it was last focused (or opened); open documents are ordered by it, newest first."""


DocumentListener = Callable[[EditorDocument, bool], None]
"""Told of every open, change, save and close: the document and whether it is still open."""


class EditorDocuments:
    """The open documents by realpath, in focus order (the most recently focused or opened last)."""

    def __init__(
        self,
        resolve: Callable[[str], tuple[str, str]],
        clock: Callable[[], float],
        display: Callable[[str], str],
        on_update: DocumentListener,
    ) -> None:
        """``resolve`` gives a path's (resolved, realpath), ``display`` a resolved path's display form."""
        self._resolve = resolve
        self._clock = clock
        self._display = display
        self._on_update = on_update
        self._documents: OrderedDict[str, EditorDocument] = OrderedDict()

    def get(self, realpath: str) -> EditorDocument | None:
        return self._documents.get(realpath)

    def __contains__(self, realpath: object) -> bool:
        return realpath in self._documents

    def open(self, path: str, text: str, version: int) -> EditorDocument:
        resolved, real = self._resolve(path)
        doc = EditorDocument(resolved, real, text, version, self._display(resolved), False, self._clock())
        self._documents[real] = doc
        self._documents.move_to_end(real)
        self._on_update(doc, True)
        return doc

    def change(self, path: str, text: str, version: int) -> EditorDocument:
        doc = self._documents.get(self._resolve(path)[1])
        if doc is None:  # a change before an open: the client skipped didOpen; track it anyway
            log.warning("didChange for a document that is not open: %s", path)
            doc = self.open(path, text, version)
        doc.text, doc.version, doc.dirty = text, version, True
        self._on_update(doc, True)
        return doc

    def save(self, path: str) -> None:
        doc = self._documents.get(self._resolve(path)[1])
        if doc is not None:
            doc.dirty = False
            self._on_update(doc, True)

    def close(self, path: str) -> None:
        doc = self._documents.pop(self._resolve(path)[1], None)
        if doc is not None:
            self._on_update(doc, False)

    def focus(self, path: str) -> None:
        key = self._resolve(path)[1]
        doc = self._documents.get(key)
        if doc is not None:
            doc.focused_at = self._clock()
            self._documents.move_to_end(key)

    def by_focus(self) -> list[EditorDocument]:
        """Open documents, most recently focused (or opened) first."""
        return list(reversed(self._documents.values()))
