"""The house, drawn from its imports: no cycles, layers that point down, modules and functions of a readable size.

The graph comes from grimp: every import statement, lazy ones inside functions and ``if TYPE_CHECKING:`` ones
included. A type-only import never runs, but a circle of them still means two modules that cannot be read, tested
or moved apart (the adapter's features once named the server class the server imported them into), so the house
has none. docs/architecture.md is the map this keeps honest.
"""

from __future__ import annotations

import ast
import copy
import graphlib
import re
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
    return grimp.build_graph("compact_lsp", exclude_type_checking_imports=False, cache_dir=None)  # never stale


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


PACKAGES = (
    "cli",
    grimp.Layer("lsp", "evaluation"),
    grimp.Layer("agents", "agent"),
    grimp.Layer("store", "tracking"),
    "runtime",
    "engine",
)
"""The packages, top first: each imports only the ones below it; those on one line import none of each other."""

ROOMS: dict[str, tuple[str | grimp.Layer, ...]] = {
    "cli": (grimp.Layer("main", "generate_settings"), "offline", "agents"),
    "lsp": (
        "app",
        "framing",
        "features",
        "following",
        "work",
        grimp.Layer("server", "settings"),
        "sessions",
        "protocol",
    ),
    "agents": (
        grimp.Layer("hook_process", "importing", "doctor", "shown", "other_installs"),
        "registered",
        grimp.Layer("claude_code", "codex", "qwen_code", "gemini_cli"),
        "agent",
        grimp.Layer("json_settings", "hook_context"),
        grimp.Layer(
            "hook_io",
            "hook_launcher",
            "appended_lines",
            "followed_window",
            "settings_files",
            "agent_config",
            "shown_blocks",
            "agent_log",
        ),
        grimp.Layer("character_fit", "not_for_us", "hook_claims", "hook_input"),
    ),
    "agent": (
        "loop",
        "toolset",
        grimp.Layer("reading", "writing"),
        grimp.Layer("python_grep", "tools", "model_requests"),
        grimp.Layer("permissions", "prompts", "settings", "session_access", "turn_result"),
    ),
    "evaluation": (
        "report",
        grimp.Layer("replay", "survival"),
        "repeated_needs",
        grimp.Layer("compact_preview", "timeline", "config", "agent_rules"),
        grimp.Layer("workspace", "metrics", "cost", "focus", "sources", "ledger_recall"),
    ),
    "store": ("session_store", grimp.Layer("session_lock", "session_index")),
    "tracking": (grimp.Layer("watcher", "reader"),),
    "runtime": (grimp.Layer("io_threads", "atomic_files", "malloc_arena", "cyclic_collector"),),
}
"""Each package's rooms (a module or a folder), top first; the engine's are ENGINE_ROOMS below."""


def upward_imports(graph: grimp.ImportGraph) -> list[str]:
    """Imports that climb: between packages (PACKAGES) or between the rooms of one package (ROOMS)."""
    found = graph.find_illegal_dependencies_for_layers(layers=PACKAGES, containers={"compact_lsp"})
    for package, rooms in ROOMS.items():
        found |= graph.find_illegal_dependencies_for_layers(layers=rooms, containers={f"compact_lsp.{package}"})
    return sorted(f"{dep.importer} -> {dep.imported}" for dep in found)


def unplaced(graph: grimp.ImportGraph) -> list[str]:
    """Packages and rooms that no layer list names: a new one must take its place in the order."""
    named = {n for layer in PACKAGES for n in (layer.module_tails if isinstance(layer, grimp.Layer) else {layer})}
    missing = {m.split(".")[1] for m in graph.modules if m.count(".") >= 1} - named - {"__main__"}
    for package, rooms in ROOMS.items():
        names = {n for layer in rooms for n in (layer.module_tails if isinstance(layer, grimp.Layer) else {layer})}
        inside = {m.split(".")[2] for m in graph.modules if m.startswith(f"compact_lsp.{package}.")}
        missing |= {f"{package}.{room}" for room in inside - names}
    return sorted(missing)


def test_packages_and_rooms_import_only_downward(graph: grimp.ImportGraph) -> None:
    assert upward_imports(graph) == []
    assert unplaced(graph) == []


