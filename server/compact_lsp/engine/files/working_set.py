"""The working set: what the agent changed, read and ran this session, learnt from its tool calls and results.

``WorkingSet.observe`` is fed the conversation as it grows (a session's appends, which outlive its compactions; a
transcript or rollout read once by a hook) and keeps, per file, only what the log proves: the text the agent first
saw of it (its first whole read, or nothing for a file it created), its own copy after its last read, edit or write
(an edit applied to the copy it had; unknown when it had none), what its last read showed (for "changed on disk
since you read it"), and the lines its edits added and removed. Per command: how the last ones ended
(``command_runs``). A result that is an error changes nothing; one whose text is gone (cleared) teaches nothing. The
texts kept are bounded (``MAX_TEXT_CHARS``, least recently touched forgotten first: then unknown, never guessed).

The disk is not read here: ``engine/compaction/ledger.py`` compares with it when the ledger is built.
"""

from __future__ import annotations

import difflib
import os
import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from compact_lsp.engine.conversation.messages import Block, Message, blocks_of, is_cleared, result_text
from compact_lsp.engine.files.change_notices import strip_line_numbers
from compact_lsp.engine.files.command_runs import CommandRun, command_run
from compact_lsp.engine.files.file_tool_calls import input_path
from compact_lsp.engine.files.read_record import int_or_none
from compact_lsp.engine.tool_names import DEFAULT_EDIT_TOOLS, DEFAULT_READ_TOOLS, DEFAULT_WRITE_TOOLS

MAX_TEXT_CHARS = 8 * 1024 * 1024
"""What one working set keeps of file texts, in characters; the least recently touched file's are dropped first."""
MAX_PENDING = 4096
"""Tool calls awaiting their result that are remembered (the oldest forgotten first)."""
MAX_RUNS = 8
CLAUDE_CODE_READ_LINES = 2000
"""Claude Code's Read shows at most this many lines, and cuts lines this long: a read that reaches it is partial."""

Change = Literal["created", "edited", "written", "deleted"]
_UNSET: Any = object()
_NOTE = re.compile(r"^\[.*: lines (\d+)-(\d+) of (\d+)")
_CODEX_HEADER = re.compile(r"\A(Chunk ID|Wall time|Process exited with code|Exit code:|Original token count)")


@dataclass(frozen=True)
class SeenRange:
    """What a read showed: ``text`` from 1-based line ``start``, ``count`` lines (None: to the file's end)."""

    text: str
    start: int = 1
    count: int | None = None

    def same_range_of(self, whole: str) -> str:
        lines = whole.splitlines(keepends=True)
        last = None if self.count is None else self.start - 1 + self.count
        return "".join(lines[self.start - 1 : last])


@dataclass(eq=False)
class FileWork:
    """One file as the log shows the agent's work on it."""

    path: str
    """Absolute, normalised against the working directory."""
    baseline: str | None = None
    """Its text when the agent first saw it whole; "" when the agent created it; None: unknown."""
    baseline_known: bool = False
    copy: str | None = None
    """The agent's own whole copy after its last read, edit or write; None: unknown."""
    seen: SeenRange | None = None
    """What its last read showed, when the agent did not change it since; None: unknown or changed since."""
    change: Change | None = None
    """The last change the agent made (None: it only read it)."""
    edits: int = 0
    added: int = 0
    removed: int = 0
    """Lines its edits and writes added and removed, by the texts in the calls (when every call said)."""
    counted: bool = True
    """False once a change's lines were not in its call (a patch we do not read, a notebook edit)."""
    touched: int = 0


def line_delta(old: str, new: str) -> tuple[int, int]:
    added = removed = 0
    for line in difflib.ndiff(old.splitlines(), new.splitlines()):
        if line.startswith("+ "):
            added += 1
        elif line.startswith("- "):
            removed += 1
    return added, removed


def _edits_of(tool_input: Mapping[str, Any]) -> list[tuple[str, str, bool]] | None:
    """(old, new, replace_all) of an Edit, MultiEdit or edit_file call; None when the call does not say."""
    raw = tool_input.get("edits") if "edits" in tool_input else [tool_input]
    if not isinstance(raw, list) or not raw:
        return None
    edits = []
    for edit in raw:
        old, new = (edit.get("old_string"), edit.get("new_string")) if isinstance(edit, dict) else (None, None)
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        edits.append((old, new, bool(edit.get("replace_all"))))
    return edits


