"""One writer per session across servers (store/session_lock.py): a second window's server is refused writes and
told who holds the session, and the session is free again however the holder ended."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from compact_lsp.store.session_lock import LockUnusable, SessionBusy, WriterLock, lock_path

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no flock on Windows")

HOLDER = """
import sys, time
from pathlib import Path
from compact_lsp.store.session_lock import WriterLock
lock = WriterLock(Path(sys.argv[1]))
lock.acquire()
print("held", flush=True)
time.sleep(60)
"""


def _holding(session_file: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(session_file)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_server_is_refused_and_told_who_writes(tmp_path: Path) -> None:
    session_file = tmp_path / "ses_1.jsonl"
    holder = _holding(session_file)
    try:
        lock = WriterLock(session_file)
        with pytest.raises(SessionBusy) as refused:
            lock.acquire()
        assert refused.value.owner["pid"] == holder.pid
        assert f"process {holder.pid}" in str(refused.value)
        assert "only follows it" in str(refused.value)
        assert not lock.held
        assert (lock.holder() or {}).get("pid") == holder.pid
    finally:
        holder.kill()
        holder.wait()


def test_the_session_is_free_again_when_its_holder_is_killed(tmp_path: Path) -> None:
    session_file = tmp_path / "ses_2.jsonl"
    holder = _holding(session_file)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    lock = WriterLock(session_file)
    assert lock.holder() is None
    lock.acquire()
    assert lock.held and lock.holder() is None  # ours now: nobody else holds it
    lock.release()


def test_an_unreadable_owner_is_still_refused_as_another_process(tmp_path: Path) -> None:
    session_file = tmp_path / "ses_3.jsonl"
    holder = _holding(session_file)
    try:
        lock_path(session_file).write_bytes(b"\x00not json")
        with pytest.raises(SessionBusy, match="another process"):
            WriterLock(session_file).acquire()
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("kind", ["directory", "symlink"])
def test_something_else_where_the_lock_belongs_is_named_and_left_alone(tmp_path: Path, kind: str) -> None:
    session_file = tmp_path / "ses_4.jsonl"
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    if kind == "directory":
        lock_path(session_file).mkdir()
    else:
        lock_path(session_file).symlink_to(target)
    with pytest.raises(LockUnusable) as refused:
        WriterLock(session_file).acquire()
    assert str(lock_path(session_file)) in str(refused.value) and "Remove or rename" in str(refused.value)
    assert target.read_text() == "keep me\n"
