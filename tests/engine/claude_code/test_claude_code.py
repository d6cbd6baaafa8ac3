from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.claude_code.log_lines import LineProblem
from compact_lsp.engine.claude_code.transcript_log import ImportedSession, import_claude_code, iter_session_files
from compact_lsp.engine.conversation.messages import blocks_of, result_text
from compact_lsp.engine.conversation.validate import INTERRUPTED_RESULT, validate

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "claude-code-sessions"
CORPUS_FILES = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.jsonl")) if CORPUS.is_dir() else []
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "claude_code"


def raw_message_records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    out = []
    for line_no, line in enumerate(path.read_text().splitlines(), 1):
        record = json.loads(line)
        if record.get("type") in ("user", "assistant"):
            out.append((line_no, record))
    return out


def tool_use_ids(content: Any) -> list[str]:
    if not isinstance(content, list):
        return []
    return [b["id"] for b in content if b.get("type") == "tool_use"]


@pytest.mark.parametrize("name", [pytest.param(n, id=n.split("/")[-1]) for n in CORPUS_FILES])
def test_every_corpus_session_imports_valid_and_complete(corpus_dir: Path, name: str) -> None:
    path = corpus_dir / name
    imported = import_claude_code(path)
    messages = imported.session.messages

    assert validate(messages) == []
    assert imported.problems == []
    assert len(imported.timestamps) == len(messages) == len(imported.origins)

    # Every message record is imported once, or accounted for as a rewound-away branch or a duplicate.
    records = raw_message_records(path)
    imported_lines = [n for o in imported.origins if o is not None for n in o.line_nos]
    assert len(imported_lines) == len(set(imported_lines))
    skipped = imported.skipped_records.get("other-branch", 0) + imported.skipped_records.get("duplicate", 0)
    assert len(imported_lines) + skipped == len(records)

    # Every tool call on the imported records appears exactly once, with its blocks in one assistant message.
    kept = set(imported_lines)
    raw_uses = [i for n, r in records if n in kept for i in tool_use_ids(r["message"]["content"])]
    got_uses = [b["id"] for m in messages for b in blocks_of(m) if b.get("type") == "tool_use"]
    assert sorted(got_uses) == sorted(raw_uses)
    if not skipped:
        all_uses = {i for _, r in records for i in tool_use_ids(r["message"]["content"])}
        assert set(got_uses) == all_uses

    response_ids = [
        o.message_id for m, o in zip(messages, imported.origins, strict=True) if o and m["role"] == "assistant"
    ]
    assert len(response_ids) == len(set(response_ids)), "one API response became several messages"

    result_ids = {b["tool_use_id"] for m in messages for b in blocks_of(m) if b.get("type") == "tool_result"}
    assert set(imported.tool_results_side) <= result_ids
    for sub in imported.subagents:
        assert validate(sub.session.messages) == []


def test_rewound_branch_is_left_out(corpus_dir: Path) -> None:
    imported = import_claude_code(corpus_dir / "proj_experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl")
    texts = " ".join(b.get("text", "") for m in imported.session.messages for b in blocks_of(m))
    assert "I actually don't like much this idea" in texts
    assert "I very much like this idea" not in texts
    assert imported.skipped_records["other-branch"] == 10


@pytest.mark.parametrize(
    ("name", "subagents"),
    [
        pytest.param("proj_experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl", 6, id="subagents-dir"),
        pytest.param(
            "proj_Users-dain-workspace-claude-code-log-sample/07f2e15c-a38b-454b-9148-60edc06de401.jsonl",
            0,
            id="no-agents",
        ),
    ],
)
def test_subagent_logs_are_found(corpus_dir: Path, name: str, subagents: int) -> None:
    imported = import_claude_code(corpus_dir / name)
    assert len(imported.subagents) == subagents
    assert all(s.subagents == [] for s in imported.subagents)


@pytest.mark.parametrize(
    "project",
    [
        pytest.param("proj_Users-dain-workspace-JSSoundRecorder", id="agents-of-sessions-here"),
        pytest.param("proj_Users-dain-workspace-claude-code-log-sample", id="agents-of-sessions-elsewhere"),
    ],
)
def test_agent_files_beside_sessions_belong_to_them_by_session_id(corpus_dir: Path, project: str) -> None:
    directory = corpus_dir / project
    sessions = [import_claude_code(p) for p in iter_session_files(directory)]
    assert sessions and not any(s.path.name.startswith("agent-") for s in sessions)
    agents_by_session: dict[str, set[str]] = {}
    for agent in directory.glob("agent-*.jsonl"):
        session_id = json.loads(agent.read_text().splitlines()[0])["sessionId"]
        agents_by_session.setdefault(session_id, set()).add(agent.name)
    for s in sessions:
        assert {sub.path.name for sub in s.subagents} == agents_by_session.get(s.session.id, set())