def _apply(text: str, edits: Sequence[tuple[str, str, bool]]) -> str | None:
    """``text`` with the edits applied in order, as the tools apply them; None when one does not apply."""
    for old, new, every in edits:
        if not old or old not in text:
            return None
        text = text.replace(old, new) if every else text.replace(old, new, 1)
    return text


def shown_text(text: str) -> str:
    """A command's output without Codex's header (``Process exited with code 0`` ... ``Output:``)."""
    if _CODEX_HEADER.match(text):
        at = text.find("\nOutput:\n")
        return text[at + len("\nOutput:\n") :] if at >= 0 else text
    return text


def _read_range(tool: str, tool_input: Mapping[str, Any], result: Block) -> SeenRange | None:
    """What a successful read showed, as file text over its range; None when the result does not show it cleanly."""
    content = result.get("content")
    offset, limit = int_or_none(tool_input.get("offset")), int_or_none(tool_input.get("limit"))
    if isinstance(content, list) and len(content) == 2 and all(isinstance(b, dict) for b in content):
        note = _NOTE.match(str(content[1].get("text", "")))  # our read_file: the text, then where it stops
        if note is None:
            return None
        first, last = int(note.group(1)), int(note.group(2))
        return SeenRange(str(content[0].get("text", "")), first, last - first + 1)
    text = shown_text(result_text(result))
    numbered = strip_line_numbers(text)
    if tool == "Read":  # Claude Code numbers every line; a text that is not numbered carries something else
        if numbered == text and text.strip():
            return None
        shown = numbered.splitlines()
        if len(shown) >= CLAUDE_CODE_READ_LINES or any(len(line) >= CLAUDE_CODE_READ_LINES for line in shown):
            return None
        text = numbered if numbered.endswith("\n") or not numbered else numbered + "\n"
    start = offset if offset is not None and offset > 1 else 1
    if limit is not None or start > 1:
        return SeenRange(text, start, limit if limit is not None else len(text.splitlines()))
    return SeenRange(text)


