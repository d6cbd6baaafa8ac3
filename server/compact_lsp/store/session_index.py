"""What a session picker shows, kept beside the session files so that listing never loads a session.

``index.json`` in a workspace's session directory holds one ``SessionSummary`` per session file: its title,
source, message and token counts, whether loading it skipped damaged records, and the size and mtime of the
journal it describes. An entry is trusted only while the journal still has that size and mtime; any other
writer (``compact-lsp import``, a crash before the index was written, another server) makes it stale, and the
lister rebuilds that one entry from the journal. The index is a cache: a missing, torn or unreadable index
costs a rebuild, never a session. ``current-session`` beside it holds the id of the workspace's current
session (the one the user chose last).

Kept current in memory at once, written at most once per ``WRITE_INTERVAL`` (every change of any session used to
rewrite every session's entry: O(sessions) per append): a change after a quiet spell is written at once, one
during a burst a ``WRITE_INTERVAL`` after the last write, and ``flush`` writes what is left when the server shuts
down. A crash loses only the last interval's freshness, which the size-and-mtime check already covers: those
entries are rebuilt. Written atomically (a temporary file, then ``os.replace``), 0600 like the journals; entries
change under a lock (sessions change in worker threads), and writes are taken one at a time, each of the entries as
they were when it began, so a later write never loses to an earlier one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from compact_lsp.engine.conversation.messages import blocks_of
from compact_lsp.engine.prompts import SUMMARY_PREAMBLE

log = logging.getLogger(__name__)

INDEX_FILE = "index.json"
CURRENT_FILE = "current-session"
INDEX_VERSION = 2
TITLE_MAX_CHARS = 80
SOURCES = ("chat", "import", "api")
"""What a stored session's ``source`` may be: an agent's followed session is never stored (its name is its source
only in memory, lsp/sessions/registry.py)."""
WRITE_INTERVAL = 0.5
"""Seconds between two writes of ``index.json`` while changes keep coming."""

_NOT_THE_USER = ("<", "Caveat:")
"""User text that the IDE or the agent's harness wrote: ``<ide_opened_file>``, ``<command-name>``,
``<system-reminder>``, Claude Code's local-command caveat."""
_ENGINE_PREFIXES = (SUMMARY_PREAMBLE[:40], "This session is being continued")
"""Compaction summaries (ours, and Claude Code's in imported logs): the first request is before them."""


