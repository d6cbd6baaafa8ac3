"""A Codex session compacted before, resumed (``codex exec resume --last``) and compacted again, with our hook.

Every assertion is about what Codex sent to the stub: the second hook's context comes from the window since the
first compaction (the files the resumed turn read, as they are on disk now), never from before it, and a big file
comes back as the lines the agent read.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.codex.codex_cli import (
    CODEX,
    developer_texts,
    env_for,
    first_after_compaction,
    install,
    needs_codex,
    run_codex,
    turn_script,
    write_config,
)
from tests.codex.responses_stub import Request, ResponsesStub, exec_command, is_compaction, message, texts

from compact_lsp.agents.codex.hook import CODEX_INLINE_LIMIT, HEADER

pytestmark = needs_codex

BIG_CHANGED = "VALUE_120 = 'changed on disk after the read'  # line 120 of big.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    for name in ("first_a", "first_b", "second_a"):
        (root / f"{name}.py").write_text("".join(f"def {name}_{i}():\n    return {i}\n\n" for i in range(30)))
    lines = [f"VALUE_{i} = {i}  # line {i} of big.py, a line of ordinary code\n" for i in range(1, 401)]
    (root / "src" / "big.py").write_text("".join(lines))  # about 24,000 characters: past one file's budget
    return root


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    home = tmp_path / "home" / ".codex"
    home.mkdir(parents=True)
    return home


@pytest.fixture
def stub() -> Iterator[ResponsesStub]:
    server = ResponsesStub(lambda request: ([message("unused")], 1_000)).start()
    yield server
    server.stop()


def ours(request: Request) -> list[str]:
    return [t for t in developer_texts(request) if t.startswith(HEADER)]


def resume_codex(codex_home: Path, project: Path, prompt: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CODEX), "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "resume", "--last", prompt],
        cwd=project, env=env_for(codex_home), capture_output=True, text=True, timeout=150, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_resumed_session_compacted_again_gets_the_window_since_the_first_compaction(
    stub: ResponsesStub, codex_home: Path, project: Path
) -> None:
    write_config(codex_home, stub)
    install(codex_home, project)
    stub.script = turn_script([exec_command("c1", "cat first_a.py"), exec_command("c2", "cat first_b.py")])
    done = run_codex(codex_home, project, "read the first modules")
    assert done.returncode == 0, done.stderr[-2000:]
    first = ours(first_after_compaction(stub))
    assert len(first) == 1 and "first_a.py" in first[0]

    stub.requests.clear()
    stub.script = turn_script(
        [exec_command("c3", "cat second_a.py"), exec_command("c4", "sed -n '100,140p' src/big.py")],
        on_compaction=lambda: _replace_line(project / "src" / "big.py", 120, BIG_CHANGED),
    )
    done = resume_codex(codex_home, project, "read the second modules")
    assert done.returncode == 0, done.stderr[-2000:]
    resumed = stub.requests[0]
    assert any("read the first modules" in t for t in _user_texts(resumed)), "Codex did not resume the session"
    assert ours(resumed) == first  # the first hook's context is in the history Codex resumed
    assert sum(is_compaction(r) for r in stub.requests) == 1

    after = first_after_compaction(stub)
    (context,) = ours(after)  # the first context went with the compaction it followed
    assert len(context) <= CODEX_INLINE_LIMIT and "truncated" not in context
    assert "def second_a_29():" in context  # read in the resumed turn, whole
    assert BIG_CHANGED in context and "VALUE_100 = 100 " in context and "VALUE_120 = 120 " not in context
    assert "VALUE_300 = 300 " not in context and "over the 4,000-character budget per file" in context
    assert "first_a" not in context and "first_b" not in context, "the second hook sent the first window's files"


def _user_texts(request: Request) -> list[str]:
    return [texts(i) for i in request["input"] if i.get("type") == "message" and i.get("role") == "user"]


def _replace_line(path: Path, number: int, text: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines[number - 1] = text + "\n"
    path.write_text("".join(lines))
