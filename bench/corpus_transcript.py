"""Long Claude Code transcripts built from the corpus's own lines (../shared/corpus/claude-code-sessions).

The synthetic records of bench_follow.py are small and uniform (a Read of ~2 KB, one line of answer); the corpus's
are what Claude Code writes: assistant messages split block by block, tool results of every size with their
``toolUseResult`` side data (a Read's whole file text again, an Edit's patch), thinking, images' metadata. Each
session's user and assistant records (not sidechains, not meta) are taken in order and written again, chained by
``parentUuid``, with ids made unique per pass (``message.id``, ``tool_use`` ids and the results that name them), and
the sessions cycled until the transcript has its records. ``window_bytes``: a compaction (``compact_boundary`` and
its summary, as Claude Code writes them) each time the window reaches it; 0 never compacts, as the issue's
88 MB transcript did not.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "claude-code-sessions"
SESSION = "0b5e2c1a-1111-4222-8333-944455556666"


def corpus_records(corpus: Path = CORPUS) -> list[dict[str, Any]]:
    """The corpus's main-thread user and assistant records, session after session, in their order."""
    records: list[dict[str, Any]] = []
    for path in sorted(corpus.glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(record, dict) or record.get("type") not in ("user", "assistant"):
                continue
            if record.get("isSidechain") or record.get("isMeta") or not isinstance(record.get("message"), dict):
                continue
            records.append(record)
    if not records:
        raise SystemExit(f"no corpus at {corpus}: the corpus-shaped transcripts need ../shared")
    return records


def _renamed(message: dict[str, Any], suffix: str) -> dict[str, Any]:
    message = copy.deepcopy(message)
    if isinstance(message.get("id"), str):
        message["id"] += suffix
    for block in message.get("content") if isinstance(message.get("content"), list) else []:
        if isinstance(block, dict):
            for key in ("id", "tool_use_id"):
                if isinstance(block.get(key), str):
                    block[key] += suffix
    return message


class CorpusTranscriptWriter:
    """The corpus's records written again as one long transcript, a record at a time (``turn`` gives the next
    few, so it can stand in for bench_follow's synthetic writers)."""

    def __init__(self, cwd: str, window_bytes: int, records: list[dict[str, Any]] | None = None) -> None:
        self.cwd, self.window_bytes = cwd, window_bytes
        self.source = records if records is not None else corpus_records()
        self.n = 0
        self.at = 0
        self.parent: str | None = None
        self.window = 0
        """Bytes logged since the last boundary."""

    def _line(self, record: dict[str, Any]) -> bytes:
        self.n += 1
        uuid = f"{self.n:08x}-0000-4000-8000-000000000000"
        record = {**record, "parentUuid": self.parent, "uuid": uuid, "sessionId": SESSION, "cwd": self.cwd,
                  "isSidechain": False}  # fmt: skip
        self.parent = uuid
        line = json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        self.window += len(line)
        return line

    def turn(self) -> list[bytes]:
        """The next record (and a compaction after it when the window is full)."""
        source = self.source[self.at % len(self.source)]
        suffix = f"_{self.at // len(self.source)}"
        self.at += 1
        record = {k: v for k, v in source.items() if k not in ("parentUuid", "uuid", "sessionId", "cwd")}
        record["message"] = _renamed(source["message"], suffix)
        lines = [self._line(record)]
        if self.window_bytes and self.window >= self.window_bytes:
            lines += self.compaction()
        return lines

    def compaction(self) -> list[bytes]:
        logical, self.parent = self.parent, None
        boundary = self._line({"type": "system", "subtype": "compact_boundary", "logicalParentUuid": logical,
                               "content": "Conversation compacted", "compactMetadata": {"trigger": "auto"},
                               "timestamp": "2026-12-01T12:00:00.000Z"})  # fmt: skip
        self.window = len(boundary)
        text = {"type": "text", "text": "This session is being continued from a previous conversation. " * 20}
        summary = {"type": "user", "message": {"role": "user", "content": [text]}, "isCompactSummary": True,
                   "timestamp": "2026-12-01T12:00:00.000Z"}  # fmt: skip
        return [boundary, self._line(summary)]


def write_corpus_transcript(path: Path, cwd: str, records: int, window_bytes: int) -> CorpusTranscriptWriter:
    writer = CorpusTranscriptWriter(cwd, window_bytes)
    with path.open("wb") as f:
        while writer.n < records:
            f.write(b"".join(writer.turn()))
    return writer
