"""What a process and all its descendants add to their resident memory from a moment on (Linux ``/proc``).

``TreeMemory(pid).start()`` takes each process's resident set (``VmRSS``) as its base and resets its peak
(``VmHWM``, by writing ``5`` to ``/proc/<pid>/clear_refs``), so a later ``VmHWM`` is the peak since then, in the
same process, after its start-up: no second process's start-up (whose RSS varies by a few MiB between identical
runs) is subtracted. A thread samples the tree every ``interval`` seconds, so a child that appears later (its base
is 0: all of it is what the work cost) or exits before the end is counted too, with the last peak seen of it.
``grown()`` is the sum over the tree of each process's own peak minus its base, so the figure stays right when a
process does its work in a child.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path


def _status_kib(pid: int, *keys: str) -> dict[str, int] | None:
    """The ``/proc/<pid>/status`` fields in KiB; None when the process is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    found = {}
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name in keys:
            found[name] = int(value.split()[0])
    return found if len(found) == len(keys) else None  # a zombie has no Vm* lines


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (through each thread's ``children``)."""
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        seen.append(p)
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            for task in os.listdir(f"/proc/{p}/task"):
                with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                    todo += [int(c) for c in Path(f"/proc/{p}/task/{task}/children").read_text().split()]
    return seen


def reset_peak(pid: int) -> None:
    """Set the process's ``VmHWM`` to its ``VmRSS`` now (Linux 4.0+: ``clear_refs`` 5)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


class TreeMemory:
    """Peak minus base, summed over a process tree, from ``start()`` on (see the module doc)."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid = pid
        self.interval = interval
        self.base: dict[int, int] = {}
        """KiB resident at ``start()``, by pid."""
        self.peak: dict[int, int] = {}
        """The highest ``VmHWM`` seen since ``start()``, KiB, by pid (every process the tree held meanwhile)."""
        self._stop = threading.Event()
        self._sampler: threading.Thread | None = None

    def start(self) -> TreeMemory:
        for pid in descendants(self.pid):
            reset_peak(pid)
            now = _status_kib(pid, "VmRSS", "VmHWM")
            if now is None:
                continue
            if now["VmHWM"] > now["VmRSS"] + 1024:  # the reset did nothing: the peak would be start-up's
                raise OSError(f"cannot reset the peak RSS of {pid} (VmHWM {now['VmHWM']} kB, VmRSS {now['VmRSS']} kB)")
            self.base[pid] = self.peak[pid] = now["VmRSS"]
        self._sampler = threading.Thread(target=self._sample_until_stopped, name="tree-memory", daemon=True)
        self._sampler.start()
        return self

    def _sample(self) -> None:
        for pid in descendants(self.pid):
            now = _status_kib(pid, "VmHWM")
            if now is not None:
                self.peak[pid] = max(self.peak.get(pid, 0), now["VmHWM"])

    def _sample_until_stopped(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def stop(self) -> None:
        """Take the last sample and stop sampling (before the tree is shut down)."""
        self._stop.set()
        if self._sampler is not None:
            self._sampler.join()
        self._sample()

    def base_mib(self) -> float:
        return sum(self.base.values()) / 1024

    def grown_mib(self) -> float:
        """What the tree added: each process's peak since ``start()`` minus its own base (0 for a newcomer)."""
        return sum(peak - self.base.get(pid, 0) for pid, peak in self.peak.items()) / 1024

    def processes(self) -> int:
        return len(self.peak)
