"""Import Claude Code session logs (``~/.claude/projects/<project>/<session>.jsonl``) into the message model.

A session file holds one JSON record a line. Records of type ``user`` and ``assistant`` carry a Messages API
``message``, ``attachment`` records what Claude Code rendered for the model; the others (summary, system,
progress, api-request, cost-state, queue-operation, ... and any kind a later version adds) are bookkeeping,
skipped and counted (``skipped_records``), never fatal. The importer:

- (``branch.py``) follows the ``parentUuid`` chain back from the model's last response, so a branch the user rewound
  away from is left out, and across a compaction boundary (``parentUuid`` null) by its ``logicalParentUuid``;
  records of the same API response (one assistant ``message.id`` logged as one record per content block)
  and the results answering them are kept even when the chain skips them (parallel tool calls fork the chain);
- merges the records of one API response into one assistant message, and consecutive user records into one
  user message (as Claude Code does before it calls the API);
- keeps each tool result's ``toolUseResult`` side data (for Read: file.filePath, content, startLine, ...);
- imports ``attachment`` records by what they render (re-attached files, hook output, a sub-agent's result):
  the model saw them, so they count, as attachments (``attachment_texts``);
- after Claude Code's last compaction, ``session.messages`` is the context the model sees now: the summary, the
  preserved segment (``compactMetadata.preservedMessages``), then what followed; what came before is
  ``history`` (``claude_code/compaction_view.py`` reads the boundary);
- runs ``repair`` so the result always validates, and records what it changed;
- reports malformed lines as ``LineProblem`` and imports the rest.

Sub-agent logs live beside the session (``agent-<id>.jsonl`` with the same ``sessionId``, older versions) or
in ``<session>/subagents/agent-*.jsonl``; they are imported into ``ImportedSession.subagents``.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compact_lsp.engine.claude_code.branch import merge_records, select_branch, side_data
from compact_lsp.engine.claude_code.compaction_view import split_at_last_compaction
from compact_lsp.engine.claude_code.legacy_shapes import split_sidechains, with_legacy_boundaries
from compact_lsp.engine.claude_code.log_lines import (
    BINARY_SNIFF_BYTES,
    LineProblem,
    LogRecord,
    before_last_boundary,
    is_boundary,
    parse_log_lines,
    starts_with_json_line,
)
from compact_lsp.engine.claude_code.models import context_window
from compact_lsp.engine.conversation.messages import Message, Session, blocks_of
from compact_lsp.engine.conversation.validate import repair
from compact_lsp.engine.files.file_gate import NotRegularFile, open_regular

log = logging.getLogger(__name__)

TITLE_MAX_CHARS = 80


@dataclass(frozen=True)
class MessageOrigin:
    """Where one imported message came from: its records, and the API response's id, model and usage."""

    record_uuids: tuple[str, ...]
    line_nos: tuple[int, ...]
    message_id: str | None = None
    model: str | None = None
    usage: dict[str, Any] | None = None
    is_meta: bool = False


@dataclass
class ImportedSession:
    """One Claude Code session in the engine's model, with what the log held beside the messages."""

    path: Path
    session: Session
    timestamps: list[str | None]
    """One per message: the ISO timestamp of its first record (None for a message ``repair`` added)."""
    origins: list[MessageOrigin | None]
    """One per message (None for a message ``repair`` added)."""
    tool_results_side: dict[str, dict[str, Any]]
    """tool_use id -> the ``toolUseResult`` object logged with its result (only when it is an object)."""
    cwd: str | None
    problems: list[LineProblem] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    subagents: list[ImportedSession] = field(default_factory=list)
    compact_summary: str | None = None
    """With ``before_last_compaction``: the text of Claude Code's own summary after its last compaction."""
    skipped_records: dict[str, int] = field(default_factory=dict)
    """Records not imported, by reason: their type (``progress``, ...), ``other-branch`` or ``duplicate``."""
    history: list[Message] = field(default_factory=list)
    """The conversation before Claude Code's last compaction (across earlier ones too); empty without one."""
    attachment_texts: frozenset[str] = frozenset()
    """Text blocks that came from ``attachment`` records: context Claude Code added, counted as attachments."""
    compaction: dict[str, Any] | None = None
    """The last compaction boundary's ``compactMetadata`` (``preTokens``, ``postTokens``, ``trigger``...)."""
    model: str | None = None
    """The model of the last response."""
    context_window: int | None = None
    """That model's context window (``claude_code/models.py``); None when unknown."""
    context_records: list[LogRecord] = field(default_factory=list)
    """The message records the messages were made from: the branch chosen, since the last compaction, those whose
    message ``repair`` dropped (an empty one) included."""
    inline: bool = False
    """A sub-agent whose records were inline in its session's own log (Claude Code 1.0.x, ``legacy_shapes``)."""
    legacy_compactions: int = 0
    """Claude Code 1.0.x compactions (a summary without a boundary) read as boundaries (``legacy_shapes``)."""


