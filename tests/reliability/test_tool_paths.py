"""Any string as a tool path: refused where it enters, or carried through everything a session does.

A model or a client can put anything in a tool input's ``file_path``: NUL bytes, lone surrogates, 10,000
characters, ``..`` chains, ``/proc`` links. Hypothesis feeds such strings, in-process on the real store, through
append, every automatic trigger (idle, size, forced, auto-compaction), a full compaction, undo, pins, change
notices and reload. Every step either succeeds or is refused with a ``ValueError`` (InvalidParams on the wire)
leaving the session file byte for byte as it was; anything else is the wire's "failed unexpectedly". An unusable
path is never journalled, and a session never stops taking appends.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compact_lsp.engine.compaction.full_compaction import CompactionError
from compact_lsp.engine.conversation.tokens import TiktokenCounter, load_encoding
from compact_lsp.engine.conversation.validate import validate
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.session_loading import replay_session
from compact_lsp.engine.session.session_status import status_of
from compact_lsp.engine.settings import AutoCompactSettings, EngineSettings, MicrocompactSettings
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.store.session_store import SessionStore

ENCODING = load_encoding()

NASTY = [
    "a\x00b.py",
    "\x00",
    "src/\ud800.py",
    "\udcff",
    "x" * 5000,
    "/" + "a/" * 3000,
    "../" * 40 + "etc/passwd",
    "/proc/self/fd/0",
    "/proc/self/cwd/../../root",
    "~/\x00",
    "src/a.py\n",
    "\u202e.py",
    "file:///etc/passwd",
    "src/a.py",
    "memory/MEMORY.md",
]
TOOL_PATHS = st.one_of(st.sampled_from(NASTY), st.text(max_size=30), st.text(st.characters(codec="utf-8"), max_size=8))
BIG = "lorem ipsum dolor " * 500  # about 3k tokens: a few of these pass the small size threshold below


def engine_settings() -> EngineSettings:
    # small thresholds, so every trigger fires within a dozen steps
    return EngineSettings(
        context_window=12_000,
        microcompact=MicrocompactSettings(keep_recent=1, size_threshold_tokens=4_000, idle_minutes=1.0),
        auto_compact=AutoCompactSettings(threshold_tokens=9_000),
    )


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def open_session(tmp: Path, clock: Clock) -> tuple[ContextSession, SessionStore]:
    (tmp / "ws" / "src").mkdir(parents=True)
    (tmp / "ws" / "src" / "a.py").write_text("x = 1\n")
    store = SessionStore(tmp / "sessions", str(tmp / "ws"))
    session = ContextSession(
        "ses_paths", settings=engine_settings(), counter=TiktokenCounter(ENCODING), workspace_root=str(tmp / "ws"),
        journal=store.journal_for("ses_paths"), clock=clock,
    )  # fmt: skip
    return session, store


def reload(store: SessionStore, tmp: Path, clock: Clock) -> ContextSession:
    records, report = store.load("ses_paths")
    assert report.clean, report.describe()
    skipped: list[Any] = []
    session = replay_session(
        records, settings=engine_settings(), counter=TiktokenCounter(ENCODING), workspace_root=str(tmp / "ws"),
        clock=clock, on_skipped=skipped.append,
    )  # fmt: skip
    assert skipped == []
    return session


def turn(n: int, path: str, key: str) -> list[list[dict[str, Any]]]:
    """One read round: the call naming ``path``, then its (large) result, then the model's answer."""
    use = {"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {key: path}}
    result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": f"{n} {BIG}"}
    return [
        [{"role": "assistant", "content": [use]}],
        [{"role": "user", "content": [result]}],
        [{"role": "assistant", "content": f"read {n}"}, {"role": "user", "content": "go on"}],
    ]


def refused_or_done(path: Path, step: Any) -> bool:
    """Run ``step``; a ``ValueError`` is a refusal and must leave the file unchanged. True when it was done."""
    before = path.read_bytes()
    try:
        step()
    except ValueError:
        assert path.read_bytes() == before, "a refused step changed the session file"
        return False
    return True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_string_as_a_tool_path_is_refused_at_append_or_survives_every_trigger_compaction_undo_and_reload(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    tmp = tmp_path_factory.mktemp("paths")
    clock = Clock()
    session, store = open_session(tmp, clock)
    file = store.path_for(session.id)
    session.append([{"role": "user", "content": "start"}])
    for n in range(data.draw(st.integers(3, 7), label="rounds")):
        tool_path = data.draw(TOOL_PATHS, label="path")
        key = data.draw(st.sampled_from(["file_path", "path", "notebook_path", "absolute_path"]), label="key")
        clock.now += data.draw(st.sampled_from([1.0, 120.0]), label="pause")  # 120 s: past the idle trigger
        steps = turn(n, tool_path, key)
        if not refused_or_done(file, lambda m=steps[0]: session.append(m)):
            assert tool_path.encode("utf-8", "surrogatepass") not in file.read_bytes() or tool_path in ("", " ")
            continue  # refused: the conversation still waits for an assistant turn
        for messages in steps[1:]:
            session.append(messages)  # a valid next step is always taken, whatever the earlier path was
        action = data.draw(st.sampled_from(["none", "micro", "compact", "undo", "pin", "notice"]), label="action")
        if action == "micro":
            session.microcompact("forced")
        elif action == "compact":
            try:
                asyncio.run(session.compact(OfflineSummarizer()))
            except CompactionError as exc:
                assert exc.kind in ("not_smaller", "empty"), exc
        elif action == "undo":
            try:
                session.undo()
            except CompactionError as exc:
                assert exc.kind == "nothing_to_undo", exc
        elif action == "pin":
            refused_or_done(file, lambda p=tool_path: session.pin(path=p))
        elif action == "notice":
            refused_or_done(file, lambda p=tool_path: session.notice_change(p, "changed\n"))
        assert validate(session.view()) == []
        status_of(session)
        again = reload(store, tmp, clock)
        assert again.view() == session.view()
        assert again.usage() == session.usage()
    store.close()


def test_a_nul_byte_in_a_tool_path_is_refused_naming_the_field_and_the_session_keeps_working(tmp_path: Path) -> None:
    """The issue's attack: with default thresholds, once clearable results pass the size trigger, every append
    failed "unexpectedly" (``ValueError: embedded null byte`` from realpath), after a restart too."""
    clock = Clock()
    session, store = open_session(tmp_path, clock)
    session.settings = EngineSettings()
    file = store.path_for(session.id)
    session.append([{"role": "user", "content": "start"}])
    before = file.read_bytes()
    with pytest.raises(ValueError, match=r"messages\[0\]\.content\[0\]\.input\.file_path .*NUL"):
        session.append(turn(0, "a\x00b.py", "file_path")[0])
    assert file.read_bytes() == before
    for n in range(1, 30):  # tens of thousands of tokens of clearable results, past where the trigger used to fail
        for messages in turn(n, f"src/f{n}.py", "file_path"):
            session.append(messages)
    assert session.microcompact("forced") is not None  # it clears old reads, where it used to fail
    assert reload(store, tmp_path, clock).view() == session.view()
    store.close()
