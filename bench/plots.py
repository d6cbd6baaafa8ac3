"""PNG plots of bench/results/*.json (matplotlib), one per benchmark; used by bench/run_all.py.

Known result files get a plot made for them; any other file whose ``rows`` are dicts of numbers gets a generic
curve (the first numeric column against the columns whose names end in ``_ms``). Returns what it drew.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

log = logging.getLogger(__name__)

DPI = 80
SIZE = (6.4, 3.6)


def _figure() -> tuple[Figure, Axes]:
    fig, ax = plt.subplots(figsize=SIZE, dpi=DPI)
    return fig, ax


def _rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    rows = data.get("rows")
    return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


def plot_microcompact(data: dict[str, Any], fig: Figure, ax: Axes) -> str:
    rows = _rows(data)
    xs = [r["messages"] for r in rows]
    for key, label in (("forced_ms", "forced (warm)"), ("size_ms", "size trigger (warm)")):
        ax.plot(xs, [r[key] for r in rows], marker="o", label=label)
    cold = [(r["messages"], r["forced_cold_ms"]) for r in rows if "forced_cold_ms" in r]
    if cold:
        ax.plot(*zip(*cold, strict=True), marker="s", linestyle="--", label="forced (cold counter)")
    linear = [xs[0], xs[-1]]
    ax.plot(
        linear,
        [rows[0]["forced_ms"], rows[0]["forced_ms"] * xs[-1] / xs[0]],
        ":",
        color="grey",
        label="linear",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("messages in the conversation")
    ax.set_ylabel("plan + apply (ms CPU, median)")
    ax.legend(fontsize=8)
    return "Microcompaction plan+apply vs session length"


def plot_tokens(data: dict[str, Any], fig: Figure, ax: Axes) -> str:
    cold, recount = data["cold"], data["recount"]
    labels = ["raw tiktoken", "TiktokenCounter (cold)"]
    ax.bar(labels, [cold["raw_chars_per_s"] / 1e6, cold["ours_chars_per_s"] / 1e6], color=["grey", "#4f81bd"])
    ax.set_ylabel("million characters / s")
    ax.set_title(
        f"cold ratio {cold['ratio']:.2f}x; re-count after append {recount['ratio']:.2f}x the message alone",
        fontsize=9,
    )
    return "Token counting throughput"


def plot_compaction(data: dict[str, Any], fig: Figure, ax: Axes) -> str:
    rows = _rows(data)
    xs = [r["tokens_before"] / 1000 for r in rows]
    for key, label in (("session_notes_ms", "session notes"), ("offline_ms", "offline summary"),
                       ("model_stub_ms", "model (loopback stub)")):  # fmt: skip
        ax.plot(xs, [r[key] for r in rows], marker="o", label=label)
    ax.axhline(100, color="grey", linestyle=":", label="100 ms goal (session notes)")
    ax.set_xlabel("session size (k tokens)")
    ax.set_ylabel("compaction time (ms)")
    twin = ax.twinx()
    twin.plot(xs, [r["memory_ratio"] for r in rows], color="#c0504d", marker="x", linestyle="--",
              label="peak / resting memory")  # fmt: skip
    twin.set_ylabel("peak / resting memory", color="#c0504d")
    lines = ax.get_legend_handles_labels()
    more = twin.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize=7)
    return "Full compaction time and peak memory vs session size"


def plot_cache(data: dict[str, Any], fig: Figure, ax: Axes) -> str:
    rows = _rows(data)
    keeps = sorted({r["keep_recent"] for r in rows}, reverse=True)
    width = 0.38
    for offset, mark, color in ((-width / 2, "on", "#4f81bd"), (width / 2, "off", "#c0504d")):
        values = [
            next(r["rewrites"] for r in rows if r["keep_recent"] == k and r["low_watermark"] == mark) for k in keeps
        ]
        bars = ax.bar([i + offset for i in range(len(keeps))], values, width, color=color,
                      label=f"low watermark {mark}")  # fmt: skip
        for bar, k in zip(bars, keeps, strict=True):
            row = next(r for r in rows if r["keep_recent"] == k and r["low_watermark"] == mark)
            top = (bar.get_x() + bar.get_width() / 2, bar.get_height())
            ax.annotate(f"{row['saved_per_rewrite'] / 1000:.1f}k/rw", top, ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(keeps)), [f"keep {k} recent" for k in keeps])
    ax.set_ylabel(f"rewrites over {data['results']} results")
    ax.legend(fontsize=8)
    return "Size trigger: cache-breaking rewrites (tokens saved per rewrite)"


def plot_rehydration(data: dict[str, Any], fig: Figure, ax: Axes) -> str:
    rows = _rows(data)
    ax.barh([r["scenario"] for r in rows], [r["rehydrate_ms"] for r in rows], color="#9bbb59")
    ax.invert_yaxis()
    ax.set_xlabel("rehydrate (ms)")
    ax.tick_params(axis="y", labelsize=7)
    return "Rehydration time by scenario"


def plot_follow(data: dict[str, Any], fig: Figure, ax: Axes) -> str:
    for rows, agent in ((_rows(data), "Claude Code"), (data.get("codex_rows") or [], "Codex")):
        rows = [r for r in rows if isinstance(r, dict)]
        if not rows:
            continue
        xs = [r["records"] for r in rows]
        ax.plot(xs, [r["cpu_per_line_ms_p50"] for r in rows], marker="o", label=f"{agent}: CPU per line p50")
        ax.plot(xs, [r.get("write_to_usage_ms_p95") for r in rows], marker="s", linestyle="--",
                label=f"{agent}: write → usage p95")  # fmt: skip
    ax.axhline(100, color="grey", linestyle=":", label="100 ms goal (write → usage)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("records in the transcript")
    ax.set_ylabel("ms")
    ax.legend(fontsize=7)
    return "Following a live transcript: per-line cost vs its length"


def plot_generic(data: dict[str, Any], fig: Figure, ax: Axes) -> str:
    rows = _rows(data)
    numeric = [k for k, v in rows[0].items() if isinstance(v, int | float) and not isinstance(v, bool)]
    if not numeric:
        raise ValueError("no numeric columns")
    x = numeric[0]
    ys = [k for k in numeric[1:] if k.endswith("_ms")] or numeric[1:3]
    for key in ys:
        ax.plot([r.get(x) for r in rows], [r.get(key) for r in rows], marker="o", label=key)
    ax.set_xlabel(x)
    if len({r.get(x) for r in rows}) > 2 and min(r.get(x) or 0 for r in rows) > 0:
        ax.set_xscale("log")
    ax.legend(fontsize=8)
    return str(data.get("benchmark", "benchmark"))


PLOTTERS: dict[str, Callable[[dict[str, Any], Figure, Axes], str]] = {
    "microcompact": plot_microcompact,
    "tokens": plot_tokens,
    "compaction": plot_compaction,
    "cache": plot_cache,
    "rehydration": plot_rehydration,
    "follow": plot_follow,
}


def make_plots(results: Path, out: Path) -> list[tuple[str, str, Path]]:
    """(result name, title, png) for every result file that could be plotted."""
    out.mkdir(parents=True, exist_ok=True)
    made: list[tuple[str, str, Path]] = []
    for path in sorted(results.glob("*.json")):
        name = path.stem
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            log.warning("%s: not JSON (%s)", path, exc)
            continue
        fig, ax = _figure()
        try:
            title = PLOTTERS.get(name, plot_generic)(data, fig, ax)
        except (KeyError, ValueError, TypeError, IndexError, StopIteration) as exc:
            log.warning("%s: no plot (%s: %s)", path.name, type(exc).__name__, exc)
            plt.close(fig)
            continue
        fig.suptitle(title, fontsize=10)
        fig.tight_layout()
        png = out / f"bench_{name}.png"
        fig.savefig(png)
        plt.close(fig)
        made.append((name, title, png))
    return made


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[1]
    for _name, title, png in make_plots(root / "bench" / "results", root / "docs" / "img"):
        print(f"{title}: {png}")
