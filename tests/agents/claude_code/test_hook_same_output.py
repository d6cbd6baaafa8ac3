"""The hook's fast path says exactly what the plain path says: the whole transcript parsed and imported into a
session, then cut at the boundary before Claude Code's last one, on every corpus session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.agents.claude_code.hook import build_context, context_for
from compact_lsp.agents.hook_io import parse_hook_input
from compact_lsp.engine.claude_code.compaction_view import reattached_files, split_at_last_compaction, text_of
from compact_lsp.engine.claude_code.log_lines import before_last_boundary, is_boundary, parse_log_lines
from compact_lsp.engine.claude_code.transcript_log import import_records

from .transcripts import CORPUS, compacted_transcript, hook_input

SESSIONS = sorted(
    p for p in CORPUS.glob("*/*.jsonl") if not p.name.startswith("agent-") and p.stat().st_size > 10_000
) if CORPUS.is_dir() else []  # fmt: skip


def plain_context(transcript: Path, cwd: str) -> tuple[str | None, dict[str, Any]]:
    """The reference: every line parsed, the session imported from the boundary before the last one."""
    records, problems = parse_log_lines(transcript.read_bytes())
    boundaries = [i for i, r in enumerate(records) if is_boundary(r)]
    records = records[boundaries[-2] :] if len(boundaries) >= 2 else records
    before, summary = before_last_boundary(records)
    split = split_at_last_compaction(records, [r for r in records if r.message is not None])
    imported = import_records(transcript, before, problems)
    return build_context(
        imported.session.messages,
        imported.tool_results_side,
        cwd,
        summary=summary or "",
        preserved=[text_of(r) for r in split.preserved],
        reattached=reattached_files(records),
    )


def _compacted_twice(transcript: Path) -> None:
    """Compact the compacted transcript again: its records after a second boundary, chained after the first."""
    lines = transcript.read_text(encoding="utf-8").splitlines()
    again = []
    for line in lines[: len(lines) // 2]:
        record = json.loads(line)
        for key in ("uuid", "parentUuid"):
            if isinstance(record.get(key), str):
                record[key] += "-again"
        again.append(json.dumps(record))
    first = json.loads(again[0])
    first["parentUuid"] = "summary-1"
    again[0] = json.dumps(first)
    boundary = json.loads(lines[-2])
    boundary.update(uuid="boundary-2", logicalParentUuid=json.loads(again[-1]).get("uuid"))
    summary = json.loads(lines[-1])
    summary.update(uuid="summary-2", parentUuid="boundary-2")
    transcript.write_text("\n".join([*lines, *again, json.dumps(boundary), json.dumps(summary)]) + "\n")


@pytest.mark.parametrize("twice", [False, True], ids=["one-boundary", "two-boundaries"])
@pytest.mark.parametrize("fraction", [0.3, 0.6, 1.0])
@pytest.mark.parametrize("source", SESSIONS, ids=[p.stem[:8] for p in SESSIONS])
def test_the_hook_says_what_the_whole_transcript_says(tmp_path: Path, source: Path, fraction: float,
                                                      twice: bool) -> None:  # fmt: skip
    compacted = compacted_transcript(source, tmp_path, fraction)
    if twice:
        _compacted_twice(compacted.transcript)
    inp = parse_hook_input(hook_input(compacted))
    assert context_for(inp) == plain_context(compacted.transcript, inp.cwd)
