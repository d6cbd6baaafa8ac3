"""A followed agent's chat as its user saw it happen (``compact/transcript``): the whole conversation, with a marker
at each of the agent's compactions carrying the figures its transcript recorded, though the agent's model holds only
what came after the last one."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from compact_lsp.agents.claude_code.live import project_directory

from .conftest import Workspace, start_server, stop_server
from .conversation import append, request
from .test_timeline import CLAUDE_CODE, CODEX, followed_timeline


def _shown(entries: list[dict[str, Any]]) -> list[Any]:
    """Each entry as the user reads it: a message's texts, commands and outputs; a marker's figures."""
    shown: list[Any] = []
    for entry in entries:
        if entry["kind"] == "compaction":
            shown.append(("compacted", entry["trigger"], entry["tokensBefore"], entry["tokensAfter"]))
            continue
        for block in entry["message"]["content"]:
            if block["type"] == "text":
                shown.append((entry["message"]["role"], block["text"]))
            elif block["type"] == "tool_use":
                what = block["input"]
                shown.append(("ran", what.get("command") or os.path.basename(what.get("file_path", ""))))
            elif block["type"] == "tool_result":
                shown.append(("output", block["content"].splitlines()[0]))
    return shown


async def test_a_followed_codex_sessions_chat_keeps_what_came_before_each_compaction(
    tmp_path: Path, workspace: Workspace
) -> None:
    """The real Codex's rollout with two automatic compactions in one turn: the chat shows the user's request, every
    command and its output, a marker at each compaction with the timeline's figures, and the answer; never the
    summary as the user's words nor Codex's or our hook's text for the model."""
    home = tmp_path / "codex-home"
    day = home / "sessions" / "2026" / "12" / "06"
    day.mkdir(parents=True)
    rollout = day / "rollout-2026-12-06T02-15-01-01a24922-191a-7333-9cdb-081049550edc.jsonl"
    rollout.write_text(CODEX.read_text().replace("/work/proj", os.path.realpath(workspace.root)))
    session = "codex-01a24922-191a-7333-9cdb-081049550edc"
    client = await start_server(workspace, workspace.options(codex={"home": str(home)}))
    try:
        timeline = await followed_timeline(client, session)
        chat = await request(client, "compact/transcript", {"sessionId": session})
        model = await request(client, "compact/messages", {"sessionId": session})
        items = {s["sessionId"]: s for s in await request(client, "compact/sessions", {})}
    finally:
        await stop_server(client)
    kinds = [e["kind"] for e in chat["entries"]]
    assert items[session]["messages"] == len(model["messages"]) and "message" in kinds[: kinds.index("compaction")]
    assert _shown(chat["entries"]) == [
        ("user", "read the modules"),
        ("ran", "cat first_a.py"), ("output", "def first_a_0():"),
        ("ran", "cat first_b.py"), ("output", "def first_b_0():"),
        ("compacted", "auto", 90_020, 4_000),
        ("ran", "cat second_a.py"), ("output", "def second_a_0():"),
        ("ran", "cat second_b.py"), ("output", "def second_b_0():"),
        ("compacted", "auto", 90_020, 3_000),
        ("assistant", "All done."),
    ]  # fmt: skip
    markers = [e for e in chat["entries"] if e["kind"] == "compaction"]
    rows = timeline["rows"]
    assert [(m["at"], m["summary"]) for m in markers] == [(r["at"], r["summary"]) for r in rows]
    assert {m["summarizer"] for m in markers} == {"agent"}
    assert "cat first_a.py" not in str(model["messages"])  # the model's view: still what Codex kept at the last one


async def test_a_followed_claude_code_sessions_chat_keeps_what_came_before_each_compaction(
    tmp_path: Path, workspace: Workspace
) -> None:
    """The real Claude Code's transcript: seven reads, /compact, two reads, an automatic compaction, the answer. The
    chat shows them all with a marker at each boundary (its figures and trigger), the summary never as the user's
    words; the model's view starts at the last boundary."""
    projects = tmp_path / "claude-projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    session = json.loads(CLAUDE_CODE.read_text().splitlines()[0])["sessionId"]
    (directory / f"{session}.jsonl").write_bytes(CLAUDE_CODE.read_bytes())
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    try:
        timeline = await followed_timeline(client, f"claude-{session}")
        chat = await request(client, "compact/transcript", {"sessionId": f"claude-{session}"})
        model = await request(client, "compact/messages", {"sessionId": f"claude-{session}"})
        items = {s["sessionId"]: s for s in await request(client, "compact/sessions", {})}
    finally:
        await stop_server(client)
    kinds = [e["kind"] for e in chat["entries"]]
    assert items[f"claude-{session}"]["messages"] == len(model["messages"])  # the picker: what the model holds
    assert "message" in kinds[: kinds.index("compaction")]  # the chat: more, what came before
    reads = [item for name in "abcdefg" for item in (("ran", f"{name}.py"), ("output", f"1\tdef {name}0():"))]
    assert _shown(chat["entries"]) == [
        ("user", "Read the first seven modules"), *reads, ("assistant", "Read the first seven."),
        ("ran", "/compact"), ("output", "Compacted"),  # as typed, no key hint: before its marker
        ("compacted", "manual", 17_890, 7_439),
        ("user", "Now read h.py and i.py"),
        ("ran", "h.py"), ("output", "1\tdef h0():"), ("ran", "i.py"), ("output", "1\tdef i0():"),
        ("compacted", "auto", 990_694, 4_099),
        ("assistant", "Read them all."),
    ]  # fmt: skip
    markers = [e for e in chat["entries"] if e["kind"] == "compaction"]
    assert [(m["at"], m["summary"]) for m in markers] == [(r["at"], r["summary"]) for r in timeline["rows"]]
    assert "This session is being continued" not in json.dumps([e for e in chat["entries"] if e["kind"] == "message"])
    assert "def a0()" not in json.dumps(model["messages"])  # the model's view: since the last boundary
    assert "This session is being continued" in json.dumps(model["messages"][0])


