"""Summarisers: turn a conversation into the summary that replaces it (model, session notes, offline)."""

from __future__ import annotations

from .base import (
    FallbackSummarizer,
    Summarizer,
    Summary,
    SummaryError,
    SummaryErrorKind,
    SummaryRequest,
    summary_from_output,
)

__all__ = [
    "FallbackSummarizer",
    "Summarizer",
    "Summary",
    "SummaryError",
    "SummaryErrorKind",
    "SummaryRequest",
    "summary_from_output",
]
