"""One malloc arena for every thread of a process (glibc), set before its first thread starts.

glibc gives each thread an arena of its own (up to eight a core), and an arena keeps the pages it touched however
little it still holds: following a transcript in its thread cost over the base several times its window that way
(bench/bench_follow.py's peak-memory goal; figures in docs/benchmarks.md); in the one arena the same work reuses
what start-up freed. The interpreter's lock already keeps threads from allocating at once, so they seldom wait for
the arena's.
"""

from __future__ import annotations

import sys

M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter: how many malloc arenas the process may have."""


def share_malloc_arena() -> bool:
    """One malloc arena for every thread; False where the C library is not glibc's (nothing changes)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # musl and others: no mallopt
        return False
    return bool(mallopt(M_ARENA_MAX, 1))