def test_the_layer_check_sees_an_upward_import(graph: grimp.ImportGraph) -> None:
    graph = copy.deepcopy(graph)
    graph.add_import(importer="compact_lsp.store.session_store", imported="compact_lsp.agents.hook_io")
    graph.add_import(importer="compact_lsp.lsp.sessions.registry", imported="compact_lsp.lsp.work.notify")
    graph.add_module("compact_lsp.lsp.newroom")
    upward = upward_imports(graph)
    assert "compact_lsp.store -> compact_lsp.agents" in upward
    assert "compact_lsp.lsp.sessions -> compact_lsp.lsp.work" in upward
    assert unplaced(graph) == ["lsp.newroom"]


ENGINE_ROOMS = (
    "session",
    "compaction",
    "summarize",
    "files",
    "conversation",
    grimp.Layer(
        "settings", "rehydration_settings", "setting_ranges", "tool_names", "prompts", "utc", independent=False
    ),
)
"""The engine's rooms, top first: each imports only the rooms below it (the base at the bottom)."""

FOREIGN_LOGS = ("claude_code", "codex")
"""One room per foreign log format: above conversation and files, beside the rest, imported by no other room."""

PRODUCTION = ("engine", "lsp", "agent", "agents", "tracking", "store", "runtime")
"""What runs in the editor or beside an agent; the evaluation is research, reached only by ``compact-lsp eval``."""


def engine_upward_imports(graph: grimp.ImportGraph) -> list[str]:
    found = graph.find_illegal_dependencies_for_layers(layers=ENGINE_ROOMS, containers={"compact_lsp.engine"})
    upward = [f"{dep.importer} -> {dep.imported}" for dep in found]
    for room in FOREIGN_LOGS:
        for other in ("session", "compaction", "summarize", *(r for r in FOREIGN_LOGS if r != room)):
            for importer, imported in ((room, other), (other, room)):
                if graph.chain_exists(
                    f"compact_lsp.engine.{importer}", f"compact_lsp.engine.{imported}", as_packages=True
                ):
                    upward.append(f"compact_lsp.engine.{importer} -> compact_lsp.engine.{imported}")
    return sorted(upward)


def test_engine_rooms_import_only_downward(graph: grimp.ImportGraph) -> None:
    """conversation < files < summarize < compaction < session, on the base; the log-format rooms beside them."""
    assert engine_upward_imports(graph) == []


def test_the_room_check_sees_an_upward_import(graph: grimp.ImportGraph) -> None:
    graph = copy.deepcopy(graph)
    graph.add_import(importer="compact_lsp.engine.files.read_state", imported="compact_lsp.engine.compaction.pins")
    graph.add_import(importer="compact_lsp.engine.session.journal", imported="compact_lsp.engine.claude_code.log_lines")
    upward = engine_upward_imports(graph)
    assert any("files" in edge and "compaction" in edge for edge in upward)
    assert "compact_lsp.engine.session -> compact_lsp.engine.claude_code" in upward


def evaluation_importers(graph: grimp.ImportGraph) -> set[str]:
    production = {m for m in graph.modules if m.split(".")[1:2] and m.split(".")[1] in PRODUCTION}
    return {m for m in production if graph.find_modules_directly_imported_by(m) & _evaluation(graph)}


def _evaluation(graph: grimp.ImportGraph) -> set[str]:
    return {m for m in graph.modules if m.startswith("compact_lsp.evaluation")}


def test_production_never_imports_the_evaluation(graph: grimp.ImportGraph) -> None:
    assert evaluation_importers(graph) == set()


def test_the_evaluation_check_sees_an_import(graph: grimp.ImportGraph) -> None:
    graph = copy.deepcopy(graph)
    graph.add_import(importer="compact_lsp.agents.claude_code.hook", imported="compact_lsp.evaluation.replay")
    assert evaluation_importers(graph) == {"compact_lsp.agents.claude_code.hook"}


def lazy_upward_imports(graph: grimp.ImportGraph, module: str, source: str) -> list[str]:
    """Imports inside ``module``'s functions of modules that import it back: an upward dependency in hiding."""
    hidden = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("compact_lsp"):
                    imported = inner.module or ""
                    if imported in graph.modules and graph.chain_exists(importer=imported, imported=module):
                        hidden.append(f"{module}:{inner.lineno} imports {imported}")
    return hidden


