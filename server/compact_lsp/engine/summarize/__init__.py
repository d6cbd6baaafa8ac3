"""Summarisers: turn a conversation into the summary that replaces it (model, session notes, offline).

All share the ``Summarizer`` protocol of ``base``. ``summarizer_from_settings`` picks the model (with the
offline summary as its fallback) when an API key is set, else the offline summariser.
"""

from __future__ import annotations

from .anthropic_api import AnthropicSummarizer, summarizer_from_settings
from .base import (
    FallbackSummarizer,
    Summarizer,
    Summary,
    SummaryError,
    SummaryErrorKind,
    SummaryRequest,
    summary_from_output,
)
from .offline import OfflineSummarizer
from .session_memory import (
    ModelNotesWriter,
    NotesWriter,
    OfflineNotesWriter,
    SessionMemory,
    SessionMemoryPolicy,
    SessionMemorySummarizer,
    SessionNotes,
    notes_writer_from_settings,
)

__all__ = [
    "AnthropicSummarizer",
    "FallbackSummarizer",
    "ModelNotesWriter",
    "NotesWriter",
    "OfflineNotesWriter",
    "OfflineSummarizer",
    "SessionMemory",
    "SessionMemoryPolicy",
    "SessionMemorySummarizer",
    "SessionNotes",
    "Summarizer",
    "Summary",
    "SummaryError",
    "SummaryErrorKind",
    "SummaryRequest",
    "notes_writer_from_settings",
    "summarizer_from_settings",
    "summary_from_output",
]
