"""The hook's input and answer, and the answer remembered between requests: what the hook does on every request after
a compression without the engine.

Gemini CLI runs the hook before every model request, and after a compression every request needs our block again
(the rewrite is not kept in its history). Building it takes the engine (hook.py: ~740M instructions, about 0.3 s of
CPU); the block changes only when the compression, the tool calls made since, or a file it names on disk changes.
So the answer is remembered in ``<state dir>/compact-lsp/gemini-cli/<digest of the session file's path>.json``
(0600, written atomically) with that key: the last compression's record, the tool calls recorded after it, and each
named file's ``(size, mtime_ns, inode)``. A request whose key matches gets the remembered block at once; any other
builds it again. The remembered file is ours, but read as untrusted: a shape we do not expect is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from typing import Any

from compact_lsp.agents.gemini_cli.marks import COMPRESSION_ACK
from compact_lsp.agents.hook_input import hook_json, session_fields, transcript_tail
from compact_lsp.agents.not_for_us import NotForUs

HOOK_EVENT = "BeforeModel"
TAG = "compact-lsp-context"
MAX_MESSAGES = 100_000
MAX_CACHE_BYTES = 1 << 20
Signature = list[int] | None
"""A file's ``[size, mtime_ns, inode]``, or None when it is not there."""


def parse_input(raw: bytes) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The hook input's session fields and its request's messages; ``NotForUs`` or ``ValueError`` otherwise."""
    data = hook_json(raw)
    if data.get("hook_event_name") != HOOK_EVENT:
        raise NotForUs(f"{data.get('hook_event_name')!r}: only {HOOK_EVENT} is ours")
    fields = session_fields(data)
    request = data.get("llm_request")
    listed = request.get("messages") if isinstance(request, dict) else None
    if not isinstance(listed, list) or len(listed) > MAX_MESSAGES:
        raise ValueError("hook input: llm_request.messages must be a list")
    messages: list[dict[str, str]] = []
    for message in listed:
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ValueError("hook input: a message without a role")
        content = message.get("content")
        if not isinstance(content, str):
            raise ValueError("hook input: a message whose content is not text")
        messages.append({"role": message["role"], "content": content})
    return fields, messages


def summary_index(messages: list[dict[str, str]]) -> int | None:
    """The index of the last summary: a ``user`` message the model's acknowledgement follows."""
    for i in range(len(messages) - 2, -1, -1):
        if (
            messages[i]["role"] == "user"
            and messages[i + 1]["role"] == "model"
            and messages[i + 1]["content"].strip() == COMPRESSION_ACK
        ):
            return i
    return None


def with_context(messages: list[dict[str, str]], index: int, context: str) -> str:
    """The answer: the messages up to the summary, our block after the summary's text; no model, no config
    (answering ``config`` would drop the request's tools and system instruction)."""
    answered = [dict(m) for m in messages[: index + 1]]
    answered[index]["content"] += f"\n\n<{TAG}>\n{context}\n</{TAG}>"
    output = {"hookSpecificOutput": {"hookEventName": HOOK_EVENT, "llm_request": {"messages": answered}}}
    return json.dumps(output, ensure_ascii=False)


def session_key(data: bytes) -> str | None:
    """What our block depends on in the session file: the last compression's record and the tool calls recorded
    after it (None: no compression). Found by bytes, then only the records after it parsed."""
    mark = json.dumps(COMPRESSION_ACK).encode()
    at = data.rfind(mark)
    while at != -1:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end == -1 else end
        if data[start:end].lstrip().startswith(b'{"$set"'):
            break
        at = data.rfind(mark, 0, start)
    if at == -1:
        return None
    digest = hashlib.sha256(data[start:end])
    for line in data[end:].splitlines():
        if b'"toolCalls"' not in line:
            continue
        try:
            record = json.loads(line)
        except (UnicodeDecodeError, ValueError):
            continue
        calls = record.get("toolCalls") if isinstance(record, dict) else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                digest.update(json.dumps([call.get("name"), call.get("args")], sort_keys=True).encode())
    return digest.hexdigest()


def signature(path: str) -> Signature:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ino]


def cache_path(transcript_path: str) -> str:
    state = os.environ.get("XDG_STATE_HOME", "").strip() or os.path.expanduser("~/.local/state")
    name = hashlib.sha256(transcript_path.encode()).hexdigest()[:32]
    return os.path.join(state, "compact-lsp", "gemini-cli", f"{name}.json")


def remembered(transcript_path: str, key: str, budget: int) -> str | None:
    """The block remembered for this key and budget, when no file it names changed since; None otherwise."""
    try:
        fd = os.open(cache_path(transcript_path), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            data = json.loads(f.read(MAX_CACHE_BYTES))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or data.get("budget") != budget:
        return None
    files, context = data.get("files"), data.get("context")
    if not isinstance(files, dict) or not isinstance(context, str):
        return None
    if any(not isinstance(p, str) or signature(p) != s for p, s in files.items()):
        return None
    return context


def remember(transcript_path: str, key: str, budget: int, context: str, files: dict[str, Signature]) -> None:
    """Write the block for this key (atomically, 0600); a cache we cannot write is not an error."""
    path = cache_path(transcript_path)
    body = json.dumps({"key": key, "budget": budget, "files": files, "context": context}).encode()
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(body)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def quick_answer(
    raw: bytes, budget: int
) -> tuple[str | None, dict[str, Any], tuple[dict[str, str], list[dict[str, str]], int, bytes, str] | None]:
    """The answer from what is remembered: (answer, figures, what ``hook.build_answer`` needs to build it otherwise).
    ``NotForUs`` when the request holds no summary."""
    fields, messages = parse_input(raw)
    index = summary_index(messages)
    if index is None:
        raise NotForUs("no compression in the request")
    data = transcript_tail(fields["transcript_path"])
    key = session_key(data)
    figures: dict[str, Any] = {"session": fields["session_id"]}
    if key is None:
        return None, {**figures, "reason": "the session file shows no compression"}, None
    context = remembered(fields["transcript_path"], key, budget)
    if context is not None:
        return with_context(messages, index, context), {**figures, "remembered": True, "chars": len(context)}, None
    return None, figures, (fields, messages, index, data, key)
