"""Paths from outside (files/usable_path.py): refused where they enter when no file could have that name, and
resolved without raising when the disk changes while they are resolved."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compact_lsp.engine.files import usable_path
from compact_lsp.engine.files.usable_path import (
    MAX_PATH_BYTES,
    UnusablePath,
    checked_path,
    instant_realpaths,
    is_usable,
    real_path,
    real_path_or_none,
)


@pytest.mark.parametrize(
    ("value", "says"),
    [
        pytest.param("src/a\x00.py", "holds a NUL byte", id="nul"),
        pytest.param("src/\udcff.py", "lone surrogate", id="lone-surrogate"),
        pytest.param("a" * (MAX_PATH_BYTES + 1), "over the 4096-byte limit", id="too-long"),
    ],
)
def test_a_path_no_file_could_have_is_refused_naming_the_field(value: str, says: str) -> None:
    with pytest.raises(UnusablePath) as refused:
        checked_path(value, "file_path")
    assert str(refused.value).startswith("file_path ") and says in str(refused.value)
    assert "send a real path" in str(refused.value)
    assert not is_usable(value)
    assert real_path_or_none(value) is None


def test_a_usable_path_passes_unchanged() -> None:
    assert checked_path("src/app.py", "file_path") == "src/app.py"
    assert is_usable("src/app.py") and not is_usable("") and not is_usable(5)


def test_real_path_follows_links(tmp_path: Path) -> None:
    (tmp_path / "real.py").write_text("x = 1\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "real.py")
    assert real_path(str(tmp_path / "link.py")) == os.path.realpath(tmp_path / "real.py")


def test_a_swap_while_resolving_is_tried_again(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls: list[str] = []

    def racing(path: str) -> str:
        calls.append(path)
        if len(calls) < 3:  # readlink of something that stopped being a link
            raise OSError(22, "Invalid argument")
        return "/resolved"

    monkeypatch.setattr(usable_path.os.path, "realpath", racing)
    assert real_path(str(tmp_path / "a" / ".." / "b.py")) == "/resolved"
    assert len(calls) == 3


def test_a_path_that_never_resolves_falls_back_to_its_normal_form(monkeypatch: pytest.MonkeyPatch) -> None:
    def always(path: str) -> str:
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(usable_path.os.path, "realpath", always)
    assert real_path("/w/src/../lib/./m.py") == "/w/lib/m.py"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("src/a.py", id="plain"),
        pytest.param("src/link.py", id="link-leaf"),
        pytest.param("linked/a.py", id="linked-folder"),
        pytest.param("linked/link.py", id="both-links"),
        pytest.param("src/missing.py", id="missing-file"),
        pytest.param("gone/a.py", id="missing-folder"),
        pytest.param("src/a.py/under-a-file", id="under-a-file"),
        pytest.param("linked/../a.py", id="dotdot-after-a-link"),
        pytest.param("src/.", id="dot-leaf"),
        pytest.param("src/..", id="dotdot-leaf"),
        pytest.param("src//a.py", id="double-slash"),
        pytest.param("dangling.py", id="dangling-link"),
        pytest.param("loop.py", id="link-loop"),
    ],
)
def test_instant_realpaths_answers_what_realpath_does(tmp_path: Path, name: str) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "b.py").write_text("y = 2\n")
    (tmp_path / "src" / "link.py").symlink_to(tmp_path / "other" / "b.py")
    (tmp_path / "linked").symlink_to(tmp_path / "src")
    (tmp_path / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    realpath = instant_realpaths()
    path = f"{tmp_path}/{name}"
    for _ in range(2):  # the second answer comes from what the first learnt
        assert realpath(path) == os.path.realpath(path)
    sibling = f"{tmp_path}/{name.rsplit('/', 1)[0]}/a.py" if "/" in name else f"{tmp_path}/a.py"
    assert realpath(sibling) == os.path.realpath(sibling)  # a folder already resolved
