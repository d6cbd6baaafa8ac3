"""Which read-file records' ``compact/status`` entries changed since the status last looked, and how.

A session that has read a thousand files publishes its status after every append; building and encoding every
entry each time made an append cost more the more files its session had read (issue 28). ``ReadFileState`` notes
here every record it puts (new, or read again: it becomes the newest), evicts, or changes in place in a way the
status shows (freshness, whether the model still has it, whether it is open or unsaved in the editor); the status
keeps every other entry, in place, as it was (lsp/protocol/read_files_wire.py).
One reader: the session's published status.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Changes:
    """What happened to the records since the last look."""

    put: dict[str, None] = field(default_factory=dict)
    """Real paths put, oldest put first: each is now newer than every record not in here."""
    touched: set[str] = field(default_factory=set)
    """Changed in place (their place in the order is theirs still)."""
    removed: set[str] = field(default_factory=set)
    """Evicted."""


class ShownChanges:
    """The changes since ``take``; everything, until the first ``take``."""

    def __init__(self) -> None:
        self._changes = Changes()
        self._all = True

    def put(self, realpath: str) -> None:
        if not self._all:
            self._changes.put.pop(realpath, None)
            self._changes.put[realpath] = None  # evicted and put again: removed first, then put (read_files_wire)

    def touch(self, realpath: str) -> None:
        if not self._all:
            self._changes.touched.add(realpath)

    def remove(self, realpath: str) -> None:
        if not self._all:
            self._changes.put.pop(realpath, None)
            self._changes.touched.discard(realpath)
            self._changes.removed.add(realpath)

    def touch_all(self) -> None:
        self._all = True
        self._changes = Changes()

    def take(self) -> Changes | None:
        """The changes since the last ``take`` (None: take every record as changed), and start over."""
        changes, self._changes = self._changes, Changes()
        if self._all:
            self._all = False
            return None
        return changes
