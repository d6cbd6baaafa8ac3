"""Round 4: an imported transcript never admits a file outside the workspace by itself; real server.

On main ``compact/importSession`` admitted every outside file the log showed read with success, resolved *now* by
full realpath: a crafted log's ``Read`` of ``~/.ssh/id_rsa`` or of a private note put it in ``admittedFiles`` and
the next compaction re-attached it; a genuine log's ``notes.md``, since become a link to ``~/.aws/credentials``,
admitted the credentials. Now the files are only proposed, in one ``window/showMessageRequest`` naming each: a
dismissed prompt admits nothing; "Let these files in" admits the named files, each bound to the file it is (no
link at any component, the same device and inode when re-read); credential files and links are never proposed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.evaluation.session_log import SessionLog, words

from .rpc import RawServer, Workspace, server_env

pytestmark = pytest.mark.timeout(120)

DIARY = "SECRET-DIARY-CONTENT-1"
KEY = "SECRET-SSH-KEY-2"
AWS = "SECRET-AWS-KEY-3"
SWAPPED = "SECRET-SWAPPED-IN-4"


def fake_home(base: Path) -> Path:
    home = base / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".aws").mkdir()
    (home / "private").mkdir()
    (home / ".ssh" / "id_rsa").write_text(f"{KEY}\n")
    (home / ".aws" / "credentials").write_text(f"{AWS}\n")
    (home / "private" / "diary.txt").write_text(f"{DIARY}\n")
    (home / "private" / "other.txt").write_text(f"{SWAPPED}\n")
    (home / "shared").mkdir()
    (home / "shared" / "notes.md").symlink_to(home / ".aws" / "credentials")  # a pull made it a link since
    return home


def crafted_log(workspace: Workspace, home: Path) -> Path:
    log = SessionLog(cwd=str(workspace.root), session_id="5e55-crafted")
    for step in ("reading", "thinking"):
        log.say(words(3_000, step))  # long enough that compacting is worth it
        log.user("go on")
    log.read("app.py", "print('app')\n")
    for path in (home / ".ssh" / "id_rsa", home / "private" / "diary.txt", home / "shared" / "notes.md"):
        log.call("Read", {"file_path": str(path)}, "     1→what it held back then")
    log.say("Done.")
    return log.write(workspace.base, "shared-to-reproduce-a-bug.jsonl")


def start(workspace: Workspace, home: Path) -> RawServer:
    return RawServer(workspace, env=server_env(HOME=str(home)))


def compacted_text(server: RawServer, session_id: str) -> str:
    server.command("compact.compact", {"sessionId": session_id})
    return str(server.messages(session_id))


def admitted_after_the_answer(server: RawServer, session_id: str) -> dict[str, object]:
    """The status once the admission the answer makes has landed (it runs beside the requests: each status
    round trip is the wait)."""
    for _ in range(500):
        status = server.request("compact/status", {"sessionId": session_id})
        if status["admittedFiles"]:
            break
    return dict(status)


def prompts_of(server: RawServer) -> list[str]:
    return [r["params"]["message"] for r in server.server_requests if r["method"] == "window/showMessageRequest"]


def test_a_dismissed_prompt_admits_nothing(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    workspace.write("app.py", "print('app')\n")
    home = fake_home(tmp_path)
    with start(workspace, home) as server:
        session_id = server.request("compact/importSession", {"path": str(crafted_log(workspace, home))})["sessionId"]
        server.wait_for_server_request("window/showMessageRequest")
        assert server.request("compact/status", {"sessionId": session_id})["admittedFiles"] == []
        text = compacted_text(server, session_id)
        assert DIARY not in text and KEY not in text and AWS not in text
        [prompt] = prompts_of(server)
        assert str(home / "private" / "diary.txt") in prompt
        assert "id_rsa" not in prompt and "notes.md" not in prompt, "a credential or a link was proposed"


def test_the_users_yes_admits_the_named_file_bound_to_the_file_it_was(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    workspace.write("app.py", "print('app')\n")
    home = fake_home(tmp_path)
    diary = home / "private" / "diary.txt"
    with start(workspace, home) as server:
        server.prompt_answer = "Let these files in"
        session_id = server.request("compact/importSession", {"path": str(crafted_log(workspace, home))})["sessionId"]
        server.wait_for_server_request("window/showMessageRequest")
        status = admitted_after_the_answer(server, session_id)
        assert status["admittedFiles"] == [{"path": str(diary), "reason": "transcript"}]
        text = compacted_text(server, session_id)
        assert DIARY in text, "the admitted file did not come back: the test would prove nothing"
        assert KEY not in text and AWS not in text
        server.command("compact.undo", {"sessionId": session_id})
        os.replace(home / "private" / "other.txt", diary)  # another file at the admitted path
        assert SWAPPED not in compacted_text(server, session_id)
        server.command("compact.undo", {"sessionId": session_id})
        diary.unlink()
        diary.symlink_to(home / ".aws" / "credentials")
        assert AWS not in compacted_text(server, session_id)
