"""Microcompaction: which results are cleared, kept and protected, for each trigger, and what is recorded."""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.compaction.eviction import Trigger
from compact_lsp.engine.compaction.microcompact import microcompact, plan_microcompaction, tool_result_tokens
from compact_lsp.engine.compaction.microcompact_plan import (
    MEDIA_PLACEHOLDER,
    MicrocompactPlan,
    MicrocompactResult,
    apply_plan,
)
from compact_lsp.engine.conversation.messages import CLEARED_TOOL_RESULT, Message, blocks_of
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.conversation.validate import validate
from compact_lsp.engine.files.memory import ManagedMemory, make_preserve_read
from compact_lsp.engine.session.journal import eviction_from_record, rewrite_record
from compact_lsp.engine.setting_ranges import SettingsError
from compact_lsp.engine.settings import MicrocompactSettings
from compact_lsp.lsp.protocol.answers import eviction_answer

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "microcompact"

BIG = "".join(f"def handler_{i}(request):\n    return respond(request, code={i})\n" for i in range(60))
"""A result worth clearing (hundreds of tokens)."""

NOW = 1_780_000_000.0
IDLE_LONG_AGO = NOW - 2 * 3600


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


@dataclass(frozen=True)
class Call:
    """One tool call and its result, as a round of the conversation."""

    tool: str = "Read"
    path: str | None = "/work/src/app.py"
    content: Any = BIG
    is_error: bool = False
    id: str | None = None
    input: dict[str, Any] | None = None


def conversation(*calls: Call) -> list[Message]:
    """A user prompt, then for each call an assistant tool_use and the user tool_result answering it."""
    messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": "Please look around."}]}]
    for k, call in enumerate(calls):
        tool_use_id = call.id or f"toolu_{k:03d}"
        tool_input = call.input if call.input is not None else {}
        if call.input is None:
            tool_input = {"file_path": call.path} if call.path else {"command": "ls -la"}
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": tool_use_id, "name": call.tool, "input": tool_input}],
            }
        )
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": call.content}
        if call.is_error:
            result["is_error"] = True
        messages.append({"role": "user", "content": [result]})
    return messages


def settings(keep: int = 1, idle: float = 60, size: int = 40_000) -> MicrocompactSettings:
    return MicrocompactSettings(keep_recent=keep, idle_minutes=idle, size_threshold_tokens=size)


def run(
    messages: list[Message],
    counter: TiktokenCounter,
    trigger: Trigger = "forced",
    mc: MicrocompactSettings | None = None,
    preserve: Callable[[str], bool] | None = None,
    **kwargs: Any,
) -> MicrocompactResult | None:
    kwargs.setdefault("now", NOW)
    kwargs.setdefault("last_assistant_at", IDLE_LONG_AGO)
    return microcompact(messages, mc or settings(), trigger, counter=counter, preserve_read=preserve, **kwargs)


def cleared_ids(result: MicrocompactResult | None) -> list[str]:
    assert result is not None, "expected microcompaction to run"
    return result.eviction.cleared_ids


def result_block(messages: list[Message], tool_use_id: str) -> dict[str, Any]:
    for message in messages:
        for block in blocks_of(message):
            if block.get("type") == "tool_result" and block["tool_use_id"] == tool_use_id:
                return block
    raise AssertionError(f"no result for {tool_use_id}")


def in_set(*paths: str) -> Callable[[str], bool]:
    protected = set(paths)
    return lambda path: path in protected


# --- managed-memory roots on a real file system (realpath-aware containment) --------------------------------


def memory_of(tree: dict[str, Path], cwd: Path | None = None) -> Callable[[str], bool]:
    """The production predicate (engine.memory) over the tree's project, user and team roots."""
    memory = ManagedMemory(project_root=str(tree["project"]), user_root=str(tree["user"]), team_root=str(tree["team"]))
    return make_preserve_read(memory, str(cwd) if cwd else None)


