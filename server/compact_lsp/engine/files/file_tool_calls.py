"""Which file each tool result is about, learnt only through its request's tool_use id.

A read, write or edit tool's request names the path (``PATH_KEYS``); its result names only the request's id. An id
used with several paths, or a result whose request was never seen, is flagged (``ReadFlag``) and never guessed.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from compact_lsp.engine.conversation.messages import Block, Message, blocks_of
from compact_lsp.engine.files.read_record import RecordKind
from compact_lsp.engine.files.usable_path import checked_path, is_usable, path_problem

log = logging.getLogger(__name__)

FlagCode = Literal["ambiguous-id", "no-request"]

PATH_KEYS = ("file_path", "path", "absolute_path", "notebook_path")
"""Tool input keys that name the file, in the order they are tried (Claude Code, then Gemini/Qwen styles)."""

MAX_FLAGS = 1_000
"""Flags kept (oldest dropped): they are diagnostics, not state."""


@dataclass
class ReadFlag:
    """A tool result that could not be tied to exactly one path."""

    tool_use_id: str
    code: FlagCode
    detail: str


@dataclass
class FileUse:
    """A file tool's request, as its result will need it."""

    tool_use_id: str
    name: str
    kind: RecordKind
    path: str | None
    input: dict[str, Any]


def input_path(tool_input: Any) -> str | None:
    """The file a tool input names; None when it names none the OS could open. Appends refuse such a path
    (``check_input_paths``); a call journalled before that rule is kept but tied to no file, so replaying it
    can never fail."""
    if not isinstance(tool_input, dict):
        return None
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value if is_usable(value) else None
    return None


def check_input_paths(message: Message, where: str) -> None:
    """Refuse a tool call whose path (any ``PATH_KEYS`` value) cannot name a file (``UnusablePath``, naming the
    field): the boundary where a model's, a client's or a transcript's tool path enters a session."""
    for j, block in enumerate(blocks_of(message)):
        tool_input = block.get("input") if block.get("type") == "tool_use" else None
        if isinstance(tool_input, dict):
            for key in PATH_KEYS:
                value = tool_input.get(key)
                if isinstance(value, str) and path_problem(value) is not None:  # the field named only then
                    checked_path(value, f"{where}.content[{j}].input.{key}")


class FileToolCalls:
    """File tool requests awaiting their results, and the paths each tool_use id was used with (bounded)."""

    def __init__(self, kinds: Mapping[str, RecordKind], max_ids: int, same_file: Callable[[str], str] = str) -> None:
        self.flags: list[ReadFlag] = []
        self._kinds = dict(kinds)
        self._max_ids = max_ids
        self._same_file = same_file
        """Maps a path to what identifies its file (the realpath): ``/ws/a.py`` and ``a.py`` are one path."""
        self._pending: dict[str, FileUse | None] = {}  # unanswered tool_use ids (None: not a file tool)
        self._id_paths: OrderedDict[str, list[str]] = OrderedDict()  # tool_use id -> request-side paths

    def request(self, block: Block) -> None:
        """An assistant's tool_use block: remember it until its result comes."""
        use_id, name = block.get("id"), block.get("name")
        if not isinstance(use_id, str) or not isinstance(name, str):
            return
        kind = self._kinds.get(name)
        tool_input = block.get("input")
        if kind is None or not isinstance(tool_input, dict):
            self._pending[use_id] = None
            return
        path = input_path(tool_input)
        self._pending[use_id] = FileUse(use_id, name, kind, path, tool_input)
        if path is not None:
            self.note_id_path(use_id, path)

    def note_id_path(self, use_id: str, path: str) -> None:
        paths = self._id_paths.setdefault(use_id, [])
        # another spelling of a path already noted (absolute from compact/readFile, relative in the model's call) is
        # the same file, not an ambiguous id; resolved only then, so the usual single spelling costs no syscalls
        if path not in paths and not any(self._same(path, known) for known in paths):
            paths.append(path)
        self._id_paths.move_to_end(use_id)
        while len(self._id_paths) > self._max_ids:
            self._id_paths.popitem(last=False)

    def paths_for(self, tool_use_id: str) -> list[str]:
        """The request-side paths a tool_use id was used with; more than one means the id is ambiguous."""
        return list(self._id_paths.get(tool_use_id, ()))

    def _same(self, a: str, b: str) -> bool:
        try:
            return self._same_file(a) == self._same_file(b)
        except (OSError, ValueError):
            return False

    def answer(self, block: Block) -> FileUse | None:
        """A tool_result block: the file request it answers, when it can be tied to exactly one path."""
        use_id = block.get("tool_use_id")
        if not isinstance(use_id, str):
            return None
        if use_id not in self._pending:
            self._flag(use_id, "no-request", "no unanswered tool_use with this id was seen")
            return None
        use = self._pending.pop(use_id)
        if use is None or use.path is None:
            return None
        paths = self.paths_for(use_id)
        if len(paths) > 1:
            self._flag(use_id, "ambiguous-id", f"the id was used with several paths: {', '.join(paths)}")
            return None
        return use

    def _flag(self, use_id: str, code: FlagCode, detail: str) -> None:
        log.info("tool result %s not tied to a file (%s): %s", use_id, code, detail)
        self.flags.append(ReadFlag(use_id, code, detail))
        del self.flags[:-MAX_FLAGS]
