"""The house, drawn from its imports: no import cycles among the server's modules, modules of a readable size.

The graph comes from grimp (every import statement, lazy ones inside functions included). Imports under
``if TYPE_CHECKING:`` are left out: they name a type for the checker and never run, so they cannot make a module
load half-initialised. docs/architecture.md is the map this keeps honest.
"""

from __future__ import annotations

import ast
import copy
import graphlib
from pathlib import Path

import grimp
import pytest

import compact_lsp

PACKAGE = Path(compact_lsp.__file__).parent
MAX_LINES = 400
MAX_FUNCTION_LINES = 60

OVER_LIMIT: dict[str, str] = {}
"""Modules still over the limit, each with the reason; the test fails when one shrinks, so the list only shrinks."""


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("compact_lsp", exclude_type_checking_imports=True, cache_dir=None)  # never stale


def first_cycle(graph: grimp.ImportGraph) -> list[str]:
    edges = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    try:
        graphlib.TopologicalSorter(edges).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return []


def test_the_server_has_no_import_cycles(graph: grimp.ImportGraph) -> None:
    assert len(graph.modules) > 50, "grimp did not find the package's modules"
    assert first_cycle(graph) == []


def test_the_cycle_check_finds_a_cycle(graph: grimp.ImportGraph) -> None:
    graph = copy.deepcopy(graph)
    graph.add_import(
        importer="compact_lsp.engine.conversation.messages", imported="compact_lsp.engine.session.context_session"
    )
    cycle = first_cycle(graph)
    assert "compact_lsp.engine.conversation.messages" in cycle and "compact_lsp.engine.session.context_session" in cycle


def test_packages_import_only_downward(graph: grimp.ImportGraph) -> None:
    """engine is imported by everyone and imports none of them; lsp is imported by nothing but the entry point."""
    for layer in ("lsp", "agent", "tracking", "evaluation"):
        assert not graph.chain_exists(importer="compact_lsp.engine", imported=f"compact_lsp.{layer}", as_packages=True)
    for package in ("engine", "agent", "tracking", "evaluation"):
        assert not graph.chain_exists(importer=f"compact_lsp.{package}", imported="compact_lsp.lsp", as_packages=True)


def test_modules_stay_readable() -> None:
    sizes = {
        str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    over = {name for name, lines in sizes.items() if lines > MAX_LINES}
    assert over - OVER_LIMIT.keys() == set(), f"split by responsibility: {sorted(over - OVER_LIMIT.keys())}"
    assert OVER_LIMIT.keys() - over == set(), f"now under {MAX_LINES} lines, drop from OVER_LIMIT"


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> dict[str, int]:
    """Functions (and methods) of ``source`` longer than ``limit`` lines, signature and docstring included."""
    return {
        node.name: lines
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and (lines := (node.end_lineno or node.lineno) - node.lineno + 1) > limit
    }


def test_engine_functions_fit_on_a_screen() -> None:
    """A function the engine needs more than a screen for is several steps: name them."""
    long = {
        f"{path.relative_to(PACKAGE)}:{name}": lines
        for path in sorted((PACKAGE / "engine").rglob("*.py"))
        for name, lines in long_functions(path.read_text(encoding="utf-8")).items()
    }
    assert long == {}, f"over {MAX_FUNCTION_LINES} lines, split into named steps: {long}"


def test_the_function_check_sees_a_long_function() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f"def short():\n    return 1\n\n\ndef long():\n{body}") == {"long": MAX_FUNCTION_LINES + 1}


def _defined(module: str) -> set[str] | None:
    """Names a module of ours defines at its top level (not names it imports), or None if it is not ours."""
    path = PACKAGE.parent.joinpath(*module.split("."))
    source = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    if not source.is_file():
        return None
    names: set[str] = set()
    pending = list(ast.parse(source.read_text(encoding="utf-8")).body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.If, ast.Try)):
            pending.extend([*node.body, *node.orelse])
    return names


def _absolute(importer: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")[: -node.level]
    return ".".join([*base, *([node.module] if node.module else [])])


def test_every_name_is_imported_from_the_module_that_defines_it() -> None:
    """No re-export facades: ``from ...files.read_state import ReadRecord`` would hide read_record.py."""
    root = PACKAGE.parents[1]
    shims = []
    for path in sorted(p for d in ("server", "tests", "bench") for p in (root / d).rglob("*.py")):
        parts = path.relative_to(root / "server").with_suffix("").parts if path.is_relative_to(root / "server") else ()
        importer = ".".join(parts)  # a relative import strips from here: ``..x`` in a.b.c means a.x
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or (node.level and not parts):
                continue
            module = _absolute(importer, node)
            defined = _defined(module) if module.startswith("compact_lsp") else None
            if defined is None:
                continue
            for alias in node.names:
                submodule = _defined(f"{module}.{alias.name}") is not None
                if alias.name not in defined and not submodule:
                    shims.append(f"{path.relative_to(root)}:{node.lineno} imports {alias.name} from {module}")
    assert shims == []
