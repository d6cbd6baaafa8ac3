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
from dataclasses import dataclass, field

from compact_lsp.engine.files.command_runs import CommandRun
from compact_lsp.engine.files.working_set import FileWork, WorkingSet, line_delta

LEDGER_CHARS = 1_500
"""The ledger's own share of what comes back after a compaction, in characters (well under the hooks' 10,000)."""
MAX_PATH_CHARS = 120
MAX_OPEN_ITEMS = 10
OPEN_TAG = "<working-set>"
CLOSE_TAG = "</working-set>"
INTRO = "What you did this session, from the log and checked against the disk just now:"
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


def _run_line(label: str, run: CommandRun) -> str:
    tail = f": {run.decisive}" if run.decisive else ""
    return f"{label}: `{run.command}` — {run.status}{tail}"


def command_lines(ws: WorkingSet) -> list[str]:
    lines = []
    shown: set[int] = set()
    for label, run in (("Last test", ws.last_test), ("Last build/check", ws.last_build)):
        if run is not None:
            lines.append(_run_line(label, run))
            shown.add(id(run))
    if ws.runs and id(ws.runs[-1]) not in shown:
        lines.append(_run_line("Last command", ws.runs[-1]))
    return lines


def _changed_line(work: FileWork, now: str | None, known: bool, cwd: str) -> tuple[bool, str]:
    """(changed by someone else, the line) for a file the agent changed."""
    path = _shown(work.path, cwd)
    if known and now is None:
        if work.change == "deleted":
            return False, f"- {path}: deleted"
        return True, f"- {path}: {work.change} by you, not on disk now (deleted or moved since)"
    if work.baseline is not None and now is not None:
        added, removed = line_delta(work.baseline, now)
        since = (
            "created by you" if work.baseline == "" else f"{work.change}, +{added} −{removed} since you first saw it"
        )
        counts = f"{since}{f', {_lines(now)} lines' if work.baseline == '' else ''}"
    elif work.counted:
        counts = f"{work.change}, +{work.added} −{work.removed} in your changes"
    else:
        counts = f"{work.change} ({work.edits} change{'s' if work.edits != 1 else ''})"
    if now is not None and work.copy is not None and not _same(work.copy, now):
        return True, f"- {path}: {counts}; changed by someone else since your last change — read it again"
    return False, f"- {path}: {counts}"


def _stale_line(work: FileWork, now: str | None, known: bool, cwd: str) -> str | None:
    seen = work.seen
    if seen is None or not known:
        return None
    path = _shown(work.path, cwd)
    if now is None:
        return f"- {path}: deleted since you read it"
    if _same(seen.text, seen.same_range_of(now)):
        return None
    return f"- {path}: now {len(now.encode('utf-8')):,} bytes, {_lines(now)} lines"


def open_items(plan_text: str | None) -> list[str]:
    if not plan_text:
        return []
    items = [
        f"- [{m.group(1)}] {' '.join(m.group(2).split())[:160]}"
        for m in map(_OPEN_ITEM.match, plan_text.splitlines())
        if m
    ]
    return items[:MAX_OPEN_ITEMS]


def ledger_lines(
    ws: WorkingSet, *, read_text: Callable[[str], bytes], cwd: str, plan_text: str | None = None
) -> list[list[str]]:
    """The ledger's sections in order, each its heading and lines (empty sections left out)."""
    outside: list[str] = []
    changed: list[str] = []
    for work in ws.changed():
        now, known = _on_disk(work.path, read_text)
        someone, line = _changed_line(work, now, known, cwd)
        (outside if someone else changed).append(line)
    stale = []
    for work in ws.read_only():
        now, known = _on_disk(work.path, read_text) if work.seen is not None else (None, False)
        stale_line = _stale_line(work, now, known, cwd)
        if stale_line is not None:
            stale.append(stale_line)
    sections = [
        ["Commands:", *command_lines(ws)],
        ["Changed by you, and by someone else since (read again before editing):", *outside],
        ["Changed by you (most recent first):", *changed],
        ["Read, and changed on disk since (read again before editing):", *stale],
        ["Open plan items:", *open_items(plan_text)],
    ]
    return [section for section in sections if len(section) > 1]


def cut(sections: Sequence[Sequence[str]], max_chars: int) -> Ledger:
    """The sections within ``max_chars`` (tags and intro included), whole lines in order, and how many were left out."""
    total = sum(len(section) - 1 for section in sections)
    if not total:
        return Ledger()
    used = len(OPEN_TAG) + len(CLOSE_TAG) + len(INTRO) + 3
    kept: list[str] = []
    items = 0
    for section in sections:
        for i, line in enumerate(section[1:]):
            cost = len(line) + 1 + (len(section[0]) + 1 if i == 0 else 0)
            if used + cost > max_chars:
                break
            if i == 0:
                kept.append(section[0])
            kept.append(line)
            used += cost
            items += 1
        else:
            continue
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
    return cut(ledger_lines(ws, read_text=read_text, cwd=cwd, plan_text=plan_text), max_chars)
