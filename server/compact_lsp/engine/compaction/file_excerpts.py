"""What of a file comes back after full compaction, and how it reads: loading, excerpts, attachment text.

Rehydration (``rehydration``) decides which files come back; this module re-reads one (from disk, or from the
editor's unsaved buffer), cuts a file over its budget down to the lines the agent read or edited (else its
head), and renders the ``<file>``, ``<plan>`` and ``<skill>`` tags the model reads. The words inside the tags
are prompt text and live in ``prompts``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from compact_lsp.engine.compaction.file_outline import OutlineEntry, outline
from compact_lsp.engine.conversation.tokens import TokenCounter, count_joined
from compact_lsp.engine.files.editor_documents import EditorDocument
from compact_lsp.engine.files.file_gate import MAX_READ_BYTES, FileTooLarge, NotRegularFile, OutsideRoots
from compact_lsp.engine.files.plan_state import PlanState
from compact_lsp.engine.prompts import (
    FILE_DELETED_NOTE,
    FILE_DIRTY_NOTE,
    FILE_HEAD_NOTE,
    FILE_OMITTED_LINES,
    FILE_OUTLINE_HEADER,
    FILE_OUTLINE_MORE,
    FILE_PARTIAL_NOTE,
    OVER_FILE_BUDGET,
    OVER_TOTAL_BUDGET,
    PLAN_NOTE,
)

Source = Literal["disk", "editor-buffer"]

EDIT_CONTEXT_LINES = 3
"""Lines kept around an edit when a big file comes back as ranges."""

MIN_PARTIAL_TOKENS = 200
"""Below this much budget left, a file is skipped rather than squeezed into a useless sliver."""


@dataclass(frozen=True)
class ExcerptPolicy:
    """How a file over its budget comes back: which gaps between slices are filled, whether an outline of the
    rest comes with them, and whether a file the agent kept working on comes back whole when the budget has room.

    The defaults are what the evaluation chose (docs/evaluation.md, "Big files"); ``EXCERPTS_BEFORE`` is the
    policy before them, kept for the evaluation's before/after rows."""

    gap_lines: int = 50
    """A gap of at most this many lines between two slices is filled (an edit's old text often spans one)."""
    outline: bool = True
    """Attach an outline of the lines not shown (``file_outline``) so the model can read exactly what it needs."""
    outline_share: float = 0.15
    """At most this share of the file's budget goes to the outline."""
    worked_edits: int = 2
    """A file the agent edited at least this often comes back whole, over the per-file cap, when it fits in
    ``worked_factor`` times the cap and in what is left of the budget (0: never)."""
    worked_factor: float = 2.0


DEFAULT_EXCERPTS = ExcerptPolicy()
EXCERPTS_BEFORE = ExcerptPolicy(gap_lines=0, outline=False, worked_edits=0)
"""Slices only, no gap filled, no outline: the policy before issue 41."""


# -- reading ------------------------------------------------------------------------------------------------


@dataclass(eq=False)
class LoadedText:
    """A file's current text, or why there is none (deleted, or ``skip``: too big, binary, unreadable)."""

    text: str | None = None
    source: Source = "disk"
    deleted: bool = False
    skip: str | None = None


def load_text(realpath: str, document: EditorDocument | None, read_text: Callable[[str], bytes]) -> LoadedText:
    """The text the model should see now: the editor's buffer when it is dirty, else the file on disk."""
    if document is not None and document.dirty:
        return LoadedText(text=document.text, source="editor-buffer")
    try:
        data = read_text(realpath)
    except (FileNotFoundError, NotADirectoryError):
        return LoadedText(deleted=True)
    except FileTooLarge:
        return LoadedText(skip=f"larger than {MAX_READ_BYTES // (1024 * 1024)} MiB")
    except OutsideRoots:
        return LoadedText(skip="it resolves outside the workspace now")
    except NotRegularFile as exc:
        return LoadedText(skip=str(exc).rsplit(" is ", 1)[-1])
    except OSError as exc:
        return LoadedText(skip=f"cannot be read: {exc.strerror or exc}")
    if b"\x00" in data[:8192]:
        return LoadedText(skip="binary file")
    try:
        return LoadedText(text=data.decode("utf-8"))
    except UnicodeDecodeError:
        return LoadedText(skip="binary file (not UTF-8 text)")


