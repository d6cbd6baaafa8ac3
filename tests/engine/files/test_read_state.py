"""Read-file state: what the model has seen, whether it changed, and whether the model still has it."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.conversation.messages import Block, Message
from compact_lsp.engine.conversation.tokens import count_block_with
from compact_lsp.engine.files.read_record import FileStat, Freshness, os_stat
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.files.read_status import status_records
from compact_lsp.lsp.protocol.answers import read_file_answer


class WordCounter:
    """One token per whitespace-separated word: enough to see that the injected counter is used."""

    def count_text(self, text: str) -> int:
        return len(text.split())

    def count_block(self, block: Block) -> int:
        return count_block_with(self, block)

    def count_message(self, message: Message) -> int:
        return sum(self.count_block(b) for b in message["content"])


class TickingClock:
    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def make_state(root: Path, **kwargs: Any) -> ReadFileState:
    kwargs.setdefault("clock", TickingClock())
    kwargs.setdefault("counter", WordCounter())
    return ReadFileState(cwd=str(root), **kwargs)


def read_use(use_id: str, path: str, name: str = "Read", **extra: Any) -> Message:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": use_id, "name": name, "input": {"file_path": path, **extra}}],
    }


def result(use_id: str, content: Any, is_error: bool = False) -> Message:
    block: Block = {"type": "tool_result", "tool_use_id": use_id, "content": content}
    if is_error:
        block["is_error"] = True
    return {"role": "user", "content": [block]}


def read_turn(use_id: str, path: str, text: str = "print(1)", **extra: Any) -> list[Message]:
    return [read_use(use_id, path, **extra), result(use_id, text)]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("def greet():\n    return 'helo'\n")
    (tmp_path / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    return tmp_path


@pytest.fixture
def claude_code_turns(fixtures_dir: Path, root: Path) -> list[Message]:
    raw = (fixtures_dir / "read_state" / "claude_code_turns.json").read_text()
    data = json.loads(raw.replace("{root}", str(root)))
    messages: list[Message] = data["messages"]
    return messages


# -- recording reads ----------------------------------------------------------------------------------------


def test_a_successful_read_records_what_the_model_saw(root: Path) -> None:
    state = make_state(root, clock=lambda: 1_800_000_000.0)
    text = "     1→def greet():\n     2→    return 'helo'\n"
    state.observe(read_turn("toolu_1", "app.py", text))

    record = state.get("app.py")
    assert record is not None
    st = os.stat(root / "app.py")
    assert record.path_as_given == "app.py"
    assert record.resolved_path == str(root / "app.py")
    assert record.realpath == os.path.realpath(root / "app.py")
    assert record.content_hash == hashlib.sha256(text.encode()).hexdigest()
    assert record.bytes == len(text.encode())
    assert record.tokens == WordCounter().count_text(text)
    assert (record.mtime_ns, record.size, record.inode) == (st.st_mtime_ns, st.st_size, st.st_ino)
    assert record.read_at == 1_800_000_000.0
    assert record.tool_use_id == "toolu_1"
    assert record.kind == "read"
    assert record.in_history and not record.is_partial
    assert read_file_answer(record) == {
        "path": "app.py",
        "kind": "read",
        "freshness": "fresh",
        "range": "full",
        "tokens": record.tokens,
        "readAt": "2027-01-15T08:00:00Z",
        "inHistory": True,
        "open": False,
        "dirty": False,
    }


@pytest.mark.parametrize(
    "messages",
    [
        pytest.param([read_use("t1", "app.py"), result("t1", "boom", is_error=True)], id="error-result"),
        pytest.param([read_use("t1", "app.py"), result("t1", "  \n")], id="empty-result"),
        pytest.param([read_use("t1", "app.py"), result("t1", [])], id="empty-block-list"),
        pytest.param([read_use("t1", "app.py", name="Bash"), result("t1", "x")], id="not-a-read-tool"),
        pytest.param([read_use("t1", "app.py")], id="unanswered-request"),
        pytest.param(
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}],
                },
                result("t1", "x"),
            ],
            id="request-without-path",
        ),
    ],
)
def test_only_successful_answered_reads_are_recorded(root: Path, messages: list[Message]) -> None:
    state = make_state(root)
    state.observe(messages)
    assert len(state) == 0
    assert state.flags == []


@pytest.mark.parametrize("key", ["file_path", "path", "absolute_path"])
def test_the_path_is_taken_from_any_usual_input_key(root: Path, key: str) -> None:
    state = make_state(root, read_tools=("read_file",))
    use = {"type": "tool_use", "id": "t1", "name": "read_file", "input": {key: str(root / "app.py")}}
    state.observe([{"role": "assistant", "content": [use]}, result("t1", "text")])
    assert state.is_in_history(str(root / "app.py"))


def test_results_with_images_are_hashed_whole_and_counted(root: Path) -> None:
    image = {"type": "image", "source": {"type": "url", "url": "https://example.invalid/x.png"}}
    state = make_state(root)
    state.observe([read_use("t1", "app.py"), result("t1", [image])])
    record = state.get("app.py")
    assert record is not None and record.content_hash is not None
    assert record.tokens > 0


def test_one_file_under_several_spellings_is_one_record(root: Path) -> None:
    (root / "sub").mkdir()
    os.symlink(root / "app.py", root / "sub" / "link.py")
    state = make_state(root)
    state.observe(
        [
            *read_turn("t1", "app.py"),
            *read_turn("t2", "sub/../app.py"),
            *read_turn("t3", str(root / "sub" / "link.py")),
        ]
    )
    assert len(state) == 1
    record = state.get("app.py")
    assert record is not None and record.tool_use_id == "t3"


def test_a_claude_code_conversation_is_learnt(root: Path, claude_code_turns: list[Message]) -> None:
    state = make_state(root)
    state.observe(claude_code_turns)

    by_name = {Path(r.resolved_path).name: r for r in state.ranked()}
    assert list(by_name) == ["notes.md", "app.py", "big.txt"]  # newest first; the failed read left no record
    assert by_name["app.py"].kind == "edit" and by_name["app.py"].in_history
    assert by_name["big.txt"].range_label == "lines 10-14"
    assert by_name["notes.md"].kind == "write"
    assert state.freshness(by_name["notes.md"]) is Freshness.DELETED  # the test never created it on disk
    assert state.flags == []


def test_real_claude_code_sessions_observe_without_flags_or_errors(corpus_dir: Path) -> None:
    """Every Read in the corpus ties to one path; the files are not on this machine, so none is fresh."""
    sessions = sorted(p for p in corpus_dir.rglob("*.jsonl") if not p.name.startswith("agent-"))[:5]
    assert sessions
    reads = 0
    for session in sessions:
        messages = []
        for line in session.read_text().splitlines():
            record = json.loads(line)
            message = record.get("message")
            if record.get("type") in ("user", "assistant") and isinstance(message, dict):
                messages.append(message)
        state = make_state(corpus_dir)
        state.observe(messages)
        reads += len(state)
        assert not [f for f in state.flags if f.code == "ambiguous-id"]
        assert all(state.freshness(r) is not Freshness.FRESH for r in state.ranked())
    assert reads > 0


# -- ranges -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "partial", "label"),
    [
        pytest.param({}, False, "full", id="no-range"),
        pytest.param({"offset": 1}, False, "full", id="offset-1-is-the-start"),
        pytest.param({"offset": 200}, True, "lines 200-end", id="offset-only"),
        pytest.param({"limit": 50}, True, "lines 1-50", id="limit-only"),
        pytest.param({"offset": 10, "limit": 50}, True, "lines 10-59", id="offset-and-limit"),
    ],
)
def test_ranged_reads_are_partial(root: Path, extra: dict[str, int], partial: bool, label: str) -> None:
    state = make_state(root)
    state.observe(read_turn("t1", "big.txt", **extra))
    record = state.get("big.txt")
    assert record is not None
    assert (record.is_partial, record.range_label, read_file_answer(record)["range"]) == (partial, label, label)


@pytest.mark.parametrize(
    ("lines", "partial"),
    [
        pytest.param({"start_line": 1, "num_lines": 100, "total_lines": 100}, False, id="whole-file"),
        pytest.param({"start_line": 1, "num_lines": 40, "total_lines": 100}, True, id="truncated"),
        pytest.param({"start_line": 30, "num_lines": 10}, True, id="from-line-30"),
        pytest.param({}, False, id="no-range-given"),
    ],
)
def test_the_servers_own_reads_record_their_range(root: Path, lines: dict[str, int], partial: bool) -> None:
    state = make_state(root)
    record = state.record_read("big.txt", "line 1\n", tool_use_id="srv_1", **lines)
    assert record.is_partial is partial
    assert state.paths_for("srv_1") == ["big.txt"]


@pytest.mark.parametrize(
    ("request_range", "skip"),
    [
        pytest.param({"offset": 10, "limit": 50}, True, id="same-range"),
        pytest.param({"offset": 20, "limit": 10}, True, id="range-inside"),
        pytest.param({"offset": 5, "limit": 10}, False, id="starts-before"),
        pytest.param({"offset": 50, "limit": 20}, False, id="ends-after"),
        pytest.param({}, False, id="whole-file"),
    ],
)
def test_a_partial_read_only_vouches_for_its_own_lines(root: Path, request_range: dict[str, int], skip: bool) -> None:
    state = make_state(root)
    state.observe(read_turn("t1", "big.txt", offset=10, limit=50))
    assert state.can_skip_reread("big.txt", **request_range) is skip


# -- freshness ----------------------------------------------------------------------------------------------


def _touch_mtime(path: Path) -> None:
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def _grow_keep_mtime(path: Path) -> None:
    st = os.stat(path)
    path.write_text(path.read_text() + "# more\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _replace_keep_mtime_and_size(path: Path) -> None:
    st = os.stat(path)
    other = path.with_suffix(".new")
    other.write_text(path.read_text().replace("helo", "HELO"))
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, path)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param(lambda p: None, Freshness.FRESH, id="unchanged"),
        pytest.param(_touch_mtime, Freshness.STALE, id="mtime-changed"),
        pytest.param(_grow_keep_mtime, Freshness.STALE, id="size-changed-same-mtime"),
        pytest.param(_replace_keep_mtime_and_size, Freshness.STALE, id="atomic-save-new-inode"),
        pytest.param(lambda p: p.unlink(), Freshness.DELETED, id="deleted"),
    ],
)
def test_freshness_follows_the_file_on_disk(root: Path, change: Callable[[Path], None], expected: Freshness) -> None:
    state = make_state(root)
    state.observe(read_turn("t1", "app.py"))
    change(root / "app.py")
    assert state.freshness("app.py") is expected
    assert state.refresh() == {os.path.realpath(root / "app.py"): expected}
    assert next(read_file_answer(r) for r in status_records(state))["freshness"] == expected.value
    assert state.can_skip_reread("app.py") is (expected is Freshness.FRESH)


def test_freshness_is_unknown_when_it_cannot_be_told(root: Path) -> None:
    def stat(path: str) -> FileStat | None:
        if path.endswith("secret.py"):
            raise PermissionError(13, "Permission denied", path)
        return os_stat(path)

    state = make_state(root, stat=stat)
    state.observe([*read_turn("t1", "secret.py"), *read_turn("t2", "later.py")])
    assert state.freshness("secret.py") is Freshness.UNKNOWN  # the file system would not say
    (root / "later.py").write_text("x")
    assert state.freshness("later.py") is Freshness.UNKNOWN  # absent when read: nothing to compare with
    assert state.freshness("never-read.py") is Freshness.UNKNOWN


# -- capacity and recency -----------------------------------------------------------------------------------


def test_the_state_is_bounded_and_forgets_the_least_recently_touched(root: Path) -> None:
    state = make_state(root, capacity=3)
    state.observe([*read_turn("t1", "a.py"), *read_turn("t2", "b.py"), *read_turn("t3", "c.py")])
    state.observe([*read_turn("t4", "a.py"), *read_turn("t5", "d.py")])  # a.py touched again, so b.py goes
    assert [Path(r.resolved_path).name for r in state.ranked()] == ["d.py", "a.py", "c.py"]
    assert state.get("b.py") is None


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError, match="capacity"):
        ReadFileState(capacity=0)


# -- ids that do not tie a result to one path --------------------------------------------------------------


def test_an_id_used_with_several_paths_is_flagged_not_guessed(root: Path) -> None:
    state = make_state(root)
    both = {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "dup", "name": "Read", "input": {"file_path": "app.py"}},
            {"type": "tool_use", "id": "dup", "name": "Read", "input": {"file_path": "big.txt"}},
        ],
    }
    state.observe([both, result("dup", "which file is this?")])
    assert len(state) == 0
    assert state.paths_for("dup") == ["app.py", "big.txt"]
    assert [(f.tool_use_id, f.code) for f in state.flags] == [("dup", "ambiguous-id")]


def test_an_id_reused_in_a_later_turn_for_another_path_is_flagged(root: Path) -> None:
    state = make_state(root)
    state.observe([*read_turn("t1", "app.py"), *read_turn("t1", "big.txt")])
    assert [f.code for f in state.flags] == ["ambiguous-id"]
    assert state.get("big.txt") is None


@pytest.mark.parametrize(
    "messages",
    [
        pytest.param([result("ghost", "content")], id="never-requested"),
        pytest.param([*read_turn("t1", "app.py"), result("t1", "again")], id="answered-twice"),
    ],
)
def test_a_result_without_its_request_is_flagged(root: Path, messages: list[Message]) -> None:
    state = make_state(root)
    state.observe(messages)
    assert [f.code for f in state.flags] == ["no-request"]


# -- history ------------------------------------------------------------------------------------------------


def test_mark_evicted_takes_cleared_reads_out_of_history(root: Path) -> None:
    state = make_state(root)
    state.observe([*read_turn("t1", "app.py"), *read_turn("t2", "big.txt")])
    assert state.can_skip_reread("app.py")

    left = state.mark_evicted(["t1", "t-unrelated"])

    assert left == [os.path.realpath(root / "app.py")]
    assert not state.is_in_history("app.py")
    assert state.freshness("app.py") is Freshness.FRESH
    assert not state.can_skip_reread("app.py")  # unchanged on disk, but the model no longer has it
    assert state.can_skip_reread("big.txt")
    assert [read_file_answer(r) for r in status_records(state)][1]["inHistory"] is False

    state.observe(read_turn("t3", "app.py"))
    assert state.can_skip_reread("app.py")


def test_after_full_compaction_nothing_is_in_history_but_records_stay(root: Path) -> None:
    state = make_state(root)
    state.observe([*read_turn("t1", "app.py"), *read_turn("t2", "big.txt")])
    state.mark_all_out_of_history()
    assert len(state.ranked()) == 2
    assert not any(state.can_skip_reread(p) for p in ("app.py", "big.txt"))


def test_an_edit_keeps_the_copy_only_while_the_read_it_builds_on_is_kept(root: Path) -> None:
    state = make_state(root)
    state.observe(read_turn("t1", "app.py"))
    (root / "app.py").write_text("def greet():\n    return 'hello'\n")  # the agent's edit lands on disk
    state.observe([read_use("t2", "app.py", name="Edit"), result("t2", "updated")])

    record = state.get("app.py")
    assert record is not None and record.kind == "edit" and record.written_at is not None
    assert state.can_skip_reread("app.py")  # the agent's own edit does not make its copy stale
    assert state.mark_evicted(["t1"]) == [record.realpath]
    assert not state.can_skip_reread("app.py")


def test_a_blind_edit_is_not_a_copy_of_the_file(root: Path) -> None:
    state = make_state(root)
    state.observe([read_use("t1", "app.py", name="Edit"), result("t1", "updated")])
    record = state.get("app.py")
    assert record is not None and record.kind == "edit"
    assert not state.can_skip_reread("app.py")


def test_a_write_records_the_written_content(root: Path) -> None:
    state = make_state(root)
    content = "# Notes\n"
    (root / "notes.md").write_text(content)
    state.observe([read_use("t1", "notes.md", name="Write", content=content), result("t1", "created")])
    record = state.get("notes.md")
    assert record is not None
    assert record.kind == "write" and record.written_at == record.read_at
    assert record.content_hash == hashlib.sha256(content.encode()).hexdigest()
    assert state.can_skip_reread("notes.md")


def test_a_failed_edit_changes_nothing_but_is_noted(root: Path) -> None:
    state = make_state(root)
    state.observe(read_turn("t1", "app.py"))
    before = state.get("app.py")
    assert before is not None
    hash_before = before.content_hash
    state.observe([read_use("t2", "app.py", name="Edit"), result("t2", "String not found\nmore", is_error=True)])
    after = state.get("app.py")
    assert after is not None
    assert (after.kind, after.content_hash, after.tool_use_id) == ("read", hash_before, "t1")
    assert after.error == "String not found"


# -- incremental observation --------------------------------------------------------------------------------


class Untouchable(dict[str, Any]):
    """A message that fails the test if read: observe(start=k) must not look behind k."""

    def get(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("observe re-read an old message")

    def __getitem__(self, key: str) -> Any:
        raise AssertionError("observe re-read an old message")


def test_observe_after_an_append_reads_only_the_new_messages(root: Path) -> None:
    state = make_state(root)
    first = [*read_turn("t1", "app.py"), read_use("t2", "big.txt", offset=3, limit=2)]
    state.observe(first)
    assert state.get("big.txt") is None  # its result has not arrived yet

    later: list[Message] = [Untouchable() for _ in first]
    later.append(result("t2", "line 3\nline 4\n"))
    state.observe(later, start=len(first))

    record = state.get("big.txt")
    assert record is not None and record.range_label == "lines 3-4"
    assert state.flags == []


# -- editor documents ---------------------------------------------------------------------------------------


def test_editor_documents_are_tracked_apart_from_reads_and_shown_in_status(root: Path) -> None:
    state = make_state(root)
    state.observe(read_turn("t1", "app.py"))
    state.open_document(str(root / "app.py"), "def greet(): ...\n", 1)
    state.open_document("big.txt", "line 1\n", 1)
    state.change_document("app.py", "def greet(): return 1\n", 2)
    state.focus_document("app.py")

    assert [(Path(d.path).name, d.version, d.dirty) for d in state.open_documents()] == [
        ("app.py", 2, True),
        ("big.txt", 1, False),
    ]
    assert len(state) == 1  # opening a document is not a read
    assert not state.is_in_history("big.txt")
    rows = {row["path"]: row for row in [read_file_answer(r) for r in status_records(state)]}
    assert (rows["app.py"]["open"], rows["app.py"]["dirty"], rows["app.py"]["inHistory"]) == (
        True,
        True,
        True,
    )
    assert (rows["big.txt"]["open"], rows["big.txt"]["inHistory"]) == (True, False)

    state.save_document("app.py")
    state.close_document("big.txt")
    rows = {row["path"]: row for row in [read_file_answer(r) for r in status_records(state)]}
    assert list(rows) == ["app.py"]
    assert (rows["app.py"]["open"], rows["app.py"]["dirty"]) == (True, False)
    state.close_document("app.py")
    assert next(read_file_answer(r) for r in status_records(state))["open"] is False
    assert state.open_documents() == []


def test_a_change_to_an_unopened_document_opens_it(root: Path) -> None:
    state = make_state(root)
    state.change_document("app.py", "x", 3)
    assert [(d.version, d.dirty) for d in state.open_documents()] == [(3, True)]


def test_refresh_and_status_never_fail_while_another_thread_records_reads(tmp_path: Path) -> None:
    """``compact/status`` answered unlocked while an append records reads: on main "OrderedDict mutated during
    iteration" (the status iterated the records while the other thread moved and evicted them)."""
    import threading

    from compact_lsp.engine.conversation.tokens import TiktokenCounter

    files = []
    for i in range(50):
        path = tmp_path / f"f{i}.py"
        path.write_text(f"x = {i}\n")
        files.append(str(path))
    state = ReadFileState(capacity=40, cwd=str(tmp_path), counter=TiktokenCounter())
    stop = threading.Event()
    failures: list[BaseException] = []

    def record() -> None:
        i = 0
        while not stop.is_set():
            state.record_read(files[i % len(files)], "x\n")
            i += 1

    writer = threading.Thread(target=record, daemon=True)
    writer.start()
    try:
        for _ in range(3000):
            try:
                state.refresh()
                state.ranked()
                state.mark_evicted(["none"])
            except RuntimeError as exc:
                failures.append(exc)
                break
    finally:
        stop.set()
        writer.join(timeout=10)
    assert failures == []
