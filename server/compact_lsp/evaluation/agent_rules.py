"""What each agent puts back itself after its compaction, as the evaluation models it, and our hook on top: the
rules the "<agent>" and "<agent> + our hook" rows apply to the files rehydration ranked (evaluation/replay.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compact_lsp.agents.character_fit import CharCounter, already_in_context, hook_rehydration
from compact_lsp.agents.claude_code.reattached import claude_code_reattachment
from compact_lsp.agents.qwen_code.hook import qwen_restored
from compact_lsp.engine.compaction.rehydration import rehydration_candidates
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.file_use_timeline import FileUse
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.evaluation.metrics import Attached
from compact_lsp.evaluation.workspace import ReplayWorkspace


@dataclass(frozen=True)
class _Touch:
    path: str
    tool: str = "Read"


def claude_code_cut(attached: list[Attached], counter: TokenCounter) -> list[Attached]:
    """Claude Code's five files with its size cut (``claude_code_reattachment``, measured on the real CLI): a file
    past it reaches the model by name only, so it is left out here. Its tokens are counted as the rest of the
    evaluation counts them (the hook's own estimate is set high on purpose, to attach rather than lose a file)."""
    oldest_first = [_Touch(a.path) for a in reversed(attached)]
    whole = set(claude_code_reattachment(oldest_first, disk_text, counter.count_text, len(attached)).whole)
    return [a for a in attached if a.path in whole]


def qwen_code_cut(attached: list[Attached]) -> list[Attached]:
    """Qwen Code's five files by its own rule (``qwen_restored``, the model our Qwen hook uses): a file past about
    5,000 tokens (characters / 4) reaches the model by name only, so it is left out here."""
    uses = [FileUse(n, 0, "Read", a.path, None, None) for n, a in enumerate(reversed(attached))]
    whole = set(qwen_restored(uses, disk_text)[0])
    return [a for a in attached if a.path in whole]


def disk_text(path: str) -> str | None:
    """A file of the stand-in workspace as it is at the point (where an Edit's old text was)."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def with_hook(plain: ContextSession, own: list[Attached], counter: TokenCounter, roots: Sequence[str],
               ws: ReplayWorkspace, ledger: str = "", budget: int | None = None) -> list[Attached]:  # fmt: skip
    """Claude Code's own files plus what our hook adds, as the hook decides it (in characters, within its
    budget): files Claude Code put back whole are already in its context; for a big file it put back in part,
    the hook's slice joins it. Tokens are counted as the rest of the evaluation counts them."""
    candidates = rehydration_candidates(
        plain.read_state,
        kept_messages=already_in_context(a.text for a in own if not a.partial),
        settings=hook_rehydration() if budget is None else hook_rehydration(budget),
        counter=CharCounter(),
        workspace_roots=roots,
        history=plain.messages,
        ledger=ledger,
    )
    by_path = {a.path: a for a in own}
    for c in candidates:
        if not c.included or c.deleted:
            continue
        mine = by_path.get(c.realpath)
        tokens = counter.count_text(c.text)  # the hook decides in characters; the figures are tokens
        if mine is None:
            by_path[c.realpath] = Attached(c.realpath, tokens, c.partial, c.lines, c.text, *ws.shown(c.realpath))
        elif mine.partial:
            lines = ",".join(x for x in (mine.lines, c.lines) if x) or None
            text, tokens = mine.text + c.text, mine.tokens + tokens
            by_path[c.realpath] = Attached(c.realpath, tokens, c.partial, lines, text, *ws.shown(c.realpath))
    return list(by_path.values())
