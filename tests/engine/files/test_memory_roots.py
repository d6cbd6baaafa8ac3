"""Managed memory wherever the user keeps it: a configured root outside the workspace, Claude Code's and Qwen
Code's own layouts, Qwen's team memory in the repository; reads of it survive every microcompaction trigger, and
only roots a repository provides must lie inside the workspace."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.compaction.eviction import Trigger
from compact_lsp.engine.conversation.messages import CLEARED_TOOL_RESULT, blocks_of
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.files.memory import ManagedMemory, sanitized
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings, MemorySettings, MicrocompactSettings

BODY = "\n".join(f"line {n}: keep the public API stable" for n in range(300))


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory of its own (Claude Code's and Qwen Code's folders, the user config dir)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return home


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A git repository opened as the workspace, with one ordinary source file."""
    ws = tmp_path / "repo"
    (ws / ".git").mkdir(parents=True)
    (ws / "app.py").write_text("print(1)\n")
    return ws


def root_in(place: str, ws: Path, home: Path, tmp: Path) -> tuple[MemorySettings, Path]:
    """Where each layout keeps its memory folder, and the settings that name it (if any)."""
    claude = home / ".claude" / "projects" / sanitized(str(ws)) / "memory"
    qwen = home / ".qwen" / "projects" / sanitized(str(ws)) / "memory"
    roots: dict[str, tuple[MemorySettings, Path]] = {
        "project-setting-outside-the-workspace": (MemorySettings(project_root=str(tmp / "notes")), tmp / "notes"),
        "project-default-in-the-workspace": (MemorySettings(), ws / ".compact" / "memory"),
        "claude-code-auto-memory": (MemorySettings(), claude),
        "qwen-code-project-memory": (MemorySettings(), qwen),
        "qwen-code-team-memory-in-the-repository": (MemorySettings(), ws / ".qwen" / "team-memory"),
        "user-setting-outside-the-workspace": (MemorySettings(user_root=str(tmp / "mine")), tmp / "mine"),
        "team-setting-outside-the-workspace": (MemorySettings(team_root=str(tmp / "team")), tmp / "team"),
    }
    settings, root = roots[place]
    root.mkdir(parents=True, exist_ok=True)
    (root / "decisions.md").write_text(BODY)
    return settings, root


def read_call(n: int, path: str) -> list[dict[str, Any]]:
    use = {"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {"file_path": path}}
    return [
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": BODY}]},
    ]


def session_after_reads(ws: Path, settings: MemorySettings, memory_file: Path) -> tuple[ContextSession, Clock]:
    """The memory file read first, then four ordinary reads, each answered: every result is one the model saw."""
    clock = Clock()
    micro = MicrocompactSettings(keep_recent=1, idle_minutes=1.0, size_threshold_tokens=2_000)
    engine = EngineSettings(memory=settings, microcompact=micro)
    session = ContextSession("s", settings=engine, counter=TiktokenCounter(), clock=clock, workspace_root=str(ws))
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Work on the project"}]
    messages += read_call(0, str(memory_file))
    for n in range(1, 5):
        messages += read_call(n, str(ws / "app.py"))
    messages += [{"role": "assistant", "content": "Read them all."}, {"role": "user", "content": "go on"}]
    # appended with the triggers off, so each test fires one trigger by hand
    with_triggers_off = EngineSettings(memory=settings, microcompact=MicrocompactSettings(idle_minutes=-1,
                                       size_threshold_tokens=-1))  # fmt: skip
    session.update_settings(with_triggers_off)
    session.append(messages)
    session.update_settings(engine)
    return session, clock


def results(session: ContextSession) -> dict[str, str]:
    return {
        str(b["tool_use_id"]): str(b["content"])
        for m in session.messages
        for b in blocks_of(m)
        if b.get("type") == "tool_result"
    }


def fire(session: ContextSession, clock: Clock, trigger: Trigger) -> None:
    if trigger == "idle":
        clock.now += 3_600
    assert session.microcompact(trigger) is not None, f"the {trigger} trigger cleared nothing"


PLACES = [
    "project-setting-outside-the-workspace",
    "project-default-in-the-workspace",
    "claude-code-auto-memory",
    "qwen-code-project-memory",
    "qwen-code-team-memory-in-the-repository",
    "user-setting-outside-the-workspace",
    "team-setting-outside-the-workspace",
]


@pytest.mark.parametrize("trigger", ["idle", "size", "forced"])
@pytest.mark.parametrize("place", PLACES)
def test_memory_reads_survive_every_trigger_wherever_the_root_is(
    ws: Path, home: Path, tmp_path: Path, place: str, trigger: Trigger
) -> None:
    settings, root = root_in(place, ws, home, tmp_path)
    session, clock = session_after_reads(ws, settings, root / "decisions.md")
    fire(session, clock, trigger)
    after = results(session)
    assert after["toolu_0"] == BODY, "the memory read was cleared"
    assert after["toolu_1"] == CLEARED_TOOL_RESULT, "an ordinary read was kept: the test would prove nothing"


def linked_out_team_memory(ws: Path, home: Path, tmp: Path) -> tuple[MemorySettings, Path]:
    """A repository that ships .qwen/team-memory as a link out of the workspace."""
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "decisions.md").write_text(BODY)
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "team-memory").symlink_to(elsewhere)
    return MemorySettings(), ws / ".qwen" / "team-memory"


