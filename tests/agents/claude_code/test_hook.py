"""``compact-lsp claude-code hook``: the contract Claude Code relies on, on real transcripts cut at a compaction."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from compact_lsp.agents.character_fit import HOOK_CHAR_LIMIT
from compact_lsp.agents.claude_code.hook import context_for
from compact_lsp.agents.claude_code.reattached import CLAUDE_CODE_MEMORY, claude_code_reattachment
from compact_lsp.agents.hook_context import MAX_TRAIL_FILES
from compact_lsp.agents.hook_io import allowed_roots, parse_hook_input
from compact_lsp.agents.hook_launcher import ready
from compact_lsp.agents.hook_process import hook_main
from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.compaction.ledger import PACKED_PREFIX, packed_paths
from compact_lsp.engine.files.artifact_trail import artifact_trail
from compact_lsp.engine.files.file_use_timeline import FileUse, file_uses

from .transcripts import Compacted, boundary_records, compacted_transcript, corpus_session, hook_input

SESSIONS = [
    pytest.param("7acd37a8-2745-4b58-a8a9-46164b22ad9e", id="jssoundrecorder"),
    pytest.param("0d3a8e6f-290f-4105-a327-a2496e5e2a83", id="claude-code-log"),
]
FILE_TAG = re.compile(r'<file path="([^"]+)"')


def run_hook(data: bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "compact_lsp", "claude-code", "hook"],
        input=data,
        capture_output=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def context_of(result: subprocess.CompletedProcess[bytes]) -> str:
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = out["hookSpecificOutput"]["additionalContext"]
    assert isinstance(context, str) and context
    return context


def _before(compacted: Compacted) -> list[FileUse]:
    """The files used in the transcript as the hook sees it: up to the compaction."""
    imported = import_claude_code(compacted.transcript, with_subagents=False, before_last_compaction=True)
    return file_uses(imported.session.messages, str(compacted.cwd), imported.tool_results_side)


@pytest.mark.parametrize("name", SESSIONS)
def test_adds_files_beyond_claude_codes_own_and_the_whole_artifact_trail(tmp_path: Path, name: str) -> None:
    compacted = compacted_transcript(corpus_session(name), tmp_path)
    context = context_of(run_hook(hook_input(compacted)))
    assert len(context) <= HOOK_CHAR_LIMIT, "Claude Code would hand the model a preview, not the hook's context"
    uses = _before(compacted)
    theirs = claude_code_reattachment(uses, lambda p: Path(p).read_text() if os.path.isfile(p) else None)
    whole = set(theirs.whole)  # what the measured rule says Claude Code puts back whole
    memory = {u.path for u in uses if os.path.basename(u.path) in CLAUDE_CODE_MEMORY}
    attached = {os.path.normpath(os.path.join(compacted.cwd, p)) for p in FILE_TAG.findall(context)}
    if {u.path for u in uses if os.path.isfile(u.path)} - whole - memory:
        assert attached, "the hook re-attached no file although the agent used more than Claude Code puts back"
    assert not attached & (whole | memory), "the hook repeated files Claude Code puts back itself"
    whole_tags = re.findall(r'<file path="([^"]+)"(?![^>]*partial)', context)
    for path in (os.path.normpath(os.path.join(compacted.cwd, p)) for p in whole_tags):  # re-read from disk now
        if os.path.isfile(path) and len(Path(path).read_text()) < 2000:
            assert Path(path).read_text().strip() in context
    trail = context.split("<artifact-trail", 1)[1]
    newest = next(u.path for u in reversed(uses))  # the trail is cut to fit, newest first
    assert os.path.relpath(newest, compacted.cwd) in trail or newest in trail


@pytest.mark.parametrize("name", SESSIONS)
def test_the_whole_answer_fits_claude_codes_inline_limit_whatever_the_budget(tmp_path: Path, name: str) -> None:
    compacted = compacted_transcript(corpus_session(name), tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "compact_lsp", "claude-code", "hook", "--budget", "200000"],
        input=hook_input(compacted), capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert 0 < len(context_of(result)) <= HOOK_CHAR_LIMIT


def test_roots_are_the_project_and_exact_files_outside_it_never_home(tmp_path: Path) -> None:
    home = Path(os.path.expanduser("~"))
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "read.txt").write_text("read with success\n")
    (outside / "sibling.txt").write_text("never read\n")
    uses = [FileUse(0, 0, "Read", str(outside / "read.txt"), None, None)]
    assert not allowed_roots(str(tmp_path / "project"), uses).admits(str(outside / "read.txt")), (
        "a transcript admitted a file outside the cwd without the user's setting"
    )
    roots = allowed_roots(str(tmp_path / "project"), uses, outside_files=True)
    assert roots.admits(str(outside / "read.txt"))
    assert not roots.admits(str(outside / "sibling.txt")), "a directory became a root because one file was read"
    at_home = allowed_roots(str(home), [FileUse(0, 0, "Read", str(home / ".ssh" / "known_hosts"), None, None)])
    assert not at_home.admits(str(home / ".ssh" / "id_rsa"))
    assert not at_home.admits(str(home / "notes.txt")), "the home directory became a root"
    assert not allowed_roots(os.sep, []).admits("/etc/passwd")


def test_the_hook_loads_no_tokenizer_evaluation_sdk_or_event_loop(tmp_path: Path) -> None:
    compacted = compacted_transcript(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e"), tmp_path)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "compact_lsp", "claude-code", "hook"],
        input=hook_input(compacted), capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert context_of(result)
    imported = {line.split("|")[-1].strip() for line in result.stderr.decode().splitlines() if "|" in line}
    unwanted = {m for m in imported if m.split(".")[0] in HOOK_NEVER_IMPORTS}
    unwanted |= {m for m in imported if ours_never_imported(m)}
    assert not unwanted, f"the hook imported {sorted(unwanted)}"


HOOK_NEVER_IMPORTS = ("tiktoken", "asyncio", "anthropic", "pygls", "lsprotocol", "ssl", "argparse", "platformdirs",
                      "hashlib", "_hashlib", "base64", "inspect", "ast", "dis", "traceback", "textwrap",
                      "linecache", "tokenize")  # fmt: skip
"""What the hook never needs: the tokenizer (it counts characters; it loads it only to state a cut file's size in
tokens, and these sessions cut none), the SDK, the event loop, the server, the
subcommands' parser (``hook_process.hook_main`` reads the hook's own arguments), OpenSSL (it compares no hash of
what the model saw: ``ReadFileState.replay(hashes=False)``), base64 (only an image's size is decoded with it),
inspect with ast and dis (``__main__`` imports it at its first use, and only a dataclass without a docstring uses
it: give the class one), traceback with textwrap, linecache and tokenize (imported at its first use too: logging
formats an exception with it, and a hook that answers logs none)."""
HOOK_NEVER_IMPORTS_OURS = ("compact_lsp.evaluation", "compact_lsp.lsp", "compact_lsp.cli", "compact_lsp.engine.session",
                           "compact_lsp.engine.summarize", "compact_lsp.store", "compact_lsp.agent",
                           "compact_lsp.engine.settings")  # fmt: skip
"""Our own modules the hook never needs: the server, the evaluation, the sessions, and every settings class but the
rehydration's (``engine/rehydration_settings.py``; the others' generated dataclass methods cost an eighth of the hook's
imports)."""


def ours_never_imported(module: str) -> bool:
    return any(module == name or module.startswith(f"{name}.") for name in HOOK_NEVER_IMPORTS_OURS)


def test_the_codex_hook_loads_no_tokenizer_evaluation_sdk_or_event_loop(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "compact_lsp", "codex", "hook"],
        input=hook_input(compacted_transcript(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e"), tmp_path)),
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0
    imported = {line.split("|")[-1].strip() for line in result.stderr.decode().splitlines() if "|" in line}
    assert "compact_lsp.engine.codex.rollout" in imported  # the hook read the rollout (the hook module itself is
    # imported by name, which -X importtime does not list)
    unwanted = {m for m in imported if m.split(".")[0] in HOOK_NEVER_IMPORTS}
    unwanted |= {m for m in imported if ours_never_imported(m)}
    claude_code = ("compact_lsp.engine.claude_code", "compact_lsp.agents.claude_code.")
    described = "compact_lsp.agents.claude_code.agent"  # the registration list's description, nothing of its hook
    unwanted |= {m for m in imported if m.startswith(claude_code) and m != described}
    assert not unwanted, f"the Codex hook imported {sorted(unwanted)}"


def test_a_file_changed_after_the_read_comes_back_as_it_is_now(tmp_path: Path) -> None:
    compacted = compacted_transcript(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e"), tmp_path)
    first = context_of(run_hook(hook_input(compacted)))
    path = compacted.cwd / FILE_TAG.findall(first)[0]
    path.write_text("// rewritten after the compaction\nconst fresh = 1;\n")
    assert "const fresh = 1;" in context_of(run_hook(hook_input(compacted)))


def test_never_attaches_a_file_swapped_for_a_symlink_out_of_the_roots(tmp_path: Path) -> None:
    compacted = compacted_transcript(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e"), tmp_path / "t")
    secret = tmp_path / "secret" / "credentials"
    secret.parent.mkdir()
    secret.write_text("aws_secret_access_key = NEVER-SEND-THIS\n")
    first = context_of(run_hook(hook_input(compacted)))
    for rel in FILE_TAG.findall(first):
        target = compacted.cwd / rel
        if target.is_file():
            target.unlink()
            target.symlink_to(secret)
    result = run_hook(hook_input(compacted))
    assert result.returncode == 0
    assert b"NEVER-SEND-THIS" not in result.stdout


@pytest.mark.parametrize(
    "override",
    [
        pytest.param({"source": "startup"}, id="startup"),
        pytest.param({"source": "resume"}, id="resume"),
        pytest.param({"hook_event_name": "PreCompact", "source": None}, id="pre-compact"),
        pytest.param({"hook_event_name": "UserPromptSubmit"}, id="other-event"),
    ],
)
def test_other_events_print_nothing(tmp_path: Path, override: dict[str, object]) -> None:
    compacted = compacted_transcript(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e"), tmp_path)
    result = run_hook(hook_input(compacted, **override))
    assert (result.returncode, result.stdout) == (0, b"")


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"{not json", id="not-json"),
        pytest.param(b"[1, 2]", id="not-an-object"),
        pytest.param(b"\xff\xfe", id="not-utf8"),
        pytest.param(b'{"hook_event_name": "SessionStart", "source": "compact"}', id="missing-fields"),
        pytest.param(b" " * (2 << 20), id="huge-input"),
    ],
)
def test_bad_input_prints_nothing_and_exits_0(data: bytes, tmp_path: Path) -> None:
    result = run_hook(data, env={"XDG_STATE_HOME": str(tmp_path), "HOME": str(tmp_path)})
    assert (result.returncode, result.stdout) == (0, b"")


def test_missing_transcript_prints_nothing_and_says_why(tmp_path: Path) -> None:
    compacted = compacted_transcript(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e"), tmp_path)
    result = run_hook(hook_input(compacted, transcript_path=str(tmp_path / "gone.jsonl")))
    assert (result.returncode, result.stdout) == (0, b"")
    assert b"no Claude Code session log" in result.stderr
    assert b"Traceback (most recent call last)" in result.stderr  # traceback, imported at its first use, formats it


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_as_transcript_does_not_hang(tmp_path: Path) -> None:
    compacted = compacted_transcript(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e"), tmp_path)
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    result = run_hook(hook_input(compacted, transcript_path=str(fifo)))
    assert (result.returncode, result.stdout) == (0, b"")


def test_a_binary_transcript_prints_nothing(tmp_path: Path) -> None:
    compacted = compacted_transcript(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e"), tmp_path)
    compacted.transcript.write_bytes(os.urandom(4096).replace(b"\n", b"") + b"\x00" * 64)
    result = run_hook(hook_input(compacted))
    assert (result.returncode, result.stdout) == (0, b"")


def test_the_hook_logs_to_its_own_file_private(tmp_path: Path) -> None:
    result = run_hook(b"{not json", env={"XDG_STATE_HOME": str(tmp_path), "HOME": str(tmp_path)})
    assert result.returncode == 0
    logs = list(tmp_path.rglob("claude-code-hook.log"))
    assert logs and "not JSON" in logs[0].read_text()
    assert (logs[0].stat().st_mode & 0o777) == 0o600


def test_parse_accepts_only_compact_session_start() -> None:
    good = {"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/w", "hook_event_name": "SessionStart",
            "source": "compact"}  # fmt: skip
    assert parse_hook_input(json.dumps(good).encode()).cwd == "/w"
    with pytest.raises(ValueError, match="absolute"):
        parse_hook_input(json.dumps({**good, "cwd": "relative"}).encode())
    with pytest.raises(ValueError, match="NUL"):
        parse_hook_input(json.dumps({**good, "transcript_path": "/a\x00b"}).encode())
    with pytest.raises(ValueError, match="surrogate"):
        parse_hook_input(json.dumps({**good, "cwd": "/w\ud800"}).encode())


def _compacted_before(compacted: Compacted, at: float = 0.5) -> tuple[set[str], set[str]]:
    """Put a boundary (with its summary and one re-attached file) at ``at`` of the transcript: the hook now runs at
    the session's second compaction. The files used before it and after it (absolute paths)."""
    records = [json.loads(line) for line in compacted.transcript.read_text().splitlines()]
    prompts = [i for i, r in enumerate(records) if i >= len(records) * at and r.get("type") == "user"
               and not any(b.get("type") == "tool_result" for b in r["message"]["content"]
                           if isinstance(r["message"].get("content"), list) and isinstance(b, dict))]  # fmt: skip
    cut = prompts[0]
    first, second = records[:cut], records[cut:]
    boundary, summary = boundary_records(compacted.session_id, str(compacted.cwd), first[-1].get("uuid"))
    second[0] = {**second[0], "parentUuid": "summary-1"}
    compacted.transcript.write_text("".join(json.dumps(r) + "\n" for r in [*first, boundary, summary, *second]))
    root = str(compacted.cwd)

    def used(part: list[dict[str, object]]) -> set[str]:
        scratch = compacted.transcript.with_suffix(".part")
        scratch.write_text("".join(json.dumps(r) + "\n" for r in part))
        imported = import_claude_code(scratch, with_subagents=False)
        uses = file_uses(imported.session.messages, root, imported.tool_results_side)
        return {u.path for u in uses} | {e.path for e in artifact_trail(imported.session.messages, root)}

    return used(first), used(second)


