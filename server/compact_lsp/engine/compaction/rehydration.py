"""Rehydration after full compaction: bring back the files, plan and skills the model was working with.

Seed: ``createPostCompactFileAttachments`` and ``createPlanAttachmentIfNeeded``. Candidates are the read-file
state's successful reads, writes and edits plus the documents open in the editor, never a path outside the
allowed roots (realpath containment; no roots means no files) and never a path whose last read failed or was
denied (a rejected edit keeps its file: the agent edits it again). Each is re-read at rehydration time, through
the file gate (``file_gate``: by default over the allowed roots) — from disk, or from the editor's unsaved buffer
when the document is dirty — so what comes back is never stale. Files come back best ranked first until the
token budget is spent (``max_files`` only bounds the count); once what is left is too little for even an excerpt,
a file the read-file state knows to be bigger is left out without being read. Candidates are taken one by one
(``ranked_files``) and the listing stops after the first ``LISTED_PAST_BUDGET`` files left out for the budget or
the file limit, once nothing after them can fit: the rest are only counted (``unlisted``), so rehydration and its
preview cost what they return, not what the read-file state holds. A file over the per-file budget comes back as
the ranges the agent read or edited (else its head), small gaps between them filled, with an outline of the rest
and how to read it, marked partial (``file_excerpts.ExcerptPolicy``), unless the agent kept editing it and it fits
in twice the cap and in the budget left: then whole; a deleted file comes back as a notice.

Attachment order: the ledger (``ledger``, its tokens off the files' budget), plan, files (best ranked first), skills,
then memory indexes last (they are usually in the system prompt already; pass none in that case). The summary
itself comes before all of them (``compaction``). A deleted-file notice takes one of the ``max_files`` slots: that
keeps the output bounded however many files disappeared.

This module selects and packs; ``file_ranking`` says which files matter most, ``file_excerpts`` re-reads one and
renders it (cut to its budget), and the words the model reads around an attachment are in ``prompts``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from compact_lsp.engine.compaction.file_excerpts import (
    DEFAULT_EXCERPTS,
    MIN_PARTIAL_TOKENS,
    ExcerptPolicy,
    Source,
    estimate_tokens,
    file_parts,
    load_text,
    render_deleted,
    render_file,
    render_plan,
    render_tag,
)
from compact_lsp.engine.compaction.file_outline import OutlineEntry
from compact_lsp.engine.compaction.file_ranking import RankedFile, Ranker, recency_ranker, resolved_roots, root_of
from compact_lsp.engine.compaction.ledger import after_ledger
from compact_lsp.engine.compaction.over_budget import cut_to_budget, whole_anyway
from compact_lsp.engine.compaction.ranked_files import Entry, ranked_files
from compact_lsp.engine.compaction.skills import PathText
from compact_lsp.engine.compaction.skills import skill_attachments as skill_attachments_for
from compact_lsp.engine.conversation.messages import Attachment, Message, blocks_of, result_text
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.credential_files import is_credential_file
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.plan_state import PlanState
from compact_lsp.engine.files.read_outcome import lines_read
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.files.usable_path import real_path, real_path_or_none
from compact_lsp.engine.rehydration_settings import RehydrationSettings

log = logging.getLogger(__name__)


_LINE_NUMBER = re.compile(r"^ *\d+(?:→|\t)", re.MULTILINE)


@dataclass
class Candidate:
    """One file considered for rehydration and what became of it (``compact.rehydrationPreview``)."""

    path: str
    score: float
    tokens: int
    included: bool
    reason: str
    partial: bool = False
    deleted: bool = False
    source: Source = "disk"
    lines: str | None = None
    realpath: str = ""
    text: str = field(default="", repr=False)  # what was attached, for the evaluation; not on the wire
    outline: tuple[OutlineEntry, ...] = field(default=(), repr=False)  # a slice's outline of the rest, likewise


@dataclass
class RehydrationResult:
    """What came back (``attachments``) and every candidate weighed, with the tokens spent."""

    attachments: list[Attachment]
    candidates: list[Candidate]
    tokens_used: int
    """Tokens of every attachment: plan, files, skills and memory indexes."""
    file_tokens: int = 0
    skill_tokens: int = 0
    unlisted: int = 0
    """Candidates after the listed ones, left out for the budget or the file limit and not looked at one by one."""


def _haystack(kept_messages: Sequence[Message], system_prompt: str = "") -> str:
    """Everything the model still sees verbatim, plus read results with their line-number gutters removed."""
    parts: list[str] = [system_prompt]
    for message in kept_messages:
        for block in blocks_of(message):
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                text = result_text(block)
                parts.append(text)
                if _LINE_NUMBER.match(text):
                    parts.append(_LINE_NUMBER.sub("", text))
    return "\n\x00\n".join(parts)


@dataclass(repr=False, eq=False)
class _Packed:
    """One file weighed: its attachment (None: left out) and how it was judged."""

    attachment: Attachment | None
    candidate: Candidate


def _deleted_notice(item: RankedFile, allowed: int, counter: TokenCounter) -> _Packed:
    """A file deleted since it was read: a short notice in its place, when the budget has room for it."""
    path = item.activity.path
    text = render_deleted(path)
    tokens = counter.count_text(text)
    if tokens > allowed:
        reason = "deleted since it was read; no budget left for the notice"
        return _Packed(None, Candidate(path, item.score, tokens, False, reason, deleted=True))
    meta = {"tokens": tokens, "deleted": True, "partial": False, "source": "disk"}
    candidate = Candidate(path, item.score, tokens, True, "deleted since it was read", deleted=True)
    return _Packed(Attachment("file-deleted", text, path, meta), candidate)


def _refusal(current: str, root: str | None, denied: set[str]) -> str | None:
    """Why a file is never re-attached, whatever the budget (None: it may be)."""
    if not current or root is None:
        return "outside the workspace roots"
    if current in denied:
        return "access denied by permissions"
    return "a credential file: never re-attached" if is_credential_file(current) else None


def _pack_one(
    item: RankedFile,
    *,
    allowed: int,
    cap: int,
    counter: TokenCounter,
    read_text: Callable[[str], bytes],
    haystack: str,
    real_roots: Sequence[str],
    denied: set[str],
    excerpts: ExcerptPolicy = DEFAULT_EXCERPTS,
    checked: list[str] | None = None,
) -> _Packed:
    act = item.activity
    estimate = act.record.tokens if act.record is not None else 0

    def skipped(reason: str, tokens: int = estimate, *, deleted: bool = False) -> _Packed:
        return _Packed(None, Candidate(act.path, item.score, tokens, False, reason, deleted=deleted))

    current = real_path_or_none(act.realpath) or ""  # a symlink on the way may point elsewhere now
    root = root_of(current, real_roots)
    refusal = _refusal(current, root, denied)
    if refusal is not None:
        return skipped(refusal)
    loaded = load_text(act.realpath, act.document, read_text)
    if loaded.skip is not None:
        return skipped(loaded.skip)
    if loaded.deleted or loaded.text is None:
        return _deleted_notice(item, allowed, counter)
    content, span = lines_read(act.record, loaded.text) if root == current else (loaded.text, None)
    dirty = loaded.source == "editor-buffer"
    verbatim = content.rstrip("\n")
    if verbatim and checked is not None:
        checked.append(verbatim)
    if verbatim and verbatim in haystack:
        return skipped("already verbatim in the kept messages", estimate_tokens(content, counter, cap))
    rendered = render_file(act.path, content, lines=span, dirty=dirty)
    tokens = estimate_tokens(rendered, counter, cap, file_parts(rendered, content))
    lines_label: str | None = span
    outline: tuple[OutlineEntry, ...] = ()
    reason = "fits the budget" if span is None else "the lines read of a file admitted from outside"
    if whole_anyway(act.uses, tokens, cap, allowed, excerpts):
        reason = f"over the per-file budget, whole: edited {excerpts.worked_edits} times or more, and it fits"
    elif tokens > min(cap, allowed):
        if span is not None or min(cap, allowed) < MIN_PARTIAL_TOKENS:  # an outside file's lines read: those or none
            return skipped(f"about {tokens} tokens; only {allowed} left in the total budget", tokens)
        excerpt, tokens, reason = cut_to_budget(
            act, content, tokens=tokens, allowed=allowed, cap=cap, counter=counter, dirty=dirty, policy=excerpts
        )
        rendered, lines_label, outline = excerpt.rendered, excerpt.lines, excerpt.outline
    if dirty:
        reason += "; from the unsaved editor buffer"
    partial = lines_label is not None
    meta = {"tokens": tokens, "partial": partial, "source": loaded.source, "lines": lines_label, "score": item.score}
    candidate = Candidate(
        act.path, item.score, tokens, True, reason, partial=partial, source=loaded.source, lines=lines_label,
        realpath=act.realpath, text=rendered, outline=outline,
    )  # fmt: skip
    return _Packed(Attachment("file", rendered, act.path, meta), candidate)


# -- the entry points ---------------------------------------------------------------------------------------


LISTED_PAST_BUDGET = 100
"""Files left out for the budget or the file limit that are still listed, each with why; those after them are
only counted (``unlisted``) and never looked at, so rehydration and its preview cost what they return."""


@dataclass(repr=False, eq=False)
class _FilePack:
    """The files packed so far within the budget, and the candidates weighed on the way."""

    attachments: list[Attachment] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    tokens: int = 0
    unlisted: int = 0


def _left_out(entry: Entry, full: bool, spent: bool, allowed: int) -> bool:
    """What the read-file state knows leaves it out: the file limit is reached, or the budget is spent and the file
    was bigger than what is left when last read (it is not read to be sure)."""
    return full or (spent and entry.estimate > allowed)


def _left_out_candidate(item: RankedFile, estimate: int, max_files: int | None, allowed: int) -> Candidate:
    """A file left out by ``_left_out``: beyond the file limit (``max_files``), else past the budget."""
    reason = (
        f"beyond the {max_files}-file limit"
        if max_files is not None
        else f"about {estimate} tokens when last read; only {max(allowed, 0)} left in the total budget"
    )
    return Candidate(item.activity.path, item.score, estimate, False, reason)


def _pack_files(
    *,
    read_state: ReadFileState,
    haystack: str,
    settings: RehydrationSettings,
    counter: TokenCounter,
    workspace_roots: Sequence[str],
    denied_paths: frozenset[str],
    ranker: Ranker,
    read_text: Callable[[str], bytes] | None,
    history: Sequence[Message],
    pinned: Sequence[str] = (),
    listed: int = LISTED_PAST_BUDGET,
    excerpts: ExcerptPolicy = DEFAULT_EXCERPTS,
    checked: list[str] | None = None,
) -> _FilePack:
    reader = read_text or gated_reader(AllowedRoots.of(*workspace_roots))
    ranked = ranked_files(
        read_state, workspace_roots, denied_paths=denied_paths, history=history, ranker=ranker, pinned=pinned
    )
    real_roots = resolved_roots(workspace_roots)
    denied = {real_path(p) for p in denied_paths}
    budget, pack, past = settings.budget_tokens, _FilePack(), 0
    while (entry := ranked.next_entry()) is not None:
        allowed = budget - pack.tokens
        full, spent = len(pack.attachments) >= settings.max_files, allowed < MIN_PARTIAL_TOKENS
        if past >= listed:
            if full or (spent and not ranked.may_fit(allowed)):
                break  # nothing after this can come back, and enough is listed: the rest is only counted
            if _left_out(entry, full, spent, allowed):
                continue
        item = ranked.make(entry)
        act = item.activity
        if item.excluded is not None:
            past += 1 if full or spent else 0
            pack.candidates.append(Candidate(act.path, item.score, entry.estimate, False, item.excluded))
            continue
        if _left_out(entry, full, spent, allowed):
            past += 1
            pack.candidates.append(
                _left_out_candidate(item, entry.estimate, settings.max_files if full else None, allowed)
            )
            continue
        packed = _pack_one(
            item, allowed=allowed, cap=settings.file_cap_tokens, counter=counter, read_text=reader, haystack=haystack,
            real_roots=real_roots, denied=denied, excerpts=excerpts, checked=checked,
        )  # fmt: skip
        candidate = (
            replace(packed.candidate, reason=f"pinned; {packed.candidate.reason}") if item.pinned else packed.candidate
        )
        pack.candidates.append(candidate)
        if packed.attachment is not None:
            pack.attachments.append(packed.attachment)
            pack.tokens += candidate.tokens
    pack.unlisted = ranked.total - len(pack.candidates)
    return pack


def rehydration_candidates(
    read_state: ReadFileState,
    *,
    kept_messages: Sequence[Message],
    settings: RehydrationSettings,
    counter: TokenCounter,
    workspace_roots: Sequence[str],
    denied_paths: frozenset[str] = frozenset(),
    ranker: Ranker = recency_ranker,
    read_text: Callable[[str], bytes] | None = None,
    history: Sequence[Message] = (),
    system_prompt: str = "",
    pinned: Sequence[str] = (),
    excerpts: ExcerptPolicy = DEFAULT_EXCERPTS,
    ledger: str = "",
) -> list[Candidate]:
    """Every file considered, best first, each with whether it would be included and why (the preview)."""
    return _pack_files(
        read_state=read_state,
        haystack=_haystack(kept_messages, system_prompt),
        settings=after_ledger(settings, ledger, counter)[0],
        counter=counter,
        workspace_roots=workspace_roots,
        denied_paths=denied_paths,
        ranker=ranker,
        read_text=read_text,
        history=history,
        pinned=pinned,
        excerpts=excerpts,
    ).candidates


def rehydrate(
    *,
    read_state: ReadFileState,
    kept_messages: Sequence[Message],
    settings: RehydrationSettings,
    counter: TokenCounter,
    workspace_roots: Sequence[str],
    plan: PlanState | None,
    skills: Sequence[PathText] = (),
    memory_indexes: Sequence[PathText] = (),
    denied_paths: frozenset[str] = frozenset(),
    ranker: Ranker = recency_ranker,
    read_text: Callable[[str], bytes] | None = None,
    history: Sequence[Message] = (),
    system_prompt: str = "",
    pinned: Sequence[str] = (),
    listed: int = LISTED_PAST_BUDGET,
    ledger: str = "",
    excerpts: ExcerptPolicy = DEFAULT_EXCERPTS,
    checked: list[str] | None = None,
) -> RehydrationResult:
    """The attachments that follow the summary: ledger, plan, files, skills, memory indexes (see the module doc).

    ``kept_messages`` are what stays after compaction (files already verbatim there are skipped); ``history``,
    optional, is what was summarised away: it tells which line ranges of a big file the agent read or edited.
    Anything verbatim in ``system_prompt`` (a memory index, say) is not attached again. ``pinned`` files (real
    paths, ``compact/pin``) come first, before the ranked ones, whether or not the agent ever read them.
    ``listed``: how many files left out for the budget are listed with why (none for a compaction: it stops once
    nothing after can fit). ``excerpts``: how a file over its budget comes back (``file_excerpts``). ``checked``
    gets each file's text looked for in ``kept_messages``: the files depend on them only through those searches.
    """
    haystack = _haystack(kept_messages, system_prompt)
    attachments: list[Attachment] = []
    tokens_used = 0
    if ledger:
        settings, tokens_used = after_ledger(settings, ledger, counter)
        attachments.append(Attachment("ledger", ledger, None, {"tokens": tokens_used}))
    if plan is not None and plan.text.strip():
        text = render_plan(plan)
        tokens = counter.count_text(text)
        attachments.append(Attachment("plan", text, plan.path, {"tokens": tokens, "source": plan.source}))
        tokens_used += tokens
    pack = _pack_files(
        read_state=read_state, haystack=haystack, settings=settings, counter=counter, workspace_roots=workspace_roots,
        denied_paths=denied_paths, ranker=ranker, read_text=read_text, history=history, pinned=pinned, listed=listed,
        excerpts=excerpts, checked=checked,
    )  # fmt: skip
    skill_attachments = skill_attachments_for(skills, settings, counter, haystack)
    skill_tokens = sum(int(a.meta["tokens"]) for a in skill_attachments)
    attachments += pack.attachments + skill_attachments
    tokens_used += pack.tokens + skill_tokens
    for index in memory_indexes:
        if index.text.strip() and index.text not in haystack:
            text = render_tag("memory-index", index.text, path=index.path)
            tokens = counter.count_text(text)
            attachments.append(Attachment("memory-index", text, index.path, {"tokens": tokens}))
            tokens_used += tokens
    log.info("rehydrated %d files (%d tokens), %d skills (%d tokens)", len(pack.attachments), pack.tokens,
             len(skill_attachments), skill_tokens)  # fmt: skip
    return RehydrationResult(attachments, pack.candidates, tokens_used, pack.tokens, skill_tokens, pack.unlisted)
