"""Installing our hook into Codex's ``config.toml`` and removing it again leaves the file as the user had it, byte
for byte (comments, CRLF, key order, blank lines, an empty table the user wrote); a file that did not exist is gone
again; and Codex's own trust entry for our hook (written when the user trusts it in ``/hooks``) goes with it, from
the user's config, whichever file held the hook."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compact_lsp.agents.codex.hook_trust import CODEX_EVENT_KEY
from compact_lsp.agents.codex.settings import install_hook, installed_commands, uninstall_hook

COMMAND = "/home/u/.local/share/compact-lsp/launchers/codex-hook-0123456789ab"
HASH = "sha256:5c89f746e21187c4652e6469175697de5db9561577122c68bbabc7e1be066448"

REAL_SHAPED = {
    "fresh-install": 'model = "gpt-5.5"\n',
    "providers-and-comments": """# ~/.codex/config.toml
model = "gpt-5.5"              # the default model
model_reasoning_effort = "high"
approval_policy = "on-request"

[model_providers.azure]
name = "Azure"
base_url = "https://example.openai.azure.com/openai"
env_key = "AZURE_OPENAI_API_KEY"
query_params = { api-version = "2025-04-01-preview" }
wire_api = "responses"

[profiles.fast]
model = "gpt-5.5-mini"


[tui]
notifications = ["agent-turn-complete", "approval-requested"]
""",
    "projects-and-mcp": """model = "gpt-5.5"

[projects."/home/u/work/app"]
trust_level = "trusted"

[projects."/home/u/work/Zürich — 日本語"]
trust_level = "trusted"

[mcp_servers.docs]
command = "npx"
args = ["-y", "@acme/docs-mcp"]
env = { "TOKEN_FILE" = "/home/u/.docs" }
""",
    "empty-hooks-table": 'model = "gpt-5.5"\n\n[hooks]\n',
    "their-hook-and-its-trust": """model = "gpt-5.5"

[[hooks.SessionStart]]
matcher = "startup"

[[hooks.SessionStart.hooks]]
type = "command"
command = "~/bin/greet"

[hooks.state."/home/u/.codex/config.toml:session_start:0:0"]
trusted_hash = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
""",
    "inline-hooks": """[hooks]