# -- rendering ----------------------------------------------------------------------------------------------


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def render_tag(tag: str, text: str, **attrs: str | None) -> str:
    """``<tag attr="...">`` on its own line, the text, then the closing tag; empty attributes left out."""
    rendered = "".join(f' {k}="{_attr(v)}"' for k, v in attrs.items() if v)
    return f"<{tag}{rendered}>\n{text}\n</{tag}>"


def render_file(
    path: str, content: str, *, lines: str | None = None, note: str | None = None, dirty: bool = False
) -> str:
    attrs = [f'path="{_attr(path)}"']
    if lines is not None:
        attrs += [f'lines="{lines}"', 'partial="true"']
    if dirty:
        attrs.append('source="editor-buffer"')
    notes = [n for n in (note, FILE_DIRTY_NOTE if dirty else None) if n]
    if notes:
        attrs.append(f'note="{_attr("; ".join(notes))}"')
    body = content[:-1] if content.endswith("\n") else content  # the closing tag goes on its own line anyway
    return f"<file {' '.join(attrs)}>\n{body}\n</file>"


def render_deleted(path: str) -> str:
    return f'<file path="{_attr(path)}" deleted="true">{FILE_DELETED_NOTE.format(path=path)}</file>'


def render_plan(plan: PlanState) -> str:
    return render_tag("plan", plan.text, source=plan.source, path=plan.path, note=PLAN_NOTE)


# -- cutting to a budget ------------------------------------------------------------------------------------


def estimate_tokens(text: str, counter: TokenCounter, limit: int, parts: Sequence[str] = ()) -> int:
    """Exact tokens, unless the text is far over ``limit``: then a prefix's count scaled up ("about"). ``parts``:
    the text's pieces, whose cached counts may give the exact one (``count_joined``)."""
    probe = max(limit, 1) * 8
    if len(text) > probe:
        head = counter.count_text(text[:probe])
        if head > limit:
            return head * len(text) // probe
    return count_joined(counter, parts) if parts else counter.count_text(text)


def file_parts(rendered: str, content: str) -> tuple[str, ...]:
    """``render_file``'s text as (tag, file text, closing tag) when the file text ends a line, else (): a file the
    agent read whole has its text counted already, so only the tags are new (``estimate_tokens``)."""
    tail = "</file>"
    head = rendered[: len(rendered) - len(content) - len(tail)]
    if content.endswith("\n") and rendered.endswith(content + tail) and head.endswith(">\n"):
        return head, content, tail
    return ()


def truncate_to_tokens(text: str, max_tokens: int, counter: TokenCounter, note: str = "") -> str:
    """``text`` cut so that it plus ``note`` fits ``max_tokens`` (at a line end when one is near)."""
    if len(text) <= max_tokens * 32 and counter.count_text(text) <= max_tokens:
        return text
    # No useful text averages 32 characters a token; bounding the search keeps a huge text cheap to cut.
    low, high = 0, min(len(text), max_tokens * 32)
    while low < high:  # the longest prefix that fits
        mid = (low + high + 1) // 2
        if counter.count_text(text[:mid] + note) <= max_tokens:
            low = mid
        else:
            high = mid - 1
    cut = text.rfind("\n", 0, low)
    if cut >= low * 3 // 4:
        low = cut
    return text[:low] + note


def _merge(ranges: Iterable[tuple[int, int]], total: int) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for first, last in sorted((max(1, a), min(total, b)) for a, b in ranges):
        if first > last:
            continue
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def _edit_ranges(inputs: Sequence[dict[str, Any]], text: str) -> list[tuple[int, int]]:
    """Where the agent's edits landed in the current text, newest first, with a little context."""
    found: list[tuple[int, int]] = []
    for tool_input in inputs:
        edits = tool_input.get("edits")
        for edit in edits if isinstance(edits, list) else [tool_input]:
            new = edit.get("new_string") if isinstance(edit, dict) else None
            if isinstance(new, str) and new and (at := text.find(new)) >= 0:
                first = text.count("\n", 0, at) + 1
                found.append((first - EDIT_CONTEXT_LINES, first + new.count("\n") + EDIT_CONTEXT_LINES))
    return found


