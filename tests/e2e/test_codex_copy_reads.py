"""An imported Codex copy knows the files Codex read with its shell: ``cat``, ``sed -n``, ``nl`` and ``head`` reads
that succeeded are reads of the copy, listed by ``compact/status`` (the usage view's read files), with the lines
they showed, also after a restart; a command the user rejected, a failed one and one still running read nothing."""

from __future__ import annotations

from tests.agents.codex.rollouts import assistant, exec_call, head, ok, user

from .conftest import Workspace, start_server, stop_server
from .conversation import command, request


def lines(name: str, count: int) -> str:
    return "".join(f"{name} line {i}\n" for i in range(1, count + 1))


async def test_the_copy_lists_what_codex_read_with_its_shell(workspace: Workspace) -> None:
    for name in ("main.py", "notes.md", "big.py", "other.py", "secret.txt", "missing.txt", "slow.txt"):
        workspace.write(name, lines(name, 40))
    rollout = workspace.sessions.parent / "rollout-2026-12-06T00-00-00-thread-1.jsonl"
    rollout.write_bytes(b"".join([
        *head(workspace.root),
        user("read the project"),
        *exec_call("c1", "cat main.py notes.md", ok(lines("main.py", 40) + lines("notes.md", 40))),
        *exec_call("c2", "sed -n '10,19p' big.py", ok(lines("big.py", 19)[-10:])),
        *exec_call("c3", "nl -ba other.py | sed -n '1,5p'", ok("     1\tother.py line 1\n")),
        *exec_call("c4", "cat secret.txt", "exec command rejected by user"),
        *exec_call("c5", "cat missing.txt", "Process exited with code 1\nOutput:\ncat: missing.txt: No such file\n"),
        *exec_call("c6", "cat slow.txt", "Chunk ID: 9f\nWall time: 10.0 seconds\nProcess running with session ID 3\n"),
        assistant("Read them."),
    ]))  # fmt: skip
    client = await start_server(workspace, workspace.options())
    try:
        imported = await request(client, "compact/importSession", {"path": str(rollout)})
        status = await command(client, "compact.status", {"sessionId": imported["sessionId"]})
    finally:
        await stop_server(client)
    read = {r["path"]: r for r in status["readFiles"]}
    assert sorted(read) == ["big.py", "main.py", "notes.md", "other.py"], status["readFiles"]
    assert read["big.py"]["range"] != read["main.py"]["range"] and all(r["inHistory"] for r in read.values())

    again = await start_server(workspace, workspace.options())
    try:
        reloaded = await command(again, "compact.status", {"sessionId": imported["sessionId"]})
    finally:
        await stop_server(again)
    assert sorted(r["path"] for r in reloaded["readFiles"]) == sorted(read)  # journalled: a restart keeps them


async def test_the_copys_marker_of_codexs_compaction_has_its_last_figures(workspace: Workspace) -> None:
    """The real rollout with two compactions (Codex 0.171.0), imported: the copy holds what the model held, from
    Codex's last summary, which the chat shows as the agent's marker with the trigger and figures the rollout
    recorded of that compaction (its followed chat's: 90,020 → 3,000, automatic). A copy imported before the
    figures were recorded (its header without them) still shows the marker, without figures, never a made-up 0."""
    import json
    from pathlib import Path

    rollout = Path(__file__).resolve().parents[1] / "fixtures" / "codex" / "rollout-two-compactions.jsonl"
    client = await start_server(workspace, workspace.options())
    try:
        imported = await request(client, "compact/importSession", {"path": str(rollout)})
        chat = await request(client, "compact/transcript", {"sessionId": imported["sessionId"]})
    finally:
        await stop_server(client)
    [marker] = [e for e in chat["entries"] if e["kind"] == "compaction"]
    assert marker["summarizer"] == "agent" and marker["summary"]
    assert (marker["trigger"], marker["tokensBefore"], marker["tokensAfter"]) == ("auto", 90_020, 3_000)

    [journal] = [p for p in workspace.sessions.rglob("*.jsonl") if imported["sessionId"] in p.name]
    lines = journal.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["agentCompaction"] == {"trigger": "auto", "tokensBefore": 90_020, "tokensAfter": 3_000}
    del header["agentCompaction"]  # as an older version wrote it
    journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    again = await start_server(workspace, workspace.options())
    try:
        old = await request(again, "compact/transcript", {"sessionId": imported["sessionId"]})
    finally:
        await stop_server(again)
    [marker] = [e for e in old["entries"] if e["kind"] == "compaction"]
    assert marker["summary"] and (marker["trigger"], marker["tokensBefore"], marker["tokensAfter"]) == (None,) * 3