@pytest.mark.parametrize(
    ("name", "at"),
    [
        pytest.param("7acd37a8-2745-4b58-a8a9-46164b22ad9e", 0.5, id="jssoundrecorder"),
        pytest.param("0d3a8e6f-290f-4105-a327-a2496e5e2a83", 0.2, id="claude-code-log"),
    ],
)
def test_a_second_compaction_gets_the_files_touched_since_the_first(tmp_path: Path, name: str, at: float) -> None:
    """Claude Code runs the hook before it writes this compaction's boundary: the last boundary on disk is the
    previous compaction's, and the window after it is what the model held."""
    compacted = compacted_transcript(corpus_session(name), tmp_path, fraction=1.0)
    before, since = _compacted_before(compacted, at)
    assert since - before, "the session used no new file after its first compaction"
    context = context_of(run_hook(hook_input(compacted)))
    trail = context.split("<artifact-trail", 1)[1]
    named = {os.path.normpath(os.path.join(compacted.cwd, p)) for p in re.findall(r"^- (.+): ", trail, re.M)}
    attached = {os.path.normpath(os.path.join(compacted.cwd, p)) for p in FILE_TAG.findall(context)}
    assert named, "the trail names no file"
    assert named <= since, f"the trail names files only the first window used: {sorted(named - since)}"
    assert attached <= since, f"the hook attached files from before the first compaction: {attached - since}"
    assert sorted(since - before)[0] in named or len(named) == MAX_TRAIL_FILES


