"""The cyclic collector beside a followed transcript's window: its full passes at a rebuild, not on an append.

A followed window is tens of thousands of long-lived containers (a 20,000-record transcript built from the
corpus's own lines: its messages, their blocks, their ledger). The collector's full pass scans every one of them
and ran, at its own moment, in the middle of an appended line: 156 ms of one line whose others took 5-30 ms (load
~4, docs/benchmarks.md, "Corpus-shaped transcripts"). ``settle_after_rebuild`` runs right after a window is read
whole (a first read, the agent's compaction, a re-import): one full pass then, which frees what the window it
replaced left in cycles, and ``gc.freeze`` moves what survives out of the collector's sight, so the passes that
appended lines trigger scan only what came since. Frozen objects are still freed by their reference counts; a cycle
among them waits for the next rebuild, which unfreezes everything first.
"""

from __future__ import annotations

import gc


def settle_after_rebuild() -> None:
    """One full pass over everything (frozen before included), then freeze what survives."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
