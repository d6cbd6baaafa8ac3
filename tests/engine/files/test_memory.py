"""Managed memory: which paths lie in a memory root (by realpath), and the MEMORY.md indexes."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from compact_lsp.engine.files.memory import ManagedMemory, make_preserve_read
from compact_lsp.engine.files.memory_index import INDEX_MAX_BYTES, INDEX_MAX_LINES
from compact_lsp.engine.settings import MemorySettings


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/ with three memory roots, an outside dir, and a prefix-lookalike sibling of the project root."""
    for name in (
        "project/.compact/memory",
        "user/memory",
        "team/memory",
        "outside",
        "project/.compact/memory2",
    ):
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "outside" / "secret.md").write_text("not memory")
    (tmp_path / "project/.compact/memory2/notes.md").write_text("lookalike")
    for root in ("project/.compact/memory", "user/memory", "team/memory"):
        (tmp_path / root / "notes.md").write_text("a note")
    return tmp_path


@pytest.fixture
def memory(tree: Path) -> ManagedMemory:
    return ManagedMemory(
        project_root=str(tree / "project/.compact/memory"),
        user_root=str(tree / "user/memory"),
        team_root=str(tree / "team/memory"),
    )


PROJECT = "project/.compact/memory"


@pytest.mark.parametrize(
    ("relative", "kind"),
    [
        pytest.param(f"{PROJECT}/notes.md", "project", id="project-root"),
        pytest.param("user/memory/notes.md", "user", id="user-root"),
        pytest.param("team/memory/notes.md", "team", id="team-root"),
        pytest.param(f"{PROJECT}/topics/deep/missing.md", "project", id="missing-file-in-missing-dir"),
        pytest.param(f"{PROJECT}/sub/../notes.md", "project", id="dotdot-staying-inside"),
        pytest.param("outside/secret.md", None, id="ordinary-file"),
        pytest.param(f"{PROJECT}/../memory2/notes.md", None, id="dotdot-escape"),
        pytest.param(f"{PROJECT}2/notes.md", None, id="prefix-lookalike-dir"),
        pytest.param("outside/missing.md", None, id="missing-file-outside"),
        pytest.param(PROJECT, None, id="the-root-itself"),
    ],
)
def test_paths_are_managed_when_their_realpath_lies_inside_a_root(
    tree: Path, memory: ManagedMemory, relative: str, kind: str | None
) -> None:
    path = str(tree / relative)
    assert memory.root_kind(path) == kind
    assert memory.is_managed_memory(path) is (kind is not None)


@pytest.mark.parametrize(
    ("link", "target", "managed"),
    [
        pytest.param(f"{PROJECT}/escape.md", "outside/secret.md", False, id="symlink-escape"),
        pytest.param(f"{PROJECT}/shortcut.md", f"{PROJECT}/notes.md", True, id="symlink-inside-to-inside"),
        pytest.param(f"{PROJECT}/linked-dir", "outside", False, id="symlinked-dir-escape"),
        pytest.param("outside/into-memory.md", f"{PROJECT}/notes.md", True, id="symlink-from-outside-into-root"),
        pytest.param(f"{PROJECT}/dangling.md", "outside/gone.md", False, id="dangling-symlink-escape"),
    ],
)
def test_symlinks_are_judged_by_where_they_lead(
    tree: Path, memory: ManagedMemory, link: str, target: str, managed: bool
) -> None:
    os.symlink(tree / target, tree / link)
    path = tree / link
    if path.is_dir():
        path = path / "secret.md"
    assert memory.is_managed_memory(str(path)) is managed


def test_a_dotdot_after_a_symlink_climbs_from_the_link_target(tree: Path, memory: ManagedMemory) -> None:
    # memory/linked -> outside/deeper: memory/linked/../secret.md is outside/secret.md, not memory/secret.md
    (tree / "outside" / "deeper").mkdir()
    os.symlink(tree / "outside" / "deeper", tree / PROJECT / "linked")
    assert not memory.is_managed_memory(str(tree / PROJECT / "linked" / ".." / "secret.md"))


def test_a_root_that_is_a_symlink_contains_its_targets_files(tree: Path) -> None:
    os.symlink(tree / "team" / "memory", tree / "team-link")
    memory = ManagedMemory(team_root=str(tree / "team-link"))
    assert memory.root_kind(str(tree / "team" / "memory" / "notes.md")) == "team"
    assert memory.root_kind(str(tree / "team-link" / "notes.md")) == "team"


@pytest.mark.parametrize(
    ("cwd", "path", "managed"),
    [
        pytest.param(PROJECT, "notes.md", True, id="relative-inside"),
        pytest.param("outside", "secret.md", False, id="relative-outside"),
        pytest.param("outside", f"../{PROJECT}/notes.md", True, id="relative-climbing-into-root"),
    ],
)
def test_relative_paths_resolve_against_cwd(
    tree: Path, memory: ManagedMemory, cwd: str, path: str, managed: bool
) -> None:
    assert memory.is_managed_memory(path, cwd=str(tree / cwd)) is managed
    assert make_preserve_read(memory, cwd=str(tree / cwd))(path) is managed


