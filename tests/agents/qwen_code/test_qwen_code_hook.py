"""Qwen Code's hook end to end: ``compact-lsp qwen-code hook`` run as Qwen runs it (a process, the hook input on
stdin) on a session that read a big file's region, small files, a file through the shell and a credential file,
then compressed; and where it is registered (its install/uninstall round trip: tests/agents/test_hook_install.py)."""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from compact_lsp.agents.qwen_code.hook import HEADER, NOTHING_SINCE, QWEN_CONTEXT_LIMIT
from compact_lsp.agents.qwen_code.transcript import PENDING_WAIT_S, read_window
from compact_lsp.agents.qwen_code.tuning import MISSING, qwen_files, qwen_setting

from .transcripts import QwenTranscript

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


def big_file() -> str:
    return "".join(f"handler_{n} = respond(request, {n})  # line {n + 1}\n" for n in range(3000))


@pytest.fixture
def session(tmp_path: Path, env: dict[str, str]) -> QwenTranscript:
    project = tmp_path / "project"
    project.mkdir()
    (project / "big.py").write_text(big_file())
    (project / "html.py").write_text('TEMPLATE = "<b>&lt;escaped&gt;</b>" if a < b and c > d else ""\n')
    for name in "abcdef":
        (project / f"{name}.py").write_text(f"VALUE_{name.upper()} = '{name * 10}'\n")
    (project / "notes.txt").write_text("shell-read note: the migration runs last\n")
    (project / ".env").write_text("API_KEY=sk-do-not-leak\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside the project: never re-read\n")
    t = QwenTranscript(Path(env["HOME"]), project)
    t.user("fix the handler")
    t.call("read_file", {"file_path": str(project / "big.py"), "offset": REGION_LINE - 1, "limit": 30}, "...")
    t.call("read_file", {"file_path": str(project / "html.py")}, "TEMPLATE")
    t.call("read_file", {"file_path": str(project / ".env")}, "API_KEY=sk-do-not-leak")
    t.call("read_file", {"file_path": str(outside)}, "outside")
    t.call("read_file", {"file_path": str(project / "missing.py")}, error="File not found")
    t.call("run_shell_command", {"command": "cat notes.txt"}, "shell-read note")
    for name in "abcdef":
        t.call("read_file", {"file_path": str(project / f"{name}.py")}, f"VALUE_{name.upper()}")
    t.compress("<state_snapshot>the user wants the handler fixed</state_snapshot>")
    t.write()
    return t


def run_hook(stdin: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "compact_lsp", "qwen-code", "hook"], input=stdin, env=env, capture_output=True,
        timeout=60, check=True,
    )  # fmt: skip


def as_qwen_sends(context: str) -> str:
    """What the model reads: Qwen escapes < and > (measured), and the header says to read it as HTML-escaped."""
    return html.unescape(context.replace("<", "&lt;").replace(">", "&gt;"))


def test_the_hook_adds_what_qwen_does_not_put_back(session: QwenTranscript, env: dict[str, str]) -> None:
    done = run_hook(session.hook_input(), env)
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    context = out["additionalContext"]
    assert context.startswith(HEADER) and len(context) <= QWEN_CONTEXT_LIMIT
    assert "<" not in HEADER and ">" not in HEADER  # Qwen would escape them: the key to reading the block survives
    seen = as_qwen_sends(context)
    assert f"# line {REGION_LINE + 1}\n" in seen  # the region of the big file Qwen names only
    assert "shell-read note" in seen  # a file read through the shell: Qwen does not re-read it
    assert "VALUE_A" in seen and "VALUE_B" not in seen  # Qwen re-reads the five most recent itself
    assert 'TEMPLATE = "<b>&lt;escaped&gt;</b>" if a < b and c > d else ""' in seen  # code arrives as it is
    assert "sk-do-not-leak" not in context and "never re-read" not in context


