"""Journal integrity, in-process: every append is either acknowledged, applied and reloads identically, or refused
with the session file byte for byte unchanged.

The session runs on the real store (``SessionJournal``: write, fsync) and hypothesis drives it with appends a
client or a model might send: valid turns and garbage, paths with NUL bytes, ``..`` and odd Unicode, lone
surrogates, tool inputs nested past the documented depth, usage objects of any shape. A refusal must be a
``ValueError`` (what the server answers as InvalidParams); anything else is the "failed unexpectedly" of the wire.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compact_lsp.engine.conversation.messages import MAX_NESTING
from compact_lsp.engine.conversation.tokens import TiktokenCounter, load_encoding
from compact_lsp.engine.conversation.validate import validate
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.session_loading import replay_session
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.store.session_store import SessionStore

ENCODING = load_encoding()

PATHS = st.one_of(
    st.sampled_from(["a\x00b.py", "src/a.py"]),
    st.sampled_from(
        ["src/a.py", "a\x00b.py", "/x\x00y", "../../etc/passwd", "/proc/self/environ", "ü/ø.py", "", " ", "~/x"]
    ),
    st.text(max_size=20),
)
TEXT = st.one_of(st.text(max_size=40), st.sampled_from(["\ud800 lone", "ok\x00nul", "\u202eRTL", " "]))
TOOLS = st.sampled_from(["Read", "Write", "Edit", "Bash", "NotebookEdit"])


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth):
        value = {"n": value}
    return value


@st.composite
def tool_input(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["path", "path", "path", "deep", "odd"]))
    if kind == "path":
        key = draw(st.sampled_from(["file_path", "path", "notebook_path"]))
        return {key: draw(PATHS), "content": draw(TEXT), "offset": draw(st.one_of(st.none(), st.integers(-5, 2**70)))}
    if kind == "deep":
        return nested(draw(st.sampled_from([1, MAX_NESTING - 6, MAX_NESTING, 350])))
    return draw(st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2)))


@st.composite
def append_for(draw: st.DrawFn, session: ContextSession, counter: list[int]) -> tuple[Any, Any]:
    """One append: mostly the conversation's natural next step, sometimes garbage."""
    history = session.messages
    last = history[-1] if history else None
    open_ids = [b["id"] for b in (last or {}).get("content", []) if b.get("type") == "tool_use"]
    choice = draw(st.sampled_from(["next"] * 6 + ["garbage", "result-for-nothing"]))
    usage: Any = draw(st.one_of(st.none(), st.just({"input_tokens": 5}), st.just(nested(MAX_NESTING + 1)),
                                st.just({"input_tokens": "\ud800"})))  # fmt: skip
    if choice == "garbage":
        odd_message = st.fixed_dictionaries({"role": st.text(max_size=9), "content": TEXT})
        messages = draw(st.one_of(st.integers(), st.lists(st.one_of(st.none(), st.text(max_size=5), odd_message))))
        return messages, usage
    if choice == "result-for-nothing":
        return [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nobody", "content": "x"}]}], usage
    if open_ids:
        results = [
            {"type": "tool_result", "tool_use_id": i, "content": draw(TEXT), "is_error": draw(st.booleans())}
            for i in open_ids
        ]
        return [{"role": "user", "content": results}], usage
    if last is None or last["role"] == "assistant":
        return [{"role": "user", "content": draw(TEXT)}], usage
    counter[0] += 1
    use = {"type": "tool_use", "id": f"toolu_{counter[0]}", "name": draw(TOOLS), "input": draw(tool_input())}
    blocks: list[Any] = [use] if draw(st.integers(0, 3)) else [{"type": "text", "text": draw(TEXT)}]
    return [{"role": "assistant", "content": blocks}], usage


def open_session(tmp: Path) -> tuple[ContextSession, SessionStore]:
    store = SessionStore(tmp / "sessions", str(tmp))
    session = ContextSession(
        "ses_prop",
        settings=EngineSettings(),
        counter=TiktokenCounter(ENCODING),
        workspace_root=str(tmp),
        journal=store.journal_for("ses_prop"),
    )
    return session, store


def reload(store: SessionStore, tmp: Path) -> ContextSession:
    records, report = store.load("ses_prop")
    assert report.clean, report.describe()
    skipped: list[Any] = []
    session = replay_session(
        records, settings=EngineSettings(), counter=TiktokenCounter(ENCODING), workspace_root=str(tmp),
        on_skipped=skipped.append,
    )  # fmt: skip
    assert skipped == []
    return session


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_an_append_is_applied_and_reloads_identically_or_refused_leaving_the_file_unchanged(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    tmp = tmp_path_factory.mktemp("journal")
    session, store = open_session(tmp)
    path = store.path_for(session.id)
    counter = [0]
    acknowledged = 0
    for _ in range(data.draw(st.integers(1, 12), label="appends")):
        messages, usage = data.draw(append_for(session, counter))
        before = path.read_bytes()
        try:
            session.append(messages, usage)
        except ValueError:  # refused: InvalidParams on the wire
            assert path.read_bytes() == before, "a refused append changed the session file"
            continue
        acknowledged += 1
        assert validate(session.view()) == []
        again = reload(store, tmp)
        assert again.view() == session.view()
        assert again.usage() == session.usage()
    store.close()


def test_a_tool_call_whose_path_holds_a_nul_byte_is_refused_but_one_journalled_before_still_loads(
    tmp_path: Path,
) -> None:
    """Appends refuse such a path now (InvalidParams naming the field); a journal an older version wrote with one
    still loads, and its session takes the microcompaction that used to fail on it (``realpath``'s ValueError)."""
    session, store = open_session(tmp_path)
    use = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a\x00b.py"}}
    turn = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1\tx = 1"}]},
    ]
    session.append([turn[0]])
    with pytest.raises(ValueError, match=r"input\.file_path holds a NUL byte"):
        session.append([turn[1]])
    session.journal.write({"type": "append", "messages": turn[1:], "at": 1.0})  # as an older version wrote it
    again = reload(store, tmp_path)
    again.journal = session.journal
    again.append([{"role": "assistant", "content": "done"}])
    again.microcompact("forced")
    assert reload(store, tmp_path).view() == again.view()


def test_a_change_notice_is_journalled_when_it_arises_and_withdrawn_the_same_way(tmp_path: Path) -> None:
    session, store = open_session(tmp_path)
    session.append([{"role": "user", "content": "hi"}])
    session.add_change_notice("src/a.py", "src/a.py changed on disk since you read it.")
    session.add_change_notice("src/b.py", "src/b.py changed on disk since you read it.")
    session.discard_change_notice("src/b.py")
    records, _ = store.load(session.id)
    pending = [r for r in records if r["type"] == "pending"]
    assert all(set(r) == {"type", "path", "text", "at"} for r in pending)
    assert [(r["path"], r["text"]) for r in pending] == [
        ("src/a.py", "src/a.py changed on disk since you read it."),
        ("src/b.py", "src/b.py changed on disk since you read it."),
        ("src/b.py", None),
    ]
    assert reload(store, tmp_path).view() == session.view()
    assert "src/a.py changed" in str(session.view()[-1]) and "src/b.py" not in str(session.view()[-1])
