"""The evaluation's outputs: a markdown report, a JSON dump and a PNG plot (matplotlib, if installed)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compact_lsp.evaluation.config import EvalConfig
from compact_lsp.evaluation.ledger_recall import LedgerScore, UnchangedRereads, ledger_lines
from compact_lsp.evaluation.metrics import MicroScore, PointScore
from compact_lsp.evaluation.replay import SessionResult
from compact_lsp.evaluation.survival import SurvivalResult, survival_json, survival_lines

log = logging.getLogger(__name__)


@dataclass
class EvalReport:
    config: EvalConfig
    sessions: list[SessionResult] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Orphan sub-agent logs not replayed, with the reason."""
    survival: list[SurvivalResult] = field(default_factory=list)
    """Repeated compactions of the sessions long enough (evaluation/survival.py)."""
    legacy_compactions: int = 0
    """Claude Code 1.0.x compactions (a summary without a boundary) read as boundaries, over the logs replayed."""

    def ranker_totals(self, *, to_end: bool = False) -> dict[str, PointScore]:
        """Scores summed over sessions; ``to_end``: with the look-ahead running to each session's end."""
        totals = {spec.name: PointScore() for spec in self.config.rankers}
        for session in self.sessions:
            for name, score in (session.rankers_to_end if to_end else session.rankers).items():
                totals[name] = totals[name] + score
        return totals

    def ledger_totals(self) -> LedgerScore:
        total = LedgerScore()
        for session in self.sessions:
            total = total + session.ledger
        return total

    def reread_totals(self) -> UnchangedRereads:
        total = UnchangedRereads()
        for session in self.sessions:
            total = total + session.rereads
        return total

    def micro_totals(self) -> dict[str, MicroScore]:
        totals = {spec.name: MicroScore() for spec in self.config.micro}
        for session in self.sessions:
            for name, score in session.micro.items():
                totals[name] = totals[name] + score
        return totals

    def cheapest_counts(self) -> dict[str, int]:
        """For each microcompaction policy, in how many sessions it is billed least (ties count for each)."""
        counts = {spec.name: 0 for spec in self.config.micro}
        for session in self.sessions:
            if not session.micro:
                continue
            least = min(m.billed for m in session.micro.values())
            for name, m in session.micro.items():
                counts[name] += m.billed <= least + 1e-9
        return counts

    def to_json(self) -> dict[str, Any]:
        totals, to_end = self.ranker_totals(), self.ranker_totals(to_end=True)
        micro = self.micro_totals()
        none = next(iter(micro.values())).billed if micro else 0.0
        cheapest = self.cheapest_counts()
        return {
            "config": {
                "everyTurns": self.config.every_turns,
                "tokenFractions": list(self.config.token_fractions),
                "lookaheadTurns": self.config.lookahead_turns,
                "cacheTtlSeconds": self.config.cache_ttl_seconds,
            },
            "corpus": self.corpus(),
            "rankers": [
                _ranker_json(spec.name, spec.default, spec.slices, spec.settings, totals[spec.name], to_end[spec.name])
                for spec in self.config.rankers
            ],
            "micro": [
                {
                    "name": name,
                    **m.to_json(),
                    "billedVsNone": m.billed / none - 1 if none else None,
                    "cheapestSessions": cheapest[name],
                }
                for name, m in micro.items()
            ],
            "ledger": self.ledger_totals().to_json(),
            "unchangedRereads": self.reread_totals().to_json(),
            "sessions": [s.to_json() for s in self.sessions],
            "skipped": self.skipped,
            "failures": self.failures,
            "repeatedCompactions": survival_json(self.survival),
            "byContext": [{"compaction": k, **t.to_json()} for k, t in by_context(self).items()],
        }

    def corpus(self) -> dict[str, int]:
        sessions = self.sessions
        return {
            "sessions": len({s.path for s in sessions}),  # a session Claude Code compacted: one per context
            "contexts": len(sessions),
            "subagents": sum(1 for s in sessions if Path(s.path).name.startswith("agent-") or s.inline),
            "inlineSubagents": sum(1 for s in sessions if s.inline),
            "legacyCompactions": self.legacy_compactions,
            "orphans": sum(1 for s in sessions if s.orphan is not None),
            "skipped": len(self.skipped),
            "messages": sum(s.messages for s in sessions),
            "assistantTurns": sum(s.assistant_turns for s in sessions),
            "points": sum(len(s.points) for s in sessions),
            "focusSignals": sum(s.focus_signals for s in sessions),
            "readsWithoutContent": sum(s.reads_without_content for s in sessions),
        }


