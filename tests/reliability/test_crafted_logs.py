"""Round 4: crafted logs and rollouts never widen what the hooks read (fake secrets in a redirected HOME).

Each hook runs as Claude Code and Codex run it (``python -m compact_lsp <agent> hook``, the input on stdin), with
``HOME`` pointing at a temporary home that holds fake secrets. On main, 10 of these cases leaked a secret into
``additionalContext``: a command the user rejected, one still running, a patch rejected, a one-line ``sed`` of a
file (the whole file came back), a successful read of a file outside the cwd (admitted by the log alone, for both
agents and for a Codex call merely *named* ``Read``), and a cwd that holds the home directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.agents.codex.rollouts import compaction, exec_call, head, item, ok, user

pytestmark = pytest.mark.timeout(120)

THEN = "what the file held back then\n"
"""What the log says every outside read printed: the secrets are only on disk, so one in the hook's answer was
re-read from disk, never quoted from the log (the hooks' ledger quotes the log's command outputs)."""

SECRETS = {
    "private/rejected.txt": "SECRET-REJECTED-1\n",
    "private/running.txt": "SECRET-RUNNING-2\n",
    "private/failed.txt": "SECRET-FAILED-3\n",
    "private/patched.txt": "SECRET-PATCHED-4\n",
    "private/partial.txt": "SECRET-PARTIAL-LINE-1\nseen line two\nSECRET-PARTIAL-LINE-3\n",
    "private/diary.txt": "SECRET-DIARY-5\n",
    "private/named-read.txt": "SECRET-NAMED-READ-6\n",
    ".ssh/id_rsa": "-----BEGIN FAKE KEY----- SECRET-SSH-7\n",
    ".aws/credentials": "[default]\naws_secret_access_key = SECRET-AWS-8\n",
    ".netrc": "machine example.com password SECRET-NETRC-9\n",
}


def make_home(tmp: Path) -> tuple[Path, Path]:
    """A home with the secrets above and a project ``ws`` inside it (as most projects are)."""
    home = tmp / "home" / "user"
    for relative, text in SECRETS.items():
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    ws = home / "ws"
    ws.mkdir()
    (ws / "main.py").write_text("WORKSPACE_FILE = 1\n" * 5)
    (ws / ".env").write_text("API_TOKEN=SECRET-DOTENV-10\n")
    return home, ws


def run_hook(agent: str, transcript: Path, cwd: Path, home: Path, **env: str) -> str:
    data = {"session_id": "s", "transcript_path": str(transcript), "cwd": str(cwd),
            "hook_event_name": "SessionStart", "source": "compact"}  # fmt: skip
    environ = {k: v for k, v in os.environ.items() if not k.startswith("COMPACT_LSP_")}
    environ.update(HOME=str(home), XDG_STATE_HOME=str(home / ".state"), **env)
    done = subprocess.run(
        [sys.executable, "-m", "compact_lsp", agent, "hook"], input=json.dumps(data).encode(), env=environ,
        capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    if not done.stdout:
        return ""
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


def rollout(tmp: Path, ws: Path, calls: Sequence[bytes]) -> Path:
    path = tmp / "rollout.jsonl"
    path.write_bytes(b"".join([*head(ws), user("work on it"), *calls, compaction(), user("go on")]))
    return path


def codex_calls(home: Path, ws: Path) -> list[bytes]:
    p = home / "private"
    return [
        *exec_call("c-ws", f"cat {ws / 'main.py'}", ok((ws / "main.py").read_text())),
        *exec_call("c-rejected", f"cat {p / 'rejected.txt'}", "exec command rejected by user"),
        *exec_call(
            "c-running",
            f"cat {p / 'running.txt'}",
            "Chunk ID: 9f\nWall time: 10.0 seconds\nProcess running with session ID 3\nOriginal token count: 4\n"
            f"Output:\n{THEN}",
        ),
        *exec_call("c-failed", f"cat {p / 'failed.txt'}", "Process exited with code 1\nOutput:\ncat: permission\n"),
        item(
            type="custom_tool_call",
            call_id="c-patch",
            name="apply_patch",
            input=f"*** Begin Patch\n*** Update File: {p / 'patched.txt'}\n@@\n-a\n+b\n*** End Patch\n",
        ),
        item(type="custom_tool_call_output", call_id="c-patch", output="patch rejected by user"),
        *exec_call("c-partial", f"sed -n 2p {p / 'partial.txt'}", ok(THEN)),
        *exec_call("c-ssh", f"cat {home / '.ssh' / 'id_rsa'}", ok(THEN)),
        *exec_call("c-aws", f"cat {home / '.aws' / 'credentials'}", ok(THEN)),
        *exec_call("c-dotenv", f"cat {ws / '.env'}", ok(THEN)),
        *exec_call("c-diary", f"cat {p / 'diary.txt'}", ok(THEN)),
        item(
            type="function_call",
            call_id="c-named",
            name="Read",
            arguments=json.dumps({"file_path": str(p / "named-read.txt")}),
        ),
        item(type="function_call_output", call_id="c-named", output=THEN),
    ]


def leaked(context: str, *names: str) -> list[str]:
    found = []
    for name in names:
        for text_line in SECRETS[name].splitlines():
            if "SECRET" in text_line and text_line.split("SECRET", 1)[1] in context:
                found.append(name)
    return found


ALL = list(SECRETS)


def test_a_codex_rollout_never_widens_what_the_hook_reads(tmp_path: Path) -> None:
    home, ws = make_home(tmp_path)
    context = run_hook("codex", rollout(tmp_path, ws, codex_calls(home, ws)), ws, home)
    assert "WORKSPACE_FILE = 1" in context, "the hook attached nothing: the test would prove nothing"
    assert leaked(context, *ALL) == []
    assert "SECRET-DOTENV-10" not in context


def test_what_counts_as_a_read_when_the_user_lets_outside_files_in(tmp_path: Path) -> None:
    """With the user's setting on, the successful whole read of an ordinary outside file comes back: a rejected,
    still-running or failed command, a rejected patch, a call merely named ``Read``, and any credential file never
    do, and a one-line ``sed`` brings back that one line only."""
    home, ws = make_home(tmp_path)
    path = rollout(tmp_path, ws, codex_calls(home, ws))
    context = run_hook("codex", path, ws, home, COMPACT_LSP_HOOK_OUTSIDE_FILES="1")
    assert "SECRET-DIARY-5" in context, "the configured outside file did not come back: the test proves nothing"
    assert "seen line two" in context
    assert leaked(context, *(n for n in ALL if n != "private/diary.txt")) == []
    assert "SECRET-DOTENV-10" not in context


def claude_code_transcript(tmp: Path, ws: Path, reads: Sequence[tuple[str, str]]) -> Path:
    records: list[dict[str, Any]] = []
    parent = None

    def add(kind: str, message: dict[str, Any]) -> None:
        nonlocal parent
        uuid = f"u{len(records)}"
        records.append({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "cwd": str(ws),
                        "message": message})  # fmt: skip
        parent = uuid

    add("user", {"role": "user", "content": "read things"})
    for n, (path, text) in enumerate(reads):
        add("assistant", {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {"file_path": path}}]})  # fmt: skip
        add("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": text}]})  # fmt: skip
    add("assistant", {"role": "assistant", "content": [{"type": "text", "text": "done"}]})
    # Claude Code runs the hook before it writes this compaction's boundary: the whole log is the window
    path = tmp / "transcript.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_claude_code_transcript_never_widens_what_the_hook_reads(tmp_path: Path) -> None:
    home, ws = make_home(tmp_path)
    reads = [(str(ws / "main.py"), "WORKSPACE_FILE = 1\n"), (str(ws / ".env"), THEN)]
    reads += [(str(home / name), THEN) for name in ("private/diary.txt", ".ssh/id_rsa", ".aws/credentials")]
    for n in range(5):  # the five files Claude Code re-attaches itself after a compaction (hook_policy.py)
        (ws / f"recent{n}.py").write_text(f"recent = {n}\n")
        reads.append((str(ws / f"recent{n}.py"), f"recent = {n}\n"))
    context = run_hook("claude-code", claude_code_transcript(tmp_path, ws, reads), ws, home)
    assert "WORKSPACE_FILE = 1" in context, "the hook attached nothing: the test would prove nothing"
    assert leaked(context, *ALL) == [] and "SECRET-DOTENV-10" not in context


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_hook_cwd_that_holds_home_is_no_root(tmp_path: Path, agent: str) -> None:
    """On main a cwd of ``/home`` (here: the folder holding the fake home) was a root for both hooks."""
    home, _ = make_home(tmp_path)
    holder = home.parent
    diary = home / "private" / "diary.txt"
    if agent == "codex":
        path = rollout(tmp_path, holder, exec_call("c-diary", f"cat {diary}", ok(THEN)))
    else:
        reads = [(str(diary), THEN)]
        for n in range(5):  # the five Claude Code re-attaches itself: the diary would be its, not the hook's
            (holder / f"recent{n}.py").write_text(f"recent = {n}\n")
            reads.append((str(holder / f"recent{n}.py"), f"recent = {n}\n"))
        path = claude_code_transcript(tmp_path, holder, reads)
    context = run_hook(agent, path, holder, home)
    assert "SECRET-DIARY-5" not in context


def test_a_rollout_whose_cwd_cannot_name_a_folder_fails_nothing(tmp_path: Path) -> None:
    """On main one such rollout under ``~/.codex/sessions`` made ``initialize`` fail in every workspace (-32603
    UnicodeEncodeError: the ``session_meta`` cwd went to ``realpath`` unchecked)."""
    from .rpc import RawServer, Workspace, server_env

    workspace = Workspace(tmp_path / "w")
    codex_home = tmp_path / "codex-home"
    day = codex_home / "sessions" / "2026" / "12" / "05"
    day.mkdir(parents=True)
    meta = '{"timestamp": "2026-12-05T00:00:00Z", "type": "session_meta", "payload": {"id": "t", "cwd": "/w\\ud800"}}'
    (day / "rollout-2026-12-05T00-00-00-t.jsonl").write_text(meta + "\n" + user("hi").decode())
    good = day / "rollout-2026-12-05T00-00-01-u.jsonl"
    good.write_bytes(b"".join([*head(workspace.root), user("a session of this workspace")]))
    with RawServer(workspace, env=server_env(CODEX_HOME=str(codex_home), HOME=str(tmp_path))) as server:
        listed = server.request("compact/sessions", {})
        assert isinstance(listed, (dict, list))


def test_a_followed_codex_sessions_messages_match_its_status(tmp_path: Path) -> None:
    """On main ``compact/messages`` of a followed Codex session left out its open tail (the last assistant message
    and what followed it), which ``compact.status`` counts."""
    from .rpc import RawServer, Workspace, server_env

    workspace = Workspace(tmp_path / "w")
    codex_home = tmp_path / "codex-home"
    day = codex_home / "sessions" / "2026" / "12" / "05"
    day.mkdir(parents=True)
    calls = exec_call("c1", "cat main.py", ok("OPEN-TAIL-OUTPUT\n"))
    lines = [*head(workspace.root), user("look at main.py"), *calls]
    (day / "rollout-2026-12-05T00-00-00-t.jsonl").write_bytes(b"".join(lines))
    options = workspace.options(codex={"home": str(codex_home)})
    with RawServer(workspace, options, env=server_env(HOME=str(tmp_path))) as server:
        found: list[dict[str, Any]] = []
        deadline = time.monotonic() + 60
        while not found and time.monotonic() < deadline:  # each listing round trip is the wait
            found = [s for s in server.request("compact/sessions", {}) if s["source"] == "codex"]
        [listed] = found
        status = server.command("compact.status", {"sessionId": listed["sessionId"]})
        answer = server.request("compact/messages", {"sessionId": listed["sessionId"]})
        assert "OPEN-TAIL-OUTPUT" in json.dumps(answer["messages"])
        assert answer["usage"]["total"] == status["usage"]["total"]
