"""Which read-file records' ``compact/status`` entries may have changed since the status last looked.

A session that has read a thousand files publishes its status after every append; building and encoding every
entry each time made an append cost more the more files its session had read (issue 28). ``ReadFileState`` notes
here every record it puts, replaces, evicts or changes in a way the status shows (freshness, whether the model
still has it, whether it is open or unsaved in the editor); the status keeps each other entry as it was
(lsp/read_files_wire.py). One reader: the session's published status.
"""

from __future__ import annotations


class ShownChanges:
    """Real paths whose records changed since ``take``; everything, until the first ``take``."""

    def __init__(self) -> None:
        self._paths: set[str] = set()
        self._all = True

    def touch(self, realpath: str) -> None:
        if not self._all:
            self._paths.add(realpath)

    def touch_all(self) -> None:
        self._all = True
        self._paths = set()

    def take(self) -> set[str] | None:
        """The real paths changed since the last ``take`` (None: take every record as changed), and start over."""
        if self._all:
            self._all = False
            self._paths = set()
            return None
        paths, self._paths = self._paths, set()
        return paths