def _ranker_json(
    name: str, default: bool, slices: bool, settings: Any, t: PointScore, end: PointScore
) -> dict[str, Any]:
    return {
        "name": name,
        "default": default,
        "points": t.points,
        "needed": t.needed,
        "neededMisses": t.needed_misses,
        "neededMissRate": t.needed_miss_rate,
        "strictMisses": t.strict_misses,
        "locatedMisses": t.located_misses,
        "strictMissRate": t.strict_miss_rate,
        "undeterminable": t.undeterminable,
        "strictMissRateWorst": t.strict_miss_rate_worst,
        "outsideNeeds": t.outside_needs,
        "outsideMisses": t.outside_misses,
        "meanTokens": t.tokens_per_point,
        "meanOutlineTokens": t.outline_tokens_per_point,
        "rereads": t.rereads,
        "rereadMisses": t.misses,
        "rereadStrictMisses": t.read_strict_misses,
        "rereadStrictMissRate": t.read_strict_miss_rate,
        "attachedFiles": t.attached_files,
        "attachedUnused": t.attached_unused,
        "toEnd": {"needed": end.needed, "strictMisses": end.strict_misses, "strictMissRate": end.strict_miss_rate,
                  "undeterminable": end.undeterminable, "strictMissRateWorst": end.strict_miss_rate_worst,
                  "neededMissRate": end.needed_miss_rate, "outsideNeeds": end.outside_needs},
        "policy": {"slices": slices, "maxFiles": settings.max_files, "tokenBudget": settings.token_budget,
                   "maxTokensPerFile": settings.max_tokens_per_file},
    }  # fmt: skip


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _name(spec_name: str, default: bool) -> str:
    return f"**{spec_name}** (default)" if default else spec_name


