"""What a followed transcript's session keeps of each record of its window besides the messages: when each message
was logged, and which uuids were seen. Both are kept packed: a session holds one of each for every record of its
window, and as Python strings they were a fifth of what a window of short records costs (a 36-character uuid is an
85-byte string, a 24-character stamp 73 bytes, beside a message of ~600).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

STAMP_CHARS = 24
"""The length of Claude Code's stamps (``2026-12-01T12:00:00.000Z``), kept as that many bytes each."""
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class LoggedAt:
    """When each message was logged, as a list of the stamps (None or any other value kept as it is): the stamps of
    Claude Code's length and in ASCII packed in one buffer, the rest beside it by position."""

    def __init__(self) -> None:
        self._packed = bytearray()
        self._other: dict[int, str | None] = {}
        self._count = 0

    def extend(self, stamps: Iterable[str | None]) -> None:
        for stamp in stamps:
            if isinstance(stamp, str) and len(stamp) == STAMP_CHARS and stamp.isascii():
                self._packed += stamp.encode("ascii")
            else:
                self._other[self._count] = stamp
                self._packed += bytes(STAMP_CHARS)
            self._count += 1

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str | None]:
        text = self._packed.decode("ascii")
        other = self._other
        for i in range(self._count):
            yield other[i] if i in other else text[i * STAMP_CHARS : (i + 1) * STAMP_CHARS]


def _key(uuid: str) -> int | str:
    """A uuid as it is kept: a lower-case UUID as its 128-bit number (44 bytes), anything else as it is (a string
    is never equal to a number, so two keys are equal only for equal uuids)."""
    return int(uuid.replace("-", ""), 16) if _UUID.fullmatch(uuid) else uuid


class SeenUuids:
    """A set of record uuids, kept as ``_key`` says."""

    def __init__(self, uuids: Iterable[str] = ()) -> None:
        self._keys = {_key(uuid) for uuid in uuids}

    def __contains__(self, uuid: str) -> bool:
        return _key(uuid) in self._keys

    def add(self, uuid: str) -> None:
        self._keys.add(_key(uuid))

    def __len__(self) -> int:
        return len(self._keys)
