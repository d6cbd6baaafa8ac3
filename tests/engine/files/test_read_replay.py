"""``ReadFileState.replay`` (the hooks' way to learn a whole conversation) ends in the state ``observe`` ends in:
the same records with the same fields, in the same order, with the same size classes; with ``hashes=False`` (the
hooks), the same but for the hashes, which are None."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compact_lsp.agents.character_fit import CharCounter
from compact_lsp.agents.hook_context import ReplayClock
from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.files.read_record import content_hash
from compact_lsp.engine.files.read_state import ReadFileState

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "claude-code-sessions"
SESSIONS = sorted(p for p in CORPUS.glob("*/*.jsonl") if not p.name.startswith("agent-")) if CORPUS.is_dir() else []
PATHS = ["a.py", "b.py", "c.py", "sub/d.md", "/outside/e.txt"]


def learnt(
    messages: list[Message], root: Path, replay: bool, capacity: int = 4096, hashes: bool = True
) -> ReadFileState:
    state = ReadFileState(capacity=capacity, cwd=str(root), counter=CharCounter(), clock=ReplayClock())
    if replay:
        state.replay(messages, hashes=hashes)
    else:
        state.observe(messages)
    return state


def facts(state: ReadFileState, *, hashes: bool = True) -> tuple[Any, ...]:
    """The state's records (without their hashes unless ``hashes``), size classes, time order and flags."""
    classes = {c: n for c, n in state.order._classes.items() if n}
    records = [(k, r if hashes else replace(r, content_hash=None)) for k, r in state._records.items()]
    return records, classes, state.order.time_ordered, state.flags


def turn(k: int, action: str, path: str, text: str) -> list[Message]:
    name = {"read": "Read", "edit": "Edit", "write": "Write", "error": "Read", "empty": "Read"}[action]
    tool_input: dict[str, Any] = {"file_path": path}
    if action == "write":
        tool_input["content"] = text
    if action == "read" and k % 3 == 0:
        tool_input.update(offset=k, limit=10)
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": f"t{k}", "content": text}
    if action == "error":
        result["is_error"] = True
    if action == "empty":
        result["content"] = ""
    if action == "read" and k % 4 == 0:  # a result with an image: what was seen is its whole JSON
        result["content"] = [{"type": "text", "text": text}, {"type": "image", "source": {"data": "AA"}}]
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{k}", "name": name, "input": tool_input}]},
        {"role": "user", "content": [result]},
    ]


ACTIONS = st.tuples(
    st.sampled_from(["read", "read", "read", "edit", "write", "error", "empty"]),
    st.sampled_from(PATHS),
    st.text(max_size=300),
)


@settings(max_examples=300, deadline=None)
@given(steps=st.lists(ACTIONS, max_size=40), capacity=st.sampled_from([1, 2, 3, 4096]))
def test_replay_learns_what_observe_learns(tmp_path_factory: pytest.TempPathFactory, steps: list[Any],
                                           capacity: int) -> None:  # fmt: skip
    root = tmp_path_factory.getbasetemp()
    messages = [m for k, (action, path, text) in enumerate(steps) for m in turn(k, action, path, text)]
    assert facts(learnt(messages, root, True, capacity)) == facts(learnt(messages, root, False, capacity))
    unhashed = learnt(messages, root, True, capacity, hashes=False)  # the hooks' way: the same, without hashes
    assert all(r.content_hash is None for r in unhashed._records.values())
    assert facts(unhashed) == facts(learnt(messages, root, False, capacity), hashes=False)
    assert unhashed._hash is content_hash  # and later reads are hashed again


@pytest.mark.parametrize("source", SESSIONS, ids=[p.stem[:8] for p in SESSIONS])
@pytest.mark.parametrize("capacity", [8, 4096])
def test_replay_learns_what_observe_learns_on_the_corpus(source: Path, capacity: int) -> None:
    imported = import_claude_code(source, with_subagents=False)
    messages, cwd = imported.session.messages, Path(imported.cwd or "/")
    assert facts(learnt(messages, cwd, True, capacity)) == facts(learnt(messages, cwd, False, capacity))
    assert facts(learnt(messages, cwd, True, capacity, hashes=False)) == facts(
        learnt(messages, cwd, False, capacity), hashes=False
    )