@pytest.fixture
def memory_tree(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """Project, user and team memory roots, an ordinary file, and a symlink escaping the project root."""
    tree = {
        "project": tmp_path / "repo" / ".compact" / "memory",
        "user": tmp_path / "home" / ".config" / "compact-lsp" / "memory",
        "team": tmp_path / "team-share" / "memory",
    }
    for root in tree.values():
        root.mkdir(parents=True)
        (root / "MEMORY.md").write_text("- [decisions](decisions.md)\n")
        (root / "decisions.md").write_text("Use tabs.\n")
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("not memory\n")
    (tree["project"] / "escape.md").symlink_to(secret)
    source = tmp_path / "repo" / "src" / "app.py"
    source.parent.mkdir(parents=True)
    source.write_text("print(1)\n")
    tree["source"] = source
    tree["secret"] = secret
    yield tree


@pytest.mark.parametrize("root", ["project", "user", "team"])
@pytest.mark.parametrize("trigger", ["idle", "forced", "size"])
def test_memory_reads_under_each_root_survive_every_trigger(
    memory_tree: dict[str, Path], counter: TiktokenCounter, root: str, trigger: Trigger
) -> None:
    memory_file = str(memory_tree[root] / "decisions.md")
    source = str(memory_tree["source"])
    messages = conversation(
        Call(path=memory_file, id="mem"),
        Call(path=source, id="old"),
        Call(path=source, id="recent"),
    )
    result = run(messages, counter, trigger, settings(keep=1, size=300), memory_of(memory_tree))
    assert cleared_ids(result) == ["old"]
    assert result is not None
    assert result_block(result.messages, "mem")["content"] == BIG
    assert [p.tool_use_id for p in result.eviction.protected] == ["mem"]
    assert result.eviction.protected[0].paths == [memory_file]


@pytest.mark.parametrize(
    "path_of",
    [
        pytest.param(lambda t: str(t["project"] / "escape.md"), id="symlink-escape"),
        pytest.param(lambda t: str(t["project"] / ".." / ".." / "src" / "app.py"), id="dotdot-escape"),
        pytest.param(lambda t: str(t["source"]), id="ordinary-read"),
        pytest.param(lambda t: str(t["project"].parent / "not-memory.md"), id="missing-beside-root"),
        pytest.param(lambda t: str(t["project"]) + "-old/decisions.md", id="root-name-prefix"),
    ],
)
def test_reads_outside_managed_roots_are_cleared(
    memory_tree: dict[str, Path], counter: TiktokenCounter, path_of: Callable[[dict[str, Path]], str]
) -> None:
    path = path_of(memory_tree)
    messages = conversation(Call(path=path, id="read"), Call(tool="Bash", path=None, id="recent"))
    result = run(messages, counter, "forced", settings(keep=1), memory_of(memory_tree))
    assert cleared_ids(result) == ["read"]
    assert result is not None
    assert result.eviction.protected == []
    assert result.eviction.evicted_read_paths == [path]


def test_symlink_into_a_root_counts_as_memory(memory_tree: dict[str, Path], counter: TiktokenCounter) -> None:
    link = memory_tree["source"].parent / "notes.md"
    link.symlink_to(memory_tree["team"] / "decisions.md")
    messages = conversation(Call(path=str(link), id="via-link"), Call(tool="Grep", path=None, id="recent"))
    result = run(messages, counter, "forced", settings(keep=1), memory_of(memory_tree))
    assert result is None  # the only other result is the kept one: nothing to clear


def test_relative_memory_path_resolves_against_the_working_directory(
    memory_tree: dict[str, Path], counter: TiktokenCounter
) -> None:
    messages = conversation(Call(path="decisions.md", id="rel"), Call(path="../../src/app.py", id="src"))
    messages += conversation(Call(tool="Bash", path=None, id="recent"))[1:]
    result = run(messages, counter, "forced", settings(keep=1), memory_of(memory_tree, cwd=memory_tree["user"]))
    assert cleared_ids(result) == ["src"]


# --- triggers -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("idle_minutes", "minutes_since_reply", "fires"),
    [
        pytest.param(60, 61, True, id="past-threshold"),
        pytest.param(60, 60, True, id="exactly-threshold"),
        pytest.param(60, 59, False, id="not-yet-idle"),
        pytest.param(-1, 10_000, False, id="idle-off"),
        pytest.param(0, 0, True, id="zero-minutes-always"),
    ],
)
def test_idle_trigger(counter: TiktokenCounter, idle_minutes: float, minutes_since_reply: float, fires: bool) -> None:
    messages = conversation(Call(id="a"), Call(id="b"), Call(id="c"))
    result = run(
        messages,
        counter,
        "idle",
        settings(keep=1, idle=idle_minutes),
        last_assistant_at=NOW - minutes_since_reply * 60,
    )
    assert (result is not None) == fires
    if fires:
        assert cleared_ids(result) == ["a", "b"]


