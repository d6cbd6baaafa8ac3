"""The evaluation's outputs: a markdown report, a JSON dump and a PNG plot (matplotlib, if installed)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import EvalConfig
from .metrics import MicroScore, PointScore
from .replay import SessionResult

log = logging.getLogger(__name__)


@dataclass
class EvalReport:
    config: EvalConfig
    sessions: list[SessionResult] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def ranker_totals(self, *, to_end: bool = False) -> dict[str, PointScore]:
        """Scores summed over sessions; ``to_end``: with the look-ahead running to each session's end."""
        totals = {spec.name: PointScore() for spec in self.config.rankers}
        for session in self.sessions:
            for name, score in (session.rankers_to_end if to_end else session.rankers).items():
                totals[name] = totals[name] + score
        return totals

    def micro_totals(self) -> dict[str, MicroScore]:
        totals = {spec.name: MicroScore() for spec in self.config.micro}
        for session in self.sessions:
            for name, score in session.micro.items():
                totals[name] = totals[name] + score
        return totals

    def to_json(self) -> dict[str, Any]:
        return {
            "config": {
                "everyTurns": self.config.every_turns,
                "tokenFractions": list(self.config.token_fractions),
                "lookaheadTurns": self.config.lookahead_turns,
                "rankers": [
                    {
                        "name": s.name,
                        "slices": s.slices,
                        "maxFiles": s.settings.max_files,
                        "tokenBudget": s.settings.token_budget,
                        "maxTokensPerFile": s.settings.max_tokens_per_file,
                    }
                    for s in self.config.rankers
                ],
                "micro": [s.name for s in self.config.micro],
            },
            "rankers": {k: v.to_json() for k, v in self.ranker_totals().items()},
            "rankersToEnd": {k: v.to_json() for k, v in self.ranker_totals(to_end=True).items()},
            "micro": {k: v.to_json() for k, v in self.micro_totals().items()},
            "sessions": [s.to_json() for s in self.sessions],
            "failures": self.failures,
        }


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def render_markdown(report: EvalReport) -> str:
    cfg = report.config
    sessions = report.sessions
    points = sum(len(s.points) for s in sessions)
    lines = [
        "## Rehydration rankers",
        "",
        f"{len(sessions)} sessions (sub-agents counted as sessions), {sum(s.messages for s in sessions):,} "
        f"messages, {points} compaction points (every {cfg.every_turns} assistant turns and at "
        f"{', '.join(f'{int(f * 100)}%' for f in cfg.token_fractions)} of each session's size); look-ahead "
        f"{cfg.lookahead_turns} assistant turns.",
        "",
        "| ranker | re-reads | misses | miss rate | full hits | partial (covering / short) "
        "| needed (read+edit) miss rate | files attached | tokens / point | attached, not used |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t in report.ranker_totals().items():
        lines.append(
            f"| {name} | {t.rereads} | {t.misses} | {_pct(t.miss_rate)} | {t.full_hits} | "
            f"{t.partial_covering} / {t.partial_short} | {_pct(t.needed_miss_rate)} | {t.attached_files} | "
            f"{_num(t.tokens_per_point)} | {t.attached_unused} |"
        )
    lines += [
        "",
        "With the look-ahead running to the end of each session:",
        "",
        "| ranker | re-reads | misses | miss rate | partial (covering / short) | needed (read+edit) miss rate |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, t in report.ranker_totals(to_end=True).items():
        lines.append(
            f"| {name} | {t.rereads} | {t.misses} | {_pct(t.miss_rate)} | {t.partial_covering} / "
            f"{t.partial_short} | {_pct(t.needed_miss_rate)} |"
        )
    lines += [
        "",
        "## Microcompaction",
        "",
        "| configuration | rewrites (cache breaks) | by trigger | tokens saved | saved / rewrite "
        "| input tokens over turns saved | cleared results | cleared reads | re-read later "
        "| re-read within look-ahead |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, m in report.micro_totals().items():
        triggers = ", ".join(f"{k} {v}" for k, v in sorted(m.by_trigger.items())) or "–"
        lines.append(
            f"| {name} | {m.rewrites} | {triggers} | {m.tokens_saved:,} | {_num(m.saved_per_rewrite)} | "
            f"{_pct(m.input_reduction)} | {m.cleared_results} | {m.cleared_reads} | "
            f"{m.cleared_reads_reread} ({_pct(m.reread_rate)}) | {m.cleared_reads_reread_soon} |"
        )
    lines += [
        "",
        "## Per session",
        "",
        "Misses / re-reads for each ranker, in the order of the first table.",
        "",
        "| session | messages | turns | points | files on disk | reads without content | misses / re-reads |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for s in sessions:
        cells = " · ".join(f"{score.misses}/{score.rereads}" for score in s.rankers.values())
        label = Path(s.path).parent.name[-24:] + "/" + Path(s.path).stem[:14]
        lines.append(
            f"| {label} | {s.messages} | {s.assistant_turns} | {len(s.points)} | {s.files_materialised} | "
            f"{s.reads_without_content} | {cells} |"
        )
    if report.failures:
        lines += ["", "Not evaluated:", *[f"- {f}" for f in report.failures]]
    return "\n".join(lines) + "\n"


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
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), dpi=80)
    names = list(rankers)
    short = [_wrap(n) for n in names]
    ax = axes[0]
    height = 0.27
    series = (
        ("re-reads missed", [rankers[n].miss_rate for n in names], "#c0504d"),
        ("re-reads + edits missed", [rankers[n].needed_miss_rate for n in names], "#f79646"),
        ("partial, lines not covered", [_share(rankers[n].partial_short, rankers[n].rereads) for n in names],
         "#8064a2"),
    )  # fmt: skip
    for k, (label, values, color) in enumerate(series):
        ys = [i + (k - 1) * height for i in range(len(names))]
        ax.barh(ys, [100 * (v or 0) for v in values], height, color=color, label=label)
    ax.set_yticks(range(len(names)), short)
    ax.set_xlabel("% of re-reads (or re-reads + edits)")
    ax.legend(fontsize=7)
    ax.invert_yaxis()
    ax = axes[1]
    ax.barh(short, [rankers[n].tokens_per_point or 0 for n in names], color="#4f81bd")
    ax.set_xlabel("file tokens attached per compaction")
    ax.set_yticklabels([])
    ax.invert_yaxis()
    ax = axes[2]
    mnames = list(micro)
    ax.barh([_wrap(n) for n in mnames], [100 * (micro[n].input_reduction or 0) for n in mnames], color="#9bbb59")
    for y, n in enumerate(mnames):
        ax.text(1, y, f"{micro[n].rewrites} rewrites", va="center", fontsize=8)
    ax.set_xlabel("input tokens saved over all turns (%)")
    ax.invert_yaxis()
    fig.suptitle("compact-lsp on real Claude Code sessions: rehydration rankers and microcompaction", fontsize=10)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return True


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


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


def session_files(paths: Sequence[str]) -> list[Path]:
    """Session logs named directly, or found in folders (a project folder, or a folder of project folders)."""
    from compact_lsp.engine.claude_code import iter_session_files

    found: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            folders = [path, *sorted(p for p in path.rglob("*") if p.is_dir() and "subagents" not in p.parts)]
            for folder in folders:
                found.extend(iter_session_files(folder))
        else:
            raise FileNotFoundError(f"{raw}: no such file or directory")
    return list(dict.fromkeys(found))
