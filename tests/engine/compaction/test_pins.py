"""Pins in the engine: validated before journalling, replayed, kept through compaction, first in rehydration."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.engine.session.test_context import ContextSession, counter, make_session, reads_session, workspace  # noqa: F401

from compact_lsp.engine.compaction.pins import PinError
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.session.session_loading import replay_session
from compact_lsp.engine.session.session_status import status_of
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.lsp.protocol.answers import status_answer


def test_a_pinned_file_comes_back_first_and_the_pins_outlive_compaction_and_replay(
    workspace: Path,  # noqa: F811
    counter: TiktokenCounter,  # noqa: F811
) -> None:
    session, journal, _ = reads_session(workspace, counter)
    session.pin(path="src/mod0.py")  # never read by the agent
    session.pin(tool_use_id="toolu_002")

    outcome = asyncio.run(session.compact(OfflineSummarizer()))

    files = [r["path"] for r in outcome.rehydrated if r["kind"] == "file"]
    assert files[0] == "src/mod0.py"
    assert len(files) == 5  # the bound still holds: the pin took the place of the lowest-ranked file
    wire = status_answer(status_of(session))["pinned"]
    assert wire == [
        {"kind": "toolResult", "toolUseId": "toolu_002", "inHistory": False},
        {"kind": "file", "path": "src/mod0.py"},
    ]
    reloaded = replay_session(journal.records, settings=session.settings, counter=counter,
                                     workspace_root=str(workspace))  # fmt: skip
    assert status_answer(status_of(reloaded))["pinned"] == wire


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"tool_use_id": "toolu_999"}, "no tool call", id="unknown-id"),
        pytest.param({"path": "/etc/hostname"}, "outside the allowed roots", id="outside"),
        pytest.param({"path": "src"}, "is not a file", id="directory"),
        pytest.param({}, "name a tool result or a file", id="nothing"),
    ],
)
def test_an_invalid_pin_writes_nothing(
    workspace: Path,  # noqa: F811
    counter: TiktokenCounter,  # noqa: F811
    kwargs: dict[str, str],
    message: str,
) -> None:
    session, journal, _ = make_session(workspace, counter)
    before = len(journal.records)
    with pytest.raises(PinError, match=message):
        session.pin(**kwargs)
    assert len(journal.records) == before and not session.pins


def test_pinning_twice_or_unpinning_what_is_not_pinned_writes_nothing(
    workspace: Path,  # noqa: F811
    counter: TiktokenCounter,  # noqa: F811
) -> None:
    session, journal, _ = make_session(workspace, counter)
    session.pin(path="src/mod1.py")
    count = len(journal.records)
    session.pin(path=str(workspace / "src" / "mod1.py"))
    session.pin(path="src/mod2.py", pinned=False)
    assert len(journal.records) == count
    session.pin(path="src/mod1.py", pinned=False)
    assert not session.pins and journal.records[-1]["pinned"] is False
