"""The hook's fast path says exactly what the plain path says: the whole transcript parsed and imported into a
session (the context since the last boundary on disk), on every corpus session, compacted once and twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.agents.claude_code.hook import build_context, context_for
from compact_lsp.agents.hook_io import parse_hook_input
from compact_lsp.engine.claude_code.compaction_view import reattached_files
from compact_lsp.engine.claude_code.log_lines import parse_log_lines
from compact_lsp.engine.claude_code.transcript_log import import_records

from .transcripts import CORPUS, boundary_records, compacted_transcript, hook_input

SESSIONS = sorted(
    p for p in CORPUS.glob("*/*.jsonl") if not p.name.startswith("agent-") and p.stat().st_size > 10_000
) if CORPUS.is_dir() else []  # fmt: skip


def plain_context(transcript: Path, cwd: str) -> tuple[str | None, dict[str, Any]]:
    """The reference: every line parsed, the session imported (its context since the last boundary on disk)."""
    records, problems = parse_log_lines(transcript.read_bytes())
    imported = import_records(transcript, records, problems)
    held = [path for path, _ in reattached_files(records)]
    return build_context(imported.session.messages, imported.tool_results_side, cwd, held=held)


def _compacted_twice(transcript: Path) -> None:
    """The transcript at a second compaction: the first window, its boundary (preserving the window's last
    assistant message) and summary, then half of the window again, chained after the summary."""
    lines = transcript.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    again = []
    for record in records[: len(records) // 2]:
        record = json.loads(json.dumps(record))
        for key in ("uuid", "parentUuid"):
            if isinstance(record.get(key), str):
                record[key] += "-again"
        again.append(record)
    again[0]["parentUuid"] = "summary-1"
    last = next((r for r in reversed(records) if r.get("type") == "assistant"), None)
    boundary, summary = boundary_records(str(records[0].get("sessionId")), str(records[0].get("cwd")),
                                         records[-1].get("uuid"))  # fmt: skip
    if last is not None:
        boundary["compactMetadata"]["preservedMessages"] = {"uuids": [last["uuid"]]}
    out = [*records, boundary, summary, *again]
    transcript.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in out))


@pytest.mark.parametrize("twice", [False, True], ids=["first-compaction", "second-compaction"])
@pytest.mark.parametrize("fraction", [0.3, 0.6, 1.0])
@pytest.mark.parametrize("source", SESSIONS, ids=[p.stem[:8] for p in SESSIONS])
def test_the_hook_says_what_the_whole_transcript_says(tmp_path: Path, source: Path, fraction: float,
                                                      twice: bool) -> None:  # fmt: skip
    compacted = compacted_transcript(source, tmp_path, fraction)
    if twice:
        _compacted_twice(compacted.transcript)
    inp = parse_hook_input(hook_input(compacted))
    assert context_for(inp) == plain_context(compacted.transcript, inp.cwd)
