"""Hypothesis strategies for conversations in the engine's message model.

``conversations()`` draws VALID conversations (they pass ``validate``): they start with a user message, roles
alternate, every tool_use is answered by a tool_result in the next user message, ids are unique, and a
conversation may end with a trailing in-flight tool_use. ``raw_messages()`` draws arbitrary, often invalid,
sequences in the normalised shape (list content) for validate/repair properties.

Paths come from a small fixed set so that reads repeat; some lie under ``MEMORY_ROOT`` (managed memory).
"""

from __future__ import annotations

import base64
import struct
import zlib
from functools import cache
from typing import Any

from hypothesis import strategies as st

Block = dict[str, Any]
Message = dict[str, Any]

MEMORY_ROOT = "/project/memory"
"""A directory the tests can configure as a managed-memory root; PATHS holds files under it."""

MEMORY_PATHS: tuple[str, ...] = (
    "/project/memory/MEMORY.md",
    "/project/memory/decisions.md",
)
ORDINARY_PATHS: tuple[str, ...] = (
    "/project/src/main.py",
    "/project/src/util.py",
    "/project/README.md",
    "src/main.py",
    "/project/memory_notes.txt",
)
PATHS: tuple[str, ...] = ORDINARY_PATHS + MEMORY_PATHS

READ_TOOLS: tuple[str, ...] = ("read_file", "Read")
COMPACTABLE_TOOLS: tuple[str, ...] = (
    *READ_TOOLS,
    "grep",
    "Grep",
    "Bash",
    "run_shell_command",
    "edit_file",
    "Edit",
)
NON_COMPACTABLE_TOOLS: tuple[str, ...] = ("TodoWrite", "Task", "ask_user", "mcp__github__create_issue")
TOOL_NAMES: tuple[str, ...] = COMPACTABLE_TOOLS + NON_COMPACTABLE_TOOLS

_ALPHABET = st.characters(codec="utf-8", categories=("L", "N", "P", "Zs"))
_words = st.text(_ALPHABET, min_size=1, max_size=40)
_TOOL_NAME = st.sampled_from(TOOL_NAMES)


