"""The benchmarks' process-tree memory: a peak before the start is not counted, a descendant's growth is."""

from __future__ import annotations

import subprocess
import sys
import time

from tests.reliability.process_tree import TreeMemory, descendants

GROW_LATER = """
import sys, time
sys.stdin.readline()  # the parent's signal: the base is taken
block = bytearray({mib} * 2**20)
for i in range(0, len(block), 4096):
    block[i] = 1
print("grown", flush=True)
sys.stdin.readline()
"""


def spawn(code: str) -> subprocess.Popen[str]:
    """A Python process running ``code``, its stdin and stdout on pipes."""
    return subprocess.Popen([sys.executable, "-c", code], text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def test_a_peak_before_the_start_is_not_counted() -> None:
    code = "import sys\nb = bytearray(40 * 2**20)\nfor i in range(0, len(b), 4096): b[i] = 1\ndel b\n"
    proc = spawn(code + "print('ready', flush=True)\nsys.stdin.readline()")
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline() == "ready\n"
        memory = TreeMemory(proc.pid).start()
        time.sleep(0.2)
        memory.stop()
        assert memory.grown_mib() < 2  # start-up's 40 MiB peak is behind the reset
        assert memory.base_mib() > 1
    finally:
        proc.kill()
        proc.wait()


def test_what_a_grandchild_grows_after_the_start_is_counted() -> None:
    """A process whose child does the work: the tree's figure is the child's growth."""
    child = (
        "import subprocess, sys\n"
        f"g = subprocess.Popen([sys.executable, '-c', {GROW_LATER.format(mib=30)!r}], stdin=sys.stdin)\n"
        "print('ready', flush=True)\n"
        "g.wait()\n"
    )
    proc = spawn(child)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline() == "ready\n"
        deadline = time.monotonic() + 10
        while len(descendants(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        memory = TreeMemory(proc.pid).start()
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "grown\n"
        memory.stop()
        assert memory.processes() == 2
        assert 28 <= memory.grown_mib() < 40
    finally:
        proc.kill()
        proc.wait()