def test_idle_without_a_known_last_reply_does_not_fire(counter: TiktokenCounter) -> None:
    messages = conversation(Call(id="a"), Call(id="b"))
    assert run(messages, counter, "idle", last_assistant_at=None) is None


def test_forced_clears_everything_but_kept_and_protected(counter: TiktokenCounter) -> None:
    messages = conversation(
        Call(id="r1"),
        Call(tool="Bash", path=None, id="sh"),
        Call(path="/mem/MEMORY.md", id="mem"),
        Call(tool="WebFetch", path=None, input={"url": "https://example.com"}, id="web"),
        Call(tool="Grep", path=None, id="g"),
        Call(id="r2"),
    )
    result = run(messages, counter, "forced", settings(keep=2), in_set("/mem/MEMORY.md"))
    assert cleared_ids(result) == ["r1", "sh", "web"]
    assert result is not None
    for tool_use_id in ("r1", "sh", "web"):
        assert result_block(result.messages, tool_use_id) == {
            "type": "tool_result",
            "tool_use_id": tool_use_id,
            "content": CLEARED_TOOL_RESULT,
        }
    for tool_use_id in ("mem", "g", "r2"):
        assert result_block(result.messages, tool_use_id)["content"] == BIG


def test_unknown_trigger_is_refused(counter: TiktokenCounter) -> None:
    with pytest.raises(ValueError, match="unknown microcompaction trigger"):
        plan_microcompaction(conversation(Call()), settings(), "later", counter=counter)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("results", "threshold", "expected"),
    [
        pytest.param(4, -1, None, id="size-off"),
        pytest.param(4, 1_000_000, None, id="under-threshold"),
        # Each BIG result is 900 tokens; keep 1: the three older ones (2,700) pass 2,500, and all three go.
        pytest.param(4, 2_500, ["t0", "t1", "t2"], id="older-over-threshold"),
        pytest.param(4, 2_700, None, id="older-at-threshold"),
        pytest.param(6, 4_000, ["t0", "t1", "t2", "t3", "t4"], id="all-older-cleared"),
    ],
)
def test_size_trigger_measures_the_results_outside_the_kept_ones_and_clears_them_all(
    counter: TiktokenCounter, results: int, threshold: int, expected: list[str] | None
) -> None:
    messages = conversation(*(Call(id=f"t{k}") for k in range(results)))
    result = run(messages, counter, "size", settings(keep=1, size=threshold))
    if expected is None:
        assert result is None
        return
    assert cleared_ids(result) == expected
    assert result is not None
    assert result_block(result.messages, f"t{results - 1}")["content"] == BIG
    assert run(result.messages, counter, "size", settings(keep=1, size=threshold)) is None  # no rewrite next round


def test_size_trigger_never_touches_the_kept_or_protected(counter: TiktokenCounter) -> None:
    messages = conversation(Call(path="/mem/a.md", id="mem"), Call(id="old"), Call(id="k1"), Call(id="k2"))
    plan = plan_microcompaction(
        messages, settings(keep=2, size=100), "size", counter=counter, preserve_read=in_set("/mem/a.md")
    )
    assert plan is not None
    assert [c.tool_use_id for c in plan.clear] == ["old"]  # the kept window never gives way
    assert plan.kept_recent == ["k1", "k2"]
    assert [p.tool_use_id for p in plan.protected] == ["mem"]
    out = apply_plan(messages, plan).messages
    assert result_block(out, "k2")["content"] == BIG
    assert result_block(out, "mem")["content"] == BIG