def test_split_assistant_records_merge_into_one_message() -> None:
    imported = import_claude_code(FIXTURES / "split_assistant.jsonl")
    messages = imported.session.messages
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert [b["type"] for b in messages[1]["content"]] == ["thinking", "text", "tool_use", "tool_use"]
    assert [b["tool_use_id"] for b in messages[2]["content"]] == ["toolu_read1", "toolu_grep1"]
    assert imported.repairs == []
    assert imported.session.title == "Fix the parser bug"
    assert imported.session.id == "5e55-0001"
    assert imported.cwd == "/home/dev/proj"
    assert imported.timestamps == [
        "2025-01-01T10:00:00.000Z",
        "2025-01-01T10:00:01.000Z",
        "2025-01-01T10:00:04.000Z",
        "2025-01-01T10:00:06.000Z",
    ]
    origin = imported.origins[1]
    assert origin is not None and origin.message_id == "msg_A" and origin.line_nos == (3, 4, 5, 6)
    assert origin.usage == {"input_tokens": 10, "output_tokens": 5}
    assert imported.tool_results_side["toolu_read1"]["file"]["filePath"] == "/home/dev/proj/src/parse.py"
    assert imported.tool_results_side["toolu_read1"]["file"]["totalLines"] == 2
    assert imported.skipped_records == {"summary": 1, "progress": 1, "system": 1}


def test_malformed_lines_are_reported_and_the_rest_imported() -> None:
    imported = import_claude_code(FIXTURES / "torn_and_garbage.jsonl")
    by_line = {p.line_no: p.reason for p in imported.problems}
    assert sorted(by_line) == [2, 3, 4, 5, 6, 9]
    assert "not valid JSON" in by_line[2]
    assert "expected an object" in by_line[3]
    assert "without a 'message' object" in by_line[4]
    assert "role 'user'" in by_line[5]
    assert "without a string 'type'" in by_line[6]
    assert "torn last write" in by_line[9]
    assert str(imported.problems[0]).startswith("line 2: ")
    texts = [result_text({"content": m["content"]}) for m in imported.session.messages]
    assert texts == ["hello there", "Hi! How can I help?", "Summarise README.md"]
    assert validate(imported.session.messages) == []
    assert imported.session.title == "hello there"


def test_interrupted_call_is_answered_with_an_error_result() -> None:
    imported = import_claude_code(FIXTURES / "interrupted_call.jsonl")
    messages = imported.session.messages
    assert validate(messages) == []
    answer = messages[2]["content"][0]
    assert answer == {
        "type": "tool_result",
        "tool_use_id": "toolu_bash1",
        "content": INTERRUPTED_RESULT,
        "is_error": True,
    }
    assert [b.get("text") for b in messages[2]["content"][1:]] == [
        "[Request interrupted by user for tool use]",
        "actually, just run ruff",
    ]
    assert any("toolu_bash1" in r for r in imported.repairs)


@pytest.mark.parametrize(
    ("content", "error", "match"),
    [
        pytest.param(None, FileNotFoundError, "no Claude Code session log", id="missing"),
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ValueError, "binary file", id="binary"),
    ],
)
def test_unreadable_files_raise_a_clear_error(
    tmp_path: Path, content: bytes | None, error: type[Exception], match: str
) -> None:
    path = tmp_path / "session.jsonl"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(error, match=match):
        import_claude_code(path)


