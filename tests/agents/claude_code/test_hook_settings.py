"""``compact-lsp claude-code install-hook | uninstall-hook``: merging into Claude Code's settings files."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

import compact_lsp
from compact_lsp.agents.claude_code.settings import install_hook, uninstall_hook
from compact_lsp.agents.hook_launcher import LAUNCH_FAILED
from compact_lsp.agents.settings_files import SettingsFileError

THEIRS = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}],
    },
}


def cli(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compact_lsp", "claude-code", *args],
        capture_output=True, text=True, cwd=cwd, timeout=60, env={**os.environ, "HOME": str(home)},
    )  # fmt: skip


def ours(data: dict) -> list[dict]:
    return [
        h
        for entry in data.get("hooks", {}).get("SessionStart", [])
        for h in entry["hooks"]
        if "claude-code hook" in h["command"] or "compact-lsp/launchers/claude-code-hook-" in h["command"]
    ]


def test_install_into_a_project_keeps_other_settings_and_is_idempotent(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(THEIRS))
    first = cli("install-hook", "--project", home=tmp_path / "home", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "installed" in first.stdout and "backup" in first.stdout
    data = json.loads(settings.read_text())
    assert data["permissions"] == THEIRS["permissions"]
    assert data["hooks"]["PreToolUse"] == THEIRS["hooks"]["PreToolUse"]
    assert THEIRS["hooks"]["SessionStart"][0] in data["hooks"]["SessionStart"]
    (hook,) = ours(data)
    assert hook["type"] == "command"
    assert f"py={sys.executable}" in Path(hook["command"]).read_text()
    assert '"$py" -m compact_lsp claude-code hook "$@"' in Path(hook["command"]).read_text()
    compact = [e for e in data["hooks"]["SessionStart"] if e.get("matcher") == "compact"]
    assert len(compact) == 1
    assert json.loads((settings.parent / "settings.local.json.bak").read_text()) == THEIRS
    again = cli("install-hook", home=tmp_path / "home", cwd=tmp_path)
    assert again.returncode == 0 and "already installed" in again.stdout
    assert json.loads(settings.read_text()) == data


def test_the_installed_command_runs_the_hook(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    assert cli("install-hook", home=tmp_path / "home", cwd=tmp_path).returncode == 0
    (hook,) = ours(json.loads(settings.read_text()))
    run = subprocess.run(hook["command"], shell=True, input=b'{"hook_event_name": "Stop"}', capture_output=True)
    assert (run.returncode, run.stdout) == (0, b"")


def test_user_scope_writes_under_home_and_uninstall_leaves_theirs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(THEIRS))
    assert cli("install-hook", "--user", home=home, cwd=tmp_path).returncode == 0
    assert len(ours(json.loads(settings.read_text()))) == 1
    removed = cli("uninstall-hook", "--user", home=home, cwd=tmp_path)
    assert removed.returncode == 0 and "removed" in removed.stdout
    assert json.loads(settings.read_text()) == THEIRS
    nothing = cli("uninstall-hook", "--user", home=home, cwd=tmp_path)
    assert nothing.returncode == 0 and "nothing to remove" in nothing.stdout


def test_uninstall_of_a_file_install_made_removes_it(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    install_hook(settings, command="python -m compact_lsp claude-code hook")
    assert uninstall_hook(settings).changed
    assert not settings.exists(), "no file is left where none was"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param("{broken", "not valid JSON", id="not-json"),
        pytest.param("[]", "not an object", id="array"),
        pytest.param('{"hooks": []}', "'hooks' is not an object", id="hooks-list"),
        pytest.param('{"hooks": {"SessionStart": {}}}', "is not a list", id="event-object"),
    ],
)
def test_a_settings_file_we_cannot_read_is_left_alone(tmp_path: Path, content: str, message: str) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(content)
    with pytest.raises(SettingsFileError, match=message):
        install_hook(settings)
    assert settings.read_text() == content
    result = cli("install-hook", "--dir", str(tmp_path), home=tmp_path, cwd=tmp_path)
    assert result.returncode == 0  # the project file (another path) is created; ours above is untouched
    assert settings.read_text() == content


def test_a_cli_error_names_the_file_and_changes_nothing(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text("{broken")
    result = cli("install-hook", home=tmp_path / "home", cwd=tmp_path)
    assert result.returncode == 1
    assert str(settings) in result.stderr and "not valid JSON" in result.stderr
    assert settings.read_text() == "{broken"


def test_a_project_settings_file_or_folder_that_is_a_link_is_refused_and_nothing_is_copied(tmp_path: Path) -> None:
    secret = tmp_path / "docker-config.json"
    secret.write_text('{"auths": {"registry": {"auth": "NEVER-COPY-THIS"}}}')
    project = tmp_path / "repo"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.local.json").symlink_to(secret)
    result = cli("install-hook", home=tmp_path / "home", cwd=project)
    assert result.returncode == 1 and "symbolic link" in result.stderr
    assert not (project / ".claude" / "settings.local.json.bak").exists()
    assert "NEVER-COPY-THIS" in secret.read_text() and "hooks" not in secret.read_text()
    linked = tmp_path / "repo2"
    linked.mkdir()
    (linked / ".claude").symlink_to(tmp_path / "home", target_is_directory=True)
    result = cli("install-hook", home=tmp_path / "home", cwd=linked)
    assert result.returncode == 1 and "symbolic link" in result.stderr
    assert not (tmp_path / "home" / "settings.local.json").exists()


def _fake_bundle(root: Path, version: str) -> Path:
    """The server laid out as the VS Code extension bundles it: importable only with its PYTHONPATH."""
    import platformdirs

    import compact_lsp

    common = root / f"pub.compact-lsp-{version}" / "bundled" / "libs" / "common"
    common.mkdir(parents=True)
    (common / "compact_lsp").symlink_to(Path(compact_lsp.__file__).parent, target_is_directory=True)
    (common / "platformdirs").symlink_to(Path(platformdirs.__file__).parent, target_is_directory=True)
    return common


def test_the_hook_installed_from_a_bundled_server_runs_without_its_pythonpath_and_after_an_update(
    tmp_path: Path,
) -> None:
    python = Path(sys.base_prefix) / "bin" / "python3"
    if subprocess.run([str(python), "-c", "import compact_lsp"], capture_output=True).returncode == 0:
        pytest.skip(f"{python} imports compact_lsp without help: no bundled layout to test")
    extensions = tmp_path / "extensions"
    common = _fake_bundle(extensions, "0.1.0")
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONPATH": str(common)}
    install = subprocess.run(
        [str(python), "-m", "compact_lsp", "claude-code", "install-hook", "--dir", str(project)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert install.returncode == 0 and "installed" in install.stdout, install.stderr
    (hook,) = ours(json.loads((project / ".claude" / "settings.local.json").read_text()))
    plain = {"PATH": os.environ["PATH"], "HOME": str(home)}
    ran = subprocess.run(hook["command"] + " --check", shell=True, env=plain, capture_output=True, text=True)
    assert ran.returncode == 0 and "ready" in ran.stdout, ran.stderr
    (extensions / "pub.compact-lsp-0.1.0").rename(extensions / "pub.compact-lsp-0.2.0")  # the extension updated
    ran = subprocess.run(hook["command"] + " --check", shell=True, env=plain, capture_output=True, text=True)
    assert ran.returncode == 0 and "ready" in ran.stdout, ran.stderr
    quiet = subprocess.run(hook["command"], shell=True, env=plain, input='{"hook_event_name": "Stop"}',
                           capture_output=True, text=True)  # fmt: skip
    assert (quiet.returncode, quiet.stdout) == (0, "")


def test_a_launcher_that_cannot_start_the_server_is_never_installed(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(tmp_path / "gone")}
    broken = f"import sys; sys.executable = {str(tmp_path / 'no-python')!r}; sys.argv[0] = 'compact-lsp'; "
    broken += "from compact_lsp.cli.main import main; sys.exit(main())"
    result = subprocess.run(
        [sys.executable, "-c", broken, "claude-code", "install-hook", "--dir", str(project)],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 1 and "nothing was installed" in result.stderr
    assert not (project / ".claude" / "settings.local.json").exists()


def _another_python(where: Path) -> tuple[Path, dict[str, str]]:
    """Another interpreter (a link to this one, outside its venv) and the environment it imports the server with."""
    python = where / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    server = str(Path(compact_lsp.__file__).resolve().parents[1])
    return python, {**os.environ, "PYTHONPATH": os.pathsep.join([server, *site.getsitepackages()])}


def test_each_install_has_its_own_launcher_and_never_repoints_another(tmp_path: Path) -> None:
    """Two projects installed from two Pythons: each settings file names its own launcher, and the second install
    leaves the first project's launcher as it was (running its own Python)."""
    home = tmp_path / "home"
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    assert cli("install-hook", home=home, cwd=first).returncode == 0
    other, env = _another_python(tmp_path / "venv2")
    done = subprocess.run(
        [str(other), "-m", "compact_lsp", "claude-code", "install-hook"],
        capture_output=True, text=True, cwd=second, timeout=60, env={**env, "HOME": str(home)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (one,) = ours(json.loads((first / ".claude" / "settings.local.json").read_text()))
    (two,) = ours(json.loads((second / ".claude" / "settings.local.json").read_text()))
    assert one["command"] != two["command"], "the second install repointed the first project's launcher"
    assert f"py={sys.executable}" in Path(one["command"]).read_text()
    assert f"py={other}" in Path(two["command"]).read_text()


def test_a_launcher_whose_python_is_gone_says_why_with_a_status_and_doctor_finds_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    python, env = _another_python(tmp_path / "venv")
    done = subprocess.run(
        [str(python), "-m", "compact_lsp", "claude-code", "install-hook"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60, env={**env, "HOME": str(home)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (hook,) = ours(json.loads((tmp_path / ".claude" / "settings.local.json").read_text()))
    doctor = [sys.executable, "-m", "compact_lsp", "doctor", "--dir", str(tmp_path)]
    env = {**os.environ, "HOME": str(home)}
    healthy = subprocess.run(doctor, capture_output=True, text=True, timeout=60, env=env)
    assert healthy.returncode == 0 and healthy.stdout.startswith("ok "), healthy.stdout
    python.unlink()  # the virtual environment it was installed from is gone
    run = subprocess.run(hook["command"], shell=True, input=b"{}", capture_output=True, env=env)
    assert run.returncode == LAUNCH_FAILED and run.stdout == b""
    assert f"its Python {python} is gone".encode() in run.stderr and b"compact-lsp doctor" in run.stderr
    sick = subprocess.run(doctor, capture_output=True, text=True, timeout=60, env=env)
    assert sick.returncode == 1 and sick.stdout.startswith("BROKEN"), sick.stdout
    assert f"its Python {python} is gone" in sick.stdout and "Fix: compact-lsp claude-code install-hook" in sick.stdout


def test_doctor_never_runs_a_project_command_that_only_looks_like_ours(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    hook = {"type": "command", "command": f"touch {marker}; compact-lsp claude-code hook"}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"matcher": "compact", "hooks": [hook]}]}}))
    env = {**os.environ, "HOME": str(tmp_path / "h")}
    doctor = [sys.executable, "-m", "compact_lsp", "doctor", "--dir", str(tmp_path)]
    done = subprocess.run(doctor, capture_output=True, text=True, timeout=60, env=env)
    assert not marker.exists()
    assert done.returncode == 1 and "BROKEN" in done.stdout