def iter_session_files(directory: str | Path) -> Iterator[Path]:
    """The session logs of a project directory, by name; ``agent-*.jsonl`` sub-agent logs are left out."""
    root = Path(directory)
    if not root.is_dir():
        raise NotADirectoryError(f"{root} is not a directory of Claude Code sessions")
    for path in sorted(root.glob("*.jsonl")):
        if not path.name.startswith("agent-") and path.is_file():
            yield path


def import_claude_code(
    path: str | Path, *, with_subagents: bool = True, before_last_compaction: bool = False
) -> ImportedSession:
    """Import one session log; raises FileNotFoundError or ValueError only when the file is not one at all.

    ``before_last_compaction``: only what came before Claude Code's last ``compact_boundary`` record (what its
    compaction summarised away), with its summary text in ``compact_summary``.
    """
    file = Path(path)
    records, problems = _read_records(file)
    records, inline, legacy = _today_shape(records)
    summary: str | None = None
    if before_last_compaction:
        records, summary = before_last_boundary(records)
    imported = import_records(file, records, problems)
    imported.compact_summary = summary
    imported.legacy_compactions = legacy
    if with_subagents:
        _attach_subagents(file, imported, inline)
    return imported


def _today_shape(records: list[LogRecord]) -> tuple[list[LogRecord], list[list[LogRecord]], int]:
    """A log's records as today's Claude Code writes them (``legacy_shapes``): the main chain with a boundary
    before each 1.0.x compaction, its inline sub-agents' records apart, and how many boundaries were put in."""
    main, inline = split_sidechains(records)
    main, legacy = with_legacy_boundaries(main)
    return main, inline, legacy


def _attach_subagents(file: Path, imported: ImportedSession, inline: Sequence[list[LogRecord]] = ()) -> None:
    """The sub-agents of a session: those inline in its own log (1.0.x), then those of their own logs (a sub-agent's
    log has none of its own), each imported alone."""
    found: list[ImportedSession] = []
    for chain in inline:
        sub = import_records(file, chain, [])
        sub.inline = True
        found.append(sub)
    if not file.name.startswith("agent-"):
        found += [import_claude_code(p, with_subagents=False) for p in _subagent_files(file, imported.session.id)]
    imported.subagents = found


def import_contexts(path: str | Path, *, with_subagents: bool = True) -> list[ImportedSession]:
    """One import per context the model worked in, in order: the log as it stood just before each of Claude
    Code's compactions (what ``import_claude_code`` gave then: the context since the compaction before it), then
    the whole log (``import_claude_code``'s own answer, with the sub-agents). A log without a compaction gives that
    one import. An import holds only the context after the last compaction, so a replay of it alone leaves out
    everything the session did before Claude Code compacted it."""
    file = Path(path)
    records, problems = _read_records(file)
    records, inline, legacy = _today_shape(records)
    cuts = [i for i, record in enumerate(records) if record.message is None and is_boundary(record)]
    parts = [import_records(file, records[:cut], []) for cut in cuts]
    whole = import_records(file, records, problems)
    whole.legacy_compactions = legacy
    if with_subagents:
        _attach_subagents(file, whole, inline)
    return [*parts, whole]


def import_records(file: Path, records: list[LogRecord], problems: list[LineProblem]) -> ImportedSession:
    """The session that records parsed by ``parse_log_lines`` hold (a live transcript's, read a piece at a time)."""
    skipped: Counter[str] = Counter()
    split = split_at_last_compaction(records, select_branch(records, skipped))
    imported = _build(file, records, split.context, problems, skipped, titled=[*split.history, *split.context])
    imported.context_records = split.context
    imported.model = next((o.model for o in reversed(imported.origins) if o is not None and o.model), None)
    imported.context_window = context_window((r.data for r in records), imported.model)
    if split.boundary is not None:
        imported.history = merge_records(split.history)[0]
        meta = split.boundary.data.get("compactMetadata")
        imported.compaction = meta if isinstance(meta, dict) else {}
    return imported


