"""Following Claude Code's transcripts: where they are, and what an appended line costs."""

from __future__ import annotations

import pytest

from compact_lsp.companion.live import project_name


@pytest.mark.parametrize(
    ("workspace", "folder"),
    [
        pytest.param("/home/u/repo", "-home-u-repo", id="plain"),
        pytest.param("/home/u/work_repo", "-home-u-work-repo", id="underscore"),
        pytest.param("/home/u/my.app", "-home-u-my-app", id="dot"),
        pytest.param("/home/u/my repo", "-home-u-my-repo", id="space"),
        pytest.param("/home/u/über", "-home-u--ber", id="non-ascii"),
        pytest.param("/home/u/a🚀b", "-home-u-a--b", id="beyond-bmp-two-utf16-units"),
        pytest.param("C:\\Users\\u\\x-y", "C--Users-u-x-y", id="windows"),
    ],
)
def test_claude_code_names_a_project_folder_by_its_path_with_every_other_character_as_a_dash(
    workspace: str, folder: str
) -> None:
    assert project_name(workspace) == folder
