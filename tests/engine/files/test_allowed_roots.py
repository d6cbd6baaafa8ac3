"""Allowed roots: the workspace folders and the added directories, and rehydration drawing files from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.files.allowed_roots import work_roots
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings, MemorySettings


def test_work_roots_are_the_folders_then_the_added_directories(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(tmp_path / "b")
    added = (str(tmp_path / "link"), "relative/dir", str(tmp_path / "c"))
    settings = EngineSettings(
        workspace_folders=(str(tmp_path / "a"), str(tmp_path / "b")), additional_directories=added
    )
    roots = work_roots(str(tmp_path / "a"), settings)
    assert roots.paths == (str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "c"))  # resolved, no repeats
    assert not work_roots(None, EngineSettings())


def read(path: Path, uid: str) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": uid, "name": "Read",
                                           "input": {"file_path": str(path)}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uid, "content": path.read_text()}]},
    ]  # fmt: skip


def rehydrated_paths(tmp_path: Path, **settings: Any) -> list[str]:
    workspace, sibling = tmp_path / "ws", tmp_path / "sibling"
    for folder, name in ((workspace, "app.py"), (sibling, "lib.py")):
        folder.mkdir(exist_ok=True)
        (folder / name).write_text(f"# {name}\\n")
    engine = EngineSettings(memory=MemorySettings(project_root=str(workspace / ".mem")), **settings)
    session = ContextSession("s", settings=engine, counter=TiktokenCounter(), workspace_root=str(workspace))
    session.append(
        [{"role": "user", "content": "go"}, *read(workspace / "app.py", "t1"), *read(sibling / "lib.py", "t2")]
    )
    result = session.rehydration([])
    return sorted(a.path or "" for a in result.attachments if a.kind == "file")


def test_rehydration_draws_from_an_added_directory(tmp_path: Path) -> None:
    assert rehydrated_paths(tmp_path) == ["app.py"]
    added = rehydrated_paths(tmp_path, additional_directories=(str(tmp_path / "sibling"),))
    assert added == [str(tmp_path / "sibling" / "lib.py"), "app.py"]  # sorted: the absolute path first
    folders = rehydrated_paths(tmp_path, workspace_folders=(str(tmp_path / "ws"), str(tmp_path / "sibling")))
    assert folders == added  # outside the workspace root a path is shown whole, so the model can use it
