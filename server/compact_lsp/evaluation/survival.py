"""Fact survival through repeated compactions: what the model still knows after the 1st, 2nd and 3rd.

Each session with enough turns is compacted successively (offline summariser, ``compact_preview``) at a quarter,
half and three quarters of its assistant turns. After the k-th compaction a deterministic probe looks for the
facts of everything said before that point in the compacted context's text (the summary, the re-attached files
and plan, the messages kept):

- every user request (its first ``REQUEST_CHARS`` characters, whitespace folded): the requests and constraints;
  and each longer one whole (``words``; a very long one up to the sentence the summary may cut it at);
- every file edited or written successfully (its path);
- the plan's title (its first line) and each open step, as ``extract_plan`` finds them;
- the latest error (its first line, ``ERROR_CHARS`` characters) and what decides in it (``failure``: the line
  after a bare "Exit code N", each linter code at a position, each failing test's id).

The summary's size after the k-th compaction is compared with the first's (the summary text alone), and with the
summary of one compaction of the same conversation at the same turn (what repeating costs or saves in size).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from compact_lsp.engine.claude_code.transcript_log import ImportedSession
from compact_lsp.engine.conversation.messages import Message, blocks_of, result_text, tool_results, tool_uses
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.plan_state import extract_plan
from compact_lsp.engine.summarize.offline import extract_facts
from compact_lsp.engine.summarize.user_words import user_words
from compact_lsp.evaluation.compact_preview import CompactionStep, assistant_turns, compact_imported, cut_after_turn
from compact_lsp.evaluation.metrics import PointScore
from compact_lsp.evaluation.repeated_needs import LOOKAHEAD_TURNS, needs_after_compactions

_OPEN_STEP = re.compile(r"^- \[[ ~]\] (.+?) \((?:pending|in_progress)\)$")
REQUEST_CHARS = 120
ERROR_CHARS = 80
MIN_TURNS = 8
WRITERS = ("Edit", "MultiEdit", "Write", "NotebookEdit", "edit", "write_file", "replace")


def _fold(text: str) -> str:
    return " ".join(text.split())


def probe_facts(messages: Sequence[Message]) -> list[tuple[str, str]]:
    """The facts of ``messages`` as (kind, text to find)."""
    said = [m for m in extract_facts(messages).user_messages if m.strip()]
    facts = [("request", _fold(m)[:REQUEST_CHARS]) for m in said]
    # the user's words whole (a very long one up to the sentence the summary may cut it at): a constraint cut
    # mid-way is another instruction
    facts += [("words", _fold(user_words(m).split(" [… ")[0])) for m in said if len(m) > REQUEST_CHARS]
    failed = {str(b.get("tool_use_id")) for m in messages for b in tool_results(m) if b.get("is_error")}
    edited: dict[str, None] = {}
    for message in messages:
        for use in tool_uses(message):
            data = use.get("input")
            if use.get("name") in WRITERS and isinstance(data, dict) and str(use.get("id")) not in failed:
                path = data.get("file_path") or data.get("path") or data.get("notebook_path")
                if isinstance(path, str) and path:
                    edited[path] = None
    facts += [("file", path) for path in edited]
    plan = extract_plan(messages)
    if plan is not None:
        lines = [line.strip() for line in plan.text.splitlines() if line.strip()]
        if plan.source != "tool":  # a plan document has a title; a task list has only its items
            facts.append(("plan", _fold(lines[0])[:REQUEST_CHARS]))
        steps = [_OPEN_STEP.match(line) for line in lines]
        facts += [("plan", _fold(step.group(1))[:REQUEST_CHARS]) for step in steps if step is not None]
    errors = [b for m in messages for b in tool_results(m) if b.get("is_error")]
    if errors:
        lines = [line.strip() for line in result_text(errors[-1]).splitlines() if line.strip()]
        if lines:
            facts.append(("error", _fold(lines[0])[:ERROR_CHARS]))
        facts += [("failure", fact) for fact in failure_facts(lines)]
    return facts


_BARE_EXIT = re.compile(r"^(error:\s*)?exit code -?\d+$", re.IGNORECASE)
_LINT_CODE = re.compile(r":\d+:\d+:? ([A-Z]{1,5}\d{2,4})\b")
_FAILED_TEST = re.compile(r"^FAILED (\S+)")


def failure_facts(lines: Sequence[str]) -> list[str]:
    """What decides in the latest failure, found independently of the summariser: the line after a bare "Exit
    code N" (what failed), each linter code at a position, each failing test's id."""
    facts = [_fold(lines[1])[:ERROR_CHARS]] if len(lines) > 1 and _BARE_EXIT.match(lines[0]) else []
    facts += [m.group(1) for line in lines if (m := _LINT_CODE.search(line))]
    facts += [m.group(1) for line in lines if (m := _FAILED_TEST.match(line))]
    return list(dict.fromkeys(facts))


