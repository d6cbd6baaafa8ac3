"""Skills after compaction: the ``SKILL.md`` files the agent loaded come back, each truncated to its budget.

The seed's rule: the header of a skill is worth more than nothing, so a long one is cut with a note that says to
read the full file; 5k tokens each, 25k in all (``RehydrationSettings``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from compact_lsp.engine.compaction.file_excerpts import MIN_PARTIAL_TOKENS, render_tag, truncate_to_tokens
from compact_lsp.engine.compaction.file_ranking import is_skill_path
from compact_lsp.engine.conversation.messages import Attachment
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.engine.prompts import SKILL_TRUNCATED_NOTE
from compact_lsp.engine.rehydration_settings import RehydrationSettings

log = logging.getLogger(__name__)


class PathText(Protocol):
    """Anything with a path and a text: a ``SkillFile``, a ``memory_index.MemoryIndex``."""

    @property
    def path(self) -> str: ...

    @property
    def text(self) -> str: ...


@dataclass
class SkillFile:
    """A skill file the agent read, as re-read from disk to be re-attached."""

    path: str
    text: str


def skill_attachments(
    skills: Sequence[PathText], settings: RehydrationSettings, counter: TokenCounter, haystack: str
) -> list[Attachment]:
    out: list[Attachment] = []
    used = 0
    seen: set[str] = set()
    for skill in skills:
        if skill.path in seen or not skill.text.strip() or skill.text in haystack:
            continue
        seen.add(skill.path)
        budget = min(settings.skill_tokens_each, settings.skill_tokens_total - used)
        name = os.path.basename(os.path.dirname(skill.path)) or None
        overhead = counter.count_text(render_tag("skill", "", path=skill.path, name=name))
        if budget - overhead < MIN_PARTIAL_TOKENS:
            log.debug("skill %s left out: the skill budget is spent", skill.path)
            continue
        text = truncate_to_tokens(skill.text, budget - overhead, counter, SKILL_TRUNCATED_NOTE)
        rendered = render_tag("skill", text, path=skill.path, name=name)
        tokens = counter.count_text(rendered)
        used += tokens
        meta = {"tokens": tokens, "truncated": text != skill.text}
        out.append(Attachment("skill", rendered, skill.path, meta))
    return out


USER_SKILLS_DIR = "~/.claude/skills"
"""Where Claude Code keeps the user's own skills: an allowed root for re-reading skills (``skill_roots``)."""


def skill_roots(roots: AllowedRoots) -> AllowedRoots:
    """Where a skill may be re-read from: the session's allowed roots and the user's own skills folder."""
    return roots.plus(USER_SKILLS_DIR)


def skills_from_read_state(
    read_state: ReadFileState,
    *,
    roots: AllowedRoots,
    denied_paths: frozenset[str] = frozenset(),
    read_text: Callable[[str], bytes] | None = None,
) -> list[SkillFile]:
    """Skills the agent loaded (successful reads of ``.../skills/<name>/SKILL.md``), newest first, re-read.

    Each is re-read through the file gate (``file_gate``) with ``roots``: a SKILL.md swapped for a link out of
    them, a FIFO or an oversized file is left out.
    """
    reader = read_text or gated_reader(roots)
    denied = {real_path(p) for p in denied_paths}
    skills: list[SkillFile] = []
    for real in read_state.order.skill_files():  # the records of files named SKILL.md, newest first
        record = read_state.by_realpath(real)
        if record is None or not is_skill_path(real) or record.error is not None or real in denied:
            continue
        try:
            text = reader(record.realpath).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            log.info("skill %s not re-attached: %s", record.realpath, exc)
            continue
        skills.append(SkillFile(record.resolved_path, text))
    return skills
