"""Which files matter most after compaction: what the agent and the editor did with each, and rankers.

``file_activities`` gathers every file the read-file state or the editor knows (one entry per realpath, the
newest access first), scores them with a ``Ranker`` and marks those that may never come back: outside the
workspace roots, denied, last read failed, or a skill (skills come back with the skills). A file whose last
edit or write failed (a rejected edit) stays a candidate: the agent usually goes back to it. Rehydration packs
the rest, best first; ``compact_lsp.evaluation`` replays sessions to compare rankers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from compact_lsp.engine.conversation.messages import Message, tool_results, tool_uses
from compact_lsp.engine.files.editor_documents import EditorDocument
from compact_lsp.engine.files.file_tool_calls import input_path
from compact_lsp.engine.files.read_record import ReadRecord
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.files.usable_path import instant_realpaths, real_path


@dataclass
class FileActivity:
    """What the agent and the editor did with one file: what rankers score."""

    realpath: str
    path: str
    """For display: relative to the workspace root that holds it."""
    last_seen: float
    """When the model last saw the file (read, wrote, edited); for an editor-only document, its last focus."""
    record: ReadRecord | None
    document: EditorDocument | None
    edited: bool
    focus_rank: int | None
    """0 for the most recently focused open document, None when the file is not open."""
    uses: Sequence[dict[str, Any]] = ()
    """Inputs of the agent's successful tool calls on this file in the summarised history, newest first."""

    @property
    def accesses(self) -> int:
        return max(1, len(self.uses))


Ranker = Callable[[Sequence[FileActivity]], list[float]]
"""Scores aligned with the activities given; higher is better. Ties go to the more recent file."""


class RecencyRanker:
    """Newest first: 1.0 for the most recent file, 1/2 for the next, 1/3, ... (the seed's rule). Its order is the
    read times' alone, so ``ranked_files`` takes its candidates one by one instead of scoring every file."""

    def __call__(self, activities: Sequence[FileActivity]) -> list[float]:
        order = sorted(range(len(activities)), key=lambda i: -activities[i].last_seen)
        scores = [0.0] * len(activities)
        for rank, i in enumerate(order):
            scores[i] = 1.0 / (1 + rank)
        return scores


recency_ranker = RecencyRanker()


def boosted_ranker(edit_boost: float = 0.5, focus_boost: float = 0.5, frequency: float = 0.0) -> Ranker:
    """Recency plus boosts: ``edit_boost`` for files the agent wrote or edited, ``focus_boost`` scaled by
    focus order for open editor files, ``frequency`` for repeated access (saturating at 5 accesses)."""

    def rank(activities: Sequence[FileActivity]) -> list[float]:
        scores = recency_ranker(activities)
        for i, act in enumerate(activities):
            if act.edited:
                scores[i] += edit_boost
            if act.focus_rank is not None:
                scores[i] += focus_boost / (1 + act.focus_rank)
            scores[i] += frequency * min(max(act.accesses - 1, 0), 4) / 4
        return scores

    return rank


def resolved_roots(roots: Iterable[str]) -> list[str]:
    """The roots' realpaths, what containment is checked against."""
    return [real_path(r) for r in roots]


def root_of(path: str, roots: Sequence[str]) -> str | None:
    """The root holding ``path``, if any; both are absolute and normalised (no ``..``, no trailing slash)."""
    for root in roots:
        if path == root or path.startswith(root.rstrip(os.sep) + os.sep):
            return root
    return None


def _display(path: str, real: str, roots: Sequence[str], real_roots: Sequence[str]) -> str:
    """Relative to the first root (the workspace root, which relative paths are taken against) when it holds the
    file (as given, else resolved), else absolute: a path relative to another root would mislead the model."""
    for candidate, holders in ((path, roots[:1]), (real, real_roots[:1])):
        root = root_of(candidate, holders)
        if root is not None:
            return candidate[len(root) :].lstrip(os.sep) or "."
    return real


def is_skill_path(path: str) -> bool:
    """``.../skills/<name>/SKILL.md``."""
    parts = os.path.normpath(path).split(os.sep)
    return len(parts) >= 3 and parts[-1] == "SKILL.md" and parts[-3] == "skills"


HistoryUses = dict[str, list[dict[str, Any]]]
"""Successful file tool calls in the summarised history: realpath -> tool inputs, newest first."""


def history_uses(read_state: ReadFileState, history: Sequence[Message]) -> HistoryUses:
    failed = {str(b.get("tool_use_id")) for m in history for b in tool_results(m) if b.get("is_error")}
    realpath = instant_realpaths()  # every use in the history is resolved: each folder once, each path once
    real: dict[str, str] = {}  # each path as named resolved once (a file is used many times)
    uses: HistoryUses = {}
    for message in reversed(history):
        for use in tool_uses(message):
            tool_input = use.get("input")
            if not isinstance(tool_input, dict) or use.get("id") in failed:
                continue
            path = input_path(tool_input)
            if path is not None:
                if path not in real:
                    real[path] = read_state.resolve(path, realpath)[1]
                uses.setdefault(real[path], []).append(tool_input)
    return uses


