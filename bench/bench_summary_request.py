"""What a model summary request costs in input tokens: tool blocks written as text, or sent as blocks with tools.

Run: .venv/bin/python bench/bench_summary_request.py [--tools recorded-request.json]

For each real Claude Code session in ../shared/corpus that holds tool calls, the summary request's input (system
prompt, messages, and for the block form its ``tools``) is counted with the product's tiktoken counter, three ways:

- ``text``: what ``summary_request_messages`` sends (every call and result written out as text, no ``tools``);
- ``blocks + named tools``: the history's tool blocks kept (repaired as the API wants), with the cheapest
  definitions the API accepts, one per tool name used (``{"name": ..., "input_schema": {"type": "object"}}``);
- ``blocks + Claude Code's tools``: the same blocks with the ``tools`` of a request Claude Code itself sent (a body
  the loopback stub recorded, given with ``--tools``; Claude Code's definitions are not kept in the repository).

The API adds its own tool-use system prompt whenever ``tools`` is set (346 tokens for the Claude 4 models with
``tool_choice`` auto or none, per Anthropic's tool-use pricing table); it is added to both block forms. tiktoken is
not Claude's tokenizer: the figures compare the forms, they are not the bill.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.conversation.messages import Message, blocks_of, canonical_json, text_message
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.conversation.validate import repair
from compact_lsp.engine.prompts import COMPACTION_SYSTEM_PROMPT, compaction_prompt
from compact_lsp.engine.summarize.summary_request import summary_request_messages

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "claude-code-sessions"
TOOL_USE_SYSTEM_PROMPT = 346


def block_form(history: list[Message], prompt: str) -> list[Message]:
    """The history with its tool blocks, as the API would take them with tools, then the prompt."""
    messages = repair([{**m, "content": [b for b in blocks_of(m) if b.get("type") != "thinking"]} for m in history])
    out = list(messages.messages)
    if out and out[-1]["role"] == "user":
        out[-1] = {**out[-1], "content": [*blocks_of(out[-1]), {"type": "text", "text": prompt}]}
    else:
        out.append(text_message("user", prompt))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=Path, help="a recorded Claude Code request body (JSON) whose tools to use")
    args = parser.parse_args()
    recorded: list[dict[str, Any]] | None = None
    if args.tools:
        bodies = json.loads(args.tools.read_text(encoding="utf-8"))
        body = bodies[-1] if isinstance(bodies, list) else bodies
        recorded = body.get("tools") or None
    counter = TiktokenCounter()
    prompt = compaction_prompt(None)
    system = counter.count_text(COMPACTION_SYSTEM_PROMPT)
    rows = []
    for path in sorted(CORPUS.glob("*/*.jsonl")):
        history = import_claude_code(path).session.messages
        names = sorted({b["name"] for m in history for b in blocks_of(m) if b.get("type") == "tool_use"})
        if not names:
            continue
        text = system + sum(counter.count_message(m) for m in summary_request_messages(history, prompt))
        blocks = system + sum(counter.count_message(m) for m in block_form(history, prompt))
        named = [{"name": n, "input_schema": {"type": "object"}} for n in names]
        named_tokens = counter.count_text(canonical_json(named)) + TOOL_USE_SYSTEM_PROMPT
        full = counter.count_text(canonical_json(recorded)) + TOOL_USE_SYSTEM_PROMPT if recorded else None
        rows.append((path.stem[:8], len(history), len(names), text, blocks + named_tokens, full and blocks + full))
    print("| session | messages | tool names | text | blocks + named tools | blocks + Claude Code's tools |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join("—" if v is None else f"{v:,}" if isinstance(v, int) else v for v in row) + " |")
    text_total = sum(r[3] for r in rows)
    named_total = sum(r[4] for r in rows)
    print(f"\n{len(rows)} sessions with tool calls; total text {text_total:,}, blocks + named tools {named_total:,}")
    print(f"median (blocks + named) / text: {statistics.median(r[4] / r[3] for r in rows):.3f}")
    if recorded:
        full_total = sum(r[5] for r in rows)
        print(f"blocks + Claude Code's {len(recorded)} tools: total {full_total:,}")
        print(f"median (blocks + Claude Code's tools) / text: {statistics.median(r[5] / r[3] for r in rows):.3f}")


if __name__ == "__main__":
    main()
