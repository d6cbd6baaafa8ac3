"""Files the user let the agent use outside the work roots, one by one.

Beyond the work roots (the workspace folders and ``additionalDirectories``), rehydration and the file gate admit
only single files the user let in:

- in our agent, approving a read or an edit of a file outside the work roots admits that file (an ``admit``
  record in the journal; ``compact/status`` lists it under ``admittedFiles``; revoking it is an ``admit`` record
  with ``admitted: false``);
- in a session imported from a Claude Code transcript or following one, each file the transcript shows read,
  edited or written with success: Claude Code asks before it works outside its directory, so a success means the
  user let it in, as the hook takes it.

File by file: a folder never becomes a root because a file in it was read, and a path that is a folder on this
machine is never admitted. A revoked file stays out whichever way it came in, until it is admitted again.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from compact_lsp.engine.conversation.messages import Message, tool_results, tool_uses
from compact_lsp.engine.files.file_gate import AllowedRoots
from compact_lsp.engine.files.file_tool_calls import input_path
from compact_lsp.engine.files.file_use_timeline import NEED_TOOLS
from compact_lsp.engine.files.usable_path import real_path

Reason = Literal["read", "edit", "transcript"]
REASONS: tuple[Reason, ...] = ("read", "edit", "transcript")

TRANSCRIPT_SOURCES = frozenset({"import", "claude-code"})
"""Sessions whose history is a Claude Code transcript: its successful file uses admit their files."""


@dataclass(frozen=True)
class AdmittedFile:
    path: str
    """The realpath."""
    reason: Reason


def admit_record(path: str, *, admitted: bool, reason: Reason, at: float) -> dict[str, Any]:
    """The journal record that admits (or revokes) the file at real path ``path``."""
    return {"type": "admit", "path": path, "admitted": admitted, "reason": reason, "at": at}


def _target(use: Mapping[str, Any], cwd: str | None) -> str | None:
    """The realpath a successful file tool call used (relative paths against ``cwd``), or None."""
    tool_input = use.get("input")
    if use.get("name") not in NEED_TOOLS or not isinstance(tool_input, dict):
        return None
    path = input_path(tool_input)
    return real_path(os.path.join(cwd or os.sep, path)) if path else None


class AdmittedFiles:
    """The session's admitted files: the user's approvals, the transcript's, and the revocations."""

    def __init__(self) -> None:
        self.approved: dict[str, Reason] = {}
        """Real path -> why (``read`` or ``edit`` approved in our agent), in the order they were admitted."""
        self.revoked: set[str] = set()
        self.used: dict[str, None] = {}
        """Real paths a Claude Code transcript shows used with success, in order; kept through compactions."""
        self._pending: dict[str, str] = {}
        """tool_use id -> real path, for file tool calls whose result has not arrived yet."""

    def apply(self, record: Mapping[str, Any]) -> None:
        """Take an ``admit`` record into effect (journal replay and live changes alike)."""
        path = str(record["path"])
        if record.get("admitted", True):
            reason = record.get("reason")
            self.approved[path] = reason if reason in REASONS else "read"
            self.revoked.discard(path)
        else:
            self.approved.pop(path, None)
            self.revoked.add(path)

    def observe(self, new: Sequence[Message], cwd: str | None) -> None:
        """Take in appended transcript messages: a file tool call's success admits its file (once its result,
        without an error, has arrived; the call and its result may come in different appends)."""
        for message in new:
            for use in tool_uses(message):
                target = _target(use, cwd)
                if target is not None:
                    self._pending[str(use.get("id"))] = target
            for block in tool_results(message):
                target = self._pending.pop(str(block.get("tool_use_id")), None)
                if target is not None and not block.get("is_error"):
                    self.used.setdefault(target, None)

    def listed(self, work_roots: AllowedRoots) -> list[AdmittedFile]:
        """Every admitted file outside ``work_roots`` and not revoked: approvals first, then the transcript's;
        never a path that is a folder on this machine."""
        out = [AdmittedFile(p, r) for p, r in self.approved.items()]
        out += [AdmittedFile(p, "transcript") for p in self.used if p not in self.approved]
        return [
            f
            for f in out
            if f.path not in self.revoked and work_roots.root_of(f.path) is None and not os.path.isdir(f.path)
        ]