@pytest.mark.parametrize("trigger", ["size", "forced", "idle"])
def test_no_trigger_clears_the_round_the_model_has_not_answered(counter: TiktokenCounter, trigger: Trigger) -> None:
    """Results of parallel tool calls arrive together; keep-recent 1 must not clear two of three of them."""
    messages = conversation(Call(id="old1"), Call(id="old2"))
    parallel = [Call(id=f"p{k}") for k in range(3)]
    messages.append(
        {"role": "assistant", "content": [{"type": "tool_use", "id": c.id, "name": c.tool,
                                           "input": {"file_path": c.path}} for c in parallel]}
    )  # fmt: skip
    messages.append(
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": c.id, "content": BIG} for c in parallel]}
    )
    plan = plan_microcompaction(
        messages, settings(keep=1, size=100), trigger, counter=counter, now=NOW, last_assistant_at=IDLE_LONG_AGO
    )
    assert plan is not None
    assert [c.tool_use_id for c in plan.clear] == ["old1", "old2"]
    assert plan.kept_recent == ["p0", "p1", "p2"]


def test_size_trigger_clears_say_why(counter: TiktokenCounter) -> None:
    messages = conversation(*(Call(id=f"t{k}") for k in range(6)))
    plan = plan_microcompaction(messages, settings(keep=2, size=3_000), "size", counter=counter)
    assert plan is not None
    assert [c.reason for c in plan.clear] == [
        "size: results outside the kept ones over 3000 tokens, all of them cleared"
    ] * 4


# --- what is never cleared, and what takes a keep-recent slot -----------------------------------------------


@pytest.mark.parametrize(
    "untouched",
    [
        pytest.param(Call(content="Error: file not found\n" * 50, is_error=True, id="x"), id="error"),
        pytest.param(Call(content="", id="x"), id="empty-string"),
        pytest.param(Call(content=[], id="x"), id="empty-list"),
        pytest.param(Call(content="   \n", id="x"), id="whitespace"),
        pytest.param(Call(content=CLEARED_TOOL_RESULT, id="x"), id="already-cleared"),
        pytest.param(Call(tool="TodoWrite", path=None, id="x"), id="non-compactable"),
        pytest.param(Call(tool="mcp__github__get_issue", path=None, id="x"), id="mcp-tool"),
        pytest.param(
            Call(path="/mem/MEMORY.md", content="Error: denied\n" * 40, is_error=True, id="x"),
            id="memory-read-error",
        ),
    ],
)
def test_never_cleared_and_uses_no_keep_slot(counter: TiktokenCounter, untouched: Call) -> None:
    messages = conversation(Call(id="old"), Call(id="newest"), untouched)
    result = run(messages, counter, "forced", settings(keep=1), in_set("/mem/MEMORY.md"))
    # "newest" holds the only slot although "x" is later: "x" takes none
    assert cleared_ids(result) == ["old"]
    assert result is not None
    assert result.messages[-1] is messages[-1]
    assert result.eviction.protected == []  # an error is never protected, just not cleared


@pytest.mark.parametrize(
    "keep",
    [pytest.param(0, id="zero"), pytest.param(1, id="one")],
)
def test_keep_recent_floors_at_one(counter: TiktokenCounter, keep: int) -> None:
    messages = conversation(Call(id="a"), Call(id="b"), Call(id="c"))
    result = run(messages, counter, "forced", settings(keep=keep))
    assert cleared_ids(result) == ["a", "b"]
    assert result is not None
    assert result_block(result.messages, "c")["content"] == BIG


def test_a_negative_keep_recent_is_refused_where_it_is_built() -> None:
    with pytest.raises(SettingsError, match=r"microcompact.keepRecent: must be at least 0, got -3"):
        settings(keep=-3)


def test_protected_reads_use_no_keep_slot(counter: TiktokenCounter) -> None:
    messages = conversation(
        Call(id="o1"),
        Call(path="/mem/MEMORY.md", id="m1"),
        Call(id="o2"),
        Call(id="o3"),
        Call(path="/mem/decisions.md", id="m2"),
    )
    plan = plan_microcompaction(
        messages,
        settings(keep=2),
        "forced",
        counter=counter,
        preserve_read=in_set("/mem/MEMORY.md", "/mem/decisions.md"),
    )
    assert plan is not None
    assert plan.kept_recent == ["o2", "o3"]
    assert [c.tool_use_id for c in plan.clear] == ["o1"]
    assert [p.tool_use_id for p in plan.protected] == ["m1", "m2"]


