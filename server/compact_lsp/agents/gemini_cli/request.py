"""The hook's input and answer, and the answer remembered between requests: what the hook does on every request after
a compression without the engine.

Gemini CLI runs the hook before every model request, and after a compression every request needs our block again
(the rewrite is not kept in its history). Building it takes the engine (hook.py: about 0.3 s of CPU), so the block
is remembered in ``<state dir>/compact-lsp/gemini-cli/<digest of the session file's path>.json`` (0600, written
atomically) with everything it depends on, and a request finds it again while none of that changed:

- ``key``: the compression's record (the window it summarised, the summary), the cwd (and where it resolves), the
  home directory, ``COMPACT_LSP_HOOK_OUTSIDE_FILES``, the budget, our version and the file's format;
- ``files``: each file the window names, ``[size, mtime_ns, ctime_ns, inode]`` (None: not there);
- ``kept``: the tool calls since the compression whose output could hold one of the texts rehydration looked for
  in what the request holds verbatim (``probes``: each text's length and first characters). A call whose output
  cannot hold them (most: a listing, another file, a test run) leaves the block as it was: every answer the
  rehydration got is the same (``kept_key``).

Otherwise the block is built again. The remembered file is ours, but read as untrusted: a shape we do not expect is
a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

from compact_lsp import __version__
from compact_lsp.agents.gemini_cli.marks import COMPRESSION_ACK
from compact_lsp.agents.gemini_cli.session_file import MessageList, result_of, tool_calls
from compact_lsp.agents.hook_input import (
    OUTSIDE_FILES_ENV,
    hook_json,
    session_fields,
    transcript_records,
    transcript_tail,
)
from compact_lsp.agents.not_for_us import NotForUs
from compact_lsp.engine.files.usable_path import real_path

HOOK_EVENT = "BeforeModel"
TAG = "compact-lsp-context"
MAX_MESSAGES = 100_000
MAX_CACHE_BYTES = 1 << 20
CACHE_FORMAT = 2
"""Of the remembered file: a block remembered by another format is built again."""
PROBE_CHARS = 64
Signature = list[int] | None
"""A file's ``[size, mtime_ns, ctime_ns, inode]``, or None when it is not there."""


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


def compression_at(data: bytes) -> tuple[int, int] | None:
    """Where the session file's last compression is: its ``$set`` record's line (start, end), found by bytes."""
    mark = json.dumps(COMPRESSION_ACK).encode()
    at = data.rfind(mark)
    while at != -1:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end == -1 else end
        if data[start:end].lstrip().startswith(b'{"$set"'):
            return start, end
        at = data.rfind(mark, 0, start)
    return None


def session_key(data: bytes, span: tuple[int, int], cwd: str, budget: int) -> str:
    """What our block depends on but the files it names and the tool calls since: the compression's record (the
    window before it, its summary), the folder and the settings the hook runs with."""
    settings = [CACHE_FORMAT, __version__, budget, cwd, real_path(cwd), os.path.expanduser("~"),
                os.environ.get(OUTSIDE_FILES_ENV, "")]  # fmt: skip
    digest = hashlib.sha256(json.dumps(settings).encode())
    digest.update(data[span[0] : span[1]])
    return digest.hexdigest()


Call = tuple[str, Any, str]
"""A tool call since the compression with its result: (name, args, output text)."""


def calls_since(data: bytes, span: tuple[int, int]) -> list[Call]:
    """The tool calls with a result in the message list as it stands after the compression (the request holds
    their results verbatim), the records after it only parsed."""
    messages = MessageList()
    for record in transcript_records(data[span[0] :]):  # the compression's list, then what followed
        messages.apply(record)
    calls: list[Call] = []
    for call in tool_calls(messages.by_id):
        name, result = call.get("name"), result_of(call)
        if isinstance(name, str) and isinstance(call.get("id"), str) and result is not None:
            calls.append((name, call.get("args"), result[0]))
    return calls


