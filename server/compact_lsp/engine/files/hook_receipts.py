"""What a hook's context became in an agent's transcript after a compaction (a receipt read back from what the agent
recorded, not from what the hook meant to send), whichever the agent: its size, whether it was delivered inline,
and the files it held."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FILE_TAG = re.compile(r'<file path="([^"\n]{1,4096})"')
"""How our hook's context names each file it delivers (``<file path="src/app.py" …>``)."""


def delivered_files(text: str) -> list[str]:
    """The files a hook's context holds, in its order, each once (what reached the model: a preview names fewer)."""
    return list(dict.fromkeys(FILE_TAG.findall(text)))


@dataclass(frozen=True)
class HookReceipt:
    """What a ``SessionStart`` hook's context became in the transcript after a compaction."""

    hook: str
    characters: int
    spilled: bool
    """Past the agent's inline limit (10,000 characters): a preview reached the model, not the whole context."""
    files: list[str] = field(default_factory=list)
    """The files the context delivered, as far as what the agent recorded shows them."""
