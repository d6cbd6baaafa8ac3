"""Crash safety of the real server: SIGKILL mid-operation, and a disk that fills up.

The kill sample here is small (a few seconds); ``bench/bench_crash.py`` runs 100+ trials with figures.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .crash import OPERATIONS, read_round, run_trials
from .rpc import RawServer, RpcError, Workspace

pytestmark = pytest.mark.timeout(300)


@pytest.mark.slow
def test_sigkill_mid_operation_reloads_the_state_before_or_after(tmp_path: Path) -> None:
    _, results = run_trials(tmp_path, trials=9, seed=20261130)
    problems = [f"{r.operation} killed after {r.delay * 1000:.1f} ms: {p}" for r in results for p in r.problems]
    assert not problems, "\n".join(problems)
    assert {r.operation for r in results} == set(OPERATIONS)


# -- a full disk ----------------------------------------------------------------------------------------------


BIG = "x" * 64_000
"""A tool result larger than the room left on the 'disk'."""


@contextlib.contextmanager
def small_tmpfs(path: Path) -> Iterator[None]:
    """A 256 KiB tmpfs at ``path`` (skips without root), unmounted afterwards."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", str(path)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(directory: Path, leave: int) -> Path:
    """Write a filler file until at most ``leave`` bytes are free on ``directory``'s filesystem."""
    filler = directory / "filler.bin"
    with open(filler, "wb") as f:
        free = os.statvfs(directory).f_bavail * os.statvfs(directory).f_frsize
        with contextlib.suppress(OSError):
            f.write(b"\0" * max(0, free - leave))
            f.flush()
    return filler


class FullDisk:
    """Makes further writes to the session file fail, then lets them succeed again."""

    def __init__(self, server: RawServer, workspace: Workspace, session_id: str, tmpfs: bool) -> None:
        self.server, self.workspace, self.session_id, self.tmpfs = server, workspace, session_id, tmpfs
        self.filler: Path | None = None

    def fill(self) -> None:
        if self.tmpfs:
            self.filler = fill(self.workspace.sessions, leave=4096)
        else:  # a per-process file size limit: writes past it fail with EFBIG, as a full disk fails with ENOSPC
            size = self.workspace.session_file(self.session_id).stat().st_size
            resource.prlimit(self.server.proc.pid, resource.RLIMIT_FSIZE, (size + 4096, resource.RLIM_INFINITY))

    def free(self) -> None:
        if self.filler is not None:
            self.filler.unlink()
        else:
            resource.prlimit(self.server.proc.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)


@pytest.mark.parametrize("tmpfs", [pytest.param(True, id="tmpfs-full"), pytest.param(False, id="file-size-limit")])
def test_full_disk_gives_a_clear_error_and_loses_nothing(tmp_path: Path, tmpfs: bool) -> None:
    workspace = Workspace(tmp_path)
    with small_tmpfs(workspace.sessions) if tmpfs else contextlib.nullcontext():
        first = [
            {"role": "user", "content": [{"type": "text", "text": "Read the config."}]},
            *read_round("t1", "a.py", "a = 1"),
        ]
        with RawServer(workspace) as server:
            session_id = server.new_session("disk")
            server.append(session_id, first)
            path = workspace.session_file(session_id)
            disk = FullDisk(server, workspace, session_id, tmpfs)
            disk.fill()
            before_bytes = path.read_bytes()

            with pytest.raises(RpcError) as failure:
                server.append(session_id, read_round("t2", "big.py", BIG))
            assert failure.value.code == -32803  # RequestFailed: valid, but could not be done
            assert "could not save the session" in failure.value.message
            assert "nothing was changed" in failure.value.message
            if tmpfs:
                with pytest.raises(RpcError, match=r"could not save|No space left"):
                    for n in range(200):  # headers are small: keep creating until one does not fit
                        server.new_session(f"on a full disk {n}")
            assert server.alive
            assert server.messages(session_id) == first
            assert path.read_bytes() == before_bytes

            disk.free()
            second = read_round("t3", "b.py", BIG)
            server.append(session_id, second)
            assert server.messages(session_id) == first + second

        with RawServer(workspace) as reloaded:
            assert reloaded.messages(session_id) == first + second
            listed: list[dict[str, Any]] = reloaded.request("compact/sessions", {})
            assert session_id in {s["sessionId"] for s in listed}