def escaping_link(ws: Path, home: Path, tmp: Path) -> tuple[MemorySettings, Path]:
    """A user's root outside the workspace holding a link that escapes it."""
    (tmp / "notes").mkdir()
    (tmp / "secret.md").write_text(BODY)
    (tmp / "notes" / "decisions.md").symlink_to(tmp / "secret.md")
    return MemorySettings(project_root=str(tmp / "notes")), tmp / "notes"


def home_itself(ws: Path, home: Path, tmp: Path) -> tuple[MemorySettings, Path]:
    (home / "decisions.md").write_text(BODY)
    return MemorySettings(project_root=str(home)), home


@pytest.mark.parametrize(
    "layout",
    [
        pytest.param(linked_out_team_memory, id="repository-root-linked-out-of-the-workspace"),
        pytest.param(escaping_link, id="symlink-escaping-a-root"),
        pytest.param(home_itself, id="root-is-the-home-directory"),
    ],
)
@pytest.mark.parametrize("trigger", ["idle", "size", "forced"])
def test_what_is_not_memory_is_cleared_like_any_read(
    ws: Path,
    home: Path,
    tmp_path: Path,
    trigger: Trigger,
    layout: Callable[[Path, Path, Path], tuple[MemorySettings, Path]],
) -> None:
    settings, root = layout(ws, home, tmp_path)
    session, clock = session_after_reads(ws, settings, root / "decisions.md")
    fire(session, clock, trigger)
    assert results(session)["toolu_0"] == CLEARED_TOOL_RESULT


def test_the_roots_and_why_some_are_ignored(ws: Path, home: Path, tmp_path: Path) -> None:
    for place in PLACES[1:5]:
        root_in(place, ws, home, tmp_path)
    memory = ManagedMemory.from_settings(MemorySettings(team_root=str(home)), str(ws))
    claude = home / ".claude" / "projects" / sanitized(str(ws)) / "memory"
    qwen = home / ".qwen" / "projects" / sanitized(str(ws)) / "memory"
    assert [(r.kind, r.path) for r in memory.roots] == [
        ("project", str(ws / ".compact" / "memory")),  # first: where remember writes
        ("project", str(claude)),
        ("project", str(qwen)),
        ("user", str(home / ".config" / "compact-lsp" / "memory")),
        ("team", str(ws / ".qwen" / "team-memory")),
    ]
    assert [(i.kind, "home directory" in i.reason) for i in memory.ignored] == [("team", True)]
    assert sanitized("/home/retro/work/my-repo") == "-home-retro-work-my-repo"