def test_the_turn_going_on_before_the_hook_reads_does_not_hide_the_compacted_window(
    session: QwenTranscript, env: dict[str, str]
) -> None:
    """After an automatic compaction Qwen does not wait for the hook (measured): the next tool call and its result
    may be written by the time the hook reads the transcript."""
    session.call("run_shell_command", {"command": "true"}, "Exit Code: 0")
    session.write()
    context = json.loads(run_hook(session.hook_input(), env).stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"# line {REGION_LINE + 1}\n" in as_qwen_sends(context)


def test_a_later_compaction_whose_record_is_not_written_yet_gets_the_files_since_the_last_one(
    session: QwenTranscript, env: dict[str, str]
) -> None:
    """Qwen queues its records' writes and runs the hook without waiting for them (measured in its TUI): the
    second ``/compress``'s record may not be in the file yet. The files since the first compaction are what it
    compacted, not the first window again."""
    project = session.cwd
    (project / "later.txt").write_text("read between the compactions\n")
    session.call("run_shell_command", {"command": "cat later.txt"}, "read between the compactions")
    session.compress_unwritten()
    session.write()
    context = json.loads(run_hook(session.hook_input(), env).stdout)["hookSpecificOutput"]["additionalContext"]
    seen = as_qwen_sends(context)
    assert "read between the compactions" in seen
    assert f"# line {REGION_LINE + 1}\n" not in seen and "shell-read note" not in seen  # the first window's


def test_a_later_compaction_with_nothing_to_add_replaces_the_previous_block(
    session: QwenTranscript, env: dict[str, str]
) -> None:
    """Qwen puts the previous block back when the hook answers nothing (its ``tryCompressChat``): after a turn that
    used no file, the hook says so instead, and the first window's files, as they were then, are gone."""
    session.user("thanks, that is all")
    session.compress("<state_snapshot>the handler was fixed</state_snapshot>")
    session.write()
    context = json.loads(run_hook(session.hook_input(), env).stdout)["hookSpecificOutput"]["additionalContext"]
    assert context == NOTHING_SINCE


def test_a_later_compaction_after_a_turn_without_tools_whose_record_is_not_written_yet_adds_nothing_again(
    session: QwenTranscript, env: dict[str, str]
) -> None:
    """The order the TUI wrote under load (two runs of three at load 7-11): a turn that used no tool, ``/compress``,
    and the hook runs before its record is in the file. The turn's own records show that the last record in the
    file is the previous compaction's, so the window is the turn's (nothing), not the one before it again."""
    session.user("go on")
    session.answer("Went on.")
    session.compress_unwritten()
    session.write()
    context = json.loads(run_hook(session.hook_input(), env).stdout)["hookSpecificOutput"]["additionalContext"]
    assert context == NOTHING_SINCE
    logged = (Path(env["XDG_STATE_HOME"]) / "compact-lsp" / "log" / "qwen-code-hook.log").read_text()
    assert "'recordNotWrittenYet': True" in logged and "'waitedForRecord': 1." in logged  # waited, in vain


BACK_TO_BACK = Path(__file__).resolve().parents[2] / "fixtures" / "qwen_code" / "back-to-back-compress.jsonl"
"""What the real TUI (0.24.4, 2026-12-06) wrote for a turn that read a region of ``src/big.py``, ``notes.md``
through ``cat`` and ``src/small_a.py``, then ``/compress`` typed twice with nothing between: each compaction's
record, then the ``slash_command`` records of its ``/compress``; its project was ``/home/user/proj``."""
BACK_TO_BACK_FIRED = ("2026-12-06T08:30:17.457Z", "2026-12-06T08:30:21.948Z")
"""When Qwen ran the hook for each ``/compress`` (its inputs' ``timestamp``)."""


def back_to_back(tmp_path: Path, records: int) -> tuple[Path, Path]:
    """The recorded transcript's first ``records`` lines in a project of the files it read: (transcript, project)."""
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    lines = "".join(f"handler_{i} = respond(request, {i})  # line {i} <tag> & more\n" for i in range(1, 3001))
    (project / "src" / "big.py").write_text(lines)
    (project / "src" / "small_a.py").write_text("SMALL_A = 'put back by Qwen itself'\n")
    (project / "notes.md").write_text("# Notes\n\nNOTES_LINE: the handlers must answer within 30 seconds.\n")
    transcript = tmp_path / "chat.jsonl"
    recorded = BACK_TO_BACK.read_text().replace("/home/user/proj", str(project)).splitlines(keepends=True)
    transcript.write_text("".join(recorded[:records]))
    return transcript, project


def recorded_input(transcript: Path, project: Path, fired_at: str) -> bytes:
    return json.dumps({
        "session_id": "902286c4", "transcript_path": str(transcript), "cwd": str(project),
        "hook_event_name": "SessionStart", "timestamp": fired_at, "permission_mode": "yolo", "source": "compact",
        "model": "stub-model",
    }).encode()  # fmt: skip


def test_two_compress_with_nothing_between_get_the_note_even_before_the_second_record_is_written(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The second ``/compress``'s hook reads the file before its record is in it (Qwen queues its writes): what it
    finds last is the first compaction's record, then the first ``/compress``'s own records. Those show that the
    first compaction is over, so nothing was compacted since it: the note, not the first block again."""
    transcript, project = back_to_back(tmp_path, 19)  # the first compaction's record, written
    first = json.loads(run_hook(recorded_input(transcript, project, BACK_TO_BACK_FIRED[0]), env).stdout)
    seen = as_qwen_sends(first["hookSpecificOutput"]["additionalContext"])
    assert "handler_1010 = respond(request, 1010)" in seen and "NOTES_LINE" in seen and "SMALL_A" not in seen
    transcript, project = back_to_back(tmp_path / "second", 22)  # the first /compress's records, not the second's
    second = json.loads(run_hook(recorded_input(transcript, project, BACK_TO_BACK_FIRED[1]), env).stdout)
    assert second["hookSpecificOutput"]["additionalContext"] == NOTHING_SINCE
    logged = (Path(env["XDG_STATE_HOME"]) / "compact-lsp" / "log" / "qwen-code-hook.log").read_text()
    assert "'recordNotWrittenYet': True" in logged.splitlines()[-1]  # waited for it, in vain


def test_in_stream_json_two_compress_with_nothing_between_get_the_note_too(tmp_path: Path, env: dict[str, str]) -> None:
    """Headless (``--input-format stream-json``) Qwen writes no command records (measured 2026-12-06): what shows
    that the first compaction is over is the answer to the second ``/compress``'s summary request (its telemetry
    record, ``prompt_id`` ``compress-<ms>``)."""
    transcript, project = back_to_back(tmp_path, 22)
    kept = [line for line in transcript.read_text().splitlines(keepends=True) if '"slash_command"' not in line]
    assert len(kept) == 20 and '"prompt_id": "compress-' in kept[-1].replace('":"', '": "')
    transcript.write_text("".join(kept))
    second = json.loads(run_hook(recorded_input(transcript, project, BACK_TO_BACK_FIRED[1]), env).stdout)
    assert second["hookSpecificOutput"]["additionalContext"] == NOTHING_SINCE


def test_the_second_compress_waits_for_its_record_and_finds_nothing_since_the_first(tmp_path: Path) -> None:
    """The same, with the record written while the hook waits: the window between the two records, exactly."""
    transcript, project = back_to_back(tmp_path, 22)
    rest = BACK_TO_BACK.read_text().replace("/home/user/proj", str(project)).splitlines(keepends=True)[22:]
    late = threading.Timer(0.3, lambda: transcript.write_text(transcript.read_text() + "".join(rest)))
    late.start()
    try:
        qwen = read_window(str(transcript), str(project), BACK_TO_BACK_FIRED[1])
    finally:
        late.join()
    assert 0.25 < qwen.waited < PENDING_WAIT_S and not qwen.unwritten
    assert qwen.compactions == 2 and qwen.messages == [] and qwen.summary.startswith("Nothing to do.")


def test_a_resumed_session_compacted_before_gets_the_last_compaction_s_files_as_they_are_now(
    session: QwenTranscript, env: dict[str, str]
) -> None:
    """``qwen --continue``: Qwen rebuilds the history from the transcript but not our block (it kept it in memory
    only; measured). The turns after the compaction are in the history Qwen rebuilt: not ours to add."""
    big = session.cwd / "big.py"
    big.write_text(big.read_text().replace(f"# line {REGION_LINE + 3}\n", "# line changed since\n"))
    (session.cwd / "later.txt").write_text("read after the compaction\n")
    session.user("go on")
    session.call("run_shell_command", {"command": "cat later.txt"}, "read after the compaction")
    session.write()
    done = run_hook(session.hook_input("resume"), env)
    seen = as_qwen_sends(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])
    assert "# line changed since\n" in seen and f"# line {REGION_LINE + 3}\n" not in seen  # re-read now
    assert "shell-read note" in seen and "VALUE_B" not in seen  # as after the compaction: not Qwen's own
    assert "read after the compaction" not in seen
    logged = (Path(env["XDG_STATE_HOME"]) / "compact-lsp" / "log" / "qwen-code-hook.log").read_text()
    assert "'resumed': True" in logged and "waitedForRecord" not in logged  # the transcript is whole: no wait


def test_with_two_installs_a_resume_right_after_a_compaction_is_answered_once_too(
    session: QwenTranscript, env: dict[str, str]
) -> None:
    """Our hook in the user's and the project's settings: Qwen runs both, and one answers each event (one claim per
    transcript state, agents/hook_claims.py). A session quit right after its compaction's hook and resumed leaves
    the transcript as it was: the resume still gets its answer, not taken for the compaction's claim."""
    ours = {"hooks": {"SessionStart": [{"matcher": "compact|resume", "hooks": [{"command": "/x/qwen-code-hook-0"}]}]}}
    for folder in (Path(env["HOME"]), session.cwd):
        (folder / ".qwen").mkdir(exist_ok=True)
        (folder / ".qwen" / "settings.json").write_text(json.dumps(ours))
    for source in ("compact", "resume"):
        answers = [run_hook(session.hook_input(source), env).stdout for _ in range(2)]
        assert sorted(bool(a) for a in answers) == [False, True], source


def test_a_resumed_session_never_compacted_or_with_nothing_to_add_gets_nothing(
    session: QwenTranscript, env: dict[str, str]
) -> None:
    session.user("thanks, that is all")
    session.compress("<state_snapshot>the handler was fixed</state_snapshot>")
    session.write()
    assert run_hook(session.hook_input("resume"), env).stdout == b""  # the note replaces no block of a new process
    fresh = QwenTranscript(Path(env["HOME"]), session.cwd, session_id="never-compacted")
    fresh.user("hello")
    fresh.call("read_file", {"file_path": str(session.cwd / "a.py")}, "VALUE_A")
    fresh.write()
    assert run_hook(fresh.hook_input("resume"), env).stdout == b""
    assert run_hook(fresh.hook_input("startup"), env).stdout == b""


@pytest.mark.parametrize(
    ("value", "files"),
    [(None, 5), ("", 5), ("1", 1), (" 2 ", 2), ("0", 0), ("007", 7), ("12", 12), ("9007199254740991", 2**53 - 1),
     ("9007199254740992", 5), ("1" * 5000, 5), ("-1", 5), ("1.5", 5), ("1e2", 5), ("+3", 5), ("٣", 5), ("x", 5)],
)  # fmt: skip
def test_qwen_s_recent_files_count_is_read_as_qwen_reads_it(value: str | None, files: int) -> None:
    """Qwen 0.24.4's ``resolveNumber(env, setting, 5, {integer: true, minInclusive: 0})``: trimmed ASCII digits
    that make a safe integer; anything else falls back (to its setting, else 5)."""
    assert qwen_files({} if value is None else {"QWEN_COMPACT_MAX_RECENT_FILES": value}) == files


def settings_file(path: Path, retain: object, **more: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"model": {"chatCompression": {"maxRecentFilesToRetain": retain}}, **more}))


