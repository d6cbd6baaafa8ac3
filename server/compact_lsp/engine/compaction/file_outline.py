"""An outline of a big file: where its parts are, by line, so the model can read exactly the region it needs.

A file that comes back as slices (``file_excerpts``) carries an outline of the lines it does not show: for Python
its classes and functions from the stdlib ``ast`` (with their line ranges); for other code a cheap heuristic (a
line that starts a definition at the left margin or one indent in: ``function``, ``class``, ``def``, ``fn``,
``func``, a shell ``name() {``, an exported ``const x = (`` ...), each running to the next such line at its depth
or less; for Markdown its headings, each to the next heading of its level or above; for any other text an anchor
every ``ANCHOR_EVERY`` lines, with the anchor line's own text (also for code in which no definition is found).
Nothing here reads a file or knows about budgets:
the caller gives the text and keeps the entries that fit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ast

ANCHOR_EVERY = 100
"""Lines between two anchors of a plain-text outline."""
LABEL_CHARS = 60
"""An entry's label is cut to this many characters."""

_PYTHON = (".py", ".pyi")
_MARKDOWN = (".md", ".markdown", ".mdx", ".rst")
_CODE = (
    ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".go", ".rs", ".java", ".kt", ".swift", ".c", ".h", ".cc",
    ".cpp", ".hpp", ".cs", ".rb", ".php", ".sh", ".bash", ".zsh", ".lua", ".scala", ".dart", ".m", ".vue",
    ".svelte",
)  # fmt: skip

_DEFINITION = re.compile(
    r"^(?P<indent>[ \t]*)"
    r"(?:(?:export|default|public|private|protected|internal|static|async|abstract|final|override|open|pub"
    r"(?:\([a-z]+\))?|extern|inline|unsafe|const|local)\s+)*"
    r"(?P<label>(?:function\*?|class|interface|type|enum|struct|trait|impl|fn|func|def|module|namespace|object"
    r"|protocol|extension|record)\s+[\w$.:<>,\[\] ]+"
    r"|(?:const|let|var)\s+[\w$]+\s*(?::[^=]+)?=\s*(?:async\s*)?(?:\([^)]*\)|[\w$]+)\s*=>"
    r"|[\w$.]+\s*\(\)\s*\{)"
)
"""A line that starts a definition in most languages (the cheap heuristic for code that is not Python)."""
_HEADING = re.compile(r"^(#{1,6})\s+(\S.*)$")


@dataclass(frozen=True)
class OutlineEntry:
    """One part of a file: lines ``first``-``last`` (1-based, inclusive), what is there, and how deep it sits."""

    first: int
    last: int
    label: str
    depth: int = 0


def outline(path: str, text: str) -> list[OutlineEntry]:
    """The file's parts in line order (see the module doc); empty when nothing can be said of it."""
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1]:
        lines.pop()
    lower = path.lower()
    if lower.endswith(_PYTHON):
        found = _python_outline(text, len(lines))
        return (found if found is not None else _code_outline(lines)) or _anchors(lines)
    if lower.endswith(_MARKDOWN):
        return _markdown_outline(lines) or _anchors(lines)
    if lower.endswith(_CODE) or (lines and lines[0].startswith("#!")):
        return _code_outline(lines) or _anchors(lines)
    return _anchors(lines)


def _label(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def _python_outline(text: str, total: int) -> list[OutlineEntry] | None:
    """Classes and functions with their ranges (decorators included), two levels deep; None: not valid Python."""
    import ast  # only when a Python file is cut: the hooks start without it (tests/agents: their imports)

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: list[OutlineEntry] = []

    def visit(body: Sequence[ast.stmt], depth: int) -> None:
        for node in body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            last = min(total, node.end_lineno or node.lineno)
            kind = "class" if isinstance(node, ast.ClassDef) else "def"
            found.append(OutlineEntry(first, last, f"{kind} {node.name}", depth))
            if depth < 1:
                visit(node.body, depth + 1)

    visit(tree.body, 0)
    return found


def _indent_width(indent: str) -> int:
    return len(indent.expandtabs(4))


def _code_outline(lines: Sequence[str]) -> list[OutlineEntry]:
    """Definitions at the left margin and one level in, each running to the line before the next definition at
    its depth or shallower (trailing blank lines left out)."""
    starts: list[tuple[int, int, str]] = []  # (line, indent width, label)
    for n, line in enumerate(lines, 1):
        match = _DEFINITION.match(line)
        if match is None:
            continue
        width = _indent_width(match.group("indent"))
        if width <= 4:
            starts.append((n, width, _label(line.strip().rstrip("{").rstrip())))
    margins = sorted({w for _, w, _ in starts})
    depth_of = {w: min(i, 1) for i, w in enumerate(margins)}
    found: list[OutlineEntry] = []
    for k, (n, width, label) in enumerate(starts):
        end = len(lines)
        for m, other, _ in starts[k + 1 :]:
            if other <= width:
                end = m - 1
                break
        while end > n and not lines[end - 1].strip():
            end -= 1
        found.append(OutlineEntry(n, end, label, depth_of[width]))
    return found


def _markdown_outline(lines: Sequence[str]) -> list[OutlineEntry]:
    heads: list[tuple[int, int, str]] = []
    fenced = False
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match is not None:
            heads.append((n, len(match.group(1)), _label(line.strip())))
    found: list[OutlineEntry] = []
    levels = [level for _, level, _ in heads]
    # a document's single title is not a level: the outline starts at the first level that repeats
    top = min((level for level in levels if levels.count(level) > 1), default=min(levels, default=1))
    for k, (n, level, label) in enumerate(heads):
        end = next((m - 1 for m, other, _ in heads[k + 1 :] if other <= level), len(lines))
        found.append(OutlineEntry(n, end, label, max(0, min(level - top, 1))))
    return found


def _anchors(lines: Sequence[str]) -> list[OutlineEntry]:
    """An entry every ``ANCHOR_EVERY`` lines, labelled with its first non-blank line."""
    found: list[OutlineEntry] = []
    for first in range(1, len(lines) + 1, ANCHOR_EVERY):
        last = min(len(lines), first + ANCHOR_EVERY - 1)
        text = next((lines[n - 1] for n in range(first, last + 1) if lines[n - 1].strip()), "")
        found.append(OutlineEntry(first, last, _label(text)))
    return found
