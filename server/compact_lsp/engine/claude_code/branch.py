"""Which records of a Claude Code log make the conversation, and how they merge into messages as the API saw them.

The records of the branch that ends at the model's last response, across compaction boundaries by their
``logicalParentUuid`` (``select_branch``); one API response's records merged into one assistant message and
consecutive user records into one user message (``merge_records``); the results' ``toolUseResult`` side data
(``side_data``). ``conversation_of`` is all of that, repaired: what the Claude Code hook needs of a transcript,
without the rest of an import (``transcript_log.py``: origins, title, window, history, sub-agents, files).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from typing import Any

from compact_lsp.engine.claude_code.compaction_view import split_at_last_compaction
from compact_lsp.engine.claude_code.log_lines import LogRecord
from compact_lsp.engine.conversation.messages import Message, blocks_of
from compact_lsp.engine.conversation.validate import repair


def conversation_of(records: list[LogRecord]) -> tuple[list[Message], dict[str, dict[str, Any]]]:
    """What ``transcript_log.import_records(...)``'s ``session.messages`` and ``tool_results_side`` hold: the
    messages since the last boundary in ``records``, repaired, with the results' side data (the Claude Code
    hook's whole need; no origins, title, window or history)."""
    split = split_at_last_compaction(records, select_branch(records, Counter()))
    messages, _, _ = merge_records(split.context)
    return repair(messages).messages, side_data(split.context)


def select_branch(records: list[LogRecord], skipped: Counter[str]) -> list[LogRecord]:
    """The message records of the branch that ends at the last message, in file order, without duplicates."""
    unique, ids, by_uuid = _unique_messages(records, skipped)
    responses = (i for i in range(len(unique) - 1, -1, -1) if (unique[i].message or {}).get("role") == "assistant")
    leaf_at = next(responses, len(unique) - 1)
    if leaf_at < 0 or ids[leaf_at][0] is None:
        return unique  # no chain to follow: keep the file's order
    leaf = unique[leaf_at]
    chain: set[str] = set()
    cursor: str | None = ids[leaf_at][0]
    child = leaf
    while cursor is not None and cursor not in chain:
        chain.add(cursor)
        parent = by_uuid.get(cursor)
        if parent is None:
            # The link names a record the file does not hold, or one we do not parse: the ``prompt_snapshot``
            # attachment or ``api-request`` record logged before each response, left out of a copy. Claude Code
            # logged it just before the child, after the record it hung off: go on from the record before the
            # child. Without this, everything before the break (a compaction's summary and files included) is
            # left out as another branch.
            parent = _logged_before(records, child)
            if parent is None or parent.uuid is None or parent.uuid in chain:
                break
            chain.add(parent.uuid)
        if parent.message is None and _is_retry_notice(parent):
            # What was logged after a failed API call that Claude Code retried hangs off its api_error notice,
            # which hangs off the message before the call; the retry's answer hangs off that message too. The
            # conversation went on from the answer: without this, the answer is left out as another branch.
            answer = _retried_answer(records, by_uuid, parent, child)
            if answer is not None:
                cursor, child = answer.uuid, answer
                continue
        cursor, child = _link(parent.data), parent
    # The branch ends at the model's last response; what the user logged after it (a prompt, local command
    # output) hangs off the branch somewhere and joins it. A rewound-away branch ends in an earlier response.
    for record in records[_position(records, leaf) + 1 :]:
        if record.uuid is not None and _link(record.data) in chain:
            chain.add(record.uuid)
    # Parallel tool calls fork the chain: each call's record and result hang off the previous call. Keep every
    # record of a response on the chain, and every result answering a kept call.
    response_ids = {message_id for uuid, message_id in ids if uuid in chain and message_id}
    kept = [uuid in chain or (message_id is not None and message_id in response_ids) for uuid, message_id in ids]
    if all(kept):  # one branch, the usual case: no result can be off it, so no calls need gathering
        return unique
    call_ids = {  # tool_use blocks are in assistant messages only (normalize_message refuses them elsewhere)
        b.get("id")
        for r, keep in zip(unique, kept, strict=True)
        if keep and r.message and r.message["role"] == "assistant"
        for b in blocks_of(r.message)
        if b.get("type") == "tool_use"
    }
    selected: list[LogRecord] = []
    for record, keep in zip(unique, kept, strict=True):
        if keep or _answers(record, call_ids):
            selected.append(record)
        else:
            skipped["other-branch"] += 1
    return selected


def _line_no(record: LogRecord) -> int:
    return record.line_no


def _logged_before(records: list[LogRecord], child: LogRecord) -> LogRecord | None:
    """The last record with a uuid logged before ``child``, or None."""
    for at in range(bisect_left(records, child.line_no, key=_line_no) - 1, -1, -1):
        if records[at].uuid is not None:
            return records[at]
    return None


def _is_retry_notice(record: LogRecord) -> bool:
    return record.data.get("type") == "system" and record.data.get("subtype") == "api_error"