def test_preserve_read_applies_to_read_tools_only(counter: TiktokenCounter) -> None:
    messages = conversation(
        Call(tool="Edit", path="/mem/MEMORY.md", id="edit-mem"),
        Call(tool="read_file", path="/mem/MEMORY.md", id="read-mem"),
        Call(id="recent"),
    )
    result = run(messages, counter, "forced", settings(keep=1), in_set("/mem/MEMORY.md"))
    assert cleared_ids(result) == ["edit-mem"]
    assert result is not None
    assert result.eviction.evicted_read_paths == []  # an edit result is not a read


def test_tiny_results_are_not_worth_clearing(counter: TiktokenCounter) -> None:
    messages = conversation(Call(tool="Bash", path=None, content="ok", id="tiny"), Call(id="big"), Call(id="k"))
    assert cleared_ids(run(messages, counter, "forced")) == ["big"]


# --- ambiguous and missing ids ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("paths", "protected", "unresolved"),
    [
        pytest.param(("/mem/a.md", "/mem/b.md"), True, False, id="all-paths-protected"),
        pytest.param(("/mem/a.md", "/work/src/app.py"), False, True, id="one-path-ordinary"),
        pytest.param(("/mem/a.md", "/mem/a.md"), True, False, id="same-path-twice"),
    ],
)
def test_id_with_several_requests_is_protected_only_if_all_paths_are(
    counter: TiktokenCounter, paths: tuple[str, str], protected: bool, unresolved: bool
) -> None:
    messages = conversation(Call(path=paths[0], id="dup"), Call(path=paths[1], id="dup"), Call(id="k"))
    result = run(messages, counter, "forced", settings(keep=1), in_set("/mem/a.md", "/mem/b.md"))
    if protected:
        assert result is None
        return
    assert result is not None
    # both results of "dup" are cleared, each reported, and every path it may have read leaves history
    assert cleared_ids(result) == ["dup", "dup"]
    assert result.eviction.unresolved == ["dup", "dup"]
    assert result.eviction.evicted_read_paths == list(paths)
    assert result.eviction.cleared[0].paths == list(paths)


def test_id_shared_by_a_read_and_another_tool_is_not_protected_but_evicts_the_read(
    counter: TiktokenCounter,
) -> None:
    messages = conversation(
        Call(path="/mem/a.md", id="dup"), Call(tool="Bash", path=None, id="dup"), Call(tool="Grep", id="k")
    )
    result = run(messages, counter, "forced", settings(keep=1), in_set("/mem/a.md"))
    assert cleared_ids(result) == ["dup", "dup"]
    assert result is not None
    assert result.eviction.cleared[0].tool == "Read,Bash"
    assert result.eviction.evicted_read_paths == ["/mem/a.md"]
    assert result.eviction.unresolved == ["dup", "dup"]


def test_result_without_a_request_is_cleared_never_protected_and_reported(counter: TiktokenCounter) -> None:
    messages = conversation(Call(path="/mem/a.md", id="gone"), Call(tool="Bash", path=None, id="k"))
    messages[1]["content"][0]["id"] = "renamed"  # the result's request can no longer be found
    result = run(messages, counter, "forced", settings(keep=1), lambda _path: True)
    assert cleared_ids(result) == ["gone"]
    assert result is not None
    assert result.eviction.unresolved == ["gone"]
    assert result.eviction.cleared[0].tool == ""
    assert result.eviction.protected == []
    assert result.eviction.evicted_read_paths == []  # no known path to tell the read-file state about


def test_read_request_without_a_path_is_unresolved(counter: TiktokenCounter) -> None:
    messages = conversation(Call(input={"pattern": "*.py"}, id="nopath"), Call(tool="Bash", path=None, id="k"))
    result = run(messages, counter, "forced", settings(keep=1), lambda _path: True)
    assert cleared_ids(result) == ["nopath"]
    assert result is not None
    assert result.eviction.unresolved == ["nopath"]


# --- images -------------------------------------------------------------------------------------------------


def png_block(width: int = 200, height: int = 200) -> dict[str, Any]:
    import base64
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(png).decode()},
    }


