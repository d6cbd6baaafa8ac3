"""One contract for the agents beside us (agents/agent.py): an agent is one room and one registration. A fake agent
registered here gets the command line (its install and its hook), the hook process, the server's install command,
following its transcripts as read-only sessions, its own compaction timeline and chat (its records shown as its
user saw them), and ``inspect`` and ``import`` of its logs, with nothing else changed."""

from __future__ import annotations

import asyncio
import io
import json
import os
import shutil
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from compact_lsp.agents import registered
from compact_lsp.agents.agent import AgentBeside, FollowedFolder, MakeSession
from compact_lsp.agents.agent_log import AgentLog
from compact_lsp.agents.claude_code.live import FollowedSession, OwnedByClaudeCode
from compact_lsp.agents.claude_code.transcript_window import LiveTranscript
from compact_lsp.agents.followed_window import AgentCompaction
from compact_lsp.agents.hook_io import HookInput, session_start_answer
from compact_lsp.agents.hook_process import run_hook
from compact_lsp.agents.importing import imported_from
from compact_lsp.agents.settings_files import HookChange
from compact_lsp.agents.shown_blocks import Block, Dropped, ShownRecords, agent_marker
from compact_lsp.cli.main import main as cli_main
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.files.working_set import WorkingSet
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.lsp.app import create_server
from compact_lsp.lsp.features import lifecycle, methods, session_picker, timeline
from compact_lsp.lsp.features.agent_hooks import install_command
from compact_lsp.lsp.following.agent_follow import follow_agents
from compact_lsp.lsp.work.compacting import compact_session

FIXTURE = Path(__file__).parents[1] / "fixtures" / "claude_code" / "split_assistant.jsonl"


COMPACTED_AT = "2026-12-06T08:00:00Z"
SAID_BEFORE = {"role": "user", "content": [{"type": "text", "text": "what the fake agent's user said before"}]}
PLUMBING = {"type": "text", "text": "FAKE AGENT CONTEXT: for the model only"}
"""A record of the fake agent's own that its user never saw: its shown records drop it from the chat."""


class FakeFollowed(FollowedSession):
    """The fake agent's transcript, read as Claude Code's; its compactions and its whole chat are its own."""

    def recorded_compactions(self) -> list[AgentCompaction]:
        return [AgentCompaction(COMPACTED_AT, "manual", 150_000, 12_000, "the fake agent's summary", kept=["a", "b"])]

    def chat_entries(self) -> list[dict[str, Any]] | None:
        marker = agent_marker(1, COMPACTED_AT, "manual", 150_000, 12_000, "the fake agent's summary")
        said = {**SAID_BEFORE, "content": [PLUMBING, *SAID_BEFORE["content"]]}
        return [{"kind": "message", "at": None, "message": said}, marker]


@dataclass(frozen=True)
class FakeSettings:
    follow: bool | None = True
    folder: str = ""