SPLIT = CLAUDE_CODE.with_name("split_assistant.jsonl")
"""A Claude Code transcript with no compaction (session ``5e55-0001``): its copy holds all of it."""


async def test_what_a_claude_code_user_typed_shows_in_its_chat_and_its_copys_whatever_it_looks_like(
    tmp_path: Path, workspace: Workspace
) -> None:
    """The user typed ``<foo>bar</foo>`` into Claude Code: its followed chat and an imported copy's show it. Only
    Codex writes texts wholly of elements for its model; Claude Code's chat is shown by Claude Code's rules alone."""
    projects = tmp_path / "claude-projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    typed = SPLIT.read_text().replace("Please fix the parser in src/parse.py", "<foo>bar</foo>")
    (directory / "5e55-0001.jsonl").write_text(typed)
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    try:
        await followed_timeline(client, "claude-5e55-0001")
        chat = await request(client, "compact/transcript", {"sessionId": "claude-5e55-0001"})
        copy = await request(client, "compact/importSession", {"sessionId": "claude-5e55-0001"})
        copied = await request(client, "compact/transcript", {"sessionId": copy["sessionId"]})
    finally:
        await stop_server(client)
    for shown in (_shown(chat["entries"]), _shown(copied["entries"])):
        assert shown[0] == ("user", "<foo>bar</foo>"), shown
        assert shown[-1] == ("assistant", "The parser returns its input unchanged; fixed."), shown


async def test_the_same_text_in_a_codex_rollouts_item_for_its_model_stays_hidden(
    tmp_path: Path, workspace: Workspace
) -> None:
    """Codex writes its context for the model as user items wholly of elements: ``<foo>bar</foo>`` there is one,
    hidden in the followed chat and in an imported copy's. The copy continued here is the user's: what they type
    into it is shown as said, whatever Codex's rules would make of it."""
    from tests.agents.codex.rollouts import assistant, head, user

    day = tmp_path / "codex-home" / "sessions" / "2026" / "12" / "06"
    day.mkdir(parents=True)
    rollout = [
        *head(Path(os.path.realpath(workspace.root))),
        user("fix it"),
        user("<foo>bar</foo>"),
        assistant("Fixed."),
    ]
    thread = "01a24922-191a-7333-9cdb-081049550ed1"
    (day / f"rollout-2026-12-06T00-00-00-{thread}.jsonl").write_bytes(b"".join(rollout))
    client = await start_server(workspace, workspace.options(codex={"home": str(tmp_path / "codex-home")}))
    try:
        await followed_timeline(client, f"codex-{thread}")
        chat = await request(client, "compact/transcript", {"sessionId": f"codex-{thread}"})
        copy = await request(client, "compact/importSession", {"sessionId": f"codex-{thread}"})
        copied = await request(client, "compact/transcript", {"sessionId": copy["sessionId"]})
        said = [{"role": "user", "content": "<foo>bar</foo>"}, {"role": "assistant", "content": "Seen."}]
        await append(client, copy["sessionId"], said)
        continued = await request(client, "compact/transcript", {"sessionId": copy["sessionId"]})
    finally:
        await stop_server(client)
    assert _shown(chat["entries"]) == [("user", "fix it"), ("assistant", "Fixed.")]
    copied_shown = _shown(copied["entries"])  # its developer item ("instructions") is the copy's first user text
    assert copied_shown[-2:] == [("user", "fix it"), ("assistant", "Fixed.")], copied_shown
    assert "<foo>" not in json.dumps(copied_shown)
    assert _shown(continued["entries"]) == [*copied_shown, ("user", "<foo>bar</foo>"), ("assistant", "Seen.")]
