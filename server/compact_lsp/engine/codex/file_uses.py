"""What files a Codex session read and changed, said in the engine's tool vocabulary.

Codex has no Read or Edit tool: it reads with shell commands through ``exec_command`` (``cat F``,
``sed -n '10,80p' F``, ``nl -ba F | sed -n '1,200p'``, ``head -n 40 F``) and changes files with ``apply_patch``
(``*** Update File: F``, ``*** Add File: F``, ``*** Move to: F``). ``file_use_view`` turns each such call into
the ``Read`` / ``Edit`` / ``Write`` tool calls the engine understands (``file_path``, ``offset``, ``limit``), each
answered with the original result, so the read-file state, the ranking, rehydration and the artifact trail work
on a Codex session unchanged. A command it does not recognise (a pipeline into anything but ``sed -n``, ``rg``,
a redirect) says nothing about files: it is left out rather than guessed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterator, Sequence
from typing import Any

from compact_lsp.engine.codex.rollout import COMMAND_TOOLS, PATCH_TOOL
from compact_lsp.engine.conversation.messages import Block, Message, tool_results, tool_uses

MAX_COMMAND_CHARS = 4_000
_SED_RANGE = re.compile(r"^(\d+)(?:,(\d+))?p$")
_PATCH_HEADER = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.M)
_SEPARATORS = frozenset({"&&", ";", "||"})

Use = tuple[str, str, dict[str, Any]]
"""(tool, path, extra input): ``("Read", "src/a.py", {"offset": 10, "limit": 71})``."""


def command_reads(cmd: str) -> list[tuple[str, int | None, int | None]]:
    """Files a shell command prints, with the line range it shows (None: from the start / to the end)."""
    if len(cmd) > MAX_COMMAND_CHARS or "\x00" in cmd or any(c in cmd for c in "<>`$("):
        return []
    try:
        words = shlex.split(cmd)
    except ValueError:
        return []
    found: list[tuple[str, int | None, int | None]] = []
    here = ""
    for command in _split(words, _SEPARATORS):
        stages = list(_split(command, {"|"}))
        if not stages or not stages[0]:
            continue
        if stages[0][0] == "cd" and len(stages) == 1 and len(stages[0]) == 2:
            here = os.path.join(here, stages[0][1])  # later paths are below it
            continue
        reads = _stage_reads(stages[0])
        for later in stages[1:]:
            window = _sed_window(later) if later and later[0] == "sed" else None
            if window is None:
                reads = []  # piped into something else: what reached the model is unknown
                break
            reads = [(path, *_narrow(offset, limit, *window)) for path, offset, limit in reads]
        found.extend((os.path.join(here, path), offset, limit) for path, offset, limit in reads)
    return found


def _split(words: Sequence[str], separators: set[str] | frozenset[str]) -> Iterator[list[str]]:
    part: list[str] = []
    for word in words:
        if word in separators:
            yield part
            part = []
        else:
            part.append(word)
    yield part


def _sed_window(words: Sequence[str]) -> tuple[int, int | None] | None:
    """``sed -n 'A,Bp'`` as (first line, last line or None)."""
    if len(words) < 3 or words[1] != "-n":
        return None
    match = _SED_RANGE.match(words[2])
    if match is None:
        return None
    first = int(match.group(1))
    return first, int(match.group(2)) if match.group(2) else first


def _narrow(offset: int | None, limit: int | None, first: int, last: int | None) -> tuple[int | None, int | None]:
    start = (offset or 1) + first - 1
    end = start + (last - first) if last is not None else None
    if limit is not None:
        cap = (offset or 1) + limit - 1
        end = cap if end is None else min(end, cap)
    return start, (end - start + 1) if end is not None else None


def _stage_reads(words: Sequence[str]) -> list[tuple[str, int | None, int | None]]:
    name, args = os.path.basename(words[0]), list(words[1:])
    if name == "cat" and args and all(not a.startswith("-") for a in args):
        return [(a, None, None) for a in args]
    if name == "nl":
        files = [a for a in args if not a.startswith("-")]
        return [(f, None, None) for f in files] if len(files) == 1 else []
    if name == "sed" and len(args) == 3:
        window = _sed_window(["sed", *args[:2]])
        if window is not None and not args[2].startswith("-"):
            first, last = window
            return [(args[2], first, (last - first + 1) if last is not None else None)]
    if name == "head" and args:
        count, files = 10, args
        if args[0] == "-n" and len(args) == 3 and args[1].isdigit():
            count, files = int(args[1]), args[2:]
        elif args[0].startswith("-") and args[0][1:].isdigit():
            count, files = int(args[0][1:]), args[1:]
        if len(files) == 1 and not files[0].startswith("-"):
            return [(files[0], 1, count)]
    return []


def patch_changes(patch: str) -> list[tuple[str, str]]:
    """(tool, path) for each file an ``apply_patch`` patch touches: ``Write`` for a new file, ``Edit`` otherwise."""
    changes: list[tuple[str, str]] = []
    for match in _PATCH_HEADER.finditer(patch[:1_000_000]):
        action, path, moved_to = match.group(1), match.group(2), match.group(3)
        if moved_to:
            changes.append(("Write", moved_to.strip()))
        elif action == "Add":
            changes.append(("Write", path.strip()))
        elif action == "Update":
            changes.append(("Edit", path.strip()))
    return [(tool, path) for tool, path in changes if path and "\x00" not in path]


_EXIT_LINE = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)\s*$")
_OUTPUT_MARK = "Output:\n"
_MAX_HEADER_LINES = 8


def command_output(text: str) -> str | None:
    """What a Codex command or patch printed, when its result shows it exited with code 0; None otherwise.

    Codex heads a result with a few lines (``Chunk ID``, ``Wall time``, ``Process exited with code N`` or
    ``Exit code: N``, ``Original token count``) then ``Output:`` and the output; the older ``shell`` tool answers
    ``{"output": ..., "metadata": {"exit_code": N}}``. A result without an exit line of 0 in its head is no
    success: a command still running (``Process running with session ID 3``), one the user rejected (``exec
    command rejected by user``, ``patch rejected by user``), a sandbox denial, anything else."""
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            return None
        meta = value.get("metadata") if isinstance(value, dict) else None
        output = value.get("output") if isinstance(value, dict) else None
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        return output if code == 0 and not isinstance(code, bool) and isinstance(output, str) else None
    head, mark, body = text.partition(_OUTPUT_MARK)
    if not mark:
        head, body = text, ""
    lines = head.splitlines()
    if len(lines) > _MAX_HEADER_LINES:
        return None
    codes = [m.group(1) for m in map(_EXIT_LINE.match, lines) if m is not None]
    return body if codes == ["0"] else None


def _uses_of(block: Block, cwd: str) -> list[Use]:
    name, tool_input = block.get("name"), block.get("input")
    if not isinstance(tool_input, dict):
        return []
    if name == PATCH_TOOL:
        patch = tool_input.get("patch")
        changes = patch_changes(patch) if isinstance(patch, str) else []
        return [(tool, os.path.normpath(os.path.join(cwd, path)), {}) for tool, path in changes]
    if name not in COMMAND_TOOLS:
        return []
    cmd = tool_input.get("cmd", tool_input.get("command"))
    if isinstance(cmd, list):
        cmd = " ".join(shlex.quote(str(c)) for c in cmd)
    if not isinstance(cmd, str):
        return []
    workdir = tool_input.get("workdir")
    base = workdir if isinstance(workdir, str) and os.path.isabs(workdir) and "\x00" not in workdir else cwd
    uses: list[Use] = []
    for path, offset, limit in command_reads(cmd):
        extra = {k: v for k, v in (("offset", offset), ("limit", limit)) if v is not None}
        uses.append(("Read", os.path.normpath(os.path.join(base, path)), extra))
    return uses


def _answer(use_id: str, result: Block) -> Block:
    """The result of one file use: what the command printed when it exited 0, else an error (read_outcome.py)."""
    content = result.get("content", "")
    output = command_output(content) if isinstance(content, str) and not result.get("is_error") else None
    if output is None:
        return {"type": "tool_result", "tool_use_id": use_id, "content": content, "is_error": True}
    return {"type": "tool_result", "tool_use_id": use_id, "content": output}


def file_use_view(messages: Sequence[Message], cwd: str) -> list[Message]:
    """The session's file reads and changes as ``Read``/``Edit``/``Write`` calls with their results, in order.

    Each call gets the id ``<call id>#<n>``; its result is what the command printed when it exited 0, else the
    original text as an error (``command_output``: rejected, still running and failed commands are no reads), and
    a call with no result yet stays unanswered, as in the rollout.
    """
    results = {str(b.get("tool_use_id")): b for m in messages for b in tool_results(m)}
    view: list[Message] = []
    for message in messages:
        for block in tool_uses(message):
            call_id = str(block.get("id"))
            uses = _uses_of(block, cwd)
            if not uses:
                continue
            calls: list[Block] = []
            answers: list[Block] = []
            result = results.get(call_id)
            for n, (tool, path, extra) in enumerate(uses):
                use_id = f"{call_id}#{n}"
                calls.append({"type": "tool_use", "id": use_id, "name": tool, "input": {"file_path": path, **extra}})
                if result is not None:
                    answers.append(_answer(use_id, result))
            view.append({"role": "assistant", "content": calls})
            if answers:
                view.append({"role": "user", "content": answers})
    return view


def shell_reads(messages: Sequence[Message], cwd: str) -> list[tuple[str, str, str, dict[str, Any]]]:
    """Each file a command read with success (``file_use_view``'s ``Read`` answered by an exit of 0; a command the
    user rejected, one that failed or is still running read nothing): (the command's call id, the path, what it
    printed, ``offset``/``limit``), in order."""
    reads: list[tuple[str, str, str, dict[str, Any]]] = []
    calls: dict[str, Block] = {}
    for message in file_use_view(messages, cwd):
        for block in tool_uses(message):
            calls[str(block.get("id"))] = block
        for result in tool_results(message):
            use_id = str(result.get("tool_use_id"))
            call, content = calls.get(use_id), result.get("content")
            if call is None or call.get("name") != "Read" or result.get("is_error") or not isinstance(content, str):
                continue
            tool_input = dict(call.get("input") or {})
            path = tool_input.pop("file_path")
            reads.append((use_id.rpartition("#")[0], str(path), content, tool_input))
    return reads