def _png(width: int, height: int) -> str:
    """A tiny valid PNG header and body of the given size, base64 (enough for imagesize to read)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    raw = b"".join(b"\x00" + b"\x00" * width for _ in range(height))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode("ascii")


@cache
def image_blocks() -> st.SearchStrategy[Block]:
    return st.builds(
        lambda w, h: {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": _png(w, h)},
        },
        st.integers(1, 40),
        st.integers(1, 40),
    )


@cache
def texts(max_size: int = 200) -> st.SearchStrategy[str]:
    return st.text(_ALPHABET, min_size=1, max_size=max_size).filter(lambda s: s.strip() != "")


@cache
def tool_inputs(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """A plausible input for a tool name; read tools always carry ``file_path``."""
    path = st.sampled_from(PATHS)
    if name in READ_TOOLS:
        return st.one_of(
            st.builds(lambda p: {"file_path": p}, path),
            st.builds(
                lambda p, o, n: {"file_path": p, "offset": o, "limit": n},
                path,
                st.integers(1, 500),
                st.integers(1, 200),
            ),
        )
    if name in ("grep", "Grep"):
        return st.builds(lambda pat, p: {"pattern": pat, "path": p}, _words, path)
    if name in ("Bash", "run_shell_command"):
        return st.builds(lambda c: {"command": c}, _words)
    if name in ("edit_file", "Edit"):
        return st.builds(lambda p, a, b: {"file_path": p, "old_string": a, "new_string": b}, path, _words, _words)
    if name == "TodoWrite":
        return st.builds(
            lambda items: {"todos": [{"content": t, "status": "pending"} for t in items]},
            st.lists(_words, max_size=3),
        )
    return st.dictionaries(st.sampled_from(["q", "title", "body", "prompt"]), _words, max_size=2)


@cache
def result_contents(max_text: int = 400) -> st.SearchStrategy[tuple[Any, bool]]:
    """(content, is_error): plain text, empty, list content (text and maybe an image), or an error."""
    text = texts(max_text)
    return st.one_of(
        st.tuples(text, st.just(False)),
        st.tuples(st.sampled_from(["", []]), st.just(False)),
        st.tuples(
            st.lists(st.builds(lambda t: {"type": "text", "text": t}, text), min_size=1, max_size=2),
            st.just(False),
        ),
        st.tuples(
            st.tuples(text, image_blocks()).map(lambda ti: [{"type": "text", "text": ti[0]}, ti[1]]),
            st.just(False),
        ),
        st.tuples(text.map(lambda t: f"Error: {t}"), st.just(True)),
    )


def _assistant_turn(draw: st.DrawFn, next_id: list[int], max_tools: int, force_tools: bool = False) -> Message:
    blocks: list[Block] = []
    if draw(st.integers(0, 4)) == 0:
        blocks.append({"type": "thinking", "thinking": draw(texts(80)), "signature": "sig" + draw(_words)})
    if draw(st.booleans()):
        blocks.append({"type": "text", "text": draw(texts(120))})
    n_tools = draw(st.integers(1 if force_tools else 0, max_tools))
    for _ in range(n_tools):
        name = draw(_TOOL_NAME)
        next_id[0] += 1
        blocks.append(
            {
                "type": "tool_use",
                "id": f"toolu_{next_id[0]:05d}",
                "name": name,
                "input": draw(tool_inputs(name)),
            }
        )
    if not blocks:
        blocks.append({"type": "text", "text": draw(texts(120))})
    return {"role": "assistant", "content": blocks}


def _answer(draw: st.DrawFn, assistant: Message, max_text: int) -> Message:
    uses = [b for b in assistant["content"] if b["type"] == "tool_use"]
    blocks: list[Block] = []
    if uses:
        order = draw(st.permutations(uses)) if len(uses) > 1 and draw(st.booleans()) else uses
        for use in order:
            content, is_error = draw(result_contents(max_text))
            block: Block = {"type": "tool_result", "tool_use_id": use["id"], "content": content}
            if is_error or draw(st.booleans()):
                block["is_error"] = is_error
            blocks.append(block)
        if draw(st.integers(0, 5)) == 0:
            blocks.append({"type": "text", "text": draw(texts(80))})
    else:
        blocks.append({"type": "text", "text": draw(texts(160))})
    return {"role": "user", "content": blocks}


@st.composite
def conversations(
    draw: st.DrawFn,
    min_rounds: int = 0,
    max_rounds: int = 8,
    max_tools_per_turn: int = 3,
    max_text: int = 400,
    in_flight: bool | None = None,
) -> list[Message]:
    """A valid conversation: a user message, then rounds (assistant turn + the user message answering it).

    ``in_flight``: True always ends with an assistant message holding an unanswered tool_use, False never,
    None sometimes. Without in-flight, it sometimes ends with a plain assistant reply.
    """
    next_id = [0]
    messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": draw(texts(160))}]}]
    for _ in range(draw(st.integers(min_rounds, max_rounds))):
        assistant = _assistant_turn(draw, next_id, max_tools_per_turn)
        messages.append(assistant)
        messages.append(_answer(draw, assistant, max_text))
    trailing = draw(st.booleans()) if in_flight is None else in_flight
    if trailing:
        messages.append(_assistant_turn(draw, next_id, max_tools_per_turn, force_tools=True))
    elif draw(st.integers(0, 3)) == 0:
        messages.append({"role": "assistant", "content": [{"type": "text", "text": draw(texts(120))}]})
    return messages


_RAW_IDS = st.sampled_from(["toolu_a", "toolu_b", "toolu_c", "toolu_d"])


@cache
def _raw_block(role: str) -> st.SearchStrategy[Block]:
    text = st.builds(lambda t: {"type": "text", "text": t}, st.one_of(st.just(""), _words))
    if role == "assistant":
        use = st.builds(
            lambda i, n: {"type": "tool_use", "id": i, "name": n, "input": {}},
            _RAW_IDS,
            st.sampled_from(TOOL_NAMES),
        )
        thinking = st.just({"type": "thinking", "thinking": "hmm", "signature": "sig"})
        return st.one_of(text, use, thinking)
    result = st.builds(
        lambda i, c, e: {"type": "tool_result", "tool_use_id": i, "content": c, "is_error": e},
        _RAW_IDS,
        st.one_of(st.just(""), _words),
        st.booleans(),
    )
    return st.one_of(text, result)


_ROLE = st.sampled_from(["user", "assistant"])


@st.composite
def _raw_message(draw: st.DrawFn) -> Message:
    role = draw(_ROLE)
    return {"role": role, "content": draw(st.lists(_raw_block(role), max_size=4))}


def raw_messages(max_size: int = 10) -> st.SearchStrategy[list[Message]]:
    """Arbitrary sequences in the normalised shape: wrong role order, orphan results, unanswered or duplicate
    ids, empty messages and blocks. tool_use stays in assistant and tool_result in user messages (the shape
    ``normalize_message`` enforces)."""
    return st.lists(_raw_message(), max_size=max_size)