def test_a_directory_is_not_a_session(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is a directory"):
        import_claude_code(tmp_path)
    with pytest.raises(NotADirectoryError):
        list(iter_session_files(tmp_path / "nope"))


def test_bad_utf8_line_is_a_line_problem(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = json.dumps({"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}})
    path.write_bytes(good.encode() + b"\n" + b'{"type": "user", "x": "\xff\xfe"}\n')
    imported = import_claude_code(path)
    assert imported.problems == [LineProblem(2, "not UTF-8 text (bad byte at column 24)")]
    assert len(imported.session.messages) == 1


def test_empty_file_is_an_empty_session(tmp_path: Path) -> None:
    path = tmp_path / "abc.jsonl"
    path.write_text("")
    imported = import_claude_code(path)
    assert imported.session.messages == [] and imported.session.id == "abc" and imported.problems == []


def _logged(kind: str, uuid: str, parent: str | None, n: int, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "5e55-retry", "cwd": "/home/dev/proj",
            "timestamp": f"2026-05-05T07:01:{n:02d}.000Z", "isSidechain": False, **fields}  # fmt: skip


def _said(uuid: str, parent: str | None, n: int, text: str) -> dict[str, Any]:
    message = {"id": f"msg_{uuid}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
               "content": [{"type": "text", "text": text}]}  # fmt: skip
    return _logged("assistant", uuid, parent, n, message=message)


def _imported(path: Path, records: list[dict[str, Any]]) -> tuple[ImportedSession, list[Any]]:
    """The log of ``records`` written to ``path`` and imported, with the texts of its messages' blocks in order."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    imported = import_claude_code(path)
    return imported, [b.get("text") for m in imported.session.messages for b in blocks_of(m)]


@pytest.mark.parametrize("notice_before_answer", [pytest.param(True, id="notice-logged-first"),
                                                  pytest.param(False, id="notice-logged-after-the-turn")])  # fmt: skip
def test_the_answer_to_a_retried_api_call_stays_on_the_branch(tmp_path: Path, notice_before_answer: bool) -> None:
    """A failed call Claude Code retried: its api_error notice hangs off the prompt, the retry's answer too, and
    what the user did next hangs off the notice (via a stop-hook summary). The answer was seen: it is kept."""
    notice = _logged("system", "err", "u1", 3, subtype="api_error", level="error", retryAttempt=1)
    answer = [_said("a1", "u1", 4, "First part of the answer."), _said("a2", "a1", 5, "Done: no type errors.")]
    records = [
        _logged("user", "u1", None, 1, message={"role": "user", "content": "check the types"}),
        *([notice, *answer] if notice_before_answer else [*answer, notice]),
        _logged("system", "hook", "err", 6, subtype="stop_hook_summary", hookCount=2),
        _logged("user", "u2", "hook", 7, message={"role": "user", "content": "now make the UI dark"}),
        _said("a3", "u2", 8, "Making it dark."),
    ]
    imported, texts = _imported(tmp_path / "retry.jsonl", records)
    assert texts == ["check the types", "First part of the answer.", "Done: no type errors.",
                     "now make the UI dark", "Making it dark."]  # fmt: skip
    assert "other-branch" not in imported.skipped_records


def test_a_prompt_rewound_to_before_a_failed_call_still_leaves_the_old_branch_out(tmp_path: Path) -> None:
    """The twin: the user went back to the prompt and asked again; the first answer is another branch."""
    records = [
        _logged("user", "u1", None, 1, message={"role": "user", "content": "check the types"}),
        _said("a1", "u1", 2, "Old answer."),
        _logged("user", "u2", None, 3, message={"role": "user", "content": "check the types, strictly"}),
        _logged("system", "err", "u2", 4, subtype="api_error", level="error", retryAttempt=1),
        _said("a2", "u2", 5, "New answer."),
        _logged("system", "hook", "err", 6, subtype="stop_hook_summary", hookCount=2),
        _logged("user", "u3", "hook", 7, message={"role": "user", "content": "thanks"}),
        _said("a3", "u3", 8, "You are welcome."),
    ]
    imported, texts = _imported(tmp_path / "rewound.jsonl", records)
    assert texts == ["check the types, strictly", "New answer.", "thanks", "You are welcome."]
    assert imported.skipped_records["other-branch"] == 2


def test_a_second_attempts_notice_hanging_off_the_first_leads_to_the_answer_too(tmp_path: Path) -> None:
    records = [
        _logged("user", "u1", None, 1, message={"role": "user", "content": "check the types"}),
        _logged("system", "err1", "u1", 2, subtype="api_error", level="error", retryAttempt=1),
        _logged("system", "err2", "err1", 3, subtype="api_error", level="error", retryAttempt=2),
        _said("a1", "u1", 4, "Done: no type errors."),
        _logged("user", "u2", "err2", 5, message={"role": "user", "content": "thanks"}),
        _said("a2", "u2", 6, "You are welcome."),
    ]
    _, texts = _imported(tmp_path / "retries.jsonl", records)
    assert texts == ["check the types", "Done: no type errors.", "thanks", "You are welcome."]