def _retried_answer(
    records: list[LogRecord], by_uuid: dict[str, LogRecord], notice: LogRecord, child: LogRecord
) -> LogRecord | None:
    """The last message record logged before ``child`` that descends from the message the failed call followed
    (the retry's answer, or what came after it), or None: no retry was answered."""
    asked = _link(notice.data)
    while asked is not None and asked in by_uuid and _is_retry_notice(by_uuid[asked]):
        asked = _link(by_uuid[asked].data)  # a notice of a second attempt may hang off the first one's
    if asked is None or asked not in by_uuid:
        return None
    low = by_uuid[asked].line_no
    # from the child back to the prompt only: a log with many retries must not be searched from its end each time
    for at in range(bisect_left(records, child.line_no, key=_line_no) - 1, -1, -1):
        record = records[at]
        if record.line_no <= low:
            return None
        if record.message is None or record.uuid is None:
            continue
        cursor: LogRecord | None = record
        while cursor is not None and cursor.line_no > low:
            link = _link(cursor.data)
            if link == asked:
                return record
            cursor = by_uuid.get(link) if link is not None else None
    return None


def _unique_messages(
    records: list[LogRecord], skipped: Counter[str]
) -> tuple[list[LogRecord], list[tuple[str | None, str | None]], dict[str, LogRecord]]:
    """The message records without repeated uuids, each one's (uuid, message id) read once, and every record
    by its uuid."""
    unique: list[LogRecord] = []
    ids: list[tuple[str | None, str | None]] = []
    seen: set[str] = set()
    by_uuid: dict[str, LogRecord] = {}
    for record in records:  # LogRecord's uuid and message_id read inline: a call less each, on every record
        data = record.data
        uuid = data.get("uuid")
        if isinstance(uuid, str):
            by_uuid[uuid] = record
        else:
            uuid = None
        if record.message is None:
            skipped[str(data.get("type"))] += 1
            continue
        if uuid is not None:
            if uuid in seen:
                skipped["duplicate"] += 1
                continue
            seen.add(uuid)
        unique.append(record)
        raw = data.get("message")
        message_id = raw.get("id") if isinstance(raw, dict) else None
        ids.append((uuid, message_id if isinstance(message_id, str) else None))
    return unique, ids, by_uuid


def _link(data: dict[str, Any]) -> str | None:
    """``record.parent or record.logical_parent`` of a record's data: the record it hangs off."""
    parent = data.get("parentUuid")
    if isinstance(parent, str) and parent:
        return parent
    logical = data.get("logicalParentUuid")
    return logical if isinstance(logical, str) else None


def _position(records: list[LogRecord], record: LogRecord) -> int:
    """``records.index(record)`` without a dataclass ``__eq__`` call per record before it: only a record with the
    same line number can equal it."""
    line = record.line_no
    return next(i for i, r in enumerate(records) if r.line_no == line and r == record)


def _answers(record: LogRecord, call_ids: set[Any]) -> bool:
    """The record holds a result of one of the calls."""
    return record.message is not None and any(
        b.get("type") == "tool_result" and b.get("tool_use_id") in call_ids for b in blocks_of(record.message)
    )


def merge_records(selected: list[LogRecord]) -> tuple[list[Message], list[str | None], list[list[LogRecord]]]:
    """The records' messages as the API saw them: one API response's records into one assistant message, a
    user record after a user record into the same user message."""
    messages: list[Message] = []
    timestamps: list[str | None] = []
    sources: list[list[LogRecord]] = []
    last_id: str | None = None  # the message.id of the last assistant message, at index last_at
    last_at = 0
    for record in selected:
        message = record.message
        assert message is not None
        role = message["role"]
        message_id = record.message_id if role == "assistant" else None
        if message_id is not None and message_id == last_id:
            target = last_at  # another block of the same API response, maybe after its first results
        elif messages and messages[-1]["role"] == role:
            target = len(messages) - 1
        else:
            messages.append({"role": role, "content": []})
            timestamp = record.data.get("timestamp")
            timestamps.append(timestamp if isinstance(timestamp, str) else None)
            sources.append([])
            target = len(messages) - 1
        messages[target]["content"].extend(blocks_of(message))
        sources[target].append(record)
        if message_id:
            last_id, last_at = message_id, target
    return messages, timestamps, sources


def side_data(selected: list[LogRecord]) -> dict[str, dict[str, Any]]:
    side: dict[str, dict[str, Any]] = {}
    for record in selected:
        assert record.message is not None
        extra = record.data.get("toolUseResult")
        if isinstance(extra, dict):  # most records (every assistant one) have none: no results to look for
            _collect_side(extra, blocks_of(record.message), side)
    return side


def _collect_side(extra: dict[str, Any], blocks: list[dict[str, Any]], side: dict[str, dict[str, Any]]) -> None:
    results = [b for b in blocks if b.get("type") == "tool_result"]
    # One result a record is the norm; with several, which one the side data belongs to is unknowable.
    if len(results) == 1:
        side[str(results[0].get("tool_use_id"))] = extra
