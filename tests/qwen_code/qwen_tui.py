"""The real Qwen Code TUI (``qwen`` with no prompt, what its users run), driven in tmux as a user drives it.

``QwenTui`` starts ``qwen --yolo`` in a detached tmux session of its own socket, in the project, with the home and
settings of ``qwen_cli.QwenHome``; ``type`` types a line and Enter; ``wait_for`` polls the stub, the screen or the
pane's history with a deadline (tmux gives no event to wait on).

When the TUI never gets somewhere, the failure says why, and ``wait_for`` stops as soon as Qwen exited
(tests/support/tmux_cli.py, which Gemini CLI's driver uses too).

The TUI asks the model for more than the user's turns (measured on 0.24.4): after a turn, a suggestion of what the
user might type next (the main chat forked, its last user message ``SUGGESTION_PROMPT``), and its memory writer
(``MEMORY_PROMPT``). ``is_side`` tells them apart; a script answers them with nothing to suggest or remember.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.qwen_code.chat_completions_stub import ChatCompletionsStub, Reply, Request, text_of
from tests.qwen_code.qwen_cli import QWEN, QwenHome
from tests.support.tmux_cli import TmuxCli

POLL_SECONDS = 0.1
SUGGESTION_PROMPT = "[SUGGESTION MODE:"
MEMORY_PROMPT = "Managed memory has TWO directories."
COMPRESSED = "Chat history compressed from"
"""What the TUI shows once ``/compress`` compacted."""
CURSOR = "\u200b"
"""What the input box shows at its cursor, after the text typed (a zero-width space, then the cursor's colours)."""


def last_user_text(request: Request) -> str:
    users = [m for m in request["messages"] if m.get("role") == "user"]
    return text_of(users[-1].get("content")) if users else ""


def is_side(request: Request) -> bool:
    """A request of the TUI's own, not of the user's chat: the next-input suggestion or the memory writer."""
    return last_user_text(request).startswith((SUGGESTION_PROMPT, MEMORY_PROMPT))


@contextmanager
def tui_home(tmp_path: Path, project: Path) -> Iterator[QwenHome]:
    """A home for the TUI of ``project``: its stub (the test scripts it), the user's settings, our hook installed in
    the project by ``install-hook``."""
    stub = ChatCompletionsStub(lambda request: Reply(text="unused")).start()
    try:
        home = QwenHome(tmp_path / "home", project, stub)
        home.write_settings(general={"enableAutoUpdate": False})  # the TUI's update check, offline, takes 5 s
        assert "installed the compact-lsp hook" in home.install(user=False)
        yield home
    finally:
        stub.stop()


@dataclass
class QwenTui:
    qwen: QwenHome
    name: str = "qwen"
    tmux: TmuxCli = field(init=False)

    def __post_init__(self) -> None:
        self.tmux = TmuxCli(self.qwen.home, self.name, "Qwen Code", "qwen", POLL_SECONDS,
                            lambda: f"refused: {self.qwen.stub.refused}\n")  # fmt: skip

    def start(self, *args: str) -> None:
        """``qwen --yolo`` and ``args`` (``--continue``: the project's last session, resumed)."""
        self.tmux.start([str(QWEN), "--yolo", *args], self.qwen.env(), self.qwen.project)
        self.wait_for("the prompt", lambda: "Type your message" in self.screen())

    def screen(self) -> str:
        return self.tmux.screen()

    def history(self) -> str:
        """What the terminal showed since the start (what scrolled away as well)."""
        return self.tmux.history()

    def input_line(self) -> str:
        """The text of the input box: the lines between the last two rules the TUI draws around it."""
        return self.tmux.between_rules().rstrip(CURSOR).rstrip()

    def type(self, text: str) -> None:
        """Type ``text`` and Enter, once the input box shows it typed (End before Enter, as in Gemini CLI, whose
        input box Qwen's is: tests/support/tmux_cli.py)."""
        self.tmux.type(text, lambda: self.input_line().endswith(text))

    def turn(self, prompt: str, answer: str) -> None:
        """Type ``prompt``; wait until the TUI showed ``answer``."""
        self.type(prompt)
        self.wait_for(f"the answer to {prompt!r}", lambda: answer in self.history())

    def compress(self) -> None:
        """Type ``/compress``; wait until the TUI said it compressed once more."""
        done = self.history().count(COMPRESSED)
        self.type("/compress")
        self.wait_for(f"compaction {done + 1}", lambda: self.history().count(COMPRESSED) > done)

    def wait_for(self, what: str, ready: Callable[[], bool], seconds: float = 45) -> None:
        self.tmux.wait_for(what, ready, seconds)

    def stop(self, grace: float = 5.0) -> None:
        """End the session: tmux hangs up its pane; then whatever of Qwen is left is killed."""
        self.tmux.stop(grace)
