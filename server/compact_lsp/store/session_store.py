"""Sessions on disk: one append-only JSONL file per session, one directory per workspace.

Layout: ``<root>/<workspace-key>/<session-id>.jsonl`` where root is ``sessionDir`` or
``platformdirs.user_state_dir("compact-lsp")/sessions``. Each record is one line, written with a single
``write`` then ``fsync``ed before ``Journal.write`` returns, so a record the engine acted on survives a crash.
Files are created 0600 and directories 0700: transcripts hold source code and conversation text.

A failed write (a full disk) raises ``JournalWriteError`` and truncates the file back to its previous length,
so a half-written line never reaches the next load. Loading tolerates a torn last line (a crash mid-write) and
reports corrupt lines without dropping the records around them.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.runtime.atomic_files import fsync_directory
from compact_lsp.store.session_lock import WriterLock, lock_path

log = logging.getLogger(__name__)

SESSION_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
SUFFIX = ".jsonl"
PARTIAL_SUFFIX = ".partial"
"""A session being written whole (an import) before it gets its name: never listed, never loaded."""
FILE_MODE = 0o600
DIR_MODE = 0o700

Writer = Callable[[int, bytes], int]
"""``os.write``'s shape; injected so tests can fail a write part-way."""


class StoreError(RuntimeError):
    """Something about the session store a person has to fix (a bad session id, an unreadable directory)."""


class JournalWriteError(OSError):
    """A record could not be made durable; the session file is left as it was before the write."""


def default_root() -> Path:
    import platformdirs

    return Path(platformdirs.user_state_dir("compact-lsp")) / "sessions"