def _read_records(file: Path) -> tuple[list[LogRecord], list[LineProblem]]:
    if not file.exists():
        raise FileNotFoundError(f"no Claude Code session log at {file}")
    if file.is_dir():
        raise ValueError(f"{file} is a directory; expected a session log (.jsonl)")
    try:
        with open_regular(str(file)) as f:  # a FIFO or a device named by mistake must not hang the import
            data = f.read()
    except NotRegularFile as exc:
        raise ValueError(f"{exc}; expected a session log (.jsonl)") from None
    if b"\x00" in data[:BINARY_SNIFF_BYTES] and not starts_with_json_line(data):
        # a NUL inside a log that starts as JSON lines is one damaged line (a crash leaves zero-filled blocks)
        raise ValueError(f"{file} is a binary file, not a Claude Code session log (JSON lines)")
    records, problems = parse_log_lines(data)
    for p in problems:
        log.info("%s: %s", file, p)
    return records, problems


def _build(
    file: Path,
    records: list[LogRecord],
    selected: list[LogRecord],
    problems: list[LineProblem],
    skipped: Counter[str],
    titled: list[LogRecord],
) -> ImportedSession:
    messages, timestamps, sources = merge_records(selected)
    side = side_data(selected)
    fixed = repair(messages)
    origins = [_origin(sources[o]) if o is not None else None for o in fixed.origins]
    session_id = _first_str(records, "sessionId") or file.stem
    session = Session(
        id=session_id,
        messages=fixed.messages,
        title=_title(records, titled),
        meta={
            "path": str(file),
            "version": _first_str(records, "version"),
            "gitBranch": _first_str(records, "gitBranch"),
        },
    )
    return ImportedSession(
        path=file,
        session=session,
        timestamps=[timestamps[o] if o is not None else None for o in fixed.origins],
        origins=origins,
        tool_results_side=side,
        cwd=_first_str(records, "cwd"),
        problems=problems,
        repairs=fixed.actions,
        skipped_records=dict(skipped),
        attachment_texts=frozenset(
            str(b.get("text")) for r in selected if r.is_attachment and r.message for b in blocks_of(r.message)
        ),
    )


def _origin(records: list[LogRecord]) -> MessageOrigin:
    first = records[0].data.get("message")
    raw: dict[str, Any] = first if isinstance(first, dict) else {}
    usage = raw.get("usage") if isinstance(raw.get("usage"), dict) else None
    model = raw.get("model") if isinstance(raw.get("model"), str) else None
    return MessageOrigin(
        record_uuids=tuple(r.uuid for r in records if r.uuid is not None),
        line_nos=tuple(r.line_no for r in records),
        message_id=records[0].message_id,
        model=model,
        usage=usage,
        is_meta=all(r.data.get("isMeta") is True for r in records),
    )


def _first_str(records: list[LogRecord], key: str) -> str | None:
    for record in records:
        value = record.data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _title(records: list[LogRecord], selected: list[LogRecord]) -> str:
    """The summary Claude Code wrote for this branch, else the last summary, else the user's first prompt."""
    on_branch = {r.uuid for r in selected}
    summaries = [r.data for r in records if r.data.get("type") == "summary" and isinstance(r.data.get("summary"), str)]
    for summary in reversed(summaries):
        if summary.get("leafUuid") in on_branch:
            return str(summary["summary"])
    if summaries:
        return str(summaries[-1]["summary"])
    for record in selected:
        if record.message is None or record.message["role"] != "user" or record.is_attachment:
            continue
        if record.data.get("isMeta") or record.data.get("isCompactSummary"):
            continue
        for block in blocks_of(record.message):
            text = block.get("text", "").strip() if block.get("type") == "text" else ""
            if text and not text.startswith("<") and not text.startswith("Caveat:"):
                first_line = text.splitlines()[0]
                return first_line[: TITLE_MAX_CHARS - 1] + "…" if len(first_line) > TITLE_MAX_CHARS else first_line
    return ""


def _subagent_files(file: Path, session_id: str) -> list[Path]:
    nested = sorted((file.parent / file.stem / "subagents").glob("agent-*.jsonl"))
    beside = [p for p in sorted(file.parent.glob("agent-*.jsonl")) if p != file and session_id_of(p) == session_id]
    return nested + beside


def session_id_of(path: Path) -> str | None:
    """The sessionId of a log's first record that has one (reads only the first few lines)."""
    try:
        with open_regular(str(path)) as f:
            for _, line in zip(range(20), f, strict=False):
                try:
                    value = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    continue
                if isinstance(value, dict) and isinstance(value.get("sessionId"), str):
                    return str(value["sessionId"])
    except OSError:
        return None
    return None
