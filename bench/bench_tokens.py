"""Token accounting benchmarks (issue 2): cold throughput vs raw tiktoken, and re-count after one append.

Run: .venv/bin/python bench/bench_tokens.py  — prints a markdown table and writes bench/results/tokens.json.
Text comes from the real sessions in ../shared/corpus (tool results and messages), repeated to the sizes needed.
"""

from __future__ import annotations

import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.conversation.messages import Message, blocks_of, result_text
from compact_lsp.engine.conversation.tokens import TiktokenCounter, load_encoding
from compact_lsp.engine.conversation.usage import UsageLedger, message_kind_tokens

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "claude-code-sessions"
RESULTS = ROOT / "bench" / "results"


def corpus_messages() -> list[Message]:
    messages: list[Message] = []
    for path in sorted(CORPUS.glob("*/*.jsonl")):
        messages.extend(import_claude_code(path).session.messages)
    return messages


def corpus_texts(messages: list[Message]) -> list[str]:
    texts = []
    for m in messages:
        for b in blocks_of(m):
            t = b.get("text") if b.get("type") == "text" else result_text(b) if b.get("type") == "tool_result" else ""
            if t:
                texts.append(t)
    return texts


def best_of(fn: Any, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_cold_throughput(texts: list[str]) -> dict[str, float]:
    encoding = load_encoding()
    total_chars = sum(len(t) for t in texts)

    def raw() -> None:
        for t in texts:
            encoding.encode(t, disallowed_special=())

    def ours() -> None:
        counter = TiktokenCounter(encoding)  # a fresh cache each run: cold
        for t in texts:
            counter.count_text(t)

    t_raw, t_ours = best_of(raw), best_of(ours)
    return {
        "texts": len(texts),
        "chars": total_chars,
        "raw_chars_per_s": total_chars / t_raw,
        "ours_chars_per_s": total_chars / t_ours,
        "ratio": t_raw / t_ours,
    }


def bench_recount_after_append(messages: list[Message], target_tokens: int = 200_000) -> dict[str, float]:
    encoding = load_encoding()
    counter = TiktokenCounter(encoding)
    session: list[Message] = []
    ledger = UsageLedger(counter)
    i = 0
    while sum(ledger.totals.values()) < target_tokens:
        m = messages[i % len(messages)]
        # distinct text per copy, so the cache cannot make the base session free
        copy = {"role": m["role"], "content": [dict(b) for b in blocks_of(m)]}
        for b in copy["content"]:
            if b.get("type") == "text":
                b["text"] = f"{b['text']} [{i}]"
        session.append(copy)
        ledger.append([copy])
        i += 1
    new = {"role": "user", "content": [{"type": "text", "text": "Now please run the tests again and " * 40}]}
    samples_append, samples_alone = [], []
    for k in range(30):
        fresh = {"role": "user", "content": [{"type": "text", "text": f"{new['content'][0]['text']} #{k}"}]}
        alone = {"role": "user", "content": [{"type": "text", "text": f"{new['content'][0]['text']} @{k}"}]}
        start = time.perf_counter()
        message_kind_tokens(TiktokenCounter(encoding), alone)
        samples_alone.append(time.perf_counter() - start)
        start = time.perf_counter()
        ledger.append([fresh])
        sum(ledger.totals.values())
        samples_append.append(time.perf_counter() - start)
    t_append, t_alone = statistics.median(samples_append), statistics.median(samples_alone)
    return {
        "session_tokens": sum(ledger.totals.values()),
        "session_messages": len(session),
        "recount_after_append_us": t_append * 1e6,
        "count_message_alone_us": t_alone * 1e6,
        "ratio": t_append / t_alone,
    }


def main() -> None:
    messages = corpus_messages()
    texts = corpus_texts(messages)
    cold = bench_cold_throughput(texts)
    recount = bench_recount_after_append(messages)
    result = {"machine": f"{platform.processor() or platform.machine()}, Python {platform.python_version()}",
              "cold": cold, "recount": recount}  # fmt: skip
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "tokens.json").write_text(json.dumps(result, indent=2))
    print("| benchmark | figure | goal |")
    print("|---|---|---|")
    print(
        f"| cold counting vs raw tiktoken ({cold['texts']} corpus texts, {cold['chars']:,} chars) | "
        f"{cold['ratio']:.2f}x raw throughput ({cold['ours_chars_per_s'] / 1e6:.2f} M chars/s) | >= 0.8x |"
    )
    print(f"| re-count after one append to a {recount['session_tokens']:,}-token session vs counting the message "
          f"alone | {recount['ratio']:.2f}x ({recount['recount_after_append_us']:.0f} us vs "
          f"{recount['count_message_alone_us']:.0f} us) | <= 2x |")  # fmt: skip


if __name__ == "__main__":
    main()