def _read_ranges(inputs: Sequence[dict[str, Any]]) -> list[tuple[int, int]]:
    """The line ranges of the agent's partial reads, newest first (offsets 1-based, as the read state's)."""
    found: list[tuple[int, int]] = []
    for tool_input in inputs:
        offset, limit = tool_input.get("offset"), tool_input.get("limit")
        if isinstance(limit, int) and limit > 0:
            first = max(1, offset if isinstance(offset, int) else 1)
            found.append((first, first + limit - 1))
    return found


def fit_ranges(
    lines: Sequence[str], ranges: Sequence[tuple[int, int]], budget: int, counter: TokenCounter
) -> tuple[str, str]:
    """(content, lines label) for the ranges, in priority order, filled line by line within ``budget`` tokens.

    The chosen lines are shown in file order, with a marker where lines are left out.
    """
    total = len(lines)
    chosen: set[int] = set()
    used = 0
    for first, last in ranges:
        for n in range(max(1, first), min(total, last) + 1):
            if n in chosen:
                continue
            cost = counter.count_text(lines[n - 1] + "\n")
            if used + cost > budget:
                break
            chosen.add(n)
            used += cost
        else:
            continue
        break
    spans = _merge(((n, n) for n in chosen), total)
    parts: list[str] = []
    previous = 0
    for first, last in spans:
        if first > previous + 1:
            parts.append(FILE_OMITTED_LINES.format(first=previous + 1, last=first - 1, count=first - previous - 1))
        parts.append("\n".join(lines[first - 1 : last]))
        previous = last
    if spans and previous < total:
        parts.append(FILE_OMITTED_LINES.format(first=previous + 1, last=total, count=total - previous))
    label = ",".join(f"{a}-{b}" for a, b in spans)
    return "\n".join(parts), label


def gap_ranges(ranges: Sequence[tuple[int, int]], total: int, gap_lines: int) -> list[tuple[int, int]]:
    """The gaps of at most ``gap_lines`` lines between the ranges (merged), smallest first."""
    if gap_lines <= 0:
        return []
    merged = _merge(ranges, total)
    gaps = [(a[1] + 1, b[0] - 1) for a, b in itertools.pairwise(merged) if b[0] - a[1] - 1 <= gap_lines]
    return sorted(gaps, key=lambda gap: gap[1] - gap[0])


def shown_spans(label: str) -> list[tuple[int, int]]:
    """ "1-40,90-120" (``fit_ranges``' label) -> [(1, 40), (90, 120)]."""
    spans: list[tuple[int, int]] = []
    for piece in label.split(","):
        first, _, last = piece.partition("-")
        if first.isdigit() and last.isdigit():
            spans.append((int(first), int(last)))
    return spans


def outline_rest(
    entries: Sequence[OutlineEntry], shown: Sequence[tuple[int, int]], budget: int, counter: TokenCounter
) -> tuple[str, list[OutlineEntry]]:
    """The outline of what is not shown, within ``budget`` tokens: entries wholly inside the shown lines are left
    out; when they do not all fit, the nested ones go first, then the list is cut with a count of what is left.
    ("": nothing to say, or no room.)"""

    def hidden(entry: OutlineEntry) -> bool:
        return not any(a <= entry.first and entry.last <= b for a, b in shown)

    rest = [e for e in entries if hidden(e)]
    if not rest or budget <= 0:
        return "", []
    header = FILE_OUTLINE_HEADER
    for keep in (rest, [e for e in rest if e.depth == 0] or rest):
        rows = [f"{'  ' * e.depth}{e.first}-{e.last} {e.label}" for e in keep]
        text = "\n".join([header, *rows])
        if keep and counter.count_text(text) <= budget:
            return text, list(keep)
    used = counter.count_text(header) + 8  # the "more" line
    chosen: list[OutlineEntry] = []
    rows = []
    for entry in keep:
        row = f"{entry.first}-{entry.last} {entry.label}"
        cost = counter.count_text(row + "\n")
        if used + cost > budget:
            break
        used += cost
        rows.append(row)
        chosen.append(entry)
    if not chosen:
        return "", []
    more = len(keep) - len(chosen)
    return "\n".join([header, *rows, *([FILE_OUTLINE_MORE.format(count=more)] if more else [])]), chosen