def test_nested_roots_answer_with_the_innermost(tree: Path) -> None:
    memory = ManagedMemory(project_root=str(tree / "project"), user_root=str(tree / PROJECT))
    assert memory.root_kind(str(tree / PROJECT / "notes.md")) == "user"
    assert memory.root_kind(str(tree / "project" / "README.md")) == "project"


@pytest.mark.parametrize("path", [pytest.param("", id="empty"), pytest.param("/", id="filesystem-root")])
def test_degenerate_paths_are_not_memory(memory: ManagedMemory, path: str) -> None:
    assert not memory.is_managed_memory(path)


def test_no_roots_means_nothing_is_memory(tree: Path) -> None:
    assert not ManagedMemory().is_managed_memory(str(tree / PROJECT / "notes.md"))


# -- settings -----------------------------------------------------------------------------------------------


def test_default_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_config_dir", lambda app: str(tmp_path / "config" / app))
    memory = ManagedMemory.from_settings(MemorySettings(), str(tmp_path / "ws"))
    assert [(r.kind, r.path) for r in memory.roots] == [
        ("project", str(tmp_path / "ws" / ".compact" / "memory")),
        ("user", str(tmp_path / "config" / "compact-lsp" / "memory")),
    ]


def test_configured_roots_resolve_against_the_workspace(tmp_path: Path) -> None:
    settings = MemorySettings(project_root="notes", user_root=str(tmp_path / "u"), team_root="../shared/team")
    memory = ManagedMemory.from_settings(settings, str(tmp_path / "ws"))
    assert [(r.kind, r.path) for r in memory.roots] == [
        ("project", str(tmp_path / "ws" / "notes")),
        ("user", str(tmp_path / "u")),
        ("team", str(tmp_path / "shared" / "team")),
    ]
    assert memory.is_managed_memory(str(tmp_path / "shared" / "team" / "x.md"))


# -- MEMORY.md indexes --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "truncated", "kept_lines"),
    [
        pytest.param("# Memory\n- [a](a.md)\n", False, 2, id="small-index"),
        pytest.param("".join(f"- line {i}\n" for i in range(INDEX_MAX_LINES)), False, INDEX_MAX_LINES, id="at-cap"),
        pytest.param(
            "".join(f"- line {i}\n" for i in range(INDEX_MAX_LINES + 50)),
            True,
            INDEX_MAX_LINES,
            id="over-line-cap",
        ),
        pytest.param("".join(f"{'é' * 199}\n" for i in range(100)), True, 62, id="over-byte-cap-multibyte"),
        pytest.param("x" * (INDEX_MAX_BYTES + 10), True, 1, id="one-huge-line"),
    ],
)
def test_an_index_is_capped_with_a_note(
    tree: Path, memory: ManagedMemory, text: str, truncated: bool, kept_lines: int
) -> None:
    (tree / PROJECT / "MEMORY.md").write_text(text)
    index = memory.load_index("project")
    assert index is not None
    assert index.truncated is truncated
    lines = index.text.splitlines()
    content = lines[:-1] if truncated else lines
    assert len(content) == kept_lines
    assert len("\n".join(content).encode()) <= INDEX_MAX_BYTES
    assert "\ufffd" not in index.text or kept_lines == 1  # whole characters only, except a cut mid-line
    if truncated:
        assert lines[-1].startswith("[MEMORY.md truncated at ")


def test_missing_indexes_are_skipped(tree: Path, memory: ManagedMemory) -> None:
    (tree / "user" / "memory" / "MEMORY.md").write_text("- [prefs](prefs.md)\n")
    assert memory.load_index("project") is None
    assert [i.kind for i in memory.load_indexes()] == ["user"]


def test_an_index_symlinked_out_of_its_root_is_not_loaded(tree: Path, memory: ManagedMemory) -> None:
    os.symlink(tree / "outside" / "secret.md", tree / PROJECT / "MEMORY.md")
    assert memory.load_index("project") is None
    assert memory.system_prompt_section() == ""


def test_the_system_prompt_section_lists_every_index(tree: Path, fixtures_dir: Path) -> None:
    project = tree / "ws" / ".compact" / "memory"
    shutil.copytree(fixtures_dir / "memory" / "project", project)
    (tree / "team" / "memory" / "MEMORY.md").write_text("- [deploys](deploys.md): how we ship\n")
    memory = ManagedMemory(project_root=str(project), team_root=str(tree / "team" / "memory"))

    assert memory.system_prompt_section() == (
        "# Managed memory\n"
        "Durable notes kept across sessions. Each index below lists memory files; read a file with the read "
        "tool when its topic matters to the task.\n"
        "\n"
        f"## Project memory ({project}/MEMORY.md)\n"
        "# Project memory\n"
        "- [Build and test](topics/build.md): how CI runs, which commands to use\n"
        "- [Conventions](topics/conventions.md): naming, error handling, logging\n"
        "\n"
        f"## Team memory ({tree}/team/memory/MEMORY.md)\n"
        "- [deploys](deploys.md): how we ship\n"
    )
    assert make_preserve_read(memory)(str(project / "topics" / "build.md"))


def test_no_indexes_no_section(memory: ManagedMemory) -> None:
    assert memory.system_prompt_section() == ""
