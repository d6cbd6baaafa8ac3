"""Files the user let the agent use outside the work roots, one by one.

Beyond the work roots (the workspace folders and ``additionalDirectories``), rehydration and the file gate admit
only single files the user let in:

- in our agent, approving a read or an edit of a file outside the work roots admits that file (an ``admit``
  record in the journal; ``compact/status`` lists it under ``admittedFiles``; revoking it is an ``admit`` record
  with ``admitted: false``);
- in a session imported from a transcript, the files it shows read, edited or written with success
  (``read_outcome.py``) are only *proposed* (``proposed``): a transcript never widens what we read by itself. The
  server names each one to the user in a prompt (lsp/features/outside_files.py); only the user's yes admits them,
  reason ``transcript``.

An admission binds the file as it was when admitted: its path had no link at any component and the record keeps
its device and inode (``identity``); the file gate re-reads it only while that still holds
(``file_gate.AllowedRoots.bindings``). File by file: a folder never becomes a root because a file in it was read,
a path that is a folder on this machine is never admitted, nor is a credential file (``credential_files.py``). A
revoked file stays out whichever way it came in, until it is admitted again.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from compact_lsp.engine.conversation.messages import Message, tool_results, tool_uses
from compact_lsp.engine.files.credential_files import is_credential_file
from compact_lsp.engine.files.file_gate import AllowedRoots
from compact_lsp.engine.files.file_tool_calls import input_path
from compact_lsp.engine.files.file_use_timeline import NEED_TOOLS
from compact_lsp.engine.files.read_outcome import shows_content, succeeded
from compact_lsp.engine.files.usable_path import real_path_or_none

Reason = Literal["read", "edit", "transcript"]
REASONS: tuple[Reason, ...] = ("read", "edit", "transcript")

OWN_SOURCES = frozenset({None, "chat", "api"})
"""Sessions whose history is ours (the chat's, a client's appends); any other's is a transcript written elsewhere (an
import, an agent's followed log): its successful file uses are proposed to the user, never admitted."""

Identity = tuple[int, int]
"""(device, inode) of an admitted file as it was when admitted."""


@dataclass(frozen=True)
class AdmittedFile:
    path: str
    """The realpath."""
    reason: Reason
    identity: Identity | None = None
    """Device and inode when admitted (None: an admission journalled before bindings)."""


def admit_record(
    path: str, *, admitted: bool, reason: Reason, at: float, identity: Identity | None = None
) -> dict[str, Any]:
    """The journal record that admits (or revokes) the file at real path ``path``."""
    record: dict[str, Any] = {"type": "admit", "path": path, "admitted": admitted, "reason": reason, "at": at}
    if identity is not None:
        record["dev"], record["ino"] = identity
    return record


def bindable(path: str) -> Identity | None:
    """``path``'s device and inode when it may be admitted now: an absolute path reached through no link at any
    component, naming a regular file that is not a credential file; None otherwise."""
    if not os.path.isabs(path) or real_path_or_none(path) != os.path.normpath(path) or is_credential_file(path):
        return None
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def _target(use: Mapping[str, Any], cwd: str | None) -> str | None:
    """The absolute path (as named, never resolved now) a file tool call used (relative ones against ``cwd``)."""
    tool_input = use.get("input")
    if use.get("name") not in NEED_TOOLS or not isinstance(tool_input, dict):
        return None
    path = input_path(tool_input)
    return os.path.normpath(os.path.join(cwd or os.sep, path)) if path else None


def _identity(record: Mapping[str, Any]) -> Identity | None:
    dev, ino = record.get("dev"), record.get("ino")
    if isinstance(dev, int) and isinstance(ino, int) and not isinstance(dev, bool) and not isinstance(ino, bool):
        return dev, ino
    return None


class AdmittedFiles:
    """The session's admitted files (the user's approvals and revocations) and the transcript's proposals."""

    def __init__(self) -> None:
        self.approved: dict[str, tuple[Reason, Identity | None]] = {}
        """Real path -> why and its identity when admitted, in the order they were admitted."""
        self.revoked: set[str] = set()
        self.shown: dict[str, None] = {}
        """Paths a transcript shows used with success, in order: proposals only; kept through compactions."""
        self._pending: dict[str, tuple[str, bool]] = {}
        """tool_use id -> (path, a read), for file tool calls whose result has not arrived yet."""

    def apply(self, record: Mapping[str, Any]) -> None:
        """Take an ``admit`` record into effect (journal replay and live changes alike)."""
        path = str(record["path"])
        if record.get("admitted", True):
            reason = record.get("reason")
            self.approved[path] = (reason if reason in REASONS else "read", _identity(record))
            self.revoked.discard(path)
        else:
            self.approved.pop(path, None)
            self.revoked.add(path)

    def observe(self, new: Sequence[Message], cwd: str | None) -> None:
        """Take in appended transcript messages: a file tool call that succeeded (a read that returned content)
        proposes its file (the call and its result may come in different appends)."""
        for message in new:
            for use in tool_uses(message):
                target = _target(use, cwd)
                if target is not None:
                    self._pending[str(use.get("id"))] = (target, use.get("name") == "Read")
            for block in tool_results(message):
                pending = self._pending.pop(str(block.get("tool_use_id")), None)
                if pending is not None and (shows_content(block) if pending[1] else succeeded(block)):
                    self.shown.setdefault(pending[0], None)

    def listed(self, work_roots: AllowedRoots) -> list[AdmittedFile]:
        """Every admitted file outside ``work_roots`` and not revoked, in the order admitted; never a path that is
        a folder on this machine, nor a credential file."""
        return [
            AdmittedFile(p, reason, identity)
            for p, (reason, identity) in self.approved.items()
            if p not in self.revoked
            and work_roots.root_of(p) is None
            and not os.path.isdir(p)
            and not is_credential_file(p)
        ]

    def proposed(self, work_roots: AllowedRoots) -> list[tuple[str, Identity]]:
        """The transcript's files outside ``work_roots`` the user has not answered for (neither admitted nor
        revoked) that could be admitted now (``bindable``), with their identity."""
        out = []
        for path in self.shown:
            if path in self.approved or path in self.revoked or work_roots.root_of(path) is not None:
                continue
            identity = bindable(path)
            if identity is not None:
                out.append((path, identity))
        return out
