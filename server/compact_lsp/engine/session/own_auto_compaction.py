"""Our own automatic compaction as the settings and the session's past compactions make it: the threshold it fires at
(``autoCompact``), how far that is and whether it is near (engine/conversation/next_compaction.py, the same figures
a followed agent's session gets), or what keeps it from firing. It says what ``should_compact``
(session_compacting.py) will decide as the context grows: the next request, or the API's last report, at the
threshold; after an automatic compaction that freed little, only once the context grew past the wait."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from compact_lsp.engine.conversation.next_compaction import AutoCompaction, next_compaction
from compact_lsp.engine.conversation.usage import ContextUsage, build_usage
from compact_lsp.engine.session.session_compactions import SessionCompactions
from compact_lsp.engine.settings import AutoCompactSettings, EngineSettings

OURS = "compact-lsp"


def _origin(auto: AutoCompactSettings) -> str:
    """Where our threshold comes from, in the settings' words."""
    if auto.threshold_tokens is not None:
        return f"autoCompact.threshold: {auto.threshold_tokens:,}"
    if auto.threshold_percent is not None:
        return f"autoCompact.threshold: {auto.threshold_percent:g}% of the window"
    return "compact-lsp's default: 85% of the window, at most the window less 33,000"


def own_auto_compaction(
    settings: EngineSettings, compactions: SessionCompactions, usage: ContextUsage, size: int
) -> AutoCompaction:
    """Our automatic compaction of a session whose context is ``size`` tokens (the next request's size as far as
    we know it: our count or the API's last report), ``usage`` its counted usage."""
    auto = settings.auto_compact
    if not auto.enabled:
        return AutoCompaction(None, _origin(auto), '"autoCompact.enabled": false')
    if compactions.blocked(auto.max_consecutive_failures):
        failed = f"{compactions.auto_failures} failed automatic compactions in a row (until one succeeds)"
        return AutoCompaction(None, _origin(auto), failed)
    threshold, origin = usage.auto_compact_threshold, _origin(auto)
    retry_at = compactions.retry_at
    if retry_at is not None and compactions.waiting(usage.total):
        # measured in our count, as the wait was set; the size may hold more (the API's report, the tools)
        waited = retry_at + size - usage.total
        if waited > threshold:
            threshold = waited
            origin = f"waits for ~{retry_at - usage.total:,} tokens more after a compaction that freed little"
    return AutoCompaction(threshold, origin)


def own_usage(
    by_kind: Mapping[str, int],
    settings: EngineSettings,
    reported: int | None,
    compactions: SessionCompactions,
    turns: int,
    overhead: int = 0,
) -> ContextUsage:
    """Our session's usage with how far our next automatic compaction is, ``turns`` user turns in, the next request
    carrying ``overhead`` tokens the session does not count (our agent's prompt and tools), as ``should_compact``
    counts them."""
    usage = build_usage(by_kind, settings, reported)
    size = max(usage.total + overhead, usage.reported or 0)
    auto = own_auto_compaction(settings, compactions, usage, size)
    return replace(usage, next_compaction=next_compaction(size, auto, turns))
