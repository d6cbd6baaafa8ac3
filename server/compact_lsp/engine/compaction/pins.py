"""Pins: what the user marked to keep through compaction (``compact/pin``, ``compact/unpin``).

A pinned tool result is never cleared by microcompaction; a pinned file is re-attached first after a full
compaction, within the rehydration budget. Pins are journalled as ``pin`` records (``toolUseId`` and/or ``path``,
``pinned`` true or false) and live beside the history, so a compaction or an undo leaves them in place.

``pin_record`` validates before anything is written: an unknown tool_use id, a path outside the work roots (the
workspace folders and the added directories) or a path that is not a file is a ``PinError`` with the remedy.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from compact_lsp.engine.conversation.messages import Message, tool_uses
from compact_lsp.engine.files.change_notices import absolute_path, display_path
from compact_lsp.engine.files.file_gate import AllowedRoots
from compact_lsp.engine.files.usable_path import checked_path, real_path

PinProblem = Literal["nothing", "unknown_tool_call", "outside_roots", "not_a_file"]


class PinError(ValueError):
    """A pin request that cannot be honoured; the text says why and what to do, ``problem`` which case it is."""

    def __init__(self, problem: PinProblem, message: str) -> None:
        super().__init__(message)
        self.problem = problem


@dataclass(frozen=True)
class PinnedItem:
    """One pinned tool result (``kind`` ``toolResult``) or file (``file``)."""

    kind: str
    path: str | None = None
    tool_use_id: str | None = None
    in_history: bool = False
    tool: str | None = None


class Pins:
    """The session's pinned tool results and files, in the order they were pinned."""

    def __init__(self) -> None:
        self.tool_use_ids: dict[str, None] = {}
        self.paths: dict[str, None] = {}
        """Real paths."""

    def __bool__(self) -> bool:
        return bool(self.tool_use_ids or self.paths)

    def apply(self, record: Mapping[str, Any]) -> None:
        """Take a ``pin`` record into effect (journal replay and live changes alike)."""
        pinned = bool(record.get("pinned", True))
        for key, target in (("toolUseId", self.tool_use_ids), ("path", self.paths)):
            value = record.get(key)
            if not isinstance(value, str):
                continue
            if pinned:
                target[value] = None
            else:
                target.pop(value, None)

    def listed(self, messages: Sequence[Message], workspace_root: str | None) -> list[PinnedItem]:
        """What is pinned, results first (with the tool and file of their request when it is in history), then
        files, paths as the model sees them."""
        wanted = self.tool_use_ids
        uses = (
            {
                str(b.get("id")): b
                for m in messages
                if m.get("role") == "assistant"
                for b in tool_uses(m)
                if str(b.get("id")) in wanted
            }
            if wanted
            else {}
        )  # nothing pinned by id, nothing to look up: an append's status does not pass the whole history for it
        out: list[PinnedItem] = []
        for tool_use_id in self.tool_use_ids:
            use = uses.get(tool_use_id)
            tool, shown = None, None
            if use is not None:
                tool = str(use.get("name", ""))
                data = use.get("input")
                path = data.get("file_path") or data.get("path") if isinstance(data, dict) else None
                if isinstance(path, str) and path:
                    shown = display_path(path, workspace_root)
            out.append(PinnedItem("toolResult", shown, tool_use_id, tool_use_id in uses, tool))
        out += [PinnedItem("file", display_path(p, workspace_root)) for p in self.paths]
        return out


def pin_record(
    pins: Pins,
    *,
    tool_use_id: str | None,
    path: str | None,
    pinned: bool,
    known_tool_use_ids: Collection[str],
    work_roots: AllowedRoots,
    workspace_root: str | None,
    at: float,
) -> dict[str, Any] | None:
    """The ``pin`` record for this request, or None when it would change nothing; ``PinError`` when invalid."""
    verb = "pin" if pinned else "unpin"
    if tool_use_id is None and path is None:
        raise PinError("nothing", f"name a tool result or a file to {verb}, or both")
    record: dict[str, Any] = {"type": "pin", "pinned": pinned, "at": at}
    changed = False
    if tool_use_id is not None:
        if pinned and tool_use_id not in known_tool_use_ids:
            raise PinError(
                "unknown_tool_call",
                f"there is no tool call {tool_use_id!r} in this session's history; pin a tool result the "
                "session's status or messages show",
            )
        record["toolUseId"] = tool_use_id
        changed |= (tool_use_id in pins.tool_use_ids) != pinned
    if path is not None:
        checked_path(path, f"compact/{verb}: 'path'")
        real = real_path(absolute_path(os.path.expanduser(path), workspace_root))
        if pinned:
            if work_roots.root_of(real) is None:
                roots = ", ".join(work_roots.paths) or "none (no workspace folder)"
                raise PinError(
                    "outside_roots",
                    f"{path} is outside the allowed roots ({roots}); only files in a workspace folder or an "
                    "additional directory can be pinned",
                )
            if not os.path.isfile(real):
                raise PinError("not_a_file", f"{path} is not a file (it does not exist, or is a directory)")
        record["path"] = real
        changed |= (real in pins.paths) != pinned
    return record if changed else None