@dataclass
class SessionSummary:
    """One ``compact/sessions`` item as stored (engine kind names, epoch seconds)."""

    session_id: str
    title: str
    source: str
    created_at: float
    updated_at: float
    messages: int
    by_kind: dict[str, int]
    reported: int | None = None
    damaged_records: int = 0
    """Lines loading the journal had to skip (``LoadReport.damaged_records``)."""
    size: int = 0
    """The journal's size when this was taken: the entry is valid only while the journal still has it."""
    mtime_ns: int = 0
    context_window: int | None = None
    """A followed session's: the agent's window (its gauge is the agent's own figure, ``agent_usage``); never
    stored."""
    turns: int = 0
    """A followed session's user turns in its window, the pace of the agent's next compaction (``turnsLeft``, as
    ``compact/status`` says it); never stored."""

    def matches(self, size: int, mtime_ns: int) -> bool:
        return self.size == size and self.mtime_ns == mtime_ns

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        del data["context_window"], data["turns"]  # a followed session's, never stored
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SessionSummary | None:
        """A stored entry, or None when it is not one (an older or damaged index)."""
        try:
            summary = cls(
                session_id=str(data["session_id"]),
                title=str(data.get("title", "")),
                source=str(data.get("source", "api")),
                created_at=float(data["created_at"]),
                updated_at=float(data["updated_at"]),
                messages=int(data["messages"]),
                by_kind={str(k): int(v) for k, v in dict(data["by_kind"]).items()},
                reported=None if data.get("reported") is None else int(data["reported"]),
                damaged_records=int(data.get("damaged_records", 0)),
                size=int(data["size"]),
                mtime_ns=int(data["mtime_ns"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        return summary if summary.source in SOURCES else None


def source_of(header: Mapping[str, Any] | None, session_id: str) -> str:
    """A journal header's ``source``; journals from before it was recorded: imports by their ``cc-`` id."""
    source = header.get("source") if header else None
    if isinstance(source, str) and source in SOURCES:
        return source
    return "import" if session_id.startswith("cc-") else "api"


def own_request(message: Mapping[str, Any]) -> str | None:
    """The first line of what the user wrote in ``message`` themselves, if anything."""
    if message.get("role") != "user":
        return None
    for block in blocks_of(message):  # type: ignore[arg-type]
        if block.get("type") != "text":
            continue
        text = str(block.get("text", "")).strip()
        if not text or text.startswith(_NOT_THE_USER) or text.startswith(_ENGINE_PREFIXES):
            continue
        line = text.splitlines()[0].strip()
        return line if len(line) <= TITLE_MAX_CHARS else line[: TITLE_MAX_CHARS - 1] + "…"
    return None


def first_request(messages: Iterable[Mapping[str, Any]]) -> str | None:
    """The user's first own request in ``messages`` (IDE notices and engine attachments skipped)."""
    for message in messages:
        text = own_request(message)
        if text:
            return text
    return None


def first_request_in_records(records: Iterable[Mapping[str, Any]]) -> str | None:
    """The same from a journal's records: the appended messages as they were sent, before any compaction."""
    for record in records:
        if record.get("type") != "append":
            continue
        messages = record.get("messages")
        if isinstance(messages, list):
            text = first_request(m for m in messages if isinstance(m, Mapping))
            if text:
                return text
    return None


@dataclass
class SessionIndex:
    """The summaries of one workspace's sessions and its current session, on disk beside the journals."""

    directory: Path
    write_interval: float = WRITE_INTERVAL
    clock: Callable[[], float] = time.monotonic
    _entries: dict[str, SessionSummary] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    """Held while the entries are read or changed, and while deciding when to write."""
    _writing: threading.Lock = field(default_factory=threading.Lock, repr=False)
    """Held by one write at a time, from taking the entries to the rename."""
    _unwritten: bool = field(default=False, repr=False)
    """The entries changed since the last write began."""
    _written_at: float = field(default=float("-inf"), repr=False)
    _due: threading.Timer | None = field(default=None, repr=False)
    """The write waiting for the interval to pass, if one is."""
    _json: dict[str, tuple[SessionSummary, dict[str, Any]]] = field(default_factory=dict, repr=False)
    """Each entry's JSON beside the summary it was made from (summaries are replaced, never changed)."""

    @property
    def path(self) -> Path:
        return self.directory / INDEX_FILE

    def _loaded(self) -> dict[str, SessionSummary]:
        if self._entries is None:
            self._entries = self._read()
        return self._entries

    def _read(self) -> dict[str, SessionSummary]:
        try:
            data = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("session index %s is unreadable (%s); it will be rebuilt", self.path, exc)
            return {}
        if (
            not isinstance(data, dict)
            or data.get("version") != INDEX_VERSION
            or not isinstance(data.get("sessions"), list)
        ):
            return {}
        entries = {}
        for item in data["sessions"]:
            summary = SessionSummary.from_json(item) if isinstance(item, dict) else None
            if summary is not None:
                entries[summary.session_id] = summary
        return entries

    def get(self, session_id: str, size: int, mtime_ns: int) -> SessionSummary | None:
        """The stored summary when it still describes the journal (same size and mtime), else None."""
        with self._lock:
            summary = self._loaded().get(session_id)
        return summary if summary is not None and summary.matches(size, mtime_ns) else None

    def known(self, session_id: str) -> SessionSummary | None:
        """The stored summary whether or not it is stale (its title outlives compactions)."""
        with self._lock:
            return self._loaded().get(session_id)

    def put(self, summary: SessionSummary) -> None:
        """Keep ``summary`` as its session's entry now; written with the next write (see the module doc)."""
        with self._lock:
            self._loaded()[summary.session_id] = summary
            now = self._changed()
        if now:
            self.flush()

    def forget(self, keep: Iterable[str]) -> None:
        """Drop entries whose journal is gone."""
        wanted = set(keep)
        with self._lock:
            entries = self._loaded()
            gone = [sid for sid in entries if sid not in wanted]
            for sid in gone:
                del entries[sid]
            now = bool(gone) and self._changed()
        if now:
            self.flush()

    def _changed(self) -> bool:
        """Under the lock, after a change: True when it is to be written at once (the last write is an interval
        old); otherwise a write is set for when the interval has passed, unless one is already."""
        self._unwritten = True
        if self._due is not None:
            return False
        wait = self._written_at + self.write_interval - self.clock()
        if wait <= 0:
            self._written_at = self.clock()  # claimed: a change racing this one waits for the interval
            return True
        self._due = threading.Timer(wait, self.flush)
        self._due.name = f"session-index {self.directory.name}"
        self._due.daemon = True  # a pending write at exit is a crash's loss: freshness only
        self._due.start()
        return False

    def flush(self) -> None:
        """Write the entries now if they changed since the last write (the server is shutting down, or the
        interval passed)."""
        with self._writing:
            with self._lock:
                if self._due is not None:
                    self._due.cancel()
                    self._due = None
                if not self._unwritten:
                    return
                self._unwritten = False
                self._written_at = self.clock()
                entries = self._loaded()
                payload = {"version": INDEX_VERSION, "sessions": [self._as_json(s) for s in entries.values()]}
            _write_atomically(self.path, json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode())

    def _as_json(self, summary: SessionSummary) -> dict[str, Any]:
        """The entry's JSON, made once per summary put: each write converts every entry, and converting all 50
        entries of a busy workspace again each time was a third of the interpreter's time at load."""
        cached = self._json.get(summary.session_id)
        if cached is None or cached[0] is not summary:
            cached = self._json[summary.session_id] = (summary, summary.to_json())
        return cached[1]

    # -- the current session ----------------------------------------------------------------------------------

    def current(self) -> str | None:
        try:
            text = (self.directory / CURRENT_FILE).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return text or None

    def set_current(self, session_id: str) -> None:
        with self._lock:
            _write_atomically(self.directory / CURRENT_FILE, session_id.encode())


def _write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old or the new file, never half of one."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        log.warning("cannot write %s: %s", path, exc)
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except OSError as exc:
        log.warning("cannot write %s: %s", path, exc)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
