"""The ledger: after a compaction, what the agent changed, what went stale and what it last ran, checked just now.

Built from a ``WorkingSet`` (engine/files/working_set.py: the log's facts) and the disk as it is now, read through
the caller's gate (``read_text``: the allowed roots, never a credential file): nothing comes from model text, and a
fact neither the log nor the disk gives is left out, never guessed. One line a fact, in this order (what the next
turn most likely needs first; docs/compaction.md, "The ledger"):

1. the last test command and the last build or check command, each with its exit status and the one decisive line
   (the failing test, the first error), then the last command overall when it is neither;
2. files the agent changed that someone else changed since its last change (read them again before editing);
3. the other files the agent created, edited, wrote or deleted, most recent first, with the lines added and removed
   since it first saw them (by the disk now against its first whole read; else by its own calls);
4. files it read that differ on disk now from what it read ("read again before editing"), with the current size;
5. the open plan or task items (only when the plan itself is not attached).

It is cut to ``max_chars`` by whole lines from the end of that order, never mid-line (each line is bounded itself),
with a last line saying how many were left out when it has room.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.command_runs import CommandRun
from compact_lsp.engine.files.working_set import FileWork, WorkingSet, line_delta
from compact_lsp.engine.rehydration_settings import RehydrationSettings

LEDGER_CHARS = 1_500
"""The ledger's own share of what comes back after a compaction, in characters (well under the hooks' 10,000)."""
MAX_PATH_CHARS = 240
"""A path longer than this is shown by its tail (no real path comes near it; the replay's temporary ones can)."""
MAX_OPEN_ITEMS = 10
OPEN_TAG = "<working-set>"
CLOSE_TAG = "</working-set>"
INTRO = "What you did this session, from the log and checked against the disk just now:"
CHANGED_HEADING = "Changed by you, most recent first (lines added/removed since you first saw each file):"
PACKED_PREFIX = "- also changed by you: "
MAX_PACKED = 400
"""The most recently changed files the ledger weighs (the packing is quadratic in them); older ones are left out."""
DETAILED_WHEN_PACKED = 3
"""When not every changed file can be named, the most recent ones keep their line, the rest are named as fit."""
_OPEN_ITEM = re.compile(r"^\s*- \[( |~)\] (.+)$")


@dataclass(frozen=True)
class Ledger:
    """The ledger's lines (``text`` wraps them for the model; empty when there is nothing to say)."""

    lines: list[str] = field(default_factory=list)
    left_out: int = 0
    text: str = ""


def _decode(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _on_disk(path: str, read_text: Callable[[str], bytes]) -> tuple[str | None, bool]:
    """(text, known): text None and known True means the file is gone; known False: the gate did not let us see."""
    try:
        return _decode(read_text(path)), True
    except FileNotFoundError:
        return None, True
    except (OSError, ValueError):
        return None, False


def _shown(path: str, cwd: str) -> str:
    shown = (
        os.path.relpath(path, cwd) if cwd and (path == cwd or path.startswith(cwd.rstrip(os.sep) + os.sep)) else path
    )
    shown = " ".join(shown.split())
    return shown if len(shown) <= MAX_PATH_CHARS else "…" + shown[-(MAX_PATH_CHARS - 1) :]


def _same(a: str, b: str) -> bool:
    """Equal texts, line endings and trailing blanks aside (a tool shows lines, not their end-of-line bytes)."""
    return [line.rstrip() for line in a.splitlines()] == [line.rstrip() for line in b.splitlines()]


def _lines(text: str) -> int:
    return len(text.splitlines())


RowKind = Literal["command", "edited", "stale", "plan"]


@dataclass(frozen=True)
class LedgerRow:
    """One fact of the ledger, with the figures its line states (what an editor shows; None: not stated)."""

    kind: RowKind
    line: str
    """The line as the model reads it."""
    path: str | None = None
    """Absolute (a file's rows)."""
    shown: str | None = None
    """As the line names it: relative to the working directory when under it."""
    change: str | None = None
    """created, edited, written or deleted (an edited row)."""
    outside: bool = False
    """Changed by someone else since the agent's last change (an edited row), or since its read (a stale row)."""
    gone: bool = False
    """Not on disk now."""
    added: int | None = None
    removed: int | None = None
    lines: int | None = None
    """A created file's lines now."""
    size: int | None = None
    """A stale file's bytes now."""
    label: str | None = None
    """``Last test``, ``Last build/check`` or ``Last command`` (a command row)."""
    run: CommandRun | None = None


def _run_row(label: str, run: CommandRun) -> LedgerRow:
    tail = f": {run.decisive}" if run.decisive else ""
    return LedgerRow("command", f"{label}: `{run.command}` — {run.status}{tail}", label=label, run=run)


def command_rows(ws: WorkingSet) -> list[LedgerRow]:
    rows = []
    shown: set[int] = set()
    for label, run in (("Last test", ws.last_test), ("Last build/check", ws.last_build)):
        if run is not None:
            rows.append(_run_row(label, run))
            shown.add(id(run))
    if ws.runs and id(ws.runs[-1]) not in shown:
        rows.append(_run_row("Last command", ws.runs[-1]))
    return rows


def _changed_row(work: FileWork, now: str | None, known: bool, cwd: str) -> LedgerRow:
    """The row of a file the agent changed (``outside``: someone else changed it since)."""
    path = _shown(work.path, cwd)
    row = LedgerRow("edited", "", work.path, path, work.change)
    if known and now is None:
        return replace(row, line=f"- {path}: {work.change} by you, not on disk now (deleted or moved since)",
                       outside=True, gone=True)  # fmt: skip
    if work.baseline == "" and now is not None:
        row = replace(row, lines=_lines(now))
        counts = f"created, {_lines(now)} line{'s' if _lines(now) != 1 else ''}"
    elif work.baseline is not None and now is not None:
        added, removed = line_delta(work.baseline, now)
        row, counts = replace(row, added=added, removed=removed), f"+{added} −{removed}"
    elif work.counted:
        row = replace(row, added=work.added, removed=work.removed)
        counts = f"+{work.added} −{work.removed} by your edits"
    else:
        counts = f"{work.change} ({work.edits} change{'s' if work.edits != 1 else ''})"
    if now is not None and work.copy is not None and not _same(work.copy, now):
        return replace(row, line=f"- {path}: {counts}; changed by someone else since your last change", outside=True)
    return replace(row, line=f"- {path}: {counts}")


def _stale_row(work: FileWork, now: str | None, known: bool, cwd: str) -> LedgerRow | None:
    seen = work.seen
    if seen is None or not known:
        return None
    path = _shown(work.path, cwd)
    if now is None:
        return LedgerRow("stale", f"- {path}: deleted since you read it", work.path, path, outside=True, gone=True)
    if _same(seen.text, seen.same_range_of(now)):
        return None
    size = len(now.encode("utf-8"))
    return LedgerRow("stale", f"- {path}: now {size:,} bytes", work.path, path, outside=True, size=size)


def open_items(plan_text: str | None) -> list[str]:
    if not plan_text:
        return []
    items = [
        f"- [{m.group(1)}] {' '.join(m.group(2).split())[:160]}"
        for m in map(_OPEN_ITEM.match, plan_text.splitlines())
        if m
    ]
    return items[:MAX_OPEN_ITEMS]


@dataclass(frozen=True)
class Section:
    """A heading and its lines; ``names``: when given, each line's path, so lines that do not fit are named."""

    heading: str
    lines: list[str]
    names: list[str] | None = None
    rows: list[LedgerRow] = field(default_factory=list)
    """The facts behind ``lines``, one a line."""


def _section(heading: str, rows: list[LedgerRow], *, named: bool = False) -> Section:
    names = [row.shown or "" for row in rows] if named else None
    return Section(heading, [row.line for row in rows], names, rows)


def ledger_sections(
    ws: WorkingSet, *, read_text: Callable[[str], bytes], cwd: str, plan_text: str | None = None
) -> list[Section]:
    """The ledger's sections in order (empty ones left out)."""
    outside: list[LedgerRow] = []
    changed: list[LedgerRow] = []
    for work in ws.changed():
        row = _changed_row(work, *_on_disk(work.path, read_text), cwd)
        (outside if row.outside else changed).append(row)
    stale = []
    for work in ws.read_only():
        now, known = _on_disk(work.path, read_text) if work.seen is not None else (None, False)
        stale_row = _stale_row(work, now, known, cwd)
        if stale_row is not None:
            stale.append(stale_row)
    plan = [LedgerRow("plan", line) for line in open_items(plan_text)]
    sections = [
        _section("Commands:", command_rows(ws)),
        _section("Changed by you, then by someone else since (read them again before editing):", outside),
        _section(CHANGED_HEADING, changed[:MAX_PACKED], named=True),
        _section("Read, and changed on disk since (read them again before editing):", stale),
        _section("Open plan items:", plan),
    ]
    return [section for section in sections if section.lines]


def grouped(names: Sequence[str]) -> str:
    """Paths as one list, those of a folder together (``src/a/{x.py, y.py}, README.md``), each folder where its first
    path was, the paths in their order within it."""
    folders: dict[str, list[str]] = {}
    for name in names:
        folder, _, base = name.rpartition("/")
        folders.setdefault(folder, []).append(base)
    parts = []
    for folder, bases in folders.items():
        if not folder or len(bases) == 1:  # the workspace's own files, or one file of its folder: named whole
            parts += [f"{folder}/{base}" if folder else base for base in bases]
        else:
            parts.append(f"{folder}/{{{', '.join(bases)}}}")
    return ", ".join(parts)


def packed_paths(line: str) -> list[str]:
    """The paths a packed line names (``grouped``'s list, after ``PACKED_PREFIX``, before a ``(+N more)``)."""
    text = line[len(PACKED_PREFIX) :] if line.startswith(PACKED_PREFIX) else line
    text = re.sub(r" \(\+\d+ more\)$", "", text)
    paths: list[str] = []
    for part in re.findall(r"[^,{]*\{[^}]*\}|[^,]+", text):
        part = part.strip(" ,")
        if part.endswith("}") and "{" in part:
            prefix, _, bases = part[:-1].partition("{")
            paths += [prefix + base.strip() for base in bases.split(",")]
        elif part:
            paths.append(part)
    return paths


def _packed_line(names: Sequence[str], rest: int) -> str:
    return PACKED_PREFIX + grouped(names) + (f" (+{rest} more)" if rest else "")


def _packed(names: Sequence[str], room: int) -> tuple[str, int] | None:
    """The packed line naming as many of ``names`` (in order) as fit in ``room`` characters, and how many."""
    count = 0
    for i in range(1, len(names) + 1):
        if len(_packed_line(names[:i], len(names) - i)) + 1 > room:
            break
        count = i
    return (_packed_line(names[:count], len(names) - count), count) if count else None


def _detailed(section: Section, room: int) -> int:
    """How many of a packable section's lines to keep whole so that, with the rest named on one packed line, every
    file is named within ``room`` (the most lines that allow it; -1: naming them all does not fit)."""
    names = section.names or []
    spent = [0]
    for line in section.lines:
        spent.append(spent[-1] + len(line) + 1)
    for k in range(len(names), -1, -1):
        packed = len(_packed_line(names[k:], 0)) + 1 if k < len(names) else 0
        if spent[k] + packed <= room:
            return k
    return -1


def _fit_section(section: Section, room: int) -> tuple[list[str], int]:
    """The section's lines within ``room`` (its heading included): whole lines in order, then, for a section with
    names, the rest named on one packed line; and how many of its items that lists."""
    heading = len(section.heading) + 1
    if section.names:
        k = _detailed(section, room - heading)
        if k == len(section.lines):
            return [section.heading, *section.lines], k
        if k >= 0:
            return [section.heading, *section.lines[:k], _packed_line(section.names[k:], 0)], len(section.lines)
    kept: list[str] = []
    used = heading
    for line in section.lines[: DETAILED_WHEN_PACKED if section.names else None]:
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    if section.names and len(kept) < len(section.lines):
        packed = _packed(section.names[len(kept) :], room - used)
        if packed is not None:
            return [section.heading, *kept, packed[0]], len(kept) + packed[1]
    return ([section.heading, *kept], len(kept)) if kept else ([], 0)


def cut(sections: Sequence[Section], max_chars: int) -> Ledger:
    """The sections within ``max_chars`` (tags and intro included), in order, each with ``_fit_section``; once one
    is cut, the later ones are left out; a last line says how many items were left out, when it fits."""
    total = sum(len(section.lines) for section in sections)
    if not total:
        return Ledger()
    used = len(OPEN_TAG) + len(CLOSE_TAG) + len(INTRO) + 3
    kept: list[str] = []
    items = 0
    for section in sections:
        lines, listed = _fit_section(section, max_chars - used)
        kept += lines
        used += sum(len(line) + 1 for line in lines)
        items += listed
        if listed < len(section.lines):
            break
    left = total - items
    note = f"({left} more not listed)"
    if left and used + len(note) + 1 <= max_chars:
        kept.append(note)
    if not items:
        return Ledger([], left)
    text = "\n".join([OPEN_TAG, INTRO, *kept, CLOSE_TAG])
    return Ledger(kept, left, text)


def build_ledger(
    ws: WorkingSet,
    *,
    read_text: Callable[[str], bytes],
    cwd: str,
    plan_text: str | None = None,
    max_chars: int = LEDGER_CHARS,
) -> Ledger:
    """The ledger for ``ws`` against the disk now (see the module docstring)."""
    return cut(ledger_sections(ws, read_text=read_text, cwd=cwd, plan_text=plan_text), max_chars)


@dataclass(frozen=True)
class LedgerView:
    """The ledger as an editor shows it: every row, in the ledger's order, and the text the model gets."""

    rows: list[LedgerRow]
    ledger: Ledger


def ledger_view(
    ws: WorkingSet,
    *,
    read_text: Callable[[str], bytes],
    cwd: str,
    plan_text: str | None = None,
    plan_in_text: bool = True,
    max_chars: int = LEDGER_CHARS,
) -> LedgerView:
    """``build_ledger``'s text with the rows behind it, uncut (the cut is the model's budget, not the user's);
    ``plan_in_text`` False: the plan's rows are listed, its items left out of the text (the plan comes back whole
    beside the ledger, as for our agent and Claude Code)."""
    sections = ledger_sections(ws, read_text=read_text, cwd=cwd, plan_text=plan_text)
    in_text = [s for s in sections if plan_in_text or s.rows[0].kind != "plan"]
    return LedgerView([row for section in sections for row in section.rows], cut(in_text, max_chars))


def after_ledger(settings: RehydrationSettings, ledger: str, counter: TokenCounter) -> tuple[RehydrationSettings, int]:
    """The settings with the ledger's tokens taken off the files' budget (its own share), and those tokens."""
    tokens = counter.count_text(ledger) if ledger else 0
    return replace(settings, token_budget=max(0, settings.budget_tokens - tokens)), tokens
