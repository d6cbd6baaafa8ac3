"""Installing our hook into an agent's JSON settings (Claude Code's, Qwen Code's) and removing it again leaves
the file as the user had it, byte for byte: its encoding and non-ASCII text, its indentation (tabs or spaces), its
line ends, an empty ``hooks`` object; a file that did not exist is gone again; the backup never holds our installed
version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compact_lsp.agents.claude_code.settings import SETTINGS as CLAUDE_CODE
from compact_lsp.agents.json_settings import JsonHookFile
from compact_lsp.agents.qwen_code.settings import SETTINGS as QWEN_CODE

HOOK_FILES = [CLAUDE_CODE, QWEN_CODE]
THEIRS = {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}


def shaped(data: object, indent: str | int, end: str, final: bool, bom: bool) -> bytes:
    text = json.dumps(data, indent=indent, ensure_ascii=False).replace("\n", end) + (end if final else "")
    return (("\ufeff" if bom else "") + text).encode()


SHAPES = [
    {"model": "opus", "statusLine": "Zürich — 日本語 🚀"},
    {"hooks": {}},
    {"hooks": {}, "env": {"A": "ü"}},
    {"hooks": {"SessionStart": [THEIRS]}},
    {"hooks": {"PreToolUse": [THEIRS]}, "permissions": {"allow": ["Bash(ls:*)"]}},
    {},
]


def command(hooks: JsonHookFile) -> str:
    return f"/opt/compact-lsp/launchers/{hooks.agent}-hook-1 {hooks.agent} hook"


@pytest.fixture(params=HOOK_FILES, ids=lambda hooks: hooks.agent)
def hooks(request: pytest.FixtureRequest) -> JsonHookFile:
    hook_file: JsonHookFile = request.param
    return hook_file


def round_trip(hooks: JsonHookFile, path: Path, original: bytes) -> None:
    path.write_bytes(original)
    installed = hooks.install_hook(path, command(hooks))
    assert installed.changed and hooks.installed_commands(path) == [command(hooks)]
    assert installed.backup is not None and installed.backup.read_bytes() == original
    text = path.read_bytes().decode()
    assert ("\r\n" in text) == (b"\r\n" in original), "the file's own line ends"
    assert all(ch in text for ch in original.decode() if ord(ch) > 127), "non-ASCII as itself, not escaped"
    removed = hooks.uninstall_hook(path)
    assert removed.changed and hooks.installed_commands(path) == []
    assert path.read_bytes() == original, "byte for byte as the user had it"
    assert installed.backup.read_bytes() == original, "the backup is never our installed version"


@pytest.mark.parametrize("data", SHAPES)
@pytest.mark.parametrize("indent", [2, 4, "\t"])
@pytest.mark.parametrize("end", ["\n", "\r\n"])
@pytest.mark.parametrize("final", [True, False])
def test_install_then_uninstall_gives_back_the_same_bytes(
    hooks: JsonHookFile, tmp_path: Path, data: object, indent: str | int, end: str, final: bool
) -> None:
    round_trip(hooks, tmp_path / "settings.json", shaped(data, indent, end, final, bom=False))


def test_a_byte_order_mark_is_kept(hooks: JsonHookFile, tmp_path: Path) -> None:
    round_trip(hooks, tmp_path / "settings.json", shaped(SHAPES[0], 2, "\n", True, bom=True))


KEYS = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8).filter(lambda k: k != "hooks")
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(st.characters(blacklist_categories=("Cs",))),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.dictionaries(KEYS, VALUES, max_size=4),
    empty_hooks=st.booleans(),
    indent=st.sampled_from([1, 2, 4, "\t", "  "]),
    end=st.sampled_from(["\n", "\r\n"]),
    final=st.booleans(),
)
def test_any_settings_object_round_trips(
    hooks: JsonHookFile,
    tmp_path: Path,
    data: dict[str, object],
    empty_hooks: bool,
    indent: str | int,
    end: str,
    final: bool,
) -> None:
    path = tmp_path / "settings.json"
    path.with_name("settings.json.bak").unlink(missing_ok=True)
    round_trip(hooks, path, shaped({**data, **({"hooks": {}} if empty_hooks else {})}, indent, end, final, bom=False))


def test_a_file_install_made_is_removed_again(hooks: JsonHookFile, tmp_path: Path) -> None:
    path = hooks.settings_path("project", str(tmp_path))
    assert hooks.install_hook(path, command(hooks), project_dir=str(tmp_path)).changed and path.exists()
    assert hooks.uninstall_hook(path, project_dir=str(tmp_path)).changed
    assert not path.exists() and not path.with_name(path.name + ".bak").exists()


def test_a_reinstall_keeps_the_backup_from_before_us(hooks: JsonHookFile, tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = shaped(SHAPES[3], "\t", "\n", True, bom=False)
    path.write_bytes(original)
    hooks.install_hook(path, command(hooks))
    hooks.install_hook(path, command(hooks) + " --again")  # a new launcher: our entry replaced
    assert hooks.installed_commands(path) == [command(hooks) + " --again"]
    assert path.with_name("settings.json.bak").read_bytes() == original
    hooks.uninstall_hook(path)
    assert path.read_bytes() == original