class FakeAgent:
    """An agent that writes Claude Code's transcript format into a folder of its own, a settings file of one line,
    and logs of its own for ``inspect`` and ``import``: a header line, then one ``{"role", "text"}`` a line."""

    name = "fake-agent"
    owner = "Fake Agent"
    copy_prefix = "fk-"
    settings_words = "Fake Agent's settings"
    after_install = ""
    scope_help: Mapping[str, str] = {"project": "this project's .fake", "user": "~/.fake"}

    def hook_answer(
        self, raw: bytes, *, budget: int, keep: list[object] | None
    ) -> tuple[str | None, Mapping[str, Any]]:
        return session_start_answer(self, raw, budget=budget, keep=keep)

    def hook_context(
        self, inp: HookInput, *, budget: int, keep: list[object] | None
    ) -> tuple[str | None, Mapping[str, Any]]:
        return f"what {self.owner} lost in session {inp.session_id} ({budget} chars)", {"files": 0}

    def settings_path(self, scope: str, project_dir: str) -> Path:
        return Path(project_dir) / ".fake"

    def install_hook(self, path: Path, project_dir: str | None) -> HookChange:
        path.write_text("hook = compact-lsp fake-agent hook\n")
        return HookChange(path, True, None, f"installed into {path}")

    def uninstall_hook(self, path: Path, project_dir: str | None) -> HookChange:
        path.unlink()
        return HookChange(path, True, None, f"removed from {path}")

    def installed_commands(self, path: Path) -> list[str]:
        return [path.read_text().partition(" = ")[2].strip()] if path.is_file() else []

    def follows(self, settings: Any) -> bool | None:
        follow: bool | None = settings.follow
        return follow

    def followed_folder(self, settings: Any, workspace_root: str) -> FollowedFolder | None:
        folder = Path(settings.folder)

        def open_transcript(path: Path, make_session: MakeSession) -> FakeFollowed | None:
            return FakeFollowed(LiveTranscript(path), make_session) if path.is_file() else None

        return FollowedFolder(
            folder, recursive=False, levels_to_wait=0, wanted=lambda p: p.endswith(".jsonl"),
            newest=lambda limit: sorted(folder.glob("*.jsonl"))[:limit], open=open_transcript,
        )  # fmt: skip

    def recognises(self, path: str) -> bool:
        try:
            with open(path, "rb") as f:
                return f.readline().startswith(b'{"fakeAgent":')
        except OSError:
            return False

    def read_log(self, path: str) -> AgentLog:
        header, *lines = [json.loads(line) for line in Path(path).read_text().splitlines()]
        messages: list[Message] = [{"role": r["role"], "content": [{"type": "text", "text": r["text"]}]} for r in lines]
        turns = sum(1 for m in messages if m["role"] == "assistant")
        facts = {"assistantTurns": turns, "problems": [], "repairs": [], "compaction": {"compactions": 1}}
        return AgentLog(header["fakeAgent"], header["title"], None, messages, [], facts, agent=self.name)

    def imported_working_set(self, messages: list[Message], cwd: str) -> WorkingSet | None:
        return None

    @property
    def shown_records(self) -> ShownRecords:
        def classify(text: str) -> Block | None:
            return Dropped() if text.startswith("FAKE AGENT CONTEXT:") else None

        return ShownRecords(classify=classify)


FAKE = FakeAgent()


@pytest.fixture
def fake_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[AgentBeside]:
    monkeypatch.setattr(registered, "AGENTS", [*registered.AGENTS, FAKE])
    yield FAKE


def test_the_registered_agents_keep_the_contract() -> None:
    agents: list[AgentBeside] = list(registered.AGENTS)  # mypy holds each to the Protocol
    assert [a.name for a in agents] == ["claude-code", "codex", "qwen-code", "gemini-cli"]
    assert len({a.owner for a in agents}) == len(agents)
    prefixes = [a.copy_prefix for a in agents]  # an imported copy's id tells whose log it was
    assert not [(p, q) for p in prefixes for q in prefixes if p != q and q.startswith(p)]
    assert all(registered.agent_named(a.name) is a for a in agents)


def test_a_registered_agent_gets_the_command_line(
    fake_registered: AgentBeside, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["fake-agent", "install-hook", "--project", "--dir", str(tmp_path)]) == 0
    assert (tmp_path / ".fake").read_text() == "hook = compact-lsp fake-agent hook\n"
    assert f"installed into {tmp_path / '.fake'}" in capsys.readouterr().out
    assert cli_main(["fake-agent", "uninstall-hook", "--dir", str(tmp_path)]) == 0
    assert not (tmp_path / ".fake").exists()


