"""Codex rollouts into the message model, and the file uses Codex's shell reads and patches imply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_lsp.engine.codex.file_uses import command_reads, file_use_view, patch_changes
from compact_lsp.engine.codex.rollout import read_rollout


def line(kind: str, payload: dict[str, object]) -> str:
    return json.dumps({"timestamp": "2026-12-01T00:00:00Z", "type": kind, "payload": payload})


def item(**fields: object) -> str:
    return line("response_item", fields)


def user(text: str) -> str:
    return item(type="message", role="user", content=[{"type": "input_text", "text": text}])


@pytest.mark.parametrize(
    ("cmd", "reads"),
    [
        pytest.param("cat a.py", [("a.py", None, None)], id="cat"),
        pytest.param("cat a.py b.py", [("a.py", None, None), ("b.py", None, None)], id="cat-two"),
        pytest.param("sed -n '10,80p' src/x.py", [("src/x.py", 10, 71)], id="sed-range"),
        pytest.param("nl -ba src/x.py | sed -n '1,200p'", [("src/x.py", 1, 200)], id="nl-into-sed"),
        pytest.param("head -n 40 README.md", [("README.md", 1, 40)], id="head"),
        pytest.param("cd src && cat x.py", [("src/x.py", None, None)], id="after-cd"),
        pytest.param("cat a.py | grep foo", [], id="piped-elsewhere-unknown"),
        pytest.param("rg -n foo", [], id="search-is-no-read"),
        pytest.param("cat $(ls)", [], id="substitution-never-guessed"),
        pytest.param("cat 'unterminated", [], id="bad-quoting"),
        pytest.param("cat a\x00b", [], id="nul-byte"),
    ],
)
def test_command_reads(cmd: str, reads: list[tuple[str, int | None, int | None]]) -> None:
    assert command_reads(cmd) == reads


def test_patch_changes() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: new.py\n+x\n*** Update File: old.py\n@@\n-a\n+b\n"
        "*** Update File: moved.py\n*** Move to: renamed.py\n*** Delete File: gone.py\n*** End Patch\n"
    )
    assert patch_changes(patch) == [
        ("Write", "new.py"),
        ("Edit", "old.py"),
        ("Edit", "moved.py"),
        ("Write", "renamed.py"),
    ]


def test_a_rollout_with_tools_a_compaction_and_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    lines = [
        line("session_meta", {"id": "thread-1", "cwd": str(tmp_path), "model": "gpt-5.5"}),
        item(type="message", role="developer", content=[{"type": "input_text", "text": "instructions"}]),
        user("<environment_context>x</environment_context>"),
        user("fix the bug"),
        item(type="function_call", call_id="c1", name="exec_command", arguments=json.dumps({"cmd": "cat a.py"})),
        item(type="function_call_output", call_id="c1", output="Process exited with code 0\nOutput:\nprint(1)\n"),
        item(type="custom_tool_call", call_id="c2", name="apply_patch", input="*** Update File: a.py\n"),
        item(type="custom_tool_call_output", call_id="c2", output="Exit code: 1\nOutput:\nfailed"),
        '{"type": "response_item", "payload": {"type": "function_call", "arguments": NaN}}',
        "not json at all",
        line("brand_new_kind", {"x": 1}),
        line("compacted", {"message": "SUMMARY", "replacement_history": [json.loads(user("fix the bug"))["payload"]]}),
        item(type="message", role="assistant", content=[{"type": "output_text", "text": "Continuing."}]),
        line("event_msg", {"type": "token_count", "info": {"last_token_usage": {"input_tokens": 1234},
                                                          "model_context_window": 272000}}),
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    rollout = read_rollout(str(path))
    assert (rollout.session_id, rollout.model, rollout.title) == ("thread-1", "gpt-5.5", "fix the bug")
    assert rollout.bad_lines == 2 and rollout.skipped["brand_new_kind"] == 1
    assert rollout.last_compaction is not None and rollout.last_compaction.summary == "SUMMARY"
    assert rollout.last_compaction.kept_texts == ["fix the bug"]
    assert rollout.usage == {"input_tokens": 1234} and rollout.context_window == 272000
    history = rollout.before_last_compaction()
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant", "user"]
    view = file_use_view(history, str(tmp_path))
    calls = [b for m in view for b in m["content"] if b["type"] == "tool_use"]
    assert [(c["name"], c["input"]["file_path"]) for c in calls] == [
        ("Read", str(tmp_path / "a.py")),
        ("Edit", str(tmp_path / "a.py")),
    ]
    failed = [b for m in view for b in m["content"] if b["type"] == "tool_result" and b.get("is_error")]
    assert [b["tool_use_id"] for b in failed] == ["c2#0"]  # the patch that exited 1 is no edit


def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "rollout.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        read_rollout(str(fifo))
