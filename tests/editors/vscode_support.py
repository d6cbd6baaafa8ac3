"""Running a code-server scenario (editors/vscode/e2e/*.mjs) under pytest: skip with what to run where the tier is
not set up, package the extension once per test run, run the scenario, and check the lines it printed.

The .vsix is packaged once for all scenarios of a run, under a lock: with ``-n`` (pytest-xdist) several scenarios
start at once, and two ``npm run package`` in one folder write one bundle over the other (a .vsix without pygls).
The first worker packages; the others wait for it and reuse what it built.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

import pytest

EXTENSION = Path(__file__).resolve().parents[2] / "editors" / "vscode"
WORK = EXTENSION / "e2e" / ".work"
NEEDED = {
    "code-server": WORK / "cs" / "node_modules" / ".bin" / "code-server",
    "playwright-core": WORK / "pw" / "node_modules" / "playwright-core",
    "the extension's node_modules": EXTENSION / "node_modules" / ".bin" / "vsce",
}
PACKAGE_SECONDS = 600
_LOCK = Path(tempfile.gettempdir()) / f"compact-vsix-{hashlib.sha1(bytes(EXTENSION)).hexdigest()[:12]}.lock"


def missing() -> list[str]:
    """What the code-server tier lacks here (empty: it can run)."""
    absent = [name for name, path in NEEDED.items() if not path.exists()]
    if not Path(os.environ.get("CHROMIUM", "/usr/bin/chromium")).exists():
        absent.append("chromium (apt-get install chromium)")
    if shutil.which("npm") is None:
        absent.append("npm")
    return absent


def _packaged_once() -> None:
    """``npm run package`` and the tests' build (the loopback stub the scenarios start), once per test run."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}"
    with _LOCK.open("a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.seek(0)
        if lock.read() == run_id:
            return
        package = subprocess.run(
            "npm run package --silent && npm run build:tests --silent",
            shell=True, cwd=EXTENSION, capture_output=True, text=True, timeout=PACKAGE_SECONDS,
        )  # fmt: skip
        assert package.returncode == 0, package.stdout + package.stderr
        lock.seek(0)
        lock.truncate()
        lock.write(run_id)


def run_in_code_server(script: str, seen: Iterable[str], *, seconds: int = 300) -> str:
    """Run ``e2e/<script>`` against the packaged extension; every line of ``seen`` must be in what it printed (its
    steps say what the page showed). Returns the output."""
    absent = missing()
    if absent:
        pytest.skip(f"VS Code e2e not set up ({', '.join(absent)}): run bash editors/vscode/e2e/setup.sh")
    _packaged_once()
    run = subprocess.run(["node", f"e2e/{script}"], cwd=EXTENSION, capture_output=True, text=True, timeout=seconds)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    for line in seen:
        assert line in output, f"{line!r} not in:\n{output}"
    return output