def render_markdown(report: EvalReport) -> str:
    cfg = report.config
    c = report.corpus()
    defaults = {spec.name: spec.default for spec in cfg.rankers}
    lines = [
        "## Corpus",
        "",
        "| sessions | of them sub-agents | inline (1.0.x) | orphan sub-agents replayed alone | orphans skipped "
        "| contexts replayed (split at Claude Code's compactions) | of the compactions, 1.0.x (no boundary) "
        "| messages | assistant turns | compaction points | editor-focus notices | reads without content |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {c['sessions']} | {c['subagents']} | {c['inlineSubagents']} | {c['orphans']} | {c['skipped']} | "
        f"{c['contexts']} | {c['legacyCompactions']} | "
        f"{c['messages']:,} | {c['assistantTurns']:,} | {c['points']} | {c['focusSignals']} | "
        f"{c['readsWithoutContent']} |",
        "",
        f"Compaction points every {cfg.every_turns} assistant turns and at "
        f"{', '.join(f'{int(f * 100)}%' for f in cfg.token_fractions)} of each session's size; look-ahead "
        f"{cfg.lookahead_turns} assistant turns.",
        "",
        "## Rehydration: needed files, strict",
        "",
        "Attachments as `compact-lsp compact` sends them, with the roots the session had at each point; only lines "
        "the log showed count (a need resting on padding is undeterminable: the rate leaves it out, the worst case "
        "counts it as a miss).",
        "",
        "A *located* miss is a strict miss whose needed lines one entry of the attached slice's outline points to "
        "(a region one read shows): counted in the strict misses, reported apart, never a hit.",
        "",
        "| policy | needed | not attached | strict misses | of them located | undeterminable | **strict miss rate** "
        "| worst case | miss rate (any part attached) | mean tokens / point | of them outline | re-reads "
        "| re-reads strictly missed | files attached | attached, not used |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t in report.ranker_totals().items():
        lines.append(
            f"| {_name(name, defaults[name])} | {t.needed} | {t.needed_misses} | {t.strict_misses} | "
            f"{t.located_misses} | "
            f"{t.undeterminable} | **{_pct(t.strict_miss_rate)}** | {_pct(t.strict_miss_rate_worst)} | "
            f"{_pct(t.needed_miss_rate)} | {_num(t.tokens_per_point)} | {_num(t.outline_tokens_per_point)} | "
            f"{t.rereads} | {t.read_strict_misses} ({_pct(t.read_strict_miss_rate)}) | {t.attached_files} | "
            f"{t.attached_unused} |"
        )
    lines += [
        "",
        "With the look-ahead running to the end of each session:",
        "",
        "| policy | needed | strict misses | undeterminable | strict miss rate | worst case "
        "| miss rate (any part attached) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t in report.ranker_totals(to_end=True).items():
        lines.append(
            f"| {_name(name, defaults[name])} | {t.needed} | {t.strict_misses} | {t.undeterminable} | "
            f"{_pct(t.strict_miss_rate)} | {_pct(t.strict_miss_rate_worst)} | {_pct(t.needed_miss_rate)} |"
        )
    lines += [
        "",
        "## Needs outside the workspace folder",
        "",
        "Part of the needs above: a need outside the workspace folder is met only by a file the user admitted.",
        "",
        "| policy | needs outside the workspace folder | strictly missed there |",
        "|---|---:|---:|",
    ]
    for name, t in report.ranker_totals().items():
        lines.append(f"| {name} | {t.outside_needs} | {t.outside_misses} |")
    lines += _by_context_lines(report)
    lines += ledger_lines(report.ledger_totals(), report.reread_totals())
    lines += _cost_lines(report) + (survival_lines(report.survival) if report.survival else []) + _session_lines(report)
    if report.skipped:
        lines += ["", "Orphan sub-agent logs not replayed:", *[f"- {s}" for s in report.skipped]]
    if report.failures:
        lines += ["", "Not evaluated:", *[f"- {f}" for f in report.failures]]
    return "\n".join(lines) + "\n"


def by_context(report: EvalReport) -> dict[int, PointScore]:
    """The product's policy, summed by how many of Claude Code's own compactions came before the points (the
    context a point is in: 1 for a session it never compacted), the 3rd and later together."""
    name = next((spec.name for spec in report.config.rankers if spec.default), None)
    totals: dict[int, PointScore] = {}
    for session in report.sessions:
        if name is None or name not in session.rankers:
            continue
        k = min(3, int(session.context.split(" of ")[0])) if session.context else 1
        totals[k] = totals.get(k, PointScore()) + session.rankers[name]
    return dict(sorted(totals.items()))


def _by_context_lines(report: EvalReport) -> list[str]:
    rows = by_context(report)
    if not rows:
        return []
    lines = [
        "",
        "## After Claude Code's own compactions",
        "",
        "The product's policy at the points of each context: a point in the k-th context is the k-th compaction of "
        "that session (Claude Code compacted it k-1 times before), so its needs are scored apart from the first's.",
        "",
        "| compaction of the session | points | needed | strict misses | of them located | undeterminable "
        "| **strict miss rate** | mean tokens / point |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k, t in rows.items():
        label = {1: "1st (no compaction before)", 2: "2nd", 3: "3rd and later"}[k]
        lines.append(
            f"| {label} | {t.points} | {t.needed} | {t.strict_misses} | {t.located_misses} | {t.undeterminable} | "
            f"**{_pct(t.strict_miss_rate)}** | {_num(t.tokens_per_point)} |"
        )
    return lines


def _cost_lines(report: EvalReport) -> list[str]:
    micro = report.micro_totals()
    if not micro:
        return []
    none = next(iter(micro.values())).billed
    cheapest = report.cheapest_counts()
    lines = [
        "",
        "## Cost with prompt caching",
        "",
        f"Billed input token-equivalents over every replayed session (cache write 1.25, cache read 0.1, uncached "
        f"1.0; cache lifetime {report.config.cache_ttl_seconds / 60:g} min), first policy as the reference.",
        "",
        "| policy | **billed** | vs first | cache writes | cache reads | rewrites (cache breaks) | by trigger "
        "| tokens cleared | cheapest in sessions | cleared reads re-read later |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for name, m in micro.items():
        triggers = ", ".join(f"{k} {v}" for k, v in sorted(m.by_trigger.items())) or "–"
        versus = _pct(m.billed / none - 1) if none else "–"
        lines.append(
            f"| {name} | **{m.billed:,.0f}** | {versus} | {m.cache_write:,} | {m.cache_read:,} | {m.rewrites} | "
            f"{triggers} | {m.tokens_saved:,} | {cheapest[name]} of {len(report.sessions)} | "
            f"{m.cleared_reads_reread} of {m.cleared_reads} |"
        )
    return lines


def _session_lines(report: EvalReport) -> list[str]:
    lines = [
        "",
        "## Per session",
        "",
        "Strict misses / needs for each policy, in the order of the first table.",
        "",
        "| session | messages | turns | points | files on disk | reads without content | strict misses / needs |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for s in report.sessions:
        cells = " · ".join(f"{score.strict_misses}/{score.needed}" for score in s.rankers.values())
        label = Path(s.path).parent.name[-24:] + "/" + Path(s.path).stem[:14] + (" (orphan)" if s.orphan else "")
        label += f" (context {s.context})" if s.context else ""
        lines.append(
            f"| {label} | {s.messages} | {s.assistant_turns} | {len(s.points)} | {s.files_materialised} | "
            f"{s.reads_without_content} | {cells} |"
        )
    return lines


def plot(report: EvalReport, path: str | Path) -> bool:
    """Miss rate and tokens per point by ranker, and microcompaction savings; False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log.warning("matplotlib is not installed: no plot (pip install 'compact-lsp[bench]')")
        return False
    rankers = report.ranker_totals()
    micro = report.micro_totals()
    rows = max(len(rankers), len(micro))
    fig, axes = plt.subplots(1, 3, figsize=(15, 1.5 + 0.55 * rows), dpi=80)
    names = list(rankers)
    short = [_wrap(n, 32) for n in names]
    ax = axes[0]
    height = 0.27
    series = (
        ("needed, strictly missed", [rankers[n].strict_miss_rate for n in names], "#c0504d"),
        ("needed, not attached", [rankers[n].needed_miss_rate for n in names], "#f79646"),
        ("re-reads, strictly missed", [rankers[n].read_strict_miss_rate for n in names], "#8064a2"),
    )
    for k, (label, values, color) in enumerate(series):
        ys = [i + (k - 1) * height for i in range(len(names))]
        ax.barh(ys, [100 * (v or 0) for v in values], height, color=color, label=label)
    ax.set_yticks(range(len(names)), short)
    ax.set_xlabel("% of needed files (or re-reads)")
    ax.legend(fontsize=7)
    ax.invert_yaxis()
    ax = axes[1]
    ax.barh(short, [rankers[n].tokens_per_point or 0 for n in names], color="#4f81bd")
    ax.set_xlabel("file tokens attached per compaction")
    ax.set_yticklabels([])
    ax.invert_yaxis()
    ax = axes[2]
    mnames = list(micro)
    none = micro[mnames[0]].billed if mnames else 0.0
    ax.barh([_wrap(n, 26) for n in mnames], [micro[n].billed / 1e6 for n in mnames], color="#9bbb59")
    for y, n in enumerate(mnames):
        ax.text(0, y, f" {100 * (micro[n].billed / none - 1):+.1f}%" if none else "", va="center", fontsize=8)
    ax.set_xlabel("billed input (M token-equivalents, cached)")
    ax.invert_yaxis()
    fig.suptitle("compact-lsp on real Claude Code sessions: rehydration policies and microcompaction cost",
                 fontsize=10)  # fmt: skip
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return True


def _wrap(name: str, width: int = 22) -> str:
    words, out, line = name.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    out.append(line)
    return "\n".join(out)