def view_text(messages: Sequence[Message]) -> str:
    parts: list[str] = []
    for message in messages:
        for block in blocks_of(message):
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_use":
                parts.append(json.dumps(block.get("input"), ensure_ascii=False))
            elif block.get("type") == "tool_result":
                parts.append(result_text(block))
    return _fold("\n".join(parts))


@dataclass
class SurvivalResult:
    path: str
    turns: list[int]
    compacted: list[bool] = field(default_factory=list)
    facts: list[int] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)
    summary_tokens: list[int] = field(default_factory=list)
    one_shot_tokens: list[int] = field(default_factory=list)
    """The summary of a single compaction at the same turn."""
    lost: list[list[str]] = field(default_factory=list)
    needs: list[PointScore | None] = field(default_factory=list)
    """After each compaction: the files the agent used next, scored against what it re-attached
    (``repeated_needs``; None: that compaction changed nothing)."""

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "turns": self.turns, "compacted": self.compacted, "facts": self.facts,
                "kept": self.kept, "summaryTokens": self.summary_tokens, "oneShotTokens": self.one_shot_tokens,
                "lost": self.lost,
                "needs": [n.to_json() if n is not None else None for n in self.needs]}  # fmt: skip


def survival(imported: ImportedSession, counter: TokenCounter) -> SurvivalResult | None:
    """Compact at 1/4, 1/2 and 3/4 of the turns and probe after each; None for sessions under ``MIN_TURNS``."""
    messages = imported.session.messages
    total = assistant_turns(messages)
    if total < MIN_TURNS:
        return None
    turns = [max(1, total * k // 4) for k in (1, 2, 3)]
    steps: list[CompactionStep] = compact_imported(imported, turns, counter)
    result = SurvivalResult(str(imported.path), turns)
    for turn, step in zip(turns, steps, strict=True):
        facts = probe_facts(messages[: cut_after_turn(messages, turn)])
        text = view_text(step.messages)
        lost = [f"{kind}: {fact}" for kind, fact in facts if fact not in text]
        result.compacted.append(step.changed)
        result.facts.append(len(facts))
        result.kept.append(len(facts) - len(lost))
        result.lost.append(lost)
        result.summary_tokens.append(_summary_tokens(step, counter))
        result.one_shot_tokens.append(_summary_tokens(compact_imported(imported, [turn], counter)[0], counter))
    result.needs = needs_after_compactions(imported, turns, steps, counter)
    return result


def _summary_tokens(step: CompactionStep, counter: TokenCounter) -> int:
    if not step.changed or not step.messages:
        return 0
    return counter.count_text(next((str(b.get("text", "")) for b in blocks_of(step.messages[0])), ""))


def _rate(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "–"


def survival_json(results: Sequence[SurvivalResult]) -> dict[str, Any]:
    """Totals after the 1st, 2nd and 3rd compaction (rates as fractions) and the per-session figures."""
    totals = []
    for k in range(3):
        facts = sum(r.facts[k] for r in results)
        kept = sum(r.kept[k] for r in results)
        sized = [r for r in results if r.summary_tokens[0] and r.summary_tokens[k]]
        ratios = [r.summary_tokens[k] / r.summary_tokens[0] for r in sized]
        shots = [r.summary_tokens[k] / r.one_shot_tokens[k] for r in sized if r.one_shot_tokens[k]]
        totals.append({
            "compaction": k + 1, "facts": facts, "kept": kept, "survival": kept / facts if facts else None,
            "compacted": sum(r.compacted[k] for r in results),
            "sizeVsFirstMin": min(ratios, default=None), "sizeVsFirstMax": max(ratios, default=None),
            "sizeVsFirstInRange": sum(0.8 <= x <= 1.2 for x in ratios), "sized": len(ratios),
            "sizeVsOneShotMax": max(shots, default=None),
            **_needs_json(results, k),
        })  # fmt: skip
    return {"totals": totals, "sessions": [r.to_json() for r in results]}


def _needs_json(results: Sequence[SurvivalResult], k: int) -> dict[str, Any]:
    """The needs after the k-th compaction, summed over the sessions it changed."""
    total = PointScore()
    for r in results:
        score = r.needs[k] if k < len(r.needs) else None
        if score is not None:
            total = total + score
    return {"points": total.points, "needed": total.needed, "strictMisses": total.strict_misses,
            "locatedMisses": total.located_misses, "strictMissRate": total.strict_miss_rate,
            "meanTokens": total.tokens_per_point, "meanOutlineTokens": total.outline_tokens_per_point}  # fmt: skip


def needs_lines(results: Sequence[SurvivalResult]) -> list[str]:
    """The markdown table of needs after the 1st, 2nd and 3rd compaction of the same sessions."""
    lines = [
        "",
        "### Needs after repeated compactions",
        "",
        f"The same sessions, the same three compactions (the product's policy, offline summary): the files the agent "
        f"used in the {LOOKAHEAD_TURNS} assistant turns after each, against what that compaction re-attached. Each "
        "compaction is scored apart; one that changed nothing is not counted.",
        "",
        "| after compaction | compactions scored | needed | strict misses | of them located | **strict miss rate** "
        "| file tokens / compaction | of them outline |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t in survival_json(results)["totals"]:
        tokens, outline = t["meanTokens"], t["meanOutlineTokens"]
        lines.append(
            f"| {t['compaction']} | {t['points']} | {t['needed']} | {t['strictMisses']} | {t['locatedMisses']} | "
            f"**{_rate(t['strictMisses'], t['needed'])}** | {f'{tokens:,.0f}' if tokens is not None else '–'} | "
            f"{f'{outline:,.0f}' if outline is not None else '–'} |"
        )
    return lines


def survival_lines(results: Sequence[SurvivalResult]) -> list[str]:
    """The markdown section of the eval report."""
    data = survival_json(results)["totals"]
    lines = [
        "",
        "## Repeated compactions",
        "",
        f"{len(results)} sessions with at least {MIN_TURNS} assistant turns, compacted successively (offline summary) "
        "at 1/4, 1/2 and 3/4 of their turns; facts of everything said before each point, looked up in the "
        "compacted context: user requests (and the longer ones whole), files edited, the plan's title and open "
        "steps, the latest error and what decides in it (the line after a bare exit code, linter codes, failing "
        "tests).",
        "",
        "| after compaction | compactions done | facts kept | **survival** | summary size vs the first (range) "
        "| within 0.8-1.2x | largest vs one compaction at that turn |",
        "|---:|---:|---:|---:|---|---:|---:|",
    ]
    for t in data:
        lo, hi, shot = t["sizeVsFirstMin"], t["sizeVsFirstMax"], t["sizeVsOneShotMax"]
        size = f"{lo:.2f}x-{hi:.2f}x" if lo is not None and hi is not None else "–"
        lines.append(
            f"| {t['compaction']} | {t['compacted']} of {len(results)} | {t['kept']} of {t['facts']} | "
            f"**{_rate(t['kept'], t['facts'])}** | {size} | {t['sizeVsFirstInRange']} of {t['sized']} | "
            f"{f'{shot:.2f}x' if shot is not None else '–'} |"
        )
    return lines + needs_lines(results)