@pytest.mark.parametrize(
    ("env_value", "setting", "files"),
    [(None, 2, 2), ("", 2, 2), ("x", 2, 2), ("9007199254740992", 2, 2), ("3", 2, 3), (None, 0, 0), (None, 4.0, 4),
     (None, 1.5, 5), (None, -1, 5), (None, "2", 5), (None, True, 5), (None, None, 5), (None, 2**53, 5),
     (None, MISSING, 5)],
)  # fmt: skip
def test_an_invalid_variable_falls_back_to_qwen_s_setting_then_to_five(
    env_value: str | None, setting: object, files: int
) -> None:
    """Qwen's ``resolveNumber``: the variable when valid, else the setting when it is a safe integer of at least
    0 (a JSON number; ``4.0`` is one in JavaScript), else 5."""
    env = {} if env_value is None else {"QWEN_COMPACT_MAX_RECENT_FILES": env_value}
    assert qwen_files(env, setting) == files


def test_the_setting_is_read_from_qwen_s_settings_files_in_qwen_s_order(tmp_path: Path) -> None:
    """System over the workspace over the user over system defaults; the first file that sets it decides, valid
    or not (JSON ``null`` included); the workspace's file only while folder trust is off."""
    workspace, user, system = tmp_path / "proj", tmp_path / "qwenhome", tmp_path / "etc" / "settings.json"
    env = {"QWEN_HOME": str(user), "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(system)}
    assert qwen_setting(str(workspace), env) is MISSING
    settings_file(tmp_path / "etc" / "system-defaults.json", 1)
    assert qwen_setting(str(workspace), env) == 1
    (user / "settings.json").parent.mkdir(parents=True)
    (user / "settings.json").write_text('{"chatCompression": {"maxRecentFilesToRetain": 2}}')  # version 1
    assert qwen_setting(str(workspace), env) == 2
    settings_file(user / "settings.json", 2)
    settings_file(workspace / ".qwen" / "settings.json", None)
    assert qwen_setting(str(workspace), env) is None  # set, to nothing valid: Qwen then takes 5, not the user's
    settings_file(workspace / ".qwen" / "settings.json", 3)
    assert qwen_setting(str(workspace), env) == 3
    settings_file(user / "settings.json", 2, security={"folderTrust": {"enabled": True}})
    assert qwen_setting(str(workspace), env) == 2  # trust depends on rules not modelled: the workspace's skipped
    settings_file(system, 4)
    assert qwen_setting(str(workspace), env) == 4
    system.write_text("{ // a comment: not plain JSON\n}")
    assert qwen_setting(str(workspace), env) == 2


def test_a_crafted_settings_file_is_no_setting_and_fails_nothing(tmp_path: Path) -> None:
    """A workspace is untrusted: a settings file nested past the parser's depth, or not a regular file, reads as
    absent (the hook goes on with Qwen's default), never an exception out of the hook."""
    workspace, user = tmp_path / "proj", tmp_path / "qwenhome"
    env = {"QWEN_HOME": str(user), "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "none.json")}
    (workspace / ".qwen").mkdir(parents=True)
    (workspace / ".qwen" / "settings.json").write_text("[" * 200_000)
    assert qwen_setting(str(workspace), env) is MISSING
    (workspace / ".qwen" / "settings.json").unlink()
    os.mkfifo(workspace / ".qwen" / "settings.json")  # would block a plain open
    assert qwen_setting(str(workspace), env) is MISSING


@pytest.mark.parametrize(("value", "ours"), [("1", "ABCDE"), ("0", "ABCDEF"), ("3", "ABC"), ("many", "A")])
def test_the_hook_leaves_out_as_many_recent_files_as_qwen_re_reads(
    session: QwenTranscript, env: dict[str, str], value: str, ours: str
) -> None:
    """a.py … f.py read last, in that order: Qwen re-reads the ``$QWEN_COMPACT_MAX_RECENT_FILES`` most recent
    (5 when unset or invalid), the hook adds the others."""
    done = run_hook(session.hook_input(), {**env, "QWEN_COMPACT_MAX_RECENT_FILES": value})
    seen = as_qwen_sends(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])
    assert [n for n in "ABCDEF" if f"VALUE_{n}" in seen] == list(ours)


def test_the_hook_leaves_out_as_many_recent_files_as_the_project_s_qwen_settings_say(
    session: QwenTranscript, env: dict[str, str]
) -> None:
    settings_file(session.cwd / ".qwen" / "settings.json", 2)
    done = run_hook(session.hook_input(), {**env, "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(session.cwd / "none.json")})
    seen = as_qwen_sends(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])
    assert [n for n in "ABCDEF" if f"VALUE_{n}" in seen] == list("ABCD")
    logged = (Path(env["XDG_STATE_HOME"]) / "compact-lsp" / "log" / "qwen-code-hook.log").read_text()
    assert "'qwenRecentFiles': 2" in logged  # what the hook took Qwen to re-read, for whoever reads the log


def test_the_hook_says_nothing_for_another_source_or_before_any_compaction(
    session: QwenTranscript, env: dict[str, str]
) -> None:
    assert run_hook(session.hook_input("startup"), env).stdout == b""
    assert run_hook(b"not json", env).stdout == b""
    session.path.write_text("")
    assert run_hook(session.hook_input(), env).stdout == b""


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compact_lsp", *args], env=env, capture_output=True, text=True, timeout=60
    )


def cli(args: list[str], env: dict[str, str]) -> str:
    done = run_cli(["qwen-code", *args], env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_qwen_code_is_registered_with_its_settings_files(tmp_path: Path, env: dict[str, str]) -> None:
    from compact_lsp.agents.qwen_code.agent import QWEN_CODE
    from compact_lsp.agents.qwen_code.live import QwenCodeSettings
    from compact_lsp.agents.qwen_code.settings import installed_commands
    from compact_lsp.agents.registered import agent_named

    assert agent_named("qwen-code") is QWEN_CODE
    assert QWEN_CODE.settings_path("project", str(tmp_path)) == tmp_path / ".qwen" / "settings.json"
    assert QWEN_CODE.settings_path("user", str(tmp_path)).parts[-2:] == (".qwen", "settings.json")
    where = QWEN_CODE.followed_folder(QwenCodeSettings(home=str(tmp_path / "q")), "/work/my_repo.v2/é𝄞")
    # Qwen's sanitizeCwd: every character but an ASCII letter or digit is "-", one a UTF-16 unit
    assert where is not None and where.folder == tmp_path / "q" / "projects" / "-work-my-repo-v2----" / "chats"
    assert where.wanted(str(where.folder / "s1.jsonl")) and not where.wanted(str(tmp_path / "q" / "s1.jsonl"))
    doctor = ["doctor", "--dir", str(tmp_path)]
    assert "compact-lsp qwen-code install-hook" in run_cli(doctor, env).stdout  # nothing installed: how to
    cli(["install-hook", "--dir", str(tmp_path)], env)
    assert run_cli(doctor, env).stdout.startswith("ok      qwen-code hook in ")
    assert (
        QWEN_CODE.installed_commands(tmp_path / ".qwen" / "settings.json")
        == installed_commands(tmp_path / ".qwen" / "settings.json")
        and len(installed_commands(tmp_path / ".qwen" / "settings.json")) == 1
    )


@pytest.mark.parametrize("scope", ["project", "user"])
def test_an_install_from_before_resume_is_said_by_doctor_and_updated_by_a_reinstall_to_the_same_round_trip(
    tmp_path: Path, env: dict[str, str], scope: str
) -> None:
    """An install by an earlier compact-lsp has ``"matcher": "compact"``: its hook starts, but a resumed session gets
    nothing. ``doctor`` says a reinstall adds it; the reinstall says what it added; uninstalling then gives back
    the file as it was before compact-lsp, byte for byte."""
    folder = tmp_path / ".qwen" if scope == "project" else Path(env["HOME"]) / ".qwen"
    folder.mkdir()
    settings = folder / "settings.json"
    original = '{\n\t"model": {"name": "qwen3-coder"},\n\t"hooks": {"SessionStart": [{"matcher": "startup", ' \
        '"hooks": [{"type": "command", "command": "echo hi"}]}]}\n}\n'  # fmt: skip
    settings.write_text(original)
    flags = [f"--{scope}", "--dir", str(tmp_path)]
    assert "installed the compact-lsp hook" in cli(["install-hook", *flags], env)
    installed = settings.read_text()
    earlier = installed.replace('"matcher": "compact|resume"', '"matcher": "compact"')  # as it was written then
    assert earlier != installed
    settings.write_text(earlier)
    doctor = run_cli(["doctor", "--dir", str(tmp_path)], env)
    assert doctor.returncode == 0, doctor.stdout  # it still starts: not broken
    assert doctor.stdout.startswith(f"update  qwen-code hook in {settings}: it starts, but an earlier compact-lsp")
    assert "qwen --continue" in doctor.stdout and f"Fix: compact-lsp qwen-code install-hook --{scope}" in doctor.stdout
    updated = cli(["install-hook", *flags], env)
    assert updated.startswith(f"updated the compact-lsp hook in {settings}: it now runs on resuming too")
    assert settings.read_text() == installed
    assert run_cli(["doctor", "--dir", str(tmp_path)], env).stdout.startswith("ok      qwen-code hook in ")
    assert "already installed" in cli(["install-hook", *flags], env)
    assert "removed" in cli(["uninstall-hook", *flags], env)
    assert settings.read_text() == original
