"""Gemini CLI's ``BeforeModel`` hook end to end: ``compact-lsp gemini-cli hook`` run as Gemini runs it (a process,
the hook input on stdin, before every model request) on a session that read a big file's region, a file through
the shell, a credential file and a file outside the project, then compressed; and where it is registered (its
install/uninstall round trip: tests/agents/test_hook_install.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compact_lsp.agents.gemini_cli.hook import GEMINI_CONTEXT_LIMIT, HEADER
from compact_lsp.agents.gemini_cli.marks import COMPRESSION_ACK
from compact_lsp.agents.gemini_cli.request import cache_path
from compact_lsp.agents.gemini_cli.session_file import MessageList
from compact_lsp.agents.hook_input import transcript_records

from .sessions import GeminiSession

REGION_LINE = 120


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "COMPACT_LSP_HOOK_OUTSIDE_FILES": "",
    }


def big_file(changed: int | None = None) -> str:
    return "".join(
        f"handler_{n} = respond(request, {n})  # line {n + 1}{' CHANGED ON DISK' if n + 1 == changed else ''}\n"
        for n in range(3000)
    )


@pytest.fixture
def session(tmp_path: Path, env: dict[str, str]) -> GeminiSession:
    project = tmp_path / "project"
    project.mkdir()
    (project / "big.py").write_text(big_file())
    (project / "notes.txt").write_text("shell-read note: the migration runs last\n")
    (project / ".env").write_text("API_KEY=sk-do-not-leak\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside the project: never re-read\n")
    s = GeminiSession(Path(env["HOME"]), project)
    s.user("fix the handler")
    region = {"file_path": "big.py", "start_line": REGION_LINE, "end_line": REGION_LINE + 29}
    s.call("read_file", region, "--- FILE CONTENT (truncated) ---\nhandler_119 = ...")
    s.call("read_file", {"file_path": ".env"}, "API_KEY=sk-do-not-leak")
    s.call("read_file", {"file_path": str(outside)}, "outside")
    s.call("read_file", {"file_path": "missing.py"}, error="File not found")
    s.call("run_shell_command", {"command": "cat notes.txt"}, "shell-read note")
    s.compress("<state_snapshot>the user wants the handler fixed</state_snapshot>")
    s.write()
    return s


def run_hook(stdin: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "compact_lsp", "gemini-cli", "hook"], input=stdin, env=env, capture_output=True,
        timeout=60, check=True,
    )  # fmt: skip


def log_file(env: dict[str, str]) -> Path:
    return Path(env["XDG_STATE_HOME"]) / "compact-lsp" / "log" / "gemini-cli-hook.log"


def test_after_a_compression_the_summary_carries_the_current_region_on_every_request(
    session: GeminiSession, env: dict[str, str]
) -> None:
    (session.project / "big.py").write_text(big_file(changed=REGION_LINE + 5))  # changed after the model read it
    later = [("user", "fix it"), ("model", "Looking."), ("user", "go on")]
    for request in (session.request(), session.request(*later)):  # the first request after it, and a later one
        answer = json.loads(run_hook(session.hook_input(request), env).stdout)["hookSpecificOutput"]
        assert answer["hookEventName"] == "BeforeModel"
        assert list(answer["llm_request"]) == ["messages"]  # no model, no config: the request's own stay
        (summary,) = answer["llm_request"]["messages"]  # up to the summary: every later content left as it is
        assert summary["role"] == "user" and summary["content"].startswith(request[0]["content"] + "\n\n")
        ours = summary["content"][len(request[0]["content"]) :]
        assert HEADER in ours and len(ours) <= GEMINI_CONTEXT_LIMIT
        assert f"# line {REGION_LINE + 5} CHANGED ON DISK\n" in ours  # the region as it is on disk now
        assert "shell-read note" in ours  # a file read through the shell
        assert "sk-do-not-leak" not in ours and "never re-read" not in ours  # credentials, outside files: never
    assert "'remembered': True" in log_file(env).read_text()  # the second request: no file changed since
    remembered = Path(env["XDG_STATE_HOME"]) / "compact-lsp" / "gemini-cli" / Path(cache_path("x")).name
    (found,) = remembered.parent.iterdir()
    assert len(found.name) == len(remembered.name) and oct(found.stat().st_mode & 0o777) == "0o600"
    (session.project / "big.py").write_text(big_file(changed=REGION_LINE + 7))
    again = json.loads(run_hook(session.hook_input(), env).stdout)["hookSpecificOutput"]
    assert f"# line {REGION_LINE + 7} CHANGED ON DISK\n" in again["llm_request"]["messages"][0]["content"]


def test_the_block_stays_remembered_through_tool_calls_that_cannot_change_it(
    session: GeminiSession, env: dict[str, str]
) -> None:
    """A call since the compression changes the block only through what the request then holds verbatim: after a
    call whose output holds no file the block weighed it is remembered; after one that read such a file whole, or
    with other settings, it is built again; every answer is what a build from nothing gives."""
    remembered_at = Path(env["XDG_STATE_HOME"]) / "compact-lsp" / "gemini-cli"
    request = session.request(("user", "fix it"), ("model", "Looking."), ("user", "go on"))

    def answer(run_env: dict[str, str] = env) -> tuple[str, bool]:
        out = run_hook(session.hook_input(request), run_env).stdout.decode()
        return out, "'remembered': True" in log_file(env).read_text().splitlines()[-1]

    def built_afresh(run_env: dict[str, str] = env) -> str:
        shutil.rmtree(remembered_at)
        return answer(run_env)[0]

    first, _ = answer()
    session.call("run_shell_command", {"command": "ls"}, "big.py\nnotes.txt")
    session.call("read_file", {"file_path": "notes.txt"}, "a note that is not the region")
    session.write()
    assert answer() == (first, True)  # neither output can hold a file the block weighed
    assert built_afresh() == first

    note = (session.project / "notes.txt").read_text()
    session.call("read_file", {"file_path": "notes.txt"}, note)  # the whole file, as the block would send it
    session.write()
    again, remembered = answer()
    assert not remembered and "shell-read note" in first and "shell-read note" not in again  # not sent twice
    assert built_afresh() == again

    outside = {**env, "COMPACT_LSP_HOOK_OUTSIDE_FILES": "1"}
    assert answer(outside) == (built_afresh(outside), False)  # other settings: built again


def test_a_request_with_nothing_compressed_is_left_as_it_is_and_nothing_is_logged(
    session: GeminiSession, env: dict[str, str]
) -> None:
    before = [{"role": "user", "content": "fix the handler"}]
    assert run_hook(session.hook_input(before), env).stdout == b""
    assert run_hook(session.hook_input(event="AfterModel"), env).stdout == b""
    assert not log_file(env).exists()  # a hook run on every request: the no-op writes nothing
    assert run_hook(b"not json", env).stdout == b""


def test_an_acknowledgement_without_a_compression_in_the_session_file_adds_nothing(
    tmp_path: Path, env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text("A = 1\n")
    s = GeminiSession(Path(env["HOME"]), project)
    s.user("read a.py")
    s.call("read_file", {"file_path": "a.py"}, "A = 1")
    s.resume()  # --resume writes the list again: not a compression
    s.write()
    typed = [{"role": "user", "content": "say it"}, {"role": "model", "content": COMPRESSION_ACK}]
    assert run_hook(s.hook_input(typed), env).stdout == b""
    assert "shows no compression" in log_file(env).read_text()


def test_a_session_in_the_home_directory_rereads_nothing(tmp_path: Path, env: dict[str, str]) -> None:
    home = Path(env["HOME"])
    (home / "notes.txt").write_text("private note in the home directory\n")
    s = GeminiSession(home, home)
    s.call("read_file", {"file_path": "notes.txt"}, "private note")
    s.compress("<state_snapshot>notes</state_snapshot>")
    s.write()
    assert b"private note" not in run_hook(s.hook_input(), env).stdout


def cli(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "compact_lsp", "gemini-cli", *args], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_message_written_again_keeps_its_place_and_a_set_of_messages_replaces_the_list() -> None:
    messages = MessageList()
    data = (
        b'{"$set": {"messages": [{"id": "a", "type": "user"}]}}\nnot json\n'
        b'{"id": "b", "type": "gemini"}\n{"id": "a", "type": "user", "content": "again"}\n'
    )
    for record in transcript_records(data):
        assert messages.apply(record) is None or list(messages.by_id) == ["a"]
    assert list(messages.by_id) == ["a", "b"] and messages.by_id["a"]["content"] == "again"
    listed, replaced = messages.apply({"$set": {"messages": [{"id": "s", "type": "user"}]}}) or ([], {})
    assert listed == [{"id": "s", "type": "user"}] and list(replaced) == ["a", "b"] and list(messages.by_id) == ["s"]


def test_gemini_cli_is_registered_with_its_settings_files(tmp_path: Path, env: dict[str, str]) -> None:
    from compact_lsp.agents.gemini_cli.agent import GEMINI_CLI
    from compact_lsp.agents.gemini_cli.settings import SETTINGS
    from compact_lsp.agents.registered import agent_named

    assert agent_named("gemini-cli") is GEMINI_CLI
    assert GEMINI_CLI.settings_path("project", str(tmp_path)) == tmp_path / ".gemini" / "settings.json"
    assert GEMINI_CLI.settings_path("user", str(tmp_path)).parts[-2:] == (".gemini", "settings.json")
    cli(["install-hook", "--dir", str(tmp_path)], env)
    found = GEMINI_CLI.installed_commands(tmp_path / ".gemini" / "settings.json")
    assert found == SETTINGS.installed_commands(tmp_path / ".gemini" / "settings.json") and len(found) == 1


def test_the_session_file_tells_a_compression_from_a_resume(tmp_path: Path, session: GeminiSession) -> None:
    from compact_lsp.agents.gemini_cli.transcript import read_window

    compressed = read_window(str(session.path), str(session.project))
    assert compressed.compressions == 1 and compressed.summary == session.summary
    reads = [b["input"]["file_path"] for m in compressed.messages for b in m["content"] if b["type"] == "tool_use"]
    assert str(session.project / "big.py") in reads and str(session.project / "notes.txt") in reads
    session.lines = [line for line in session.lines if "$set" not in line or "messages" not in line["$set"]]
    session.resume()
    session.write()
    assert read_window(str(session.path), str(session.project)).compressions == 0


def test_the_no_op_imports_none_of_the_engine(session: GeminiSession, env: dict[str, str]) -> None:
    """It runs before every model request: a request with nothing compressed costs the door alone."""
    from compact_lsp.agents.gemini_cli.agent import GEMINI_CLI
    from compact_lsp.agents.not_for_us import NotForUs

    with pytest.raises(NotForUs):
        GEMINI_CLI.hook_answer(b'{"hook_event_name": "BeforeModel"}', budget=1, keep=None)
    before = session.hook_input([{"role": "user", "content": "fix the handler"}])
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "compact_lsp", "gemini-cli", "hook"], input=before, env=env,
        capture_output=True, timeout=60, check=True,
    )  # fmt: skip
    imported = [line.rpartition("|")[2].strip() for line in done.stderr.decode().splitlines()]
    assert done.stdout == b"" and "compact_lsp.agents.hook_process" in imported
    assert not [m for m in imported if m.startswith(("compact_lsp.engine", "compact_lsp.agents.gemini_cli.hook"))]


def test_after_a_typed_compress_the_summary_carries_the_file_as_it_is_now(tmp_path: Path, env: dict[str, str]) -> None:
    """The session file Gemini CLI 0.61.0's TUI wrote for a read, then the user's ``/compress`` (a ``$set`` of its
    session id before the compression's list, an empty ``info`` record after it: docs/gemini-cli.md), and the first
    request after it as the hook sees it: the file read before it, as it is on disk now, after the summary."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.md").write_text("NOTES_LINE: answer within 90 seconds, changed after the read.\n")
    transcript = tmp_path / "session-typed.jsonl"
    shutil.copy(Path(__file__).parents[2] / "fixtures" / "gemini_cli" / "typed-compress.jsonl", transcript)
    (*_, compressed) = (r["$set"]["messages"] for r in map(json.loads, transcript.read_text().splitlines())
                        if "messages" in r.get("$set", {}))  # fmt: skip
    context, summary, ack = compressed
    first = "".join(part["text"] for part in [*context["content"], *summary["content"]])
    request = [{"role": "user", "content": first}, {"role": "model", "content": ack["content"][0]["text"]},
               {"role": "user", "content": "and now"}]  # fmt: skip
    hook_input = {"session_id": "c0754914-50f0-45ed-937d-0900b2d1625d", "transcript_path": str(transcript),
                  "cwd": str(project), "hook_event_name": "BeforeModel", "timestamp": "2026-12-06T08:56:01.698Z",
                  "llm_request": {"model": "gemini-2.5-flash", "messages": request}}  # fmt: skip
    answer = json.loads(run_hook(json.dumps(hook_input).encode(), env).stdout)["hookSpecificOutput"]
    (answered,) = answer["llm_request"]["messages"]
    ours = answered["content"][len(first) :]
    assert answered["content"].startswith(first + "\n\n") and ours.count(HEADER) == 1
    assert "90 seconds, changed after the read" in ours and "30 seconds" not in ours