def test_a_transcript_compacted_before_is_read_from_its_last_boundary(tmp_path: Path) -> None:
    """What came before the last boundary on disk costs nothing: not one line of it is parsed."""
    compacted = compacted_transcript(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e"), tmp_path, 1.0)
    _compacted_before(compacted)
    whole = compacted.transcript.read_bytes()
    at = whole.index(b'"compact_boundary"')
    head = whole[: whole.rindex(b"\n", 0, at) + 1]
    compacted.transcript.write_bytes(b"{not json\n" * 50_000 + head + whole[len(head) :])
    keep: list[object] = []
    context, _ = context_for(parse_hook_input(hook_input(compacted)), keep=keep)
    records = keep[0][0]  # type: ignore[index]
    assert context is not None
    assert records[0].data.get("subtype") == "compact_boundary", "lines before the last boundary were parsed"


def test_no_compaction_in_the_transcript_uses_the_whole_history(tmp_path: Path) -> None:
    """A session's first compaction: nothing of it is on disk when the hook runs, the whole transcript is the window."""
    compacted = compacted_transcript(corpus_session("7acd37a8-2745-4b58-a8a9-46164b22ad9e"), tmp_path)
    assert b"compact_boundary" not in compacted.transcript.read_bytes()
    context, figures = context_for(parse_hook_input(hook_input(compacted)))
    assert context is not None and figures["files"] > 0


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["claude-code", "hook", "--help"], id="help"),
        pytest.param(["claude-code", "hook", "--budget"], id="budget-without-value"),
        pytest.param(["claude-code", "hook", "--budget=--5"], id="budget-not-a-number"),
        pytest.param(["claude-code", "hook", "--bud", "5"], id="abbreviated"),
        pytest.param(["claude-code", "install-hook"], id="another-action"),
        pytest.param(["inspect", "hook"], id="another-subcommand"),
    ],
)
def test_anything_but_the_hooks_own_arguments_goes_to_the_parser(argv: list[str]) -> None:
    assert hook_main(argv) is None


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_check_answers_without_the_parser(agent: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert hook_main([agent, "hook", "--budget=100", "--check"]) == 0
    assert capsys.readouterr().out == ready(agent) + "\n"


def test_the_ledger_comes_first_and_names_every_file_the_agent_changed(tmp_path: Path) -> None:
    """The ledger is the first part of the hook's answer, and names each file the transcript shows the agent
    created or edited before the compaction, with its line counts; the last test's status is the log's."""
    compacted = compacted_transcript(corpus_session("37f83ec9-f2ea-42a9-925e-0d5c105cb6e8"), tmp_path)
    context = context_of(run_hook(hook_input(compacted)))
    body = context.split("\n\n", 1)[1]
    assert body.startswith("<working-set>\n")
    ledger = body.split("</working-set>", 1)[0]
    imported = import_claude_code(compacted.transcript, with_subagents=False, before_last_compaction=True)
    changed = {
        os.path.relpath(u.path, compacted.cwd)
        for u in file_uses(imported.session.messages, str(compacted.cwd), imported.tool_results_side)
        if u.tool in ("Edit", "MultiEdit", "Write")
    }
    assert changed
    packed = [p for line in ledger.splitlines() if line.startswith(PACKED_PREFIX) for p in packed_paths(line)]
    for path in changed:
        counts = r"(created, \d+ lines?|\+\d+ −\d+( by your edits)?)"
        assert re.search(rf"^- {re.escape(path)}: {counts}$", ledger, re.M) or path in packed, path
    assert re.search(r"^Last test: `uv run pytest .*` — exit 0: 10 passed in 0\.\d+s$", ledger, re.M)
