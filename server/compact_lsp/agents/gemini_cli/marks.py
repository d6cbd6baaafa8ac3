"""What marks a compression in Gemini CLI's requests and session files (0.61.0, measured 2026-12-06): the model turn
it puts after its summary. No request and no compression's message list holds a summary without it; the hook
looks for it, as bytes, before importing anything else (agent.py)."""

from __future__ import annotations

COMPRESSION_ACK = "Got it. Thanks for the additional context!"
