"""Which file a tool result is about: learnt only from its request's tool_use id, never guessed."""

from __future__ import annotations

import pytest

from compact_lsp.engine.files.file_tool_calls import FileToolCalls, input_path

KINDS = {"Read": "read", "Edit": "edit", "Write": "write"}


def use(use_id: str, name: str = "Read", **tool_input: object) -> dict[str, object]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": tool_input}


def result(use_id: str) -> dict[str, object]:
    return {"type": "tool_result", "tool_use_id": use_id, "content": "..."}


@pytest.mark.parametrize(
    ("tool_input", "expected"),
    [
        pytest.param({"file_path": "a.py"}, "a.py", id="claude-code"),
        pytest.param({"absolute_path": "/w/a.py"}, "/w/a.py", id="gemini"),
        pytest.param({"notebook_path": "n.ipynb"}, "n.ipynb", id="notebook"),
        pytest.param({"file_path": "", "path": "b.py"}, "b.py", id="empty-first-key-skipped"),
        pytest.param({"file_path": 7}, None, id="not-a-string"),
        pytest.param({"file_path": "a\x00.py"}, None, id="nul-byte-names-no-file"),
        pytest.param({"pattern": "*.py"}, None, id="no-path"),
    ],
)
def test_input_path_reads_the_first_key_that_names_a_file(tool_input: dict[str, object], expected: str | None) -> None:
    assert input_path(tool_input) == expected


def test_a_result_is_tied_to_its_request_once() -> None:
    calls = FileToolCalls(KINDS, max_ids=10)
    calls.request(use("t1", "Read", file_path="src/a.py"))
    answered = calls.answer(result("t1"))
    assert answered is not None and (answered.path, answered.kind, answered.name) == ("src/a.py", "read", "Read")
    assert calls.answer(result("t1")) is None  # a second result for the same id: no request is waiting
    assert [(f.tool_use_id, f.code) for f in calls.flags] == [("t1", "no-request")]


def test_an_id_used_with_two_files_is_flagged_not_guessed() -> None:
    calls = FileToolCalls(KINDS, max_ids=10)
    calls.request(use("t1", "Read", file_path="a.py"))
    calls.note_id_path("t1", "b.py")
    assert calls.answer(result("t1")) is None
    assert [(f.tool_use_id, f.code) for f in calls.flags] == [("t1", "ambiguous-id")]
    assert "a.py, b.py" in calls.flags[0].detail


def test_two_spellings_of_one_file_are_not_an_ambiguous_id() -> None:
    calls = FileToolCalls(KINDS, max_ids=10, same_file=lambda p: p.removeprefix("/ws/"))
    calls.request(use("t1", "Read", file_path="a.py"))
    calls.note_id_path("t1", "/ws/a.py")
    assert calls.paths_for("t1") == ["a.py"]
    assert calls.answer(result("t1")) is not None and calls.flags == []


def test_tools_that_touch_no_file_are_answered_silently() -> None:
    calls = FileToolCalls(KINDS, max_ids=10)
    calls.request(use("t1", "Bash", command="ls"))
    assert calls.answer(result("t1")) is None and calls.flags == []


def test_the_paths_kept_per_id_are_bounded() -> None:
    calls = FileToolCalls(KINDS, max_ids=2)
    for i in range(3):
        calls.request(use(f"t{i}", "Read", file_path=f"f{i}.py"))
    assert (calls.paths_for("t0"), calls.paths_for("t2")) == ([], ["f2.py"])
