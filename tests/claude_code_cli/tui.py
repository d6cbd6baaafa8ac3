"""The real Claude Code's TUI, driven in tmux: what a user does, typed, against the loopback stub.

``ClaudeCodeTui`` starts ``claude`` (interactive, no ``-p``) in tmux (tests/support/tmux_cli.py, the one driver of
the CLIs' TUIs), in the ``ClaudeCode`` set-up's project under its ``HOME``, with onboarding, the folder's trust and
the dummy key already accepted in ``~/.claude.json`` (what a user clicks through once). ``type`` types a line and
Enter once the input box shows it; ``wait_for`` polls the transcript or the stub with a deadline (tmux gives no
event to wait on) and stops as soon as Claude Code exited, saying why; ``screen`` is what the terminal shows.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.support.tmux_cli import TmuxCli

from .claude_cli import ClaudeCode

POLL_SECONDS = 0.2
PROMPT = "❯ "
"""What the TUI draws before the input box's text."""


@dataclass
class ClaudeCodeTui:
    cc: ClaudeCode
    name: str = "cc"
    tmux: TmuxCli = field(init=False)

    def __post_init__(self) -> None:
        key = self.cc.env["ANTHROPIC_API_KEY"]
        state = {
            "hasCompletedOnboarding": True,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
            "projects": {str(self.cc.project): {"hasTrustDialogAccepted": True, "allowedTools": []}},
        }
        (self.cc.home / ".claude.json").write_text(json.dumps(state))
        self.tmux = TmuxCli(self.cc.home, self.name, "Claude Code", "claude", POLL_SECONDS,
                            lambda: f"refused: {self.cc.stub.refused}\n")  # fmt: skip

    def start(self, *args: str) -> None:
        """``claude --permission-mode acceptEdits`` and ``args``; returns once its input box is drawn."""
        self.tmux.start([str(self.cc.binary), "--permission-mode", "acceptEdits", *args], self.cc.env, self.cc.project)
        self.wait_for("the prompt", lambda: PROMPT.strip() in self.tmux.between_rules(), 60)

    def screen(self) -> str:
        return self.tmux.screen()

    def type(self, text: str) -> None:
        """Type ``text`` and Enter, once the input box shows it typed (End before Enter: tests/support/tmux_cli.py)."""
        self.tmux.type(text, lambda: self.tmux.between_rules().removeprefix(PROMPT).rstrip().endswith(text))

    def wait_for(self, what: str, ready: Callable[[], bool], seconds: float = 90) -> None:
        self.tmux.wait_for(what, ready, seconds)

    def stop(self) -> None:
        """End the session: tmux hangs up its pane; then whatever of Claude Code is left is killed."""
        self.tmux.stop()

    def transcript_records(self) -> list[dict[str, object]]:
        found = sorted((self.cc.home / ".claude" / "projects").glob("*/*.jsonl"))
        if not found:
            return []
        out = []
        for line in found[-1].read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue  # a line being written
        return out