def test_no_lazy_import_hides_an_upward_dependency(graph: grimp.ImportGraph) -> None:
    hidden = [
        edge
        for path in sorted(PACKAGE.rglob("*.py"))
        for edge in lazy_upward_imports(
            graph,
            ".".join(("compact_lsp", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__"),
            path.read_text(encoding="utf-8"),
        )
    ]
    assert hidden == []


def test_the_lazy_import_check_sees_one(graph: grimp.ImportGraph) -> None:
    """The one lsp/sessions/registry.py had: settings for followed sessions from the module that follows them."""
    upward = "def update():\n    from compact_lsp.lsp.following.agent_follow import AgentFollow\n"
    downward = "def follow():\n    from compact_lsp.lsp.sessions.registry import SessionSlot\n"
    assert lazy_upward_imports(graph, "compact_lsp.lsp.sessions.registry", upward) == [
        "compact_lsp.lsp.sessions.registry:2 imports compact_lsp.lsp.following.agent_follow"
    ]
    assert lazy_upward_imports(graph, "compact_lsp.lsp.following.agent_follow", downward) == []


EDITORS = PACKAGE.parents[1] / "editors"
EDITOR_SOURCES = (
    "vscode/src/**/*.ts",
    "vscode/webview/*.ts",
    "nvim/lua/**/*.lua",
    "nvim/lsp/*.lua",
    "nvim/plugin/*.lua",
)
"""The editors' hand-written modules, held to the server's size: their tests (``vscode/src/test/``) and what is
generated (``*.generated.ts``, from docs/protocol.schema.json) aside, as the server's rule leaves tests/ aside."""


def line_counts(root: Path, patterns: tuple[str, ...]) -> dict[str, int]:
    """Lines of each module under ``root`` that ``patterns`` match, by its path from ``root``; tests and generated
    files left out."""
    paths = {path for pattern in patterns for path in root.glob(pattern)}
    return {
        str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(paths)
        if "test" not in path.relative_to(root).parts[:-1] and ".generated." not in path.name
    }


def oversized(sizes: dict[str, int]) -> set[str]:
    return {name for name, lines in sizes.items() if lines > MAX_LINES}


def test_modules_stay_readable() -> None:
    over = oversized(line_counts(PACKAGE, ("**/*.py",)))
    assert over - OVER_LIMIT.keys() == set(), f"split by responsibility: {sorted(over - OVER_LIMIT.keys())}"
    assert OVER_LIMIT.keys() - over == set(), f"now under {MAX_LINES} lines, drop from OVER_LIMIT"


def test_editor_modules_stay_readable() -> None:
    """The VS Code extension and the Neovim plugin: one module a responsibility, as in the server."""
    sizes = line_counts(EDITORS, EDITOR_SOURCES)
    found = {
        "vscode/src/extension.ts",
        "vscode/webview/chat.ts",
        "nvim/lua/compact_lsp/init.lua",
        "nvim/lsp/compact_lsp.lua",
    }
    assert found <= sizes.keys(), f"EDITOR_SOURCES no longer finds {sorted(found - sizes.keys())}"
    assert oversized(sizes) == set(), f"over {MAX_LINES} lines, split by responsibility: {sorted(oversized(sizes))}"


def test_the_size_check_sees_a_long_editor_module(tmp_path: Path) -> None:
    long, short = "x\n" * (MAX_LINES + 1), "x\n" * MAX_LINES
    for name, text in {
        "vscode/src/chatView.ts": long,
        "vscode/src/model/chatModel.ts": long,
        "vscode/src/client.ts": short,
        "vscode/src/test/chatModel.test.ts": long,  # a test
        "vscode/src/protocol.generated.ts": long,  # generated from the schema
        "vscode/webview/chat.ts": long,
        "nvim/lua/compact_lsp/chat.lua": long,
        "nvim/lsp/compact_lsp.lua": short,
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert oversized(line_counts(tmp_path, EDITOR_SOURCES)) == {
        "vscode/src/chatView.ts",
        "vscode/src/model/chatModel.ts",
        "vscode/webview/chat.ts",
        "nvim/lua/compact_lsp/chat.lua",
    }


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


PROTOCOL_WORDS = re.compile(r"(?<!\.)\bcompact/[a-zA-Z]|\bcompact\.[a-z][a-zA-Z]+\b")
"""A method or command name of the protocol: the adapter's words, never in an engine message (``.compact/memory``,
a folder, is not one)."""


def protocol_words(source: str) -> list[str]:
    """String literals of ``source`` (docstrings aside) that name a protocol method or command."""
    tree = ast.parse(source)
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
        and PROTOCOL_WORDS.search(node.value)
    ]  # fmt: skip


def test_the_engine_speaks_its_own_words() -> None:
    """Engine errors say what happened in the engine's terms; the adapter (lsp/) chooses the wire's words."""
    found = {
        str(path.relative_to(PACKAGE)): words
        for path in sorted((PACKAGE / "engine").rglob("*.py"))
        if (words := protocol_words(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_words_check_sees_a_method_name() -> None:
    source = 'def pin():\n    """For compact/pin."""\n    raise ValueError(f"compact/pin: no tool call {x!r}")\n'
    assert protocol_words(source) == ["compact/pin: no tool call "]


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


def test_realpath_only_through_the_retrying_helper() -> None:
    """``os.path.realpath`` raises for a path swapped mid-resolution (EINVAL from ``readlink``) and for one that
    cannot name a file: every caller goes through ``usable_path.real_path`` (round 4, docs/reliability.md)."""
    server = Path(__file__).resolve().parents[1] / "server" / "compact_lsp"
    offenders = [
        str(path.relative_to(server))
        for path in server.rglob("*.py")
        if path.name != "usable_path.py" and "os.path.realpath(" in path.read_text()
    ]
    assert offenders == []


TESTS = PACKAGE.parents[1] / "tests"
ARCHITECTURE_DOC = PACKAGE.parents[1] / "docs" / "architecture.md"


def imported_by_tests(tests: Path) -> set[str]:
    """Our modules a test file imports (``from compact_lsp.x import y`` counts ``x`` and ``x.y``)."""
    found: set[str] = set()
    for path in tests.rglob("*.py"):
        if ".work" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("compact_lsp"):
                found |= {node.module or "", *(f"{node.module}.{alias.name}" for alias in node.names)}
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names if alias.name.startswith("compact_lsp")}
    return found


def untested_and_unnamed(package: Path, imported: set[str], doc: str) -> list[str]:
    """Modules (as paths under ``package``) that no test imports and the doc's list does not name."""
    named = doc.partition("## Modules no test imports")[2]
    missing = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        if path.name == "__init__.py":
            continue
        module = ".".join(("compact_lsp", *relative.with_suffix("").parts))
        if module not in imported and f"`{relative}`" not in named:
            missing.append(str(relative))
    return missing


def test_every_module_is_tested_or_named() -> None:
    """A module is imported by a test, or docs/architecture.md says why not ("Modules no test imports")."""
    doc = ARCHITECTURE_DOC.read_text(encoding="utf-8")
    assert untested_and_unnamed(PACKAGE, imported_by_tests(TESTS), doc) == []


def test_the_module_check_sees_an_untested_module(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "room").mkdir(parents=True)
    for name in ("room/__init__.py", "room/tested.py", "room/named.py", "room/forgotten.py"):
        (tmp_path / "pkg" / name).write_text("")
    doc = "## Modules no test imports\n\n- `room/named.py`: through the server.\n"
    imported = {"compact_lsp.room.tested"}
    assert untested_and_unnamed(tmp_path / "pkg", imported, doc) == ["room/forgotten.py"]


AGENT_ROOMS = tuple(sorted(p.name for p in (PACKAGE / "agents").iterdir() if (p / "agent.py").is_file()))
"""The rooms of the agents beside us (``agents/<name>/agent.py``)."""

NAMED_AGENTS_ALLOWED: dict[str, str] = {
    "evaluation/agent_rules.py": "research: replays score our hooks against each agent's own measured rule",
    "evaluation/config.py": "research: the variants replayed are the agents' own rules and hook budgets",
    "evaluation/ledger_recall.py": "research: the ledger's recall beside Claude Code's measured re-attachment",
}
"""Modules outside agents/ that name an agent, each with the reason; the test fails when one no longer does, so
the list only shrinks. The evaluation is never imported by production (``PRODUCTION``)."""


def named_agents(
    package: Path, names: set[str], rooms: tuple[str, ...], *, shared: bool = False
) -> dict[str, list[str]]:
    """What each module outside ``agents/`` (``shared``: each module of agents/ outside the agents' rooms, the
    registration list aside) says of a particular agent: a string that is one of its ``names`` (a session's
    ``source``: a table keyed by it, a comparison) and an import from one of its ``rooms``, lazy ones included;
    documentation strings aside."""
    found: dict[str, list[str]] = {}
    room_modules = tuple(f"compact_lsp.agents.{room}" for room in rooms)
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        inside = relative.parts[0] == "agents"
        if inside != shared or (shared and (len(relative.parts) != 2 or relative.name == "registered.py")):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
        said = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in names and id(node) not in docs:
                said.append(f"{node.lineno}: {node.value!r}")
            if isinstance(node, ast.Import | ast.ImportFrom):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                said += [f"{node.lineno}: imports {m}" for m in modules if m.startswith(room_modules)]
        if said:
            found[str(relative)] = sorted(said, key=lambda s: int(s.partition(":")[0]))
    return found


def test_nothing_above_agents_switches_on_which_agent_it_is() -> None:
    """One contract for every agent beside us (agents/agent.py): cli/, lsp/, the engine and the store reach an agent
    through the registration list or its followed session, never by its name or its room; adding an agent is one
    room and one line in agents/registered.py."""
    from compact_lsp.agents import registered

    rooms = {getattr(agent, "room", "").rpartition(".")[2] for agent in registered.AGENTS}
    assert rooms <= set(AGENT_ROOMS), f"the registered agents' rooms are not all found: {sorted(rooms)}"
    found = named_agents(PACKAGE, {agent.name for agent in registered.AGENTS}, AGENT_ROOMS)
    assert {k: v for k, v in found.items() if k not in NAMED_AGENTS_ALLOWED} == {}
    assert NAMED_AGENTS_ALLOWED.keys() - found.keys() == set(), "no longer names an agent: drop it from the list"


def shared_room_imports(graph: grimp.ImportGraph, rooms: tuple[str, ...]) -> dict[str, list[str]]:
    """What each module of agents/ outside the agents' rooms (but the registration list) imports from a room."""
    room_modules = tuple(f"compact_lsp.agents.{room}" for room in rooms)
    found: dict[str, list[str]] = {}
    for module in sorted(graph.modules):
        tail = module.removeprefix("compact_lsp.agents.")
        if tail == module or "." in tail or tail in (*rooms, "registered"):
            continue
        imported = sorted(m for m in graph.find_modules_directly_imported_by(module) if m.startswith(room_modules))
        if imported:
            found[tail] = imported
    return found


def test_the_shared_agents_modules_import_no_agent_room(graph: grimp.ImportGraph) -> None:
    """Inside agents/, what every agent shares (importing, the chat as its user saw it, the hook process and its
    launcher, the doctor...) reaches an agent through the registration list and the contract, never by an import
    from its room (lazy and type-only ones included) or a test of its name: an agent's readers are in its room
    alone."""
    assert shared_room_imports(graph, AGENT_ROOMS) == {}
    from compact_lsp.agents import registered

    assert named_agents(PACKAGE, {agent.name for agent in registered.AGENTS}, AGENT_ROOMS, shared=True) == {}


def test_the_shared_module_check_sees_a_lazy_import_from_a_room(graph: grimp.ImportGraph) -> None:
    graph = copy.deepcopy(graph)
    graph.add_import(importer="compact_lsp.agents.importing", imported="compact_lsp.agents.codex.log")
    assert shared_room_imports(graph, AGENT_ROOMS)["importing"] == ["compact_lsp.agents.codex.log"]


def test_the_shared_module_check_sees_a_branch_on_an_agent(tmp_path: Path) -> None:
    (tmp_path / "agents" / "codex").mkdir(parents=True)
    (tmp_path / "agents" / "launcher.py").write_text("def tail(agent):\n    return agent == 'codex'\n")
    (tmp_path / "agents" / "registered.py").write_text("AGENTS = ['codex']\n")
    (tmp_path / "agents" / "codex" / "agent.py").write_text("NAME = 'codex'\n")
    assert named_agents(tmp_path, {"codex"}, ("codex",), shared=True) == {"agents/launcher.py": ["2: 'codex'"]}


def test_the_agent_check_sees_a_table_keyed_by_an_agent(tmp_path: Path) -> None:
    (tmp_path / "lsp").mkdir()
    (tmp_path / "agents" / "codex").mkdir(parents=True)
    (tmp_path / "lsp" / "timeline.py").write_text(
        '"""Rows for codex."""\n'
        "from compact_lsp.agents.codex.chat import rows\n"
        'RECORDED = {"codex": rows, "ours": None}\n'
        'SAID = "codex"\n"""An attribute\'s doc naming codex."""\n'
        "def chat(source):\n    import compact_lsp.agents.codex.live\n    return source == 'codex'\n"
    )
    (tmp_path / "agents" / "codex" / "live.py").write_text('NAME = "codex"\nfrom compact_lsp.agents.codex import x\n')
    assert named_agents(tmp_path, {"codex"}, ("codex",)) == {
        "lsp/timeline.py": [
            "2: imports compact_lsp.agents.codex.chat", "3: 'codex'", "4: 'codex'",
            "7: imports compact_lsp.agents.codex.live", "8: 'codex'",
        ],
    }  # fmt: skip
