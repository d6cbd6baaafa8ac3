"""Agent fixtures: a temp workspace, a ContextSession on it, the loopback Messages API, a ``Chat`` driver."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anthropic
import pytest
from tests.support.messages_api_stub import MessagesApiStub

from compact_lsp.agent.loop import ChatLoop
from compact_lsp.agent.permissions import Decision, PermissionRequest, Permissions
from compact_lsp.agent.settings import AgentSettings
from compact_lsp.agent.tools import Tool
from compact_lsp.agent.toolset import default_tools
from compact_lsp.agent.turn_result import TurnResult
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings, MemorySettings
from compact_lsp.engine.summarize.base import Summarizer

_COUNTER: TiktokenCounter | None = None


def counter() -> TiktokenCounter:
    global _COUNTER
    if _COUNTER is None:
        _COUNTER = TiktokenCounter()
    return _COUNTER


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Workspace:
    root: Path
    user_memory: Path

    @property
    def project_memory(self) -> Path:
        return self.root / ".compact" / "memory"

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def read(self, relative: str) -> str:
        return (self.root / relative).read_text(encoding="utf-8")


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path / "ws", tmp_path / "user-memory")
    ws.root.mkdir()
    ws.user_memory.mkdir()
    ws.write("src/app.py", "def greet(name):\n    return 'hello ' + name\n")
    ws.write("src/util.py", "TIMEOUT = 30\nRETRIES = 3\n")
    ws.write("README.md", "# demo\n")
    return ws


@pytest.fixture
def messages_api() -> Iterator[MessagesApiStub]:
    with MessagesApiStub() as stub:
        yield stub


class Prompter:
    """Answers permission prompts from a script (default: allow once) and records the questions."""

    def __init__(self) -> None:
        self.answers: list[Decision] = []
        self.default: Decision = "allow_once"
        self.asked: list[PermissionRequest] = []

    async def __call__(self, request: PermissionRequest) -> Decision:
        self.asked.append(request)
        return self.answers.pop(0) if self.answers else self.default


@dataclass
class Chat:
    """One chat session driven against the stub; ``events`` collects every chatEvent emitted."""

    session: ContextSession
    stub: MessagesApiStub
    clock: Clock
    prompter: Prompter
    tools: list[Tool]
    settings: AgentSettings = field(default_factory=AgentSettings)
    summarizer: Summarizer | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    loop: ChatLoop | None = None

    def client(self) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(api_key="test-key", base_url=self.stub.base_url, max_retries=0)

    def build(self) -> ChatLoop:
        if self.loop is None:
            self.loop = ChatLoop(
                self.session,
                client_factory=self.client,
                tools=self.tools,
                permissions=Permissions(ask=self.prompter),
                emit=self.events.append,
                settings=self.settings,
                summarizer=self.summarizer,
                platform_name="Linux",
            )
        return self.loop

    async def say(self, text: str, **kwargs: Any) -> TurnResult:
        return await self.build().run_turn(text, **kwargs)

    def kinds(self) -> list[str]:
        return [e["kind"] for e in self.events]

    def text(self) -> str:
        return "".join(e["text"] for e in self.events if e["kind"] == "text")

    def results(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["kind"] == "tool_result"]


def make_session(workspace: Workspace, clock: Clock, **settings: Any) -> ContextSession:
    engine = EngineSettings(
        memory=MemorySettings(user_root=str(workspace.user_memory)), model="claude-test", **settings
    )
    return ContextSession(
        "ses_test", settings=engine, counter=counter(), clock=clock, workspace_root=str(workspace.root)
    )


@pytest.fixture
def make_chat(workspace: Workspace, messages_api: MessagesApiStub):
    def make(*, settings: dict[str, Any] | None = None, **kwargs: Any) -> Chat:
        clock = Clock()
        session = make_session(workspace, clock, **(settings or {}))
        tools = kwargs.pop("tools", None) or default_tools()
        return Chat(session, messages_api, clock, Prompter(), tools, **kwargs)

    return make