@dataclass(eq=False)
class Excerpt:
    """A big file cut to its budget: the rendered attachment, its lines label, and why it was cut so."""

    rendered: str
    lines: str
    reason: str
    outline: tuple[OutlineEntry, ...] = ()
    """The outline entries attached after the lines shown (what the model can read next)."""


def _stated_tokens(counter: TokenCounter, text: str, counted: int) -> int:
    """The tokens a note tells the model ``text`` is: ``counted`` when ``counter`` counts tokens; counted by the
    tokenizer when it counts another unit (the hooks' ``CharCounter`` counts characters, with ``tokens_of``)."""
    count = getattr(counter, "tokens_of", None)
    return int(count(text)) if callable(count) else counted


def _over(counter: TokenCounter, full: int, budget: int, cap: int) -> tuple[str, str]:
    """Why a file is cut, for the model (the note's ``{over}``, in the counter's unit) and for the report."""
    unit = str(getattr(counter, "unit", "token"))
    if full > cap:
        return OVER_FILE_BUDGET.format(cap=cap, unit=unit), "over the per-file budget"
    return OVER_TOTAL_BUDGET.format(left=budget, unit=unit), f"more than the {budget} {unit}s left of the total budget"


def render_excerpt(
    path: str,
    text: str,
    *,
    uses: Sequence[dict[str, Any]],
    read_span: tuple[int, int | None] | None,
    full_tokens: int,
    budget: int,
    cap: int,
    counter: TokenCounter,
    dirty: bool,
    policy: ExcerptPolicy = DEFAULT_EXCERPTS,
) -> Excerpt:
    """A file over its budget as the lines the agent edited (``uses``, newest first), then the span of its
    recorded partial read (``read_span``, 1-based, open-ended when the last line is None), then other reads;
    its head when there are none. Small gaps between them are filled last (``policy.gap_lines``), and an outline
    of the rest follows the lines shown (``policy.outline``), within the same budget."""
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1]:  # a final newline ends the last line; it does not start another
        lines.pop()
    total = len(lines)
    ranges = _edit_ranges(uses, text)
    if read_span is not None:
        first, last = read_span
        ranges.append((first, last if last is not None else total))
    ranges += _read_ranges(uses)
    template = FILE_PARTIAL_NOTE if ranges else FILE_HEAD_NOTE
    over_what, why = _over(counter, full_tokens, budget, cap)
    how = f"{why}: the lines read or edited" if ranges else f"{why}: its head"
    if not ranges:
        ranges = [(1, total)]
    ranges += gap_ranges(ranges, total, policy.gap_lines)
    entries = outline(path, text) if policy.outline else []
    note = template.format(
        path=path, total_lines=total, tokens=_stated_tokens(counter, text, full_tokens), over=over_what
    )
    whole_budget = budget - counter.count_text(render_file(path, "", lines="1-1", note=note, dirty=dirty))
    outline_budget = int(whole_budget * policy.outline_share) if entries else 0
    content_budget = whole_budget - outline_budget
    chosen: list[OutlineEntry] = []
    for _ in range(4):
        content, label = fit_ranges(lines, ranges, max(content_budget, 0), counter)
        if not label:  # not even one line fits (a minified file): cut the first range's text itself
            first = ranges[0][0]
            content = truncate_to_tokens("\n".join(lines[first - 1 :]), max(content_budget, 1), counter)
            label = f"{first}-{first + content.count(chr(10))}"
        body = content
        if entries:
            rest, chosen = outline_rest(entries, shown_spans(label), outline_budget, counter)
            body = f"{content}\n{rest}" if rest else content
        rendered = render_file(path, body, lines=label, note=note, dirty=dirty)
        over = counter.count_text(rendered) - budget
        if over <= 0:
            return Excerpt(rendered, label, how, tuple(chosen))
        content_budget -= over + 8
    return Excerpt(rendered, label, how, tuple(chosen))
