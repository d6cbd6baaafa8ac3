"""Each setting is declared once, on its typed field (``setting`` in engine/setting_ranges.py): the parser's table is
derived from the declarations at import, and every file that lists the settings (the schema, VS Code's
``contributes.configuration`` and client keys, the Neovim plugin's LuaCATS classes, the docs' table) is generated
from them by ``python -m compact_lsp.cli.generate_settings``. A declaration changed without regenerating fails
here, naming the command; a new agent's settings reach the parser through its registration alone."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from compact_lsp.agents.registered import AGENTS
from compact_lsp.cli import generate_settings
from compact_lsp.cli.generate_settings import COMMAND, generated, main, stale
from compact_lsp.engine.setting_ranges import limit, setting
from compact_lsp.lsp import settings as wire_settings
from compact_lsp.lsp.settings import SETTINGS, parse_settings

REPO = Path(__file__).resolve().parents[2]


def test_every_generated_file_is_fresh() -> None:
    assert stale(REPO) == [], f"generated settings files are stale: run `{COMMAND}` and commit the result"


def copy_of_the_generated_files(tmp_path: Path) -> Path:
    for path in generated(REPO):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / path, tmp_path / path)
    return tmp_path


def test_a_file_edited_by_hand_is_stale_and_the_check_names_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_of_the_generated_files(tmp_path)
    docs = root / "docs" / "protocol.md"
    docs.write_text(docs.read_text(encoding="utf-8").replace("| 50 |", "| 5 |", 1), encoding="utf-8")
    assert stale(root) == [Path("docs/protocol.md")]
    assert main(["--check", "--root", str(root)]) == 1
    assert f"docs/protocol.md is stale: run `{COMMAND}`" in capsys.readouterr().err
    assert main(["--root", str(root)]) == 0  # writing them makes them fresh again
    assert stale(root) == [] and main(["--check", "--root", str(root)]) == 0


def test_a_changed_declaration_makes_every_file_that_shows_it_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SETTINGS["rehydration.maxFiles"].declared, "help", "At most this many files, said otherwise.")
    assert set(stale(REPO)) == {generate_settings.SCHEMA, generate_settings.PACKAGE_JSON, generate_settings.DOCS,
                                generate_settings.LUA}  # fmt: skip


def test_a_setting_hidden_from_vscode_leaves_its_settings_and_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SETTINGS["agent.shell"].declared, "not_in_vscode", "a reason")
    assert generate_settings.VSCODE_KEYS in stale(REPO) and generate_settings.PACKAGE_JSON in stale(REPO)


@dataclass(frozen=True)
class NewAgentSettings:
    """Following a new agent's sessions."""

    SECTION: ClassVar[str] = "newAgent"
    follow: bool | None = field(default=None, metadata=setting("Follow its sessions (unset: when they exist)."))
    depth: int = field(default=3, metadata=setting("How deep to look.", limit(1)))


class NewAgent:
    name = "new-agent"
    settings_class = NewAgentSettings


def test_a_registered_agent_brings_its_settings_to_the_parser_without_an_edit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire_settings, "AGENTS", [*AGENTS, NewAgent()])
    sections = wire_settings.settings_sections()
    table = wire_settings.declared_settings(sections)
    assert {"newAgent.follow", "newAgent.depth"} <= set(table)
    monkeypatch.setattr(wire_settings, "SECTIONS", sections)
    monkeypatch.setattr(wire_settings, "SETTINGS", table)
    monkeypatch.setattr(
        wire_settings, "AGENT_SECTIONS", {**wire_settings.AGENT_SECTIONS, "new-agent": NewAgentSettings}
    )
    parsed = parse_settings({"newAgent": {"follow": True, "depth": 0}})
    assert parsed.agents["new-agent"] == NewAgentSettings(follow=True, depth=3)
    assert parsed.problems == ["newAgent.depth: must be at least 1, got 0"]


@pytest.mark.parametrize(
    ("raw", "field_value"),
    [
        pytest.param({"rehydration": {"skillTokensEach": 1}}, lambda p: p.engine.rehydration.skill_tokens_each,
                     id="undeclared-field"),
        pytest.param({"writeTools": ["x"]}, lambda p: p.engine.write_tools, id="undeclared-top-level-field"),
    ],
)  # fmt: skip
def test_a_field_without_a_declaration_is_not_a_setting(raw: dict[str, Any], field_value: Any) -> None:
    assert field_value(parse_settings(raw)) == field_value(parse_settings({}))
