"""The engine's side of the front process (relay.py): after every change that moves what a session's
``compact/status`` is answered with at once, the front is sent that answer, or told to ask the engine again.

What moves it, and where it is told: a status published after a change (lsp/sessions/snapshots.py ``publish``, in the
change's worker thread, under the session's lock), the session's lock released or a change expected
(``SessionLock``: a hold that published nothing leaves a status that must be measured), a full compaction
claimed or let go (``ContextSession.on_compacting``), settings replaced (every session's snapshot dropped), a slot
put in the registry. Each time the answer is taken afresh, as the engine would answer the request now
(``snapshots.answer_now``), and sent only when it differs from the one the front holds. Frames go through the
protocol's writer, so they keep their order with the answers: the snapshot of an append is with the front before
the append's answer reaches the client.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from compact_lsp.relay_frames import ACK, SNAPSHOT, WITHDRAW, relay_frame


class RelayChannel:
    """What the engine told the front, by session; thread-safe (changes publish from worker threads)."""

    def __init__(self, write: Callable[[bytes], None]) -> None:
        self._write = write
        self._lock = threading.Lock()
        """Held while an answer is taken and sent: two threads telling one session must not cross."""
        self._sent: dict[str, bytes] = {}

    def announce(self, session: str, answer_now: Callable[[], bytes | None]) -> None:
        """Tell the front what ``session``'s status is answered with now (None: ask the engine)."""
        with self._lock:
            answer = answer_now()
            if answer is None:
                if self._sent.pop(session, None) is not None:
                    self._write(relay_frame(WITHDRAW, session))
                return
            last = self._sent.get(session)
            if last is answer or last == answer:
                return
            self._sent[session] = answer
            self._write(relay_frame(SNAPSHOT, session, answer))

    def ack(self) -> None:
        """A frame the front marked is handled."""
        self._write(relay_frame(ACK))