def test_a_registered_agent_gets_inspect_and_import(
    fake_registered: AgentBeside, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "f00d.log"
    records = [{"fakeAgent": "f00d", "title": "the fake agent's session"}, {"role": "user", "text": "read a.py"},
               {"role": "assistant", "text": "a.py holds one function"}]  # fmt: skip
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert cli_main(["inspect", "--json", str(log)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["agent"], report["sessionId"], report["title"]) == ("fake-agent", "f00d", "the fake agent's session")
    assert (report["messages"], report["assistantTurns"]) == (2, 1) and report["usage"]["total"] > 0
    assert cli_main(["inspect", str(log)]) == 0
    assert "the agent's compactions: 1" in capsys.readouterr().out
    store = ["--workspace", str(tmp_path), "--session-dir", str(tmp_path / "sessions")]
    assert cli_main(["import", *store, str(log)]) == 0
    assert capsys.readouterr().out.startswith("fk-f00d\t2 messages\t")
    assert imported_from("fk-f00d", "import") == "Fake Agent"  # the session list's "importedFrom"
    assert cli_main(["import", *store, str(log)]) == 1
    assert "already imported as session fk-f00d" in capsys.readouterr().err


def test_a_registered_agent_gets_the_hook_process(fake_registered: AgentBeside, tmp_path: Path) -> None:
    hook_input = {"session_id": "s1", "transcript_path": str(tmp_path / "t.jsonl"), "cwd": str(tmp_path),
                  "hook_event_name": "SessionStart", "source": "compact"}  # fmt: skip
    out = io.StringIO()
    assert run_hook(io.BytesIO(json.dumps(hook_input).encode()), out, budget=123, agent="fake-agent") == 0
    answer = json.loads(out.getvalue())
    assert answer["hookSpecificOutput"]["additionalContext"] == "what Fake Agent lost in session s1 (123 chars)"


def test_a_registered_agent_is_followed_installed_and_shown_by_the_server(
    fake_registered: AgentBeside, tmp_path: Path
) -> None:
    transcripts = tmp_path / "fake-transcripts"
    transcripts.mkdir()
    shutil.copy(FIXTURE, transcripts / "5e55-0001.jsonl")
    (tmp_path / "ws").mkdir()

    async def example() -> None:
        ls = create_server()
        ls.send_notification = lambda method, params: None  # type: ignore[method-assign,assignment]
        ls.show_warning = lambda message: None  # type: ignore[method-assign,assignment]
        ls.summarizer_factory = lambda settings: OfflineSummarizer()
        ls.protocol.client_capabilities = types.ClientCapabilities()
        assert install_command(FAKE) == "compact.installFakeAgentHook" in ls.protocol.fm.commands
        options = {"sessionDir": str(tmp_path / "sessions"), "claudeCode": {"follow": False},
                   "codex": {"follow": False}, "geminiCli": {"follow": False}}  # fmt: skip
        lifecycle.initialize(
            ls, types.InitializeParams(capabilities=types.ClientCapabilities(), root_path=str(tmp_path / "ws"),
                                       initialization_options=options),
        )  # fmt: skip
        try:
            ls.follow_settings[FAKE.name] = FakeSettings(folder=str(transcripts))
            follow_agents(ls)
            assert set(ls.followers) == {FAKE.name}
            slot = None
            deadline = time.monotonic() + 60  # the follower reads the transcript on its own thread (slow under load)
            while time.monotonic() < deadline:
                slot = next((s for s in ls.registry().slots.values() if s.followed is not None), None)
                if slot is not None and slot.followed is not None and slot.followed.version:
                    break
                await asyncio.sleep(0.01)
            assert slot is not None and slot.followed is not None and slot.followed.version
            # the list answers at once with what is ready: a session still busy with its first read comes later
            entry = None
            while entry is None and time.monotonic() < deadline:
                listed = await session_picker.list_sessions(ls, {})
                entry = next((item for item in listed if item["sessionId"] == slot.session.id), None)
                await asyncio.sleep(0.01)
            assert entry is not None, "the followed session never came into the list"
            assert entry["source"] == FAKE.name and entry["readOnly"] is True
            status = await methods.status(ls, {"sessionId": slot.session.id})
            assert status["messageCount"] > 0
            with pytest.raises(OwnedByClaudeCode):  # the transcript's owner refuses changes (its reader's words)
                await compact_session(ls, slot, trigger="manual")
            shown = await timeline.timeline(ls, {"sessionId": slot.session.id})  # its compactions, as it says them
            assert shown["agent"] == FAKE.name
            assert shown["rows"] == [
                {"kind": "full", "at": COMPACTED_AT, "trigger": "manual", "tokensBefore": 150_000,
                 "tokensAfter": 12_000, "summary": "the fake agent's summary", "kept": ["a", "b"]},
            ]  # fmt: skip
            chat = await session_picker.transcript(ls, {"sessionId": slot.session.id})  # its whole conversation
            assert [e["kind"] for e in chat["entries"]] == ["message", "compaction"]
            assert chat["entries"][0]["message"] == SAID_BEFORE  # as its user saw it: its plumbing dropped
            marker = chat["entries"][1]
            assert (marker["trigger"], marker["tokensBefore"], marker["tokensAfter"]) == ("manual", 150_000, 12_000)
            assert marker["summary"] == "the fake agent's summary" and marker["summarizer"] == "agent"
        finally:
            lifecycle.shutdown(ls)

    asyncio.run(example())
    assert os.path.isfile(transcripts / "5e55-0001.jsonl")


def test_the_hook_door_says_the_shared_budget_again() -> None:
    from compact_lsp.agents import character_fit, hook_process

    assert hook_process.DEFAULT_BUDGET == character_fit.DEFAULT_BUDGET
