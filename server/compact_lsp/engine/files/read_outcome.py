"""When a file tool's result counts: the one rule for every agent's log (ours, Claude Code's, Codex's).

A read is a read only when the tool succeeded and returned the content. A result that is an error (a failure, a
rejection or denial by the user, a command still running) or that is empty says nothing about the file: it is
never stored as a read, never re-attached, and never lets a file in. Each agent's reader says "error" in its own
log's terms before this rule sees the result: Claude Code marks failures and rejections ``is_error`` itself; a
Codex command counts only when its output shows it exited with code 0 (``engine/codex/file_uses.py``).

A read of part of a file (a ``Read`` with ``offset``/``limit``, ``sed -n 'A,Bp'``, ``head -n N``) showed only
those lines: it is kept as a partial read, and a file outside the work roots comes back with those lines only.
"""

from __future__ import annotations

from compact_lsp.engine.conversation.messages import Block, is_empty_result
from compact_lsp.engine.files.read_record import ReadRecord


def shows_content(result: Block) -> bool:
    """The tool succeeded and returned something: a read of what it returned (for a read tool), a use of the file
    (for any file tool)."""
    return not result.get("is_error") and not is_empty_result(result)


def succeeded(result: Block) -> bool:
    """The tool succeeded (an edit or a write need not return content)."""
    return not result.get("is_error")


def lines_read(record: ReadRecord | None, content: str) -> tuple[str, str | None]:
    """What of ``content`` a single file let in from outside the folders may bring back: when the model read only
    part of it (``record`` a partial read), only those lines and their label (``"2-2"``); else all and None."""
    if record is None or record.kind != "read" or not record.is_partial:
        return content, None
    first, last = record.line_span()
    lines = content.splitlines(keepends=True)[first - 1 : last]
    return "".join(lines), f"{first}-{first + len(lines) - 1}"
