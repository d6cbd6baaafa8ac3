"""What a Codex session changed, read and ran, as the ledger's facts (engine/files/working_set.py).

Its file uses are ``file_use_view``'s (``cat``, ``sed -n``, ``nl -ba``, ``head`` reads; ``apply_patch`` changes),
told more exactly: a read that printed one file alone shows that file's text (unnumbered, as Codex prints it, so a
later change on disk is seen), an ``Update File`` carries its hunks as the edits they are (the context and ``-``
lines become the ``+`` lines: counted, and applied to the agent's copy), an ``Add File`` its whole text as a file
created. A read of several files at once shows none of them alone and stays a plain ``Read`` (its text unknown).
Then its commands (``exec_command``, ``shell``) and how they ended.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from compact_lsp.engine.codex.file_uses import file_use_view
from compact_lsp.engine.codex.rollout import PATCH_TOOL
from compact_lsp.engine.conversation.messages import Block, Message, blocks_of, tool_uses
from compact_lsp.engine.files.change_notices import strip_line_numbers
from compact_lsp.engine.files.working_set import WorkingSet

PLAIN_READ = "read_file"
"""The read tool whose result is the file's text as printed (no line numbers): what a single-file Codex read is."""
_FILE_HEADER = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
_MOVE = re.compile(r"^\*\*\* Move to: (.+)$")


def patch_texts(patch: str) -> tuple[dict[str, list[dict[str, str]]], dict[str, str]]:
    """(edits by path: each hunk's old and new text; added files' texts by path), as the patch names them."""
    edits: dict[str, list[dict[str, str]]] = {}
    added: dict[str, str] = {}
    path, action = "", ""
    old: list[str] = []
    new: list[str] = []

    def flush() -> None:
        if action == "Update" and (old or new):
            edits.setdefault(path, []).append({"old_string": "\n".join(old), "new_string": "\n".join(new)})
        old.clear()
        new.clear()

    for line in patch[:1_000_000].splitlines():
        header, move = _FILE_HEADER.match(line), _MOVE.match(line)
        if header or move or line.startswith("*** End Patch") or line.startswith("@@"):
            flush()
            if header:
                action, path = header.group(1), header.group(2).strip()
                if action == "Add":
                    added[path] = ""
            elif move:
                edits.pop(path, None)  # a moved file is written whole at its new path (file_use_view's Write)
                action = ""
            continue
        if action == "Add" and line.startswith("+"):
            added[path] += line[1:] + "\n"
        elif action == "Update" and line[:1] in (" ", "-", "+"):
            if line[0] != "+":
                old.append(line[1:])
            if line[0] != "-":
                new.append(line[1:])
    flush()
    return edits, added


def _patches(messages: Sequence[Message], cwd: str) -> dict[str, tuple[dict[str, Any], dict[str, str]]]:
    """Each apply_patch call's texts by its call id, paths made absolute as ``file_use_view`` makes them."""
    patches = {}
    for message in messages:
        for block in tool_uses(message):
            tool_input = block.get("input")
            if block.get("name") != PATCH_TOOL or not isinstance(tool_input, dict):
                continue
            patch = tool_input.get("patch")
            if isinstance(patch, str):
                edits, added = patch_texts(patch)
                absolute = {os.path.normpath(os.path.join(cwd, p)): e for p, e in edits.items()}
                patches[str(block.get("id"))] = (absolute, {os.path.normpath(os.path.join(cwd, p)): t
                                                            for p, t in added.items()})  # fmt: skip
    return patches


def _told(view: list[Message], patches: dict[str, tuple[dict[str, Any], dict[str, str]]]) -> set[str]:
    """Tell the view's calls what the rollout says of them (in place); the ids of files created."""
    calls = Counter(str(b.get("id")).rpartition("#")[0] for m in view for b in tool_uses(m))
    plain: set[str] = set()
    created: set[str] = set()
    for message in view:
        for block in blocks_of(message):
            use_id = str(block.get("id"))
            call = use_id.rpartition("#")[0]
            tool_input: dict[str, Any] = block.get("input") or {}
            if block.get("type") != "tool_use":
                continue
            path = str(tool_input.get("file_path"))
            edits, added = patches.get(call, ({}, {}))
            if block.get("name") == "Read" and calls[call] == 1:
                block["name"] = PLAIN_READ
                plain.add(use_id)
            elif block.get("name") == "Edit" and path in edits:
                tool_input["edits"] = edits[path]
            elif block.get("name") == "Write" and path in added:
                tool_input["content"] = added[path]
                created.add(use_id)
    for message in view:
        for block in blocks_of(message):
            content = block.get("content")
            if block.get("type") == "tool_result" and block.get("tool_use_id") in plain and isinstance(content, str):
                block["content"] = strip_line_numbers(content)  # nl -ba numbers the lines it prints
    return created


def codex_working_set(messages: Sequence[Message], cwd: str) -> WorkingSet:
    """The working set of a Codex session's messages (see the module doc)."""
    view = file_use_view(messages, cwd)
    created = _told(view, _patches(messages, cwd))
    side: dict[str, Block] = {use_id: {"type": "create"} for use_id in created}
    work = WorkingSet(cwd=cwd)
    work.observe(view, side)
    work.observe(messages)
    return work
