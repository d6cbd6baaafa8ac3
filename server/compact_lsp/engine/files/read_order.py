"""What the read-file state knows about its records as a whole, kept up as records come and go.

Rehydration takes candidates best first and stops when its budget is spent; these two facts let it do so without
going through every record: whether the records, newest touched first, are also newest read first (then recency
ranking is their own order and nothing needs sorting), and how many records there are of each size class (then "could
any record still fit in what is left?" has a quick, sure no); and which records are of files named SKILL.md (the
skills come back with them), so finding them does not mean passing every record either.
"""

from __future__ import annotations

from collections import Counter

from compact_lsp.engine.files.read_record import ReadRecord

SKILL_FILE_NAME = "SKILL.md"


def size_class(tokens: int) -> int:
    """0 for 0 tokens; else c with 2**(c-1) <= tokens < 2**c."""
    return max(tokens, 0).bit_length()


class ReadOrder:
    """Kept by ``ReadFileState`` at every put and eviction; each record's tokens are set before it is put and never
    change afterwards (but once, by ``resized``, for a replayed read), so the classes stay exact."""

    def __init__(self) -> None:
        self.time_ordered = True
        """Every record was put with a ``read_at`` no older than any before it (a clock that never went back)."""
        self._newest_at = float("-inf")
        self._classes: Counter[int] = Counter()
        self._skill_files: dict[str, None] = {}  # realpaths of records of files named SKILL.md, oldest put first

    def added(self, record: ReadRecord) -> None:
        if record.read_at < self._newest_at:
            self.time_ordered = False  # for good: recency order must then be sorted out of the read times
        self._newest_at = max(self._newest_at, record.read_at)
        self._classes[size_class(record.tokens)] += 1
        if record.realpath.endswith(SKILL_FILE_NAME):
            self._skill_files[record.realpath] = None

    def removed(self, record: ReadRecord | None) -> None:
        if record is not None:
            self._classes[size_class(record.tokens)] -= 1
            self._skill_files.pop(record.realpath, None)

    def skill_files(self) -> list[str]:
        """Realpaths of the records whose file is named SKILL.md, newest first (what skill rehydration looks at)."""
        return list(reversed(self._skill_files))

    def resized(self, before: int, after: int) -> None:
        """A replayed read's tokens, counted once the replay ended (``ReadFileState.replay``): its class moves."""
        self._classes[size_class(before)] -= 1
        self._classes[size_class(after)] += 1

    def may_hold(self, tokens: int) -> bool:
        """Whether some record may be of at most ``tokens`` tokens (False is sure; True means look)."""
        if tokens < 0:
            return False
        return any(count > 0 and (1 << c >> 1) <= tokens for c, count in self._classes.items())
