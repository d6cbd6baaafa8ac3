"""Files outside the work roots the user let in: one by one, journalled, listed in status, revocable; a Claude
Code transcript's successful file uses admit their files, and nothing else in their folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.files.file_gate import AllowedRoots, OutsideRoots, read_gated
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.session_loading import replay_session
from compact_lsp.engine.session.session_status import status_of
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.lsp.protocol.answers import admitted_answer, status_answer


class ListJournal:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def write(self, record: dict[str, Any]) -> None:
        self.records.append(json.loads(json.dumps(record)))


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace and a sibling repository beside it holding two files."""
    ws, sibling = tmp_path / "ws", tmp_path / "sibling"
    ws.mkdir()
    sibling.mkdir()
    (ws / "app.py").write_text("import lib\n")
    (sibling / "lib.py").write_text("def helper():\n    return 1\n")
    (sibling / "secret.txt").write_text("not for the model\n")
    return ws, sibling


def session(ws: Path, source: str | None, journal: ListJournal | None = None) -> ContextSession:
    return ContextSession("s", settings=EngineSettings(), counter=TiktokenCounter(), workspace_root=str(ws),
                          source=source, journal=journal)  # fmt: skip


def proposed(s: ContextSession) -> list[str]:
    """The outside files the session's transcript proposes (lsp/features/outside_files.py asks about them)."""
    return [path for path, _ in s.state.admitted.proposed(s.work_roots)]


def used(tool: str, path: str, *, error: bool = False, use_id: str = "t1") -> list[dict[str, Any]]:
    """An assistant tool call and the result that answers it."""
    return [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": use_id, "name": tool,
                                           "input": {"file_path": path}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use_id, "content": "ok",
                                      "is_error": error}]},
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "error", "expected"),
    [
        pytest.param("import", False, True, id="imported-transcript-read"),
        pytest.param("claude-code", False, True, id="followed-transcript-read"),
        pytest.param("import", True, False, id="failed-read-proposes-nothing"),
        pytest.param("chat", False, False, id="our-chat-needs-an-approval"),
        pytest.param("api", False, False, id="appended-messages-propose-nothing"),
    ],
)
def test_a_transcript_only_proposes_the_files_it_used_with_success(
    layout: tuple[Path, Path], source: str, error: bool, expected: bool
) -> None:
    """Round 4: a transcript never admits an outside file by itself; the user's yes does (lsp/features/
    outside_files.py). On main the transcript's read admitted the file."""
    ws, sibling = layout
    s = session(ws, source)
    s.append(used("Read", str(sibling / "lib.py"), error=error))
    lib = str((sibling / "lib.py").resolve())
    assert s.admitted_files == [] and lib not in s.rehydration_roots
    assert proposed(s) == ([lib] if expected else [])
    if expected:
        s.admit(lib, "transcript")  # the user said yes
        assert admitted_answer(s.admitted_files) == [{"path": lib, "reason": "transcript"}]
        assert status_answer(status_of(s))["admittedFiles"] == admitted_answer(s.admitted_files)
        assert lib in s.rehydration_roots and proposed(s) == []


def test_the_folder_of_an_admitted_file_stays_closed(layout: tuple[Path, Path]) -> None:
    ws, sibling = layout
    s = session(ws, "import")
    s.append(used("Read", str(sibling / "lib.py")))
    s.admit(str(sibling / "lib.py"), "transcript")
    assert read_gated(str(sibling / "lib.py"), s.allowed_roots).startswith(b"def helper")
    with pytest.raises(OutsideRoots):
        read_gated(str(sibling / "secret.txt"), s.allowed_roots)
    assert str(sibling.resolve()) not in s.rehydration_roots


def test_an_admitted_file_is_bound_to_the_file_it_was(layout: tuple[Path, Path]) -> None:
    """Round 4: another file renamed over the admitted path, or a link there, is not the admitted file."""
    ws, sibling = layout
    s = session(ws, "chat")
    lib = sibling / "lib.py"
    s.admit(str(lib), "read")
    assert read_gated(str(lib), s.allowed_roots).startswith(b"def helper")
    (sibling / "other.py").write_text("SECRET = 1\n")
    (sibling / "other.py").replace(lib)
    with pytest.raises(OutsideRoots):
        read_gated(str(lib), s.allowed_roots)


def test_a_path_that_is_a_folder_here_is_never_proposed(layout: tuple[Path, Path]) -> None:
    ws, sibling = layout
    s = session(ws, "import")
    s.append(used("Read", str(sibling)))  # a log from another machine may name a folder of this one
    assert s.admitted_files == [] and proposed(s) == []


def test_a_call_and_its_result_in_separate_appends_propose_the_file(layout: tuple[Path, Path]) -> None:
    """A followed transcript arrives in pieces: the result proposes the file once it comes."""
    ws, sibling = layout
    s = session(ws, "claude-code")
    call, result = used("Edit", str(sibling / "lib.py"))[1:]
    s.append([{"role": "user", "content": "go"}, call])
    assert proposed(s) == []
    s.append([result])
    assert proposed(s) == [str((sibling / "lib.py").resolve())] and s.admitted_files == []


def test_an_approval_is_journalled_and_revocable(layout: tuple[Path, Path]) -> None:
    ws, sibling = layout
    journal = ListJournal()
    s = session(ws, "chat", journal)
    lib = str((sibling / "lib.py").resolve())
    s.admit(lib, "edit")
    assert status_answer(status_of(s))["admittedFiles"] == [{"path": lib, "reason": "edit"}]
    reloaded = replay_session(journal.records, settings=EngineSettings(), counter=TiktokenCounter(),
                                     workspace_root=str(ws))  # fmt: skip
    assert admitted_answer(reloaded.admitted_files) == [{"path": lib, "reason": "edit"}]
    s.admit(lib, admitted=False)
    assert s.admitted_files == [] and lib not in s.rehydration_roots
    with pytest.raises(OutsideRoots):
        read_gated(lib, s.allowed_roots)
    assert [r for r in journal.records if r["type"] == "admit"][-1]["admitted"] is False


def test_a_revoked_transcript_file_stays_out(layout: tuple[Path, Path]) -> None:
    ws, sibling = layout
    s = session(ws, "import")
    s.append(used("Read", str(sibling / "lib.py")))
    s.admit(str((sibling / "lib.py").resolve()), admitted=False)
    s.append(used("Read", str(sibling / "lib.py"), use_id="t2"))
    assert s.admitted_files == [] and proposed(s) == []


def test_an_exact_file_root_admits_nothing_below_it(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x").write_text("x")
    roots = AllowedRoots().plus_files(str(tmp_path / "d"))
    assert roots.root_of(str(tmp_path / "d")) is not None
    assert roots.root_of(str(tmp_path / "d" / "x")) is None