def test_image_inside_a_cleared_result_goes_with_its_content(counter: TiktokenCounter) -> None:
    shot = [{"type": "text", "text": "screenshot"}, png_block()]
    messages = conversation(Call(path="/work/shot.png", content=shot, id="img"), Call(id="k"))
    result = run(messages, counter, "forced")
    assert cleared_ids(result) == ["img"]
    assert result is not None
    assert result_block(result.messages, "img")["content"] == CLEARED_TOOL_RESULT


@pytest.mark.parametrize(
    ("trigger", "old_image_cleared"),
    [
        pytest.param("forced", True, id="forced"),
        pytest.param("idle", True, id="idle"),
        pytest.param("size", False, id="size-leaves-images"),
    ],
)
def test_old_pasted_images_become_a_placeholder(
    counter: TiktokenCounter, trigger: Trigger, old_image_cleared: bool
) -> None:
    messages = conversation(Call(id="a"), Call(id="b"), Call(id="c"))
    messages[0]["content"].append(png_block())
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "What is this?"}]})
    messages.append({"role": "user", "content": [{"type": "text", "text": "This:"}, png_block()]})
    result = run(messages, counter, trigger, settings(keep=1, size=1_000))
    assert result is not None
    first = result.messages[0]["content"]
    if old_image_cleared:
        assert first[1] == {"type": "text", "text": MEDIA_PLACEHOLDER}
        assert result.eviction.media_cleared == 1
    else:
        assert first[1]["type"] == "image"
    assert result.messages[-1] is messages[-1]  # the image the user just pasted stays


# --- apply: identity, no mutation, stale plans, validity ----------------------------------------------------


def test_apply_keeps_untouched_messages_and_never_mutates(counter: TiktokenCounter) -> None:
    messages = conversation(Call(id="a"), Call(tool="TodoWrite", path=None, id="todo"), Call(id="b"))
    messages[2]["content"][0]["cache_control"] = {"type": "ephemeral"}
    snapshot = copy.deepcopy(messages)
    result = run(messages, counter, "forced")
    assert result is not None
    assert messages == snapshot
    changed = [i for i, (a, b) in enumerate(zip(messages, result.messages, strict=True)) if a is not b]
    assert changed == [2]
    assert result.messages[2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "a",
        "content": CLEARED_TOOL_RESULT,
        "cache_control": {"type": "ephemeral"},
    }
    assert validate(result.messages) == []


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda ms: ms.insert(1, {"role": "user", "content": "x"}), id="shifted"),
        pytest.param(lambda ms: ms.__delitem__(slice(3, None)), id="truncated"),
        pytest.param(lambda ms: ms.__setitem__(2, {"role": "user", "content": "no result"}), id="replaced"),
    ],
)
def test_stale_plan_is_refused_and_changes_nothing(
    counter: TiktokenCounter, edit: Callable[[list[Message]], Any]
) -> None:
    messages = conversation(Call(id="a"), Call(id="b"), Call(id="c"))
    plan = plan_microcompaction(messages, settings(), "forced", counter=counter)
    assert plan is not None
    edit(messages)
    snapshot = copy.deepcopy(messages)
    with pytest.raises(ValueError, match="stale microcompaction plan"):
        apply_plan(messages, plan)
    assert messages == snapshot


# --- eviction metadata --------------------------------------------------------------------------------------


def mixed_session() -> list[Message]:
    data = json.loads((FIXTURES / "mixed_session.json").read_text())
    messages: list[Message] = data["messages"]
    return messages


def test_eviction_record_of_a_mixed_session_matches_the_golden_file(counter: TiktokenCounter) -> None:
    result = run(mixed_session(), counter, "idle", settings(keep=2), in_set("/repo/.compact/memory/MEMORY.md"))
    assert result is not None
    wire = eviction_answer(result.eviction)
    expected = json.loads((FIXTURES / "mixed_session.eviction.json").read_text())
    assert wire == expected
    assert validate(result.messages) == []


def test_eviction_record_round_trips_through_the_journal(counter: TiktokenCounter) -> None:
    result = run(mixed_session(), counter, "forced", settings(keep=1), in_set("/repo/.compact/memory/MEMORY.md"))
    assert result is not None
    record = result.eviction
    again = eviction_from_record(json.loads(json.dumps(rewrite_record([], record, at=0.0)))["eviction"])
    assert again == record
    assert again.tokens_saved == record.tokens_before - record.tokens_after > 0


