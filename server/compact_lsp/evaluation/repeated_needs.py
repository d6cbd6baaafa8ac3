"""Needs after repeated compactions: what the agent went on to use after the 1st, 2nd and 3rd compaction of one
session, scored against what each of those compactions left in the context.

``survival`` compacts a session three times in succession (``compact_preview``: the real compaction, offline
summary, each on the already-compacted conversation plus what followed). After the k-th, the needs are the first
uses, in the ``LOOKAHEAD_TURNS`` assistant turns that follow, of files the agent had used before it (as in
``timeline.lookahead``); each is judged by ``metrics.verdict`` against the ``<file>`` that compaction re-attached
(its lines, its text, the outline it carries), so the 2nd and 3rd compactions are scored apart from the first.
The stand-in workspace is gone once the compactions ran, so an Edit's old text is not placed in the file: an
Edit miss is never "located" here, and a need resting on lines the log never showed counts as a miss.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from html import unescape

from compact_lsp.engine.claude_code.transcript_log import ImportedSession
from compact_lsp.engine.conversation.messages import blocks_of
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.file_use_timeline import file_uses
from compact_lsp.engine.prompts import FILE_OUTLINE_HEADER
from compact_lsp.evaluation.compact_preview import CompactionStep, cut_after_turn
from compact_lsp.evaluation.metrics import Attached, PointScore, score_point
from compact_lsp.evaluation.timeline import lookahead

LOOKAHEAD_TURNS = 10
"""As the policies' table: the needs of the ten assistant turns after each compaction."""

_FILE = re.compile(r'<file path="([^"]*)"([^>]*)>\n(.*?)\n</file>', re.DOTALL)
_OUTLINE_ROW = re.compile(r"^ *(\d+)-(\d+) ", re.MULTILINE)


def attached_after(step: CompactionStep, cwd: str, counter: TokenCounter) -> list[Attached]:
    """The files one compaction re-attached, read back from the conversation it left (paths as logged)."""
    tokens = {str(r.get("path")): int(r.get("tokens", 0)) for r in step.rehydrated if r.get("kind") == "file"}
    found: list[Attached] = []
    for message in step.messages:
        for block in blocks_of(message):
            text = str(block.get("text", "")) if block.get("type") == "text" else ""
            for match in _FILE.finditer(text):
                path, attrs, body = unescape(match.group(1)), match.group(2), match.group(3)
                lines = re.search(r'lines="([^"]*)"', attrs)
                at = body.find(FILE_OUTLINE_HEADER)
                outline = tuple((int(a), int(b)) for a, b in _OUTLINE_ROW.findall(body[at:])) if at >= 0 else ()
                found.append(
                    Attached(
                        os.path.normpath(os.path.join(cwd, path)), tokens.get(path, 0), lines is not None,
                        lines.group(1) if lines else None, match.group(0), outline=outline,
                        outline_tokens=counter.count_text(body[at:]) if at >= 0 else 0,
                    )
                )  # fmt: skip
    return found


def needs_after_compactions(
    imported: ImportedSession, turns: Sequence[int], steps: Sequence[CompactionStep], counter: TokenCounter
) -> list[PointScore | None]:
    """One score per compaction (None: it changed nothing, the conversation stayed whole)."""
    messages = imported.session.messages
    cwd = imported.cwd or os.sep
    uses = file_uses(messages, cwd, imported.tool_results_side)
    scores: list[PointScore | None] = []
    for turn, step in zip(turns, steps, strict=True):
        if not step.changed:
            scores.append(None)
            continue
        cut = cut_after_turn(messages, turn)
        known = {u.path for u in uses if u.index < cut}
        needs = lookahead(uses, cut, turn, LOOKAHEAD_TURNS, known, workspace=[cwd])
        scores.append(score_point(attached_after(step, cwd, counter), needs))
    return scores