@dataclass
class RankedFile:
    """One file's activity and score, best first in ``file_activities``'s answer."""

    activity: FileActivity
    score: float
    excluded: str | None = None
    """Why the file is not a candidate at all (outside the workspace, failed, denied, a skill)."""
    pinned: bool = False
    """The user pinned it (``compact/pin``): it comes before every ranked file."""


def file_activities(
    read_state: ReadFileState,
    workspace_roots: Sequence[str],
    *,
    denied_paths: frozenset[str] = frozenset(),
    history: Sequence[Message] = (),
    ranker: Ranker = recency_ranker,
    pinned: Sequence[str] = (),
) -> list[RankedFile]:
    """Every file the read-file state or the editor knows, ranked best first, with exclusions marked; the
    ``pinned`` real paths first (in pin order), including pinned files the agent never read."""
    real_roots = resolved_roots(workspace_roots)
    denied = {real_path(p) for p in denied_paths}
    activities = _activities(read_state, workspace_roots, history_uses(read_state, history), pinned)
    scores = ranker(activities)
    pin_order = {real: i for i, real in enumerate(pinned)}
    ranked = [
        RankedFile(act, score, pinned=act.realpath in pin_order) for act, score in zip(activities, scores, strict=True)
    ]
    ranked.sort(
        key=lambda r: (
            pin_order.get(r.activity.realpath, len(pin_order)),
            -r.score,
            -r.activity.last_seen,
            r.activity.path,
        )
    )
    for item in ranked:
        item.excluded = exclusion(item.activity, real_roots, denied)
    return ranked


@dataclass(eq=False)
class ActivityMaker:
    """Makes one file's ``FileActivity`` from what the read-file state and the editor know, for any file asked."""

    roots: list[str]
    real_roots: list[str]
    documents: list[EditorDocument]
    """Open documents, most recently focused first."""
    by_real: dict[str, EditorDocument]
    focus: dict[str, int]
    uses: HistoryUses

    @classmethod
    def of(cls, read_state: ReadFileState, workspace_roots: Sequence[str], uses: HistoryUses) -> ActivityMaker:
        documents = read_state.open_documents()
        return cls(
            roots=[os.path.abspath(r) for r in workspace_roots],
            real_roots=resolved_roots(workspace_roots),
            documents=documents,
            by_real={doc.realpath: doc for doc in documents},
            focus={doc.realpath: rank for rank, doc in enumerate(documents)},
            uses=uses,
        )

    def of_record(self, record: ReadRecord) -> FileActivity:
        return FileActivity(
            realpath=record.realpath,
            path=_display(record.resolved_path, record.realpath, self.roots, self.real_roots),
            last_seen=record.read_at,
            record=record,
            document=self.by_real.get(record.realpath),
            edited=record.kind in ("write", "edit"),
            focus_rank=self.focus.get(record.realpath),
            uses=self.uses.get(record.realpath, ()),
        )

    def of_document(self, doc: EditorDocument) -> FileActivity:
        """An open document the agent never read."""
        return FileActivity(
            realpath=doc.realpath,
            path=_display(doc.path, doc.realpath, self.roots, self.real_roots),
            last_seen=doc.focused_at,
            record=None,
            document=doc,
            edited=False,
            focus_rank=self.focus[doc.realpath],
            uses=self.uses.get(doc.realpath, ()),
        )

    def of_pin(self, real: str) -> FileActivity:
        """A pinned file neither the agent nor the editor has seen."""
        return FileActivity(real, _display(real, real, self.roots, self.real_roots), 0.0, None, None, False, None)


def _activities(
    read_state: ReadFileState, workspace_roots: Sequence[str], uses: HistoryUses, pinned: Sequence[str]
) -> list[FileActivity]:
    """One activity per file: what the read-file state knows, then open documents never read, then pinned files
    never seen (in pin order)."""
    make = ActivityMaker.of(read_state, workspace_roots, uses)
    activities: list[FileActivity] = []
    seen: set[str] = set()
    for record in read_state.ranked():
        if record.kind == "editor" or record.realpath in seen:
            continue
        seen.add(record.realpath)
        activities.append(make.of_record(record))
    for doc in make.documents:
        if doc.realpath not in seen:
            seen.add(doc.realpath)
            activities.append(make.of_document(doc))
    for real in pinned:
        if real not in seen:
            seen.add(real)
            activities.append(make.of_pin(real))
    return activities


def exclusion(act: FileActivity, real_roots: Sequence[str], denied: set[str]) -> str | None:
    # Cheap checks for every file; _pack_one also checks the realpath now, in case a symlink was re-pointed.
    if root_of(act.realpath, real_roots) is None:
        return "outside the workspace roots"
    if act.realpath in denied:
        return "access denied by permissions"
    if act.record is not None and act.record.error is not None and act.record.error_kind == "read":
        return f"the last read failed: {act.record.error}"
    if is_skill_path(act.realpath):
        return "a skill file: re-attached with the skills"
    return None
