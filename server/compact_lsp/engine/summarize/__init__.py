"""Summarisers: turn a conversation into the summary that replaces it (model, session notes, offline).

All share the ``Summarizer`` protocol of ``base``. ``summarizer_from_settings`` picks the model (with the
offline summary as its fallback) when an API key is set, else the offline summariser.
"""