def workspace_key(workspace_root: str | None) -> str:
    """A short, stable, readable directory name for a workspace: ``<name>-<hash of the real path>``."""
    if not workspace_root:
        return "no-workspace"
    real = real_path(workspace_root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", os.path.basename(real.rstrip(os.sep)) or "root").strip("-")[:40]
    return f"{name or 'workspace'}-{digest}"


def check_session_id(session_id: str) -> str:
    if not isinstance(session_id, str) or not SESSION_ID_PATTERN.match(session_id):
        raise StoreError(f"invalid session id {session_id!r}: use letters, digits, '_', '.' or '-' (at most 128)")
    return session_id


@dataclass
class CorruptLine:
    line: int
    """1-based line number in the file."""
    reason: str


@dataclass
class LoadReport:
    """What loading a session file found besides good records."""

    path: Path
    records: int = 0
    corrupt: list[CorruptLine] = field(default_factory=list)
    torn_tail: bool = False
    """The last line was cut off mid-write (no newline, not valid JSON) and was ignored."""
    lines: list[int] = field(default_factory=list)
    """The line number of each good record, in order."""
    size: int = 0
    """Bytes up to the end of the last whole record (a torn tail not counted): where following starts."""

    @property
    def clean(self) -> bool:
        return not self.corrupt and not self.torn_tail

    @property
    def damaged_records(self) -> int:
        """Lines skipped for being corrupt or records that could not be applied (a torn tail is not counted: it
        is an interrupted write, never acknowledged)."""
        return len(self.corrupt)

    def skipped_record(self, index: int, reason: str) -> None:
        """Record ``index`` (0-based, among the good records) was well-formed but could not be applied."""
        line = self.lines[index] if 0 <= index < len(self.lines) else 0
        self.corrupt.append(CorruptLine(line, f"skipped: {reason}"))
        self.corrupt.sort(key=lambda c: c.line)

    def describe(self) -> str:
        parts = []
        if self.torn_tail:
            parts.append("the last line was cut off by an interrupted write and was ignored")
        if self.corrupt:
            shown = self.corrupt[:10]
            lines = ", ".join(f"{c.line} ({c.reason})" if i < 3 else str(c.line) for i, c in enumerate(shown))
            more = f" and {len(self.corrupt) - 10} more" if len(self.corrupt) > 10 else ""
            parts.append(f"skipped {len(self.corrupt)} damaged line(s): {lines}{more}")
        return f"{self.path.name}: " + "; ".join(parts) if parts else f"{self.path.name}: clean"


@dataclass(frozen=True)
class StoredSession:
    """A journal as the directory listing saw it: its size and mtime are what an index entry must match."""

    session_id: str
    path: str
    """As the listing gave it (a ``str``: a ``Path`` per journal was a tenth of listing 500 sessions)."""
    modified: float
    size: int
    mtime_ns: int


def parse_lines(data: bytes, path: Path) -> tuple[list[dict[str, Any]], LoadReport]:
    """Split a journal into records; a bad line is reported and skipped, the rest kept."""
    report = LoadReport(path=path)
    records: list[dict[str, Any]] = []
    lines = data.split(b"\n")
    ends_clean = data.endswith(b"\n") or not data
    if ends_clean:
        lines = lines[:-1]
    for number, raw in enumerate(lines, start=1):
        last = number == len(lines)
        if not raw.strip():
            continue
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            if last and not ends_clean:
                report.torn_tail = True
            else:
                report.corrupt.append(CorruptLine(number, f"not valid JSON ({exc})"))
            continue
        if not isinstance(record, dict):
            report.corrupt.append(CorruptLine(number, f"a record must be a JSON object, got {type(record).__name__}"))
            continue
        records.append(record)
        report.lines.append(number)
    report.records = len(records)
    report.size = len(data) if not report.torn_tail else data.rfind(b"\n") + 1
    return records, report


class SessionChanged(StoreError):
    """Another server wrote the session after this one loaded it; this one must catch up before it writes."""


class SessionJournal:
    """Appends records to one session file durably; the engine's ``Journal``.

    The first write takes the session's write lock (store/session_lock.py) and keeps it until ``close``; a session
    another server holds raises ``SessionBusy`` and nothing is written."""

    def __init__(self, path: Path, write: Writer = os.write) -> None:
        self.path = path
        self._write = write
        self._fd: int | None = None
        self._lock = threading.Lock()
        self.writer_lock = WriterLock(path)
        self.known_size: int | None = None
        """Bytes of the file this process has applied (loaded, followed or written); None: not tracked. A file
        longer than this when we come to write was appended to by another server meanwhile."""

    def read_new(self) -> bytes:
        """Whole lines appended since ``known_size`` (another server's records); advances ``known_size``."""
        start = self.known_size or 0
        try:
            with open(self.path, "rb") as f:
                f.seek(start)
                data = f.read()
        except OSError:
            return b""
        end = data.rfind(b"\n") + 1  # a line still being written is read next time
        self.known_size = start + end
        return data[:end]

    def _open(self) -> int:
        if self._fd is None:
            created = not self.path.exists()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
            try:
                _repair_tail(fd, self.path)
                if created:
                    fsync_directory(str(self.path.parent))
            except BaseException:
                os.close(fd)
                raise
            self._fd = fd
        return self._fd

    def write(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        with self._lock:
            self.writer_lock.acquire()
            fd = self._open()
            before = os.fstat(fd).st_size
            if self.known_size is not None and before > self.known_size:
                raise SessionChanged(
                    f"session {self.path.stem} was changed by another compact-lsp server since this one loaded it; "
                    "it is being brought up to date, try again"
                )
            try:
                view = memoryview(line)
                while view:
                    written = self._write(fd, view.tobytes())
                    if written <= 0:
                        raise OSError(errno.EIO, "write returned no progress")
                    view = view[written:]
                os.fsync(fd)
                if self.known_size is not None:
                    self.known_size = before + len(line)
            except OSError as exc:
                self._roll_back(fd, before)
                reason = os.strerror(exc.errno) if exc.errno else str(exc)
                raise JournalWriteError(
                    exc.errno or errno.EIO,
                    f"could not save the session to {self.path}: {reason}; nothing was changed",
                ) from exc

    def _roll_back(self, fd: int, length: int) -> None:
        try:
            os.ftruncate(fd, length)
            os.fsync(fd)
        except OSError:
            log.exception("could not truncate %s back to %d bytes after a failed write", self.path, length)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            self.writer_lock.release()


def _repair_tail(fd: int, path: Path) -> None:
    """Before appending after a torn last line, cut that line off so new records stay parseable."""
    size = os.fstat(fd).st_size
    if size == 0:
        return
    with open(path, "rb") as f:
        f.seek(max(0, size - 1))
        if f.read(1) == b"\n":
            return
        # Find the start of the torn line: scan back in chunks for the previous newline.
        end = size
        start = 0
        while end > 0:
            chunk_start = max(0, end - 65_536)
            f.seek(chunk_start)
            chunk = f.read(end - chunk_start)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                start = chunk_start + newline + 1
                break
            end = chunk_start
        f.seek(start)
        tail = f.read()
    try:
        json.loads(tail.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        log.warning("%s: cutting off a torn last line of %d bytes before appending", path, size - start)
        os.ftruncate(fd, start)
    else:
        os.write(fd, b"\n")  # a whole record missing only its newline: keep it
    os.fsync(fd)


class SessionStore:
    """The sessions of one workspace on disk."""

    def __init__(self, root: str | Path | None, workspace_root: str | None, *, write: Writer = os.write) -> None:
        self.root = Path(root).expanduser() if root else default_root()
        """Where every workspace's sessions live."""
        self.directory = self.root / workspace_key(workspace_root)
        """This workspace's sessions."""
        self._write = write
        self._journals: dict[str, SessionJournal] = {}

    def _ensure_directory(self) -> None:
        try:
            self.directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the session directory {self.directory}: {exc.strerror}") from exc

    def path_for(self, session_id: str) -> Path:
        return self.directory / f"{check_session_id(session_id)}{SUFFIX}"

    def exists(self, session_id: str) -> bool:
        return self.path_for(session_id).is_file()

    def holds(self, session_id: str) -> bool:
        """A session file with something in it (an empty one, left by a crash, holds nothing and is never listed)."""
        try:
            return self.path_for(session_id).lstat().st_size > 0
        except OSError:
            return False

    def partial_journal(self, session_id: str) -> SessionJournal:
        """A journal for a session written whole before anyone may see it (an import): under a name that is never
        listed or loaded (``<id>.partial``); what a crash left there before is thrown away first."""
        self._ensure_directory()
        partial = self.directory / f"{check_session_id(session_id)}{PARTIAL_SUFFIX}"
        for leftover in (partial, lock_path(partial)):
            leftover.unlink(missing_ok=True)
        return SessionJournal(partial, self._write)

    def publish(self, session_id: str, journal: SessionJournal) -> None:
        """Give the complete ``partial_journal`` its session's name, all at once (a rename): a crash before leaves
        no session, after it the whole one. ``FileExistsError`` when a session with content holds the name."""
        journal.close()
        final = self.path_for(session_id)
        if self.holds(session_id):
            raise FileExistsError(errno.EEXIST, "a session with that id exists", str(final))
        os.replace(journal.path, final)
        lock_path(journal.path).unlink(missing_ok=True)
        fsync_directory(str(self.directory))

    def journal_for(self, session_id: str) -> SessionJournal:
        """The journal that appends to this session's file (created 0600 on the first record)."""
        path = self.path_for(session_id)
        journal = self._journals.get(session_id)
        if journal is None:
            self._ensure_directory()
            journal = SessionJournal(path, self._write)
            self._journals[session_id] = journal
        return journal

    def load(self, session_id: str) -> tuple[list[dict[str, Any]], LoadReport]:
        path = self.path_for(session_id)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise StoreError(f"no saved session {session_id!r} in {self.directory}") from None
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror}") from exc
        records, report = parse_lines(data, path)
        if not report.clean:
            log.warning("loading session %s: %s", session_id, report.describe())
        return records, report

    def list_sessions(self) -> list[StoredSession]:
        """Saved sessions of this workspace, most recently modified first."""
        return sorted(self._scan(), key=lambda s: s.modified, reverse=True)

    def _scan(self) -> Iterator[StoredSession]:
        try:
            entries = list(os.scandir(self.directory))
        except FileNotFoundError:
            return
        for entry in entries:
            if not entry.name.endswith(SUFFIX):
                continue
            session_id = entry.name[: -len(SUFFIX)]
            if not SESSION_ID_PATTERN.match(session_id):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if entry.is_file(follow_symlinks=False):
                yield StoredSession(session_id, entry.path, st.st_mtime, st.st_size, st.st_mtime_ns)

    def close(self) -> None:
        for journal in self._journals.values():
            journal.close()
        self._journals.clear()
