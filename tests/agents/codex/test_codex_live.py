"""A Codex rollout followed as Codex appends to it: what the follower holds is what importing the rollout whole
gives at every step, an appended line costs that line, a compaction starts the window again, and a rollout
replaced or cut shorter is read again."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.agents.codex.rollouts import assistant, compaction, head, item, turn, user

from compact_lsp.agents.codex import live as codex_live
from compact_lsp.agents.codex.live import FollowedCodexSession, ownership
from compact_lsp.engine.codex.rollout import read_rollout
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.conversation.validate import repair
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings, passive

COUNTER = TiktokenCounter()


def follower(path: Path) -> FollowedCodexSession:
    def make(session_id: str, title: str) -> ContextSession:
        return ContextSession(session_id, settings=passive(EngineSettings()), counter=COUNTER, title=title)

    return FollowedCodexSession(path, make)


def whole(path: Path) -> list[Message]:
    return repair(read_rollout(str(path), developer=True).current_context()).messages


def rollout(tmp_path: Path) -> list[bytes]:
    lines = head(tmp_path)
    for n in range(6):
        lines += turn(n)
    lines.append(compaction())
    for n in range(6, 9):
        lines += turn(n)
    return lines


def test_a_rollout_followed_line_by_line_holds_what_importing_it_whole_does(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2026-12-01T00-00-00-0b5e2c1a-1111-4222-8333-944455556666.jsonl"
    path.write_bytes(b"")
    followed = follower(path)
    lines = rollout(tmp_path)
    with path.open("ab") as f:
        for at, raw in enumerate(lines):
            f.write(raw)
            f.flush()
            read = followed.transcript.bytes_read
            assert followed.update() is True
            assert followed.transcript.bytes_read - read == len(raw)  # the line, not the rollout
            if raw.endswith(b"\n") and b'"assistant"' in raw:  # a settled point: compare with a whole import
                assert followed.messages == whole(path), f"after line {at + 1}"
    assert followed.messages == whole(path)
    assert followed.title == "look at f0.py" and followed.cwd == str(tmp_path)
    assert followed.usage().reported == 1008 and followed.rebuilds == 0
    assert followed.id == "codex-0b5e2c1a-1111-4222-8333-944455556666"

    opened_later = follower(path)  # a server started after the compaction holds the same window
    assert opened_later.update() is True
    assert opened_later.messages == followed.messages and opened_later.title == followed.title


PIECES = [pytest.param(1, id="a-line-a-piece"), pytest.param(900, id="a-few-lines"), pytest.param(1 << 30, id="one")]


@pytest.mark.parametrize("piece", PIECES)
def test_a_rollout_read_in_pieces_holds_what_importing_it_whole_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, piece: int
) -> None:
    """A rollout found whole is taken a piece at a time; what it holds does not depend on the pieces."""
    monkeypatch.setattr(codex_live, "PIECE_BYTES", piece)
    path = tmp_path / "rollout.jsonl"
    lines = rollout(tmp_path) + [compaction()] + [raw for n in range(9, 14) for raw in turn(n)]
    path.write_bytes(b"".join([*lines, user("one more question")]))
    followed = follower(path)
    assert followed.update() is True
    assert followed.messages == whole(path) and followed.rebuilds == 0
    assert followed.title == "look at f0.py" and followed.usage().reported == 1013
    assert followed.transcript.bytes_read == path.stat().st_size * (2 if path.stat().st_size > piece else 1)


def test_usage_grows_as_codex_appends_and_a_compaction_resets_it(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(head(tmp_path) + turn(0)))
    followed = follower(path)
    followed.update()
    totals = [followed.usage().counted]
    for n in range(1, 6):
        with path.open("ab") as f:
            f.write(b"".join(turn(n)))
        assert followed.update() is True
        totals.append(followed.usage().counted)
    assert totals == sorted(totals) and totals[-1] > 5 * totals[0] / 2
    assert followed.usage().reported == 1005

    with path.open("ab") as f:
        f.write(compaction() + assistant("Continuing."))
    assert followed.update() is True
    assert followed.usage().counted < totals[0]  # what Codex summarised is gone from the model
    assert [m["role"] for m in followed.messages] == ["user", "assistant"]
    assert followed.messages[0]["content"][0]["text"] == "look at f0.py"


def test_an_idle_rollout_is_not_read_again(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(head(tmp_path) + turn(0)))
    followed = follower(path)
    assert followed.update() is True
    read = followed.transcript.bytes_read
    assert [followed.update() for _ in range(5)] == [False] * 5
    assert followed.transcript.bytes_read == read


def test_a_torn_last_line_waits_for_its_end(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(head(tmp_path) + turn(0)))
    followed = follower(path)
    followed.update()
    before = followed.messages
    answer = assistant("more to say")
    with path.open("ab") as f:
        f.write(user("next question") + answer[:20])
    followed.update()
    assert followed.problems == 0
    with path.open("ab") as f:
        f.write(answer[20:])
    followed.update()
    assert followed.messages == whole(path) and len(followed.messages) == len(before) + 2


def test_a_rollout_replaced_or_cut_shorter_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(head(tmp_path) + turn(0) + turn(1) + turn(2)))
    followed = follower(path)
    followed.update()
    path.write_bytes(b"".join(head(tmp_path) + turn(7)))  # the same file, shorter
    assert followed.update() is True
    assert followed.messages == whole(path) and followed.title == "look at f7.py"

    other = tmp_path / "new.jsonl"
    other.write_bytes(b"".join(head(tmp_path) + turn(8) + turn(9)))
    os.replace(other, path)  # rotated: another file in its place
    assert followed.update() is True
    assert followed.messages == whole(path) and followed.title == "look at f8.py"


def test_a_rollout_of_the_workspace_over_64_mib_is_still_the_workspaces(tmp_path: Path) -> None:
    from compact_lsp.agents.codex.live import belongs_to

    path = tmp_path / "rollout-big.jsonl"
    path.write_bytes(b"".join(head(tmp_path)))
    os.truncate(path, 80 << 20)  # sparse: what matters is the size the first look sees
    assert belongs_to(path, str(tmp_path))


def test_a_rollout_whose_first_line_is_not_written_yet_is_not_taken_for_another_projects(tmp_path: Path) -> None:
    """Codex creates the file, then writes its session_meta: a look in between must not rule the rollout out."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    path = tmp_path / "rollout-2026-12-01T00-00-00-0000.jsonl"
    first = head(workspace)[0]
    path.write_bytes(b"")
    assert ownership(path, str(workspace)) is None
    path.write_bytes(first[: len(first) // 2])
    assert ownership(path, str(workspace)) is None
    path.write_bytes(first)
    assert ownership(path, str(workspace)) is True
    assert ownership(path, str(tmp_path)) is False  # whole, and another project's
    path.write_bytes(b"not json\n")
    assert ownership(path, str(workspace)) is False


def shell_read(n: int, cmd: str, body: str) -> list[bytes]:
    """A turn whose shell command prints a file, as Codex logs it."""
    arguments = json.dumps({"cmd": cmd})
    return [
        user(f"read {n}"),
        item(type="function_call", call_id=f"s{n}", name="exec_command", arguments=arguments),
        item(type="function_call_output", call_id=f"s{n}", output=f"Process exited with code 0\nOutput:\n{body}"),
        assistant(f"read {n}."),
    ]


def test_a_followed_sessions_status_lists_the_files_its_shell_commands_read(tmp_path: Path) -> None:
    """The usage view's "Read files" of a Codex session: ``cat``, ``sed -n`` and ``nl | sed -n`` reads are listed
    (Codex has no Read tool), a failed ``apply_patch`` and an unrecognised pipeline are not, and a compaction
    starts the list again with what Codex reads after it."""
    path = tmp_path / "rollout.jsonl"
    lines = head(tmp_path) + turn(0)  # cat f0.py, then a failed patch of it
    lines += shell_read(1, "sed -n '1,20p' src/f1.py", "x = 1\n" * 20)
    lines += shell_read(2, "nl -ba f2.py | sed -n '1,5p'", "     1\tx = 2\n")
    lines += shell_read(3, "cat f3.py | wc -l", "7\n")
    lines += [assistant("Done.")]
    path.write_bytes(b"".join(lines))
    followed = follower(path)
    followed.update()
    listed = {os.path.relpath(r.realpath, tmp_path) for r in followed.status().read_files}
    assert listed == {"f0.py", os.path.join("src", "f1.py"), "f2.py"}

    with path.open("ab") as f:
        f.write(b"".join([compaction(), *shell_read(4, "cat f4.py", "y = 4\n"), assistant("Again.")]))
    assert followed.update() is True
    assert [os.path.relpath(r.realpath, tmp_path) for r in followed.status().read_files] == ["f4.py"]
