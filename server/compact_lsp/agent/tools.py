"""The agent's tools: the contract every tool follows (the default tool set is in toolset.py).

A tool gets its validated-by-hand input and a ``ToolContext`` and returns a ``ToolOutput``. It raises
``ToolError`` for anything the model should read as an is_error result (a refused path, a missing string); the
loop turns any other exception into an is_error result too, so a broken tool never stops the conversation.
Every path goes through ``resolve_inside`` (the server's reader): realpath containment in the workspace root,
plus the managed-memory roots for reading.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from compact_lsp.agent.permissions import PermissionKind, PermissionRequest, Permissions
from compact_lsp.agent.prompts import DENIED_TOOL_RESULT
from compact_lsp.engine.conversation.messages import Block
from compact_lsp.engine.files.usable_path import real_path_or_none
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.tracking.reader import FileRead, ReadRefused, resolve_inside

log = logging.getLogger(__name__)

T = TypeVar("T")

MAX_OUTPUT_CHARS = 30_000
"""Any tool's text output is cut here (about 7.5k tokens); the note says how much was left out."""


class ToolError(Exception):
    """A failure the model should read (it becomes an is_error tool result with this text)."""


class SessionRunner(Protocol):
    """Runs engine calls on the session: directly in tests, under the session's lock in the server."""

    async def run(self, fn: Callable[[], T], *, changes: bool = True) -> T: ...


@dataclass
class ToolContext:
    session: ContextSession
    workspace_root: str | None
    permissions: Permissions
    runner: SessionRunner
    tool_use_id: str = ""

    @property
    def write_roots(self) -> list[str]:
        """Where writes may go: the workspace folders, the added directories (the session's work roots) and the
        files outside them the user let the agent edit."""
        edits = [f.path for f in self.session.admitted_files if f.reason == "edit"]
        return [*self.session.work_roots.paths, *edits]

    @property
    def read_roots(self) -> list[str]:
        """Where reads may go: the work roots, the managed-memory roots that passed their rule, and the files
        outside them the user admitted (each exactly)."""
        roots = self.session.allowed_roots
        return [*roots.paths, *roots.files]

    async def resolve_admitting(self, path: Any, *, edit: bool = False, detail: str = "") -> tuple[str, str, bool]:
        """``resolve``, but a regular file outside the roots is first put to the user, for that file alone; on
        "Allow" it is admitted to the session. Returns (display path, real path, whether the user was asked)."""
        try:
            display, real = self.resolve(path, for_write=edit)
            return display, real, False
        except ToolError:
            found = outside_file(path, self.workspace_root)
            if found is None or found in self.session.denied_paths:
                raise
            real = found
        kind: PermissionKind = "edit_outside" if edit else "read_outside"
        request = PermissionRequest(kind=kind, tool="edit_file" if edit else "read_file", target=real, detail=detail)
        session = self.session
        if not await self.permissions.request(request, real_path=real):
            await self.runner.run(lambda: session.deny(real))
            raise ToolError(DENIED_TOOL_RESULT.format(kind=kind.replace("_", " "), target=real))
        await self.runner.run(lambda: session.admit(real, "edit" if edit else "read"))
        display, real = self.resolve(path, for_write=edit)
        return display, real, True

    def resolve(self, path: Any, *, for_write: bool = False) -> tuple[str, str]:
        """(display path, real path) inside the allowed roots, else ``ToolError``."""
        if not isinstance(path, str) or not path.strip():
            raise ToolError("a non-empty 'file_path' (or 'path') is required")
        try:
            return resolve_inside(path, self.workspace_root, self.write_roots if for_write else self.read_roots)
        except ReadRefused as exc:
            raise ToolError(str(exc)) from None


@dataclass(frozen=True)
class ToolOutput:
    content: str | list[Block]
    is_error: bool = False
    read: FileRead | None = None
    """A file read to record in the read-file state once the result is in the conversation."""


ToolRun = Callable[[ToolContext, Mapping[str, Any]], Awaitable[ToolOutput]]


@dataclass(frozen=True)
class Tool:
    name: str
    summary: str
    """One line for the system prompt's tool list."""
    description: str
    input_schema: dict[str, Any]
    run: ToolRun
    permission: PermissionKind | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_api(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


def bound(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """``text`` cut to ``limit`` characters (at a line break when there is one), saying what was left out."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    cut = cut if cut > limit // 2 else limit
    return f"{text[:cut]}\n[... output truncated: {len(text) - cut} more characters not shown]"


def string_arg(args: Mapping[str, Any], name: str, *, required: bool = True, allow_empty: bool = False) -> str:
    value = args.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (not allow_empty and not value):
        raise ToolError(f"'{name}' must be a{' non-empty' if not allow_empty else ''} string")
    return value


def int_arg(args: Mapping[str, Any], name: str, minimum: int = 1) -> int | None:
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ToolError(f"'{name}' must be an integer >= {minimum}")
    return value


def path_arg(args: Mapping[str, Any]) -> Any:
    """The path argument, under either name the model may use."""
    return args.get("file_path", args.get("path"))


def tool_params(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    """The request's ``tools``, with a cache breakpoint on the last (the tools are the stable prefix)."""
    params = [tool.to_api() for tool in tools]
    if params:
        params[-1] = {**params[-1], "cache_control": {"type": "ephemeral"}}
    return params


def outside_file(path: Any, workspace_root: str | None) -> str | None:
    """The real path of ``path`` when it names an existing regular file (wherever it is), else None."""
    if not isinstance(path, str) or not path or "\x00" in path:
        return None
    if workspace_root is None and not os.path.isabs(path):
        return None
    real = real_path_or_none(os.path.join(workspace_root or "", os.path.expanduser(path)))
    return real if real is not None and os.path.isfile(real) else None
