"""Prompt-cache friendliness of the size trigger (issue 8): rewrites and tokens saved per rewrite.

Run: .venv/bin/python bench/bench_cache.py  — prints a markdown table and writes bench/results/cache.json.

A long run of large tool results (167 results of ~25.5K characters: a session that greps and reads big files
for hours) is appended round by round, with the size trigger checked after each round as the server does.
Every microcompaction rewrites history from the first cleared result on, so the prompt cache must be written
again from there: fewer, larger rewrites are cheaper. The engine clears every result outside the kept ones when
they pass the threshold (the low watermark as low as it goes); the same run with the watermark off (clear only
down to the threshold) shows what that buys. Figures are counts and ratios, not times.
"""

from __future__ import annotations

import json
import platform
import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from compact_lsp.engine.compaction.microcompact import plan_microcompaction
from compact_lsp.engine.compaction.microcompact_plan import MicrocompactPlan, apply_plan
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.settings import MicrocompactSettings
from compact_lsp.evaluation.cost import CACHE_READ, CACHE_WRITE

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
RESULTS_COUNT = 167
RESULT_CHARS = 25_500
WORDS = (
    "def", "return", "self", "value", "index", "cache", "result", "error", "path", "file", "line", "token",
    "buffer", "config", "import", "class", "assert", "for", "while", "yield", "async", "await", "lambda",
    "None", "True", "False", "open", "read", "write", "parse", "render", "compact", "session",
)  # fmt: skip


def just_enough(plan: MicrocompactPlan, threshold: int) -> MicrocompactPlan:
    """The rule without a low watermark: clear oldest first only until the results outside the kept ones are back
    at the threshold (the next round over it rewrites again)."""
    remaining = sum(c.tokens for c in plan.clear)
    clear = []
    for c in plan.clear:
        if remaining <= threshold:
            break
        clear.append(c)
        remaining -= c.tokens
    saved = sum(c.saved for c in clear)
    return replace(plan, clear=clear, tokens_after=plan.tokens_before - saved, tokens_saved=saved)


def result_text(rng: random.Random, n: int) -> str:
    lines: list[str] = []
    size = 0
    row = 0
    while size < RESULT_CHARS:
        row += 1
        line = f"{row:6d}→    " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 12))) + f"  # {n}.{row}"
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)[:RESULT_CHARS]


def conversation_rounds(seed: int = 8) -> list[tuple[Message, Message]]:
    rng = random.Random(seed)
    rounds = []
    for n in range(RESULTS_COUNT):
        tool = ("Read", "Grep", "Bash")[n % 3]
        use_id = f"toolu_{n:04d}"
        tool_input: dict[str, Any] = (
            {"file_path": f"/repo/src/big_{n}.py"} if tool == "Read" else {"pattern": f"p{n}"}
            if tool == "Grep" else {"command": f"run {n}"}
        )  # fmt: skip
        assistant: Message = {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": use_id, "name": tool, "input": tool_input}],
        }
        user: Message = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use_id, "content": result_text(rng, n)}],
        }
        rounds.append((assistant, user))
    return rounds


def run(
    settings: MicrocompactSettings, rounds: list[tuple[Message, Message]], counter: TiktokenCounter, watermark: bool
) -> dict[str, Any]:
    messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": "Investigate the logs."}]}]
    rewrites = 0
    saved = 0
    cache_rewritten = 0
    sent = 0
    written = 0
    for assistant, user in rounds:
        sent += sum(counter.count_message(m) for m in messages)  # what the model is sent for this turn
        messages += [assistant, user]
        written += counter.count_message(assistant) + counter.count_message(user)  # new since the last request
        plan = plan_microcompaction(messages, settings, "size", counter=counter)
        if plan is not None and not watermark:
            plan = just_enough(plan, settings.size_trigger_tokens())
        if plan is None or not plan.clear:
            continue
        result = apply_plan(messages, plan)
        first = min(c.message_index for c in plan.clear)
        cache_rewritten += sum(counter.count_message(m) for m in result.messages[first:])
        written += sum(counter.count_message(m) for m in result.messages[first:])
        rewrites += 1
        saved += plan.tokens_saved
        messages = result.messages
    return {
        "rewrites": rewrites,
        "tokens_saved": saved,
        "saved_per_rewrite": saved / rewrites if rewrites else 0.0,
        "cache_tokens_rewritten": cache_rewritten,
        "input_tokens_sent": sent,
        # as evaluation/cost.py bills it: what a request shares with the one before is read (0.1), the rest written
        "billed": CACHE_WRITE * written + CACHE_READ * max(0, sent - written),
        "final_tokens": sum(counter.count_message(m) for m in messages),
    }


