"""Running the real Qwen Code CLI in tests: a home for it, settings for a loopback stub, our hook installed, a
print-mode run and a stream-json session (several turns and ``/compress`` in one process)."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.qwen_code.chat_completions_stub import ChatCompletionsStub, Request, system_text, text_of
from tests.support import real_clients

QWEN = real_clients.QWEN_CODE
needs_qwen_code = pytest.mark.skipif(not QWEN.exists(), reason=real_clients.qwen_code()[1])
CONTEXT_WINDOW = 100_000
"""``model.generationConfig.contextWindowSize``: Qwen compacts when a reported prompt passes about 67% of it."""
OVER_THRESHOLD = 72_000
SUMMARY_PROMPT = "You are the component that summarizes a conversation"
MAIN_SYSTEM = "You are Qwen Code"
OUR_BLOCK = "compact-lsp: context Qwen Code's compaction did not put back"
EMBEDDED = re.compile(r"\ARecently accessed file \(full current content embedded\):\n\n## (.+)\n")
BY_NAME = "They are listed as reference only because they are large."


@dataclass
class QwenHome:
    home: Path
    project: Path
    stub: ChatCompletionsStub
    more_env: dict[str, str] = field(default_factory=dict)
    """What the user set in the environment Qwen runs in (``QWEN_COMPACT_MAX_RECENT_FILES``)."""

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "QWEN", "XDG_", "DASHSCOPE"))}
        env.update(
            HOME=str(self.home), OPENAI_BASE_URL=self.stub.base_url, OPENAI_API_KEY="dummy-key",
            OPENAI_MODEL="stub-model", QWEN_CODE_SUPPRESS_YOLO_WARNING="1", **self.more_env,
        )  # fmt: skip
        return env

    def write_settings(self, **more: object) -> None:
        """The user's settings for the stub; ``more`` adds top-level sections."""
        settings = {
            "security": {"auth": {"selectedType": "openai"}},
            "model": {"generationConfig": {"contextWindowSize": CONTEXT_WINDOW}},
            **more,
        }
        (self.home / ".qwen").mkdir(parents=True, exist_ok=True)
        (self.home / ".qwen" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")

    def install(self, *, user: bool = True) -> str:
        """``compact-lsp qwen-code install-hook``: in the user's settings, or the project's (its default)."""
        done = subprocess.run(
            [sys.executable, "-m", "compact_lsp", "qwen-code", "install-hook", *(["--user"] if user else [])],
            cwd=self.project, env=self.env(), capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        return done.stdout

    @property
    def hook_log(self) -> Path:
        return self.home / ".local" / "state" / "compact-lsp" / "log" / "qwen-code-hook.log"

    def wait_for_hook(self, timeout: float = 30.0) -> bool:
        """Until our hook logged its answer: the model's own thinking time, while Qwen runs the hook it does not
        wait for after an automatic compaction. Polls a file the hook writes (there is no event to wait on)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.hook_log.is_file() and ": added " in self.hook_log.read_text():
                return True
            time.sleep(0.05)
        return False

    def run(self, prompt: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(QWEN), "--yolo", prompt], cwd=self.project, env=self.env(), capture_output=True, text=True,
            timeout=150, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    def session(self, prompts: list[str], spans: list[tuple[float, float]] | None = None) -> list[dict[str, object]]:
        """One process, several turns (``--input-format stream-json``): each prompt sent once the previous turn's
        result came. Returns the results; ``spans`` gets each prompt's (written, result read) ``perf_counter``
        times."""
        process = subprocess.Popen(
            [str(QWEN), "--yolo", "--input-format", "stream-json", "--output-format", "stream-json"],
            cwd=self.project, env=self.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        results: list[dict[str, object]] = []
        try:
            for prompt in prompts:
                started = time.perf_counter()
                line = {"type": "user", "message": {"role": "user", "content": prompt}}
                process.stdin.write(json.dumps(line) + "\n")
                process.stdin.flush()
                for out in process.stdout:
                    event = json.loads(out)
                    if event.get("type") == "result":
                        results.append(event)
                        break
                else:
                    raise AssertionError(f"Qwen Code ended before answering {prompt!r}")
                if spans is not None:
                    spans.append((started, time.perf_counter()))
            process.stdin.close()
            process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        return results

    def converse(self, prompts: list[str]) -> None:
        """``session``, every turn answered with success and no request refused by the stub."""
        results = self.session(prompts)
        assert [r.get("subtype") for r in results] == ["success"] * len(prompts), results
        assert self.stub.refused == []


def is_summary(request: Request) -> bool:
    """Qwen's summary request, either way it asks (0.24.4): the main chat forked with its summarizer's prompt as
    the last message, or, when its last prompt size is its own estimate (right after a compaction, so on a second
    ``/compress`` with nothing between), its dedicated summarizer, whose system message that prompt is."""
    last = text_of(request["messages"][-1].get("content"))
    return last.startswith(SUMMARY_PROMPT) or system_text(request).startswith(SUMMARY_PROMPT)


def is_main(request: Request) -> bool:
    """A request of the session's own chat (not the summary, nor a side agent such as Qwen's memory writer)."""
    return system_text(request).startswith(MAIN_SYSTEM) and not is_summary(request)


def our_block(request: Request) -> str | None:
    """Our block as the model reads it: the system message's ``SessionStart`` block, HTML-unescaped as its header
    says (Qwen escapes ``<``/``>``, we escape ``&``)."""
    text = system_text(request)
    at = text.find(OUR_BLOCK)
    if at < 0:
        return None
    end = text.find("</qwen:session-start-context>", at)
    return html.unescape(text[at : end if end >= 0 else len(text)])


def reattached(request: Request) -> tuple[set[str], set[str]]:
    """The files Qwen re-attached after its summary, as it sent them: (whole, by name only)."""
    whole: set[str] = set()
    by_name: set[str] = set()
    for message in request["messages"]:
        content = message.get("content")
        for part in content if message.get("role") == "user" and isinstance(content, list) else []:
            text = text_of([part])
            whole.update(EMBEDDED.findall(text))
            if BY_NAME in text:
                by_name.update(line[2:] for line in text.splitlines() if line.startswith("- "))
    return whole, by_name


def summary_index(stub: ChatCompletionsStub) -> int:
    """The index of the session's one summary request (its compaction)."""
    at = [i for i, r in enumerate(stub.requests) if is_summary(r)]
    assert len(at) == 1, f"expected one compaction, saw {len(at)}"
    return at[0]