PreToolUse = [{ matcher = "Bash", hooks = [{ type = "command", command = "~/bin/audit" }] }]
SessionStart = []
""",
    "hooks-before-the-rest": """[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "notify-send done"

[features]
plugins = false
""",
}


def shaped(text: str, end: str, trailing: str) -> bytes:
    return (text.rstrip("\n") + trailing).replace("\n", end).encode()


def trust_as_codex_does(user_config: Path, key: str) -> None:
    """What Codex 0.171.0 appends when the user trusts a hook in /hooks (its app server's config/batchWrite,
    measured: tests/codex/test_real_codex.py runs the real one)."""
    text = user_config.read_bytes().decode()
    end = "\r\n" if "\r\n" in text else "\n"
    entry = f'{end}[hooks.state."{key}"]{end}trusted_hash = "{HASH}"{end}'
    user_config.write_bytes((text + entry).encode())


def our_key(config: Path, group: int) -> str:
    return f"{config}:{CODEX_EVENT_KEY}:{group}:0"


def round_trip(path: Path, original: bytes, *, trusted: bool) -> None:
    path.write_bytes(original)
    installed = install_hook(path, COMMAND)
    assert installed.changed and installed_commands(path) == [COMMAND]
    assert installed.backup is not None and installed.backup.read_bytes() == original
    if trusted:
        groups = path.read_text().count('matcher = "compact"')
        assert groups == 1
        trust_as_codex_does(path, our_key(path, original.decode().count("[[hooks.SessionStart]]")))
    removed = uninstall_hook(path, trust_config=path)
    assert removed.changed and installed_commands(path) == []
    assert path.read_bytes() == original, "byte for byte as the user had it"
    assert installed.backup.read_bytes() == original, "the backup is never our installed version"
    assert ("trust entry" in removed.message) == trusted


@pytest.mark.parametrize("shape", list(REAL_SHAPED))
@pytest.mark.parametrize("end", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("trailing", ["\n", "", "\n\n"], ids=["final-newline", "none", "blank-line"])
@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
def test_install_then_uninstall_gives_back_the_same_bytes(
    tmp_path: Path, shape: str, end: str, trailing: str, trusted: bool
) -> None:
    round_trip(tmp_path / "config.toml", shaped(REAL_SHAPED[shape], end, trailing), trusted=trusted)


NAMES = st.sampled_from(["model", "approval_policy", "notify", "base_url", "name", "enabled", "trust_level", "é"])
VALUES = st.one_of(
    st.integers(-10, 10_000).map(str),
    st.sampled_from(["true", "false", '"gpt-5.5"', '"on-request"', '"ü 日本"', "[1, 2]", '{ a = "b" }']),
)
TABLES = st.sampled_from(["tui", "analytics", "features", "model_providers.stub", 'projects."/home/u/p"', "hooks"])


@st.composite
def config_texts(draw: st.DrawFn) -> str:
    """A config.toml as people write them: top-level keys, then tables, with comments and blank lines between."""
    lines: list[str] = []
    for table in [None, *draw(st.lists(TABLES, max_size=4, unique=True))]:
        if table is not None:
            lines += [""] * draw(st.integers(0, 2)) + [f"[{table}]"]
        for name in draw(st.lists(NAMES, max_size=3, unique=True)) if table != "hooks" else []:
            key = f'"{name}"' if not name.isascii() else name
            lines.append(f"{key} = {draw(VALUES)}" + draw(st.sampled_from(["", "  # why"])))
        if draw(st.booleans()):
            lines.append("# " + draw(st.sampled_from(["keep me", "Zürich", ""])))
    return "\n".join(lines)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=config_texts(),
    end=st.sampled_from(["\n", "\r\n"]),
    trailing=st.sampled_from(["\n", "", "\n\n"]),
    trusted=st.booleans(),
)
def test_any_config_round_trips(tmp_path: Path, text: str, end: str, trailing: str, trusted: bool) -> None:
    path = tmp_path / "config.toml"
    path.with_name("config.toml.bak").unlink(missing_ok=True)
    round_trip(path, shaped(text, end, trailing), trusted=trusted)


def test_a_file_install_made_is_removed_again(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir()
    assert install_hook(path, COMMAND).changed and path.exists()
    trust_as_codex_does(path, our_key(path, 0))
    assert uninstall_hook(path, trust_config=path).changed
    assert not path.exists() and not path.with_name(path.name + ".bak").exists()


def test_a_project_install_takes_its_trust_out_of_the_users_config(tmp_path: Path) -> None:
    """Codex records the trust of a project's hook in the user's config; uninstalling from the project takes it
    out there, byte for byte, and leaves every other trust entry."""
    user = tmp_path / "home" / ".codex" / "config.toml"
    user.parent.mkdir(parents=True)
    mine = shaped(REAL_SHAPED["their-hook-and-its-trust"], "\n", "\n")
    user.write_bytes(mine)
    project = tmp_path / "app" / ".codex" / "config.toml"
    project.parent.mkdir(parents=True)
    assert install_hook(project, COMMAND).changed
    trust_as_codex_does(user, our_key(project, 0))
    removed = uninstall_hook(project, trust_config=user)
    assert removed.changed and f"trust entry for it from {user}" in removed.message
    assert user.read_bytes() == mine, "the user's config as it was, their own hook's trust kept"
    assert not project.exists()


def test_a_change_since_install_is_kept_and_only_ours_goes(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    original = shaped(REAL_SHAPED["providers-and-comments"], "\n", "\n")
    path.write_bytes(original)
    install_hook(path, COMMAND)
    trust_as_codex_does(path, our_key(path, 0))
    path.write_text(path.read_text().replace('model = "gpt-5.5"  ', 'model = "gpt-5.6"  '))
    assert uninstall_hook(path, trust_config=path).changed
    text = path.read_text()
    assert 'model = "gpt-5.6"' in text and "# the default model" in text
    assert "compact-lsp" not in text and "hooks" not in text, text
    assert text == original.decode().replace('gpt-5.5"  ', 'gpt-5.6"  ')


def test_a_reinstall_keeps_our_place_so_hooks_after_ours_stay_trusted(tmp_path: Path) -> None:
    """Codex keys trust by a hook's place (``<file>:session_start:<group>:<hook>``): a reinstall with a new
    launcher changes our command where it stands, and the user's hook after ours keeps its place and its trust."""
    path = tmp_path / "config.toml"
    path.write_text('model = "gpt-5.5"\n')
    install_hook(path, COMMAND)
    path.write_text(
        path.read_text()
        + '\n[[hooks.SessionStart]]\nmatcher = "startup"\n\n[[hooks.SessionStart.hooks]]\ntype = "command"\n'
        'command = "echo theirs"\n'
    )
    assert install_hook(path, COMMAND + "-new").changed
    groups = tomllib.loads(path.read_text())["hooks"]["SessionStart"]
    assert [g["hooks"][0]["command"] for g in groups] == [COMMAND + "-new", "echo theirs"]
    assert installed_commands(path) == [COMMAND + "-new"]
