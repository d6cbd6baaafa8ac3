"""Which logs an evaluation replays: sessions named or found in folders, and sub-agent logs left without a parent.

A sub-agent log (``agent-*.jsonl``) is replayed with its parent session when the parent is in the folder. One
whose parent is not there (an *orphan*: the parent was deleted, or only part of a project was copied) is replayed
as a session of its own, never dropped silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from compact_lsp.engine.claude_code.transcript_log import iter_session_files, session_id_of


@dataclass(frozen=True)
class Source:
    """One log to replay; ``orphan`` says why a sub-agent log is replayed on its own."""

    path: Path
    orphan: str | None = None


def _orphans(folder: Path, parents: Sequence[Path]) -> list[Source]:
    ids = {p.stem for p in parents} | {sid for p in parents if (sid := session_id_of(p))}
    found: list[Source] = []
    for path in sorted(folder.glob("agent-*.jsonl")):
        parent = session_id_of(path)
        if path.is_file() and parent not in ids:
            why = f"its parent session {parent} is not in the folder" if parent else "it names no parent session"
            found.append(Source(path, why))
    return found


def session_sources(paths: Sequence[str]) -> list[Source]:
    """Session logs named directly, or found in folders (a project folder, or a folder of project folders),
    then the orphan sub-agent logs of those folders."""
    found: list[Source] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_file():
            orphan = "named on its own" if path.name.startswith("agent-") else None
            found.append(Source(path, orphan))
        elif path.is_dir():
            folders = [path, *sorted(p for p in path.rglob("*") if p.is_dir() and "subagents" not in p.parts)]
            for folder in folders:
                parents = list(iter_session_files(folder))
                found += [Source(p) for p in parents]
                found += _orphans(folder, parents)
        else:
            raise FileNotFoundError(f"{raw}: no such file or directory")
    return list({s.path: s for s in found}.values())