@dataclass(eq=False)
class WorkingSet:
    """What the agent changed, read and ran; fed with ``observe`` (see the module docstring)."""

    cwd: str = ""
    read_tools: frozenset[str] = frozenset((*DEFAULT_READ_TOOLS, "read_many_files"))
    edit_tools: frozenset[str] = frozenset((*DEFAULT_EDIT_TOOLS, "NotebookEdit"))
    write_tools: frozenset[str] = frozenset(DEFAULT_WRITE_TOOLS)
    files: OrderedDict[str, FileWork] = field(default_factory=OrderedDict)
    """By absolute path, least recently touched first."""
    runs: list[CommandRun] = field(default_factory=list)
    """The last commands whose end the log records, oldest first (at most ``MAX_RUNS``)."""
    last_test: CommandRun | None = None
    last_build: CommandRun | None = None
    _pending: OrderedDict[str, Block] = field(default_factory=OrderedDict)
    _chars: int = 0
    _clock: int = 0

    def observe(
        self, messages: Iterable[Message], side: Mapping[str, Mapping[str, Any]] | None = None
    ) -> list[FileWork]:
        """Learn from ``messages`` (after those already observed); ``side``: Claude Code's side data by tool_use id,
        of which only a Write's ``type`` is read (``create``): what the hook's lean parse keeps. Returns the files
        the agent changed in ``messages``."""
        changed: list[FileWork] = []
        for message in messages:
            role = message.get("role")
            for block in blocks_of(message):
                kind = block.get("type")
                if role == "assistant" and kind == "tool_use":
                    self._pending[str(block.get("id"))] = block
                    while len(self._pending) > MAX_PENDING:
                        self._pending.popitem(last=False)
                elif role == "user" and kind == "tool_result":
                    use_id = str(block.get("tool_use_id"))
                    use = self._pending.pop(use_id, None)
                    work = self._answer(use, block, side.get(use_id) if side is not None else None) if use else None
                    if work is not None and work.change is not None:
                        changed.append(work)
        return changed

    def _answer(self, use: Block, result: Block, side: Mapping[str, Any] | None) -> FileWork | None:
        """Learn from one answered call; the file it read or changed, if any."""
        run = command_run(use, result)
        if run is not None:
            self._ran(run)
            return None
        name, tool_input = str(use.get("name")), use.get("input")
        if result.get("is_error") or is_cleared(result) or not isinstance(tool_input, dict):
            return None
        path = input_path(tool_input)
        if path is None or name not in self.read_tools | self.edit_tools | self.write_tools:
            return None
        work = self._file(os.path.normpath(os.path.join(self.cwd, os.path.expanduser(path))))
        if name in self.read_tools:
            self._read(work, name, tool_input, result)
        elif name in self.write_tools:
            self._write(work, tool_input, result, side)
        else:
            self._edit(work, tool_input)
        self._bound()
        return work if name not in self.read_tools else None

    def _ran(self, run: CommandRun) -> None:
        self.runs.append(run)
        del self.runs[:-MAX_RUNS]
        if run.kind == "test":
            self.last_test = run
        elif run.kind == "build":
            self.last_build = run

    def _file(self, path: str) -> FileWork:
        work = self.files.pop(path, None) or FileWork(path)
        self._clock += 1
        work.touched = self._clock
        self.files[path] = work
        return work

    def _read(self, work: FileWork, tool: str, tool_input: Mapping[str, Any], result: Block) -> None:
        seen = _read_range(tool, tool_input, result)
        self._set(work, seen=seen)
        if seen is not None and seen.start == 1 and seen.count is None:
            self._set(work, copy=seen.text)
            if not work.baseline_known:
                self._set(work, baseline=seen.text)
                work.baseline_known = True

    def _write(
        self, work: FileWork, tool_input: Mapping[str, Any], result: Block, side: Mapping[str, Any] | None
    ) -> None:
        content = tool_input.get("content")
        text = content if isinstance(content, str) else None
        said = result_text(result).lstrip()
        created = (side or {}).get("type") == "create" or said.startswith(("Created ", "File created successfully"))
        if not work.baseline_known and created:
            self._set(work, baseline="")
            work.baseline_known = True
        before = work.copy if work.copy is not None else ("" if created else None)
        if text is not None and before is not None:
            added, removed = line_delta(before, text)
            work.added, work.removed = work.added + added, work.removed + removed
        else:
            work.counted = False
        work.change = "created" if created and work.change in (None, "created") else "written"
        work.edits += 1
        self._set(work, copy=text, seen=None)

    def _edit(self, work: FileWork, tool_input: Mapping[str, Any]) -> None:
        edits = _edits_of(tool_input)
        before = work.copy
        if before is not None and not work.baseline_known:
            self._set(work, baseline=before)
            work.baseline_known = True
        after = _apply(before, edits) if before is not None and edits is not None else None
        if edits is not None:
            for old, new, _every in edits:
                added, removed = line_delta(old, new)
                work.added, work.removed = work.added + added, work.removed + removed
        else:
            work.counted = False
        work.change = "created" if work.change == "created" else "edited"
        work.edits += 1
        self._set(work, copy=after, seen=None)

    def _set(self, work: FileWork, *, baseline: Any = _UNSET, copy: Any = _UNSET, seen: Any = _UNSET) -> None:
        """Change a file's kept texts, keeping the count of characters held."""
        if baseline is not _UNSET:
            self._chars += len(baseline or "") - len(work.baseline or "")
            work.baseline = baseline
        if copy is not _UNSET:
            self._chars += len(copy or "") - len(work.copy or "")
            work.copy = copy
        if seen is not _UNSET:
            self._chars += len(seen.text if seen else "") - len(work.seen.text if work.seen else "")
            work.seen = seen

    def _bound(self) -> None:
        """Forget the least recently touched files' texts (their facts stay, unknown) past ``MAX_TEXT_CHARS``."""
        for work in self.files.values():
            if self._chars <= MAX_TEXT_CHARS:
                return
            self._set(work, baseline=None, copy=None, seen=None)

    def snapshot(self) -> WorkingSet:
        """A copy that later ``observe`` calls leave as it is (the texts are shared: strings do not change)."""
        copy = WorkingSet(self.cwd, self.read_tools, self.edit_tools, self.write_tools)
        copy.files = OrderedDict((path, replace(work)) for path, work in self.files.items())
        copy.runs, copy.last_test, copy.last_build = list(self.runs), self.last_test, self.last_build
        return copy

    def changed(self) -> list[FileWork]:
        """The files the agent created, edited or wrote, most recently touched first."""
        return [work for work in reversed(self.files.values()) if work.change is not None]

    def read_only(self) -> list[FileWork]:
        """The files the agent read and did not change, most recently touched first."""
        return [work for work in reversed(self.files.values()) if work.change is None]
