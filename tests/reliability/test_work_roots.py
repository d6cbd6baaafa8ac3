"""Roots only the user widens, through the real server: ``/`` and the home directory are never work roots.

Whatever names them — the workspace folder itself, a workspace folder that is a symlink to ``$HOME``, a
``didChangeWorkspaceFolders`` adding ``/``, ``additionalDirectories`` of ``/`` or ``~`` — they are refused with one
warning naming the setting, and ``~/.ssh/id_rsa`` stays unreadable. (On main each was admitted silently.)
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from .rpc import RawServer, RpcError, Workspace, server_env

pytestmark = pytest.mark.timeout(90)

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- fake-key-7d1c"


def home_with_a_key(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY + "\n")
    return home


def warnings(server: RawServer) -> list[str]:
    return [p["message"] for p in server.notifications_of("window/showMessage") if "never work roots" in p["message"]]


def refused_key_read(server: RawServer, session_id: str, path: str) -> str:
    with pytest.raises(RpcError) as refused:
        server.request("compact/readFile", {"sessionId": session_id, "path": path})
    assert KEY not in refused.value.message
    return refused.value.message


def wait_for_warnings(server: RawServer, count: int) -> list[str]:
    server.wait_for_notification("window/showMessage", lambda p: "never work roots" in p["message"], timeout=15)
    server.request("compact/status", {})  # a round trip: any further warning has been sent by now
    found = warnings(server)
    assert len(found) == count, found
    return found


@pytest.mark.parametrize(
    ("extra", "setting"),
    [
        pytest.param({"additionalDirectories": ["/"]}, "additionalDirectories entry /", id="additional-root"),
        pytest.param({"additionalDirectories": ["~"]}, "additionalDirectories entry", id="additional-home"),
    ],
)
def test_additional_directories_of_the_disk_root_or_home_are_refused_with_one_warning(
    tmp_path: Path, extra: dict[str, Any], setting: str
) -> None:
    home = home_with_a_key(tmp_path)
    workspace = Workspace(tmp_path)
    with RawServer(workspace, workspace.options(**extra), env=server_env(HOME=str(home))) as server:
        session_id = server.new_session()
        [warning] = wait_for_warnings(server, 1)
        assert setting in warning
        refused_key_read(server, session_id, str(home / ".ssh" / "id_rsa"))
        server.notify("workspace/didChangeConfiguration", {"settings": workspace.options(**extra)})
        assert len(wait_for_warnings(server, 1)) == 1  # the same settings again: not warned twice


def test_a_workspace_folder_that_is_a_link_to_home_is_no_work_root(tmp_path: Path) -> None:
    home = home_with_a_key(tmp_path)
    workspace = Workspace(tmp_path)
    shutil.rmtree(workspace.root)
    workspace.root.symlink_to(home)
    with RawServer(workspace, env=server_env(HOME=str(home))) as server:
        session_id = server.new_session()
        [warning] = wait_for_warnings(server, 1)
        assert "workspace folder" in warning and "home directory" in warning
        for path in (str(home / ".ssh" / "id_rsa"), ".ssh/id_rsa", str(workspace.root / ".ssh" / "id_rsa")):
            refused_key_read(server, session_id, path)


def test_a_workspace_folder_of_slash_added_later_is_refused_with_one_warning(tmp_path: Path) -> None:
    home = home_with_a_key(tmp_path)
    workspace = Workspace(tmp_path)
    with RawServer(workspace, env=server_env(HOME=str(home))) as server:
        session_id = server.new_session()
        added = {"event": {"added": [{"uri": "file:///", "name": "root"}], "removed": []}}
        server.notify("workspace/didChangeWorkspaceFolders", added)
        [warning] = wait_for_warnings(server, 1)
        assert "workspace folder /" in warning and "root of the disk" in warning
        refused_key_read(server, session_id, str(home / ".ssh" / "id_rsa"))
        refused_key_read(server, session_id, "/etc/passwd")
        workspace.write("src/ok.py", "x = 1\n")  # the real workspace still works
        assert (
            server.request("compact/readFile", {"sessionId": session_id, "path": "src/ok.py"})["content"] == "x = 1\n"
        )