def test_tokens_before_and_after_are_the_conversation_totals(counter: TiktokenCounter) -> None:
    messages = mixed_session()
    plan = plan_microcompaction(messages, settings(keep=1), "forced", counter=counter, now=NOW)
    assert isinstance(plan, MicrocompactPlan)
    result = apply_plan(messages, plan)
    assert plan.tokens_before == sum(counter.count_message(m) for m in messages)
    assert plan.tokens_after == sum(counter.count_message(m) for m in result.messages)
    assert plan.tool_result_tokens_after == tool_result_tokens(result.messages, counter)
    assert plan.tokens_saved == plan.tokens_before - plan.tokens_after


# --- the low watermark amortises rewrites (each rewrite breaks the prompt cache) ----------------------------


def large_result(k: int) -> str:
    """25.5K characters of distinct grep-like output, about 7.1k tokens (as bench/bench_cache.py's ~7.4k)."""
    lines = [
        f"src/module_{(k * 7 + n) % 97}.py:{n}:     return self.respond(request, status={n % 7})" for n in range(600)
    ]
    return "\n".join(lines)[:25_500]


def uncleared_result_tokens(messages: list[Message], counter: TiktokenCounter) -> int:
    """Tool-result tokens without the cleared markers: the part a rewrite can still shrink."""
    return sum(
        counter.count_block(b)
        for m in messages
        if m["role"] == "user"
        for b in m["content"]
        if b.get("type") == "tool_result" and b.get("content") != CLEARED_TOOL_RESULT
    )


@pytest.mark.parametrize(
    ("mc", "quiet_appends"),
    [
        pytest.param(settings(keep=5), 4, id="keep-5-default-threshold"),
        pytest.param(settings(keep=5, size=150_000), 19, id="keep-5-threshold-150k"),
        pytest.param(settings(keep=3, size=100_000), 12, id="keep-3-threshold-100k"),
    ],
)
def test_size_trigger_rewrites_rarely_over_a_long_run(
    counter: TiktokenCounter, mc: MicrocompactSettings, quiet_appends: int
) -> None:
    messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": "Build it."}]}]
    appends = 167
    rewrites: list[int] = []
    for k in range(appends):
        messages = [
            *messages,
            *conversation(Call(tool="Bash", path=None, content=large_result(k), id=f"t{k}"))[1:],
        ]
        plan = plan_microcompaction(messages, mc, "size", counter=counter)
        if plan is None:
            continue
        assert plan.tool_result_tokens_before == tool_result_tokens(messages, counter)
        messages = apply_plan(messages, plan).messages
        # all that stays is the kept window: the next rewrite waits for a whole threshold of results
        assert uncleared_result_tokens(messages, counter) == sum(
            counter.count_block(result_block(messages, f"t{j}")) for j in range(max(0, k - mc.keep_recent + 1), k + 1)
        )
        rewrites.append(k)
    assert 0 < len(rewrites) < appends / 4
    # between two rewrites the results outside the window climb from nothing back over the threshold
    assert min(b - a - 1 for a, b in itertools.pairwise(rewrites)) >= quiet_appends


# --- real Claude Code sessions ------------------------------------------------------------------------------


@pytest.mark.parametrize("trigger", ["forced", "size"])
def test_real_sessions_stay_valid_and_shrink(corpus_dir: Path, counter: TiktokenCounter, trigger: Trigger) -> None:

    cleared = 0
    for path in sorted(corpus_dir.glob("*/*.jsonl")):
        messages = import_claude_code(path, with_subagents=False).session.messages
        plan = plan_microcompaction(messages, settings(keep=2, size=2_000), trigger, counter=counter, now=NOW)
        if plan is None:
            continue
        result = apply_plan(messages, plan)
        assert validate(result.messages) == validate(messages), path.name
        assert sum(counter.count_message(m) for m in result.messages) == plan.tokens_after, path.name
        assert plan.tokens_after < plan.tokens_before
        for c in result.eviction.cleared:
            assert result_block(result.messages, c.tool_use_id)["content"] == CLEARED_TOOL_RESULT
        cleared += len(plan.clear)
    assert cleared > 20  # the corpus has plenty of old Read/Bash/Grep output
