"""The engine stays pure: nothing under compact_lsp/engine imports the editor protocol or the server around it.

Every import statement counts, including ones inside functions (a lazy import still ties the engine to pygls).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import compact_lsp.engine

ENGINE = Path(compact_lsp.engine.__file__).parent
FORBIDDEN = ("pygls", "lsprotocol", "compact_lsp.lsp", "compact_lsp.agent", "compact_lsp.tracking")
"""The protocol libraries, and the packages built on the engine (imports point into it, never out)."""


def imported_modules(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path``; relative ones resolve as if ``root`` were the engine."""
    package = ".".join(("compact_lsp", root.name, *path.relative_to(root).parent.parts))
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.append((node.lineno, module))
    return found


def forbidden_imports(root: Path) -> list[str]:
    return [
        f"{path.relative_to(root.parent)}:{line} imports {module}"
        for path in sorted(root.rglob("*.py"))
        for line, module in imported_modules(path, root)
        if any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN)
    ]


def test_engine_imports_no_protocol_library_nor_the_server() -> None:
    assert list(ENGINE.rglob("*.py")), "the engine package was not found"
    assert forbidden_imports(ENGINE) == []


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("import pygls.server\n", id="import"),
        pytest.param("from lsprotocol import types\n", id="from-import"),
        pytest.param("def f():\n    from pygls.workspace import Workspace\n", id="lazy-import"),
        pytest.param("from ..lsp.server import CompactLanguageServer\n", id="relative-into-lsp"),
    ],
)
def test_the_check_catches_a_forbidden_import(tmp_path: Path, source: str) -> None:
    fake = tmp_path / "engine"
    fake.mkdir()
    (fake / "leak.py").write_text(source, encoding="utf-8")
    assert len(forbidden_imports(fake)) == 1