def probes_of(checked: list[str]) -> list[list[Any]]:
    """What the block remembers of each text rehydration looked for in the request (``hook_context``'s
    ``checked``): its length and its first ``PROBE_CHARS`` characters."""
    return [[len(text), text[:PROBE_CHARS]] for text in checked]


def kept_key(calls: list[Call], probes: list[list[Any]]) -> str:
    """The calls since the compression whose output could hold one of the texts the block's rehydration looked for
    (as long, and holding its first characters), digested: while they are the same, so is every answer it got (a
    text with a NUL may span two outputs: then every call counts)."""
    digest = hashlib.sha256()
    for name, args, output in calls:
        if any("\x00" in prefix or (size <= len(output) and prefix in output) for size, prefix in probes):
            digest.update(json.dumps([name, args, output], sort_keys=True).encode())
            digest.update(b"\x00")
    return digest.hexdigest()


def signature(path: str) -> Signature:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def cache_path(transcript_path: str) -> str:
    state = os.environ.get("XDG_STATE_HOME", "").strip() or os.path.expanduser("~/.local/state")
    name = hashlib.sha256(transcript_path.encode()).hexdigest()[:32]
    return os.path.join(state, "compact-lsp", "gemini-cli", f"{name}.json")


@dataclass(frozen=True)
class Remembered:
    """A block as remembered: None when there was nothing to add."""

    context: str | None


def remembered(transcript_path: str, key: str, calls: list[Call]) -> Remembered | None:
    """The block remembered under ``key`` when no file it names changed since and the calls since the compression
    that could matter to it are the same; None otherwise."""
    try:
        fd = os.open(cache_path(transcript_path), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            data = json.loads(f.read(MAX_CACHE_BYTES))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    files, probes, context = data.get("files"), data.get("probes"), data.get("context")
    if not isinstance(files, dict) or not isinstance(probes, list) or not isinstance(context, str | None):
        return None
    if any(not (isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) and isinstance(p[1], str))
           for p in probes):  # fmt: skip
        return None
    if any(not isinstance(p, str) or signature(p) != s for p, s in files.items()):
        return None
    return Remembered(context) if data.get("kept") == kept_key(calls, probes) else None


def remember(
    transcript_path: str,
    key: str,
    context: str | None,
    files: dict[str, Signature],
    probes: list[list[Any]],
    calls: list[Call],
) -> None:
    """Write the block for this key (atomically, 0600); a cache we cannot write is not an error."""
    path = cache_path(transcript_path)
    body = json.dumps(
        {"key": key, "files": files, "probes": probes, "kept": kept_key(calls, probes), "context": context}
    ).encode()
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


@dataclass(eq=False)
class ToBuild:
    """What ``hook.build_answer`` needs when nothing is remembered for the request."""

    fields: dict[str, str]
    messages: list[dict[str, str]]
    index: int
    data: bytes
    key: str
    calls: list[Call]


def quick_answer(raw: bytes, budget: int) -> tuple[str | None, dict[str, Any], ToBuild | None]:
    """The answer from what is remembered: (answer, figures, what ``hook.build_answer`` needs to build it otherwise).
    ``NotForUs`` when the request holds no summary."""
    fields, messages = parse_input(raw)
    index = summary_index(messages)
    if index is None:
        raise NotForUs("no compression in the request")
    data = transcript_tail(fields["transcript_path"])
    figures: dict[str, Any] = {"session": fields["session_id"]}
    span = compression_at(data)
    if span is None:
        return None, {**figures, "reason": "the session file shows no compression"}, None
    key = session_key(data, span, fields["cwd"], budget)
    calls = calls_since(data, span)
    found = remembered(fields["transcript_path"], key, calls)
    if found is None:
        return None, figures, ToBuild(fields, messages, index, data, key, calls)
    figures["remembered"] = True
    if found.context is None:
        return None, figures, None
    return with_context(messages, index, found.context), {**figures, "chars": len(found.context)}, None
