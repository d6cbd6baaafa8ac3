"""What the front process (relay.py) and the engine process behind it say to each other, besides the client's
frames: frames with a ``Compact-Relay`` header, which never reach the client.

Engine → front:
- ``snapshot``: the ``compact/status`` result a session's status request is answered with now (the body, JSON),
  sent after every change that moves it (lsp/relay_channel.py);
- ``withdraw``: that session's status must be asked of the engine again (measured, under its lock);
- ``ack``: a client frame the front marked is handled (what it changed at once is in the snapshots sent before).

Front → engine: the client's frames, re-framed; one whose handling may change a status at once (a notification:
a document closed, settings changed) carries ``Compact-Relay: ack`` and is acknowledged. The session's id travels
JSON-encoded in ``Compact-Session`` (ASCII, no line breaks, whatever the client named it).
"""

from __future__ import annotations

import json

RELAY_HEADER = "compact-relay"
"""The header's name as the frame readers keep it (lower-cased)."""
SESSION_HEADER = "compact-session"
ACK = "ack"
SNAPSHOT = "snapshot"
WITHDRAW = "withdraw"
ENGINE_ENV = "COMPACT_LSP_FRONT_PID"
"""Set, to the front's process id, in the environment of the engine process it starts; the engine takes it out of
its environment at once, so nothing the engine starts inherits it."""


def relay_frame(kind: str, session: str | None = None, body: bytes = b"") -> bytes:
    """A relay frame of ``kind``, for ``session`` when given."""
    head = f"Content-Length: {len(body)}\r\nCompact-Relay: {kind}\r\n"
    if session is not None:
        head += f"Compact-Session: {json.dumps(session)}\r\n"
    return (head + "\r\n").encode("ascii") + body


def client_frame(body: bytes, *, ack: bool) -> bytes:
    """A client's frame as the front passes it on (its own headers dropped), marked when it must be acknowledged."""
    head = b"Content-Length: %d\r\n" % len(body)
    if ack:
        head += b"Compact-Relay: ack\r\n"
    return head + b"\r\n" + body


def session_of(headers: dict[str, str]) -> str | None:
    """The session a relay frame names, or None when it names none readable."""
    try:
        session = json.loads(headers.get(SESSION_HEADER, ""))
    except ValueError:
        return None
    return session if isinstance(session, str) else None
