"""Round 4 swap loops: the consumers of a resolved path open it with the verified open, and nothing raises.

Under a thread that swaps a file (same text) or a folder for a link out of the workspace, in a loop: the agent's
``edit_file`` read of the file it edits (on main it read the outside file, same inode and mtime, and wrote it into
the workspace), ``list_directory`` (on main 19-27 of 150 listings named files outside), and compaction with its
undo (on main -32603 ``OSError`` from plain ``os.path.realpath`` calls in rehydration and the read-file state).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from compact_lsp.agent import reading, writing
from compact_lsp.agent.tools import ToolError
from compact_lsp.engine.compaction.full_compaction import CompactionError
from compact_lsp.engine.conversation.tokens import TiktokenCounter, load_encoding
from compact_lsp.engine.files.file_gate import AllowedRoots
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.engine.summarize.offline import OfflineSummarizer

from .test_swaps import SECRET, swap_file_for_link, swap_folder_for_link, swapping

ROUNDS = 300
BULK = "inside the workspace, a long result the compaction will summarise away\n" * 200


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "docs").mkdir(parents=True)
    outside.mkdir()
    for n in range(20):
        (outside / f"outside-{n}.txt").write_text(f"{SECRET}\n")
        (workspace / "docs" / f"inside-{n}.txt").write_text("inside\n")
    (outside / "notes.md").write_text("just notes\n")  # the same text as the workspace's: the edit's old_string matches
    (outside / "secret.txt").write_text(f"just notes\n{SECRET}\n")
    (workspace / "notes.md").write_text("just notes\n")
    return workspace, outside


def test_the_edit_read_never_reads_a_file_swapped_for_a_link_out(layout: tuple[Path, Path]) -> None:
    workspace, outside = layout
    roots = AllowedRoots.of(str(workspace))
    real = str(workspace / "notes.md")
    read = refused = 0
    with swapping(swap_file_for_link(workspace / "notes.md", outside / "secret.txt")):
        for _ in range(ROUNDS):
            try:
                text = writing._read_text(real, "notes.md", roots)
            except ToolError:
                refused += 1
                continue
            read += 1
            assert SECRET not in text
    assert read + refused == ROUNDS and refused > 0, (read, refused)


def test_a_listing_never_names_what_lies_behind_a_folder_swapped_for_a_link(layout: tuple[Path, Path]) -> None:
    workspace, outside = layout
    roots = AllowedRoots.of(str(workspace))
    listed = refused = 0
    with swapping(swap_folder_for_link(workspace / "docs", outside)):
        for _ in range(ROUNDS):
            try:
                text = reading._list(str(workspace / "docs"), "docs", roots)
            except ToolError:
                refused += 1
                continue
            listed += 1
            assert "outside-" not in text, text[:200]
    assert listed + refused == ROUNDS


def test_compaction_and_undo_under_folder_swaps_never_fail_and_never_attach_the_outside(
    layout: tuple[Path, Path],
) -> None:
    workspace, outside = layout
    session = ContextSession(
        "ses_swaps", settings=EngineSettings(), counter=TiktokenCounter(load_encoding()), workspace_root=str(workspace)
    )
    messages: list[dict[str, object]] = [{"role": "user", "content": "read the docs"}]
    for n in range(20):
        use = {"type": "tool_use", "id": f"toolu_{n}", "name": "Read",
               "input": {"file_path": str(workspace / "docs" / f"inside-{n}.txt")}}  # fmt: skip
        messages += [
            {"role": "assistant", "content": [use]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": BULK}]},
        ]
    messages.append({"role": "assistant", "content": "read them"})
    session.append(messages)
    compacted = 0
    with swapping(swap_folder_for_link(workspace / "docs", outside)):
        for _ in range(15):
            try:
                asyncio.run(session.compact(OfflineSummarizer()))
            except CompactionError as exc:
                assert exc.kind != "failed", exc
                continue
            compacted += 1
            assert SECRET not in str(session.view())
            session.undo()
            session.read_state.refresh()
    assert compacted > 0, "no compaction happened: the loop proved nothing"