KEEP_RECENT = (5, 3, 1)


def main() -> int:
    counter = TiktokenCounter()
    rounds = conversation_rounds()
    result_tokens = [counter.count_message(u) for _, u in rounds]
    rows: list[dict[str, Any]] = []
    for keep in KEEP_RECENT:
        for watermark in ("on", "off"):
            rows.append(
                {
                    "keep_recent": keep,
                    "low_watermark": watermark,
                    **run(MicrocompactSettings(keep_recent=keep), rounds, counter, watermark == "on"),
                }
            )
        rows.append(
            {
                "keep_recent": keep,
                "low_watermark": "none",
                **run(MicrocompactSettings(keep_recent=keep, size_threshold_tokens=-1), rounds, counter, True),
            }
        )
    by = {(r["keep_recent"], r["low_watermark"]): r for r in rows}
    ratios = {
        f"keep_{keep}": {
            "rewrites_off_over_on": by[keep, "off"]["rewrites"] / max(1, by[keep, "on"]["rewrites"]),
            "saved_per_rewrite_on_over_off": by[keep, "on"]["saved_per_rewrite"]
            / max(1.0, by[keep, "off"]["saved_per_rewrite"]),
            "cache_rewritten_off_over_on": by[keep, "off"]["cache_tokens_rewritten"]
            / max(1, by[keep, "on"]["cache_tokens_rewritten"]),
            "billed_on_vs_none": by[keep, "on"]["billed"] / by[keep, "none"]["billed"] - 1,
            "billed_off_vs_none": by[keep, "off"]["billed"] / by[keep, "none"]["billed"] - 1,
        }
        for keep in KEEP_RECENT
    }
    threshold = MicrocompactSettings().size_trigger_tokens()
    report = {
        "benchmark": "prompt-cache friendliness of the size trigger",
        "python": platform.python_version(),
        "results": RESULTS_COUNT,
        "result_chars": RESULT_CHARS,
        "mean_result_tokens": sum(result_tokens) / len(result_tokens),
        "threshold_tokens": threshold,
        "rows": rows,
        "ratios": ratios,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "cache.json").write_text(json.dumps(report, indent=2) + "\n")
    lines = [
        f"Size trigger at {threshold:,} tokens; {RESULTS_COUNT} results of {RESULT_CHARS:,} characters "
        f"(~{report['mean_result_tokens']:,.0f} tokens each).",
        "",
        "| keep recent | low watermark | rewrites | tokens saved / rewrite | cache tokens rewritten "
        "| input tokens sent | billed |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['keep_recent']} | {r['low_watermark']} | {r['rewrites']} | "
            f"{r['saved_per_rewrite']:,.0f} | {r['cache_tokens_rewritten']:,} | {r['input_tokens_sent']:,} | "
            f"{r['billed']:,.0f} |"
        )
    lines.append("")
    for keep in KEEP_RECENT:
        q = ratios[f"keep_{keep}"]
        lines.append(
            f"- keep {keep}: rewrites off/on **{q['rewrites_off_over_on']:.2f}x**, tokens saved per rewrite "
            f"on/off **{q['saved_per_rewrite_on_over_off']:.2f}x**, cache tokens rewritten off/on "
            f"**{q['cache_rewritten_off_over_on']:.2f}x**; billed vs no clearing: "
            f"on **{q['billed_on_vs_none']:+.1%}**, off **{q['billed_off_vs_none']:+.1%}**"
        )
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
