"""The collector's full pass at a rebuild (runtime/cyclic_collector.py): cycles the replaced window left are
freed then, and what survives is out of the passes appended lines trigger."""

from __future__ import annotations

import gc
import weakref

from compact_lsp.runtime.cyclic_collector import settle_after_rebuild


class Node:
    """A cyclic piece of a window (a message that points back at its holder)."""

    def __init__(self) -> None:
        self.me = self


def test_a_rebuild_frees_the_old_cycles_and_freezes_the_window() -> None:
    try:
        old = Node()
        gone = weakref.ref(old)
        settle_after_rebuild()  # the first read: old is frozen with the window
        assert gc.get_freeze_count() > 0
        del old
        gc.collect()
        assert gone() is not None, "a frozen cycle waits for the next rebuild"
        kept = Node()
        settle_after_rebuild()  # the next rebuild: unfrozen, collected, the rest frozen again
        assert gone() is None
        assert gc.get_freeze_count() > 0 and kept.me is kept
    finally:
        gc.unfreeze()
