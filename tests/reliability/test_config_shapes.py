"""Round 4: ``codex install-hook`` never corrupts a valid ``config.toml``, whatever shape its ``[hooks]`` has.

Every valid TOML layout of ``[hooks]`` is either edited (the file still parses, says everything it said, plus our
hook, and uninstalling gives back what it said) or refused in the user's words with the file byte for byte as it
was. On main an inline array of tables under ``[hooks]`` was rewritten into TOML no parser reads (Codex then
cannot start), and ``SessionStart = ["x"]`` ended in a traceback (-32603 "failed unexpectedly" in the editor).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from compact_lsp.agents.codex.hook_entries import is_ours
from compact_lsp.agents.codex.settings import install_hook, uninstall_hook
from compact_lsp.agents.settings_files import SettingsFileError

COMMAND = "/opt/compact-lsp/launchers/codex-hook-1"
OTHER = '{type = "command", command = "echo hi"}'
SHAPES = {
    "empty": "",
    "other-settings": 'model = "gpt-5.5"\n# a comment\n[tui]\nnotifications = true\n',
    "array-of-tables": '[[hooks.SessionStart]]\nmatcher = "startup"\n[[hooks.SessionStart.hooks]]\ntype = "command"\n'
    'command = "echo hi"\n',
    "inline-array-of-tables": f'[hooks]\nSessionStart = [{{matcher = "startup", hooks = [{OTHER}]}}]\n',
    "inline-empty-array": "[hooks]\nSessionStart = []\n",
    "strings-not-tables": '[hooks]\nSessionStart = ["x"]\n',
    "table-not-array": '[hooks.SessionStart]\nmatcher = "startup"\n',
    "hooks-inline-table": f'hooks = {{SessionStart = [{{matcher = "s", hooks = [{OTHER}]}}]}}\n',
    "dotted-keys": f'hooks.SessionStart = [{{matcher = "s", hooks = [{OTHER}]}}]\n',
    "other-event-only": f'[hooks]\nPreToolUse = [{{matcher = "Bash", hooks = [{OTHER}]}}]\n',
    "hooks-not-a-table": 'hooks = "none"\n',
    "multiline-array": f'[hooks]\nSessionStart = [\n  {{matcher = "a", hooks = [{OTHER}]}},\n  # mine\n]\n',
}


def without_ours(data: dict[str, object]) -> dict[str, object]:
    """The plain data with our hook (and any table it leaves empty) taken out."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict) or not isinstance(hooks.get("SessionStart"), list):
        return data
    entries = [e for e in hooks["SessionStart"] if not any(is_ours(h) for h in e.get("hooks", []))]
    rest = {k: v for k, v in hooks.items() if k != "SessionStart"}
    if entries or "SessionStart" in rest:
        rest["SessionStart"] = entries
    out = {k: v for k, v in data.items() if k != "hooks"}
    return {**out, "hooks": rest} if rest else out


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_shape_of_hooks_is_edited_cleanly_or_refused_unchanged(tmp_path: Path, shape: str) -> None:
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(SHAPES[shape])
    before = tomllib.loads(SHAPES[shape])
    try:
        change = install_hook(path, COMMAND)
    except SettingsFileError as exc:
        assert path.read_text() == SHAPES[shape], "refused, but the file changed"
        assert "Traceback" not in str(exc) and str(path) in str(exc)
        return
    assert change.changed
    after = tomllib.loads(path.read_text())  # Codex can still read it
    ours = [h for e in after["hooks"]["SessionStart"] for h in e.get("hooks", []) if is_ours(h)]
    assert [h["command"] for h in ours] == [COMMAND]
    assert without_ours(after) == without_ours(before) or without_ours(after) == {**before, "hooks": {}}
    assert not install_hook(path, COMMAND).changed  # idempotent
    uninstall_hook(path)
    assert without_ours(tomllib.loads(path.read_text())) == without_ours(before)
