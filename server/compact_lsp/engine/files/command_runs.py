"""The shell commands an agent ran and how each ended, read from its tool calls and their results.

A command's status is what its result records, in the agent's own words, and nothing else: our agent's
``[exit code N]``, Claude Code's ``Exit code N`` (its Bash result is an error exactly when the command failed, so a
result that is no error is a zero exit), Codex's ``Process exited with code N`` / ``Exit code: N``. A command the
user refused, one still running in the background, or a result whose status none of these words give, has no
status: it yields no run (never a guess). A test or build command is recognised by its words (``pytest``,
``cargo test``, ``npm run build``, ``tsc``, ...); the one decisive line of its output is the failing test's id, the
compiler's first error, else the tool's last line (its verdict). A command that names a credential-class file
(``cat .env``, ``ssh -i ~/.ssh/id_rsa``) keeps its status but never a line of its output: that may be the
credential itself.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from compact_lsp.engine.conversation.messages import Block, is_cleared, result_text
from compact_lsp.engine.files.credential_files import is_credential_file

SHELL_TOOLS: frozenset[str] = frozenset(
    {"Bash", "run_shell_command", "shell", "exec_command", "local_shell", "container.exec"}
)
"""Claude Code's, ours (and Qwen's, Gemini's), Codex's."""

MAX_COMMAND_CHARS = 80
"""A command as the ledger shows it: its first line, cut to this many characters."""
MAX_DECISIVE_CHARS = 120

CommandKind = Literal["test", "build"]

_TEST = re.compile(
    r"^(pytest|py\.test|tox|nox|unittest|jest|vitest|mocha|karma|rspec|phpunit|ctest|"
    r"go\s+test|cargo\s+(test|nextest)|(npm|yarn|pnpm|bun)\s+(run\s+)?test|bun\s+test|deno\s+test|"
    r"mvn\s+(test|verify)|gradlew?\s+test|dotnet\s+test|swift\s+test|mix\s+test|make\s+(test|check)|"
    r"just\s+test|playwright\s+test)\b"
)
_BUILD = re.compile(
    r"^(make|cmake|ninja|cargo\s+(build|check|clippy)|go\s+(build|vet)|tsc|"
    r"(npm|yarn|pnpm|bun)\s+(run\s+)?(build|lint|typecheck|check)|mvn|gradlew?|dotnet\s+build|swift\s+build|"
    r"mypy|pyright|ruff\s+check|eslint|ty\s+check|gcc|g\+\+|clang|javac|webpack|vite\s+build|esbuild)\b"
)
_EXIT_CODE = (
    re.compile(r"\[exit code (-?\d+)\]\s*$"),  # ours, the result's last line
    re.compile(r"\AExit code (-?\d+)\b"),  # Claude Code, a failed command's first line
    re.compile(r"Process exited with code (-?\d+)\b"),  # Codex exec_command
    re.compile(r"\AExit code: (-?\d+)\b"),  # Codex shell
    re.compile(r"\ACommand: (?s:.*)\nExit Code: (-?\d+)\b"),  # Qwen Code's run_shell_command: its last such line
)
_NOT_RUN = re.compile(
    r"doesn't want to (proceed|take this action)|requires approval|was blocked|permission to run|"
    r"\bdenied\b.*\b(shell|command)\b|not allowed to run",
    re.IGNORECASE,
)
_TIMED_OUT = re.compile(r"\A(Command timed out|the command did not finish within)", re.IGNORECASE)
_BACKGROUND = re.compile(r"\ACommand running in background", re.IGNORECASE)
_FAILING_TEST = re.compile(
    r"^(FAILED|ERROR) \S+::\S+|^--- FAIL: \S+|^test \S+ \.\.\. FAILED$|^\s*● .+ › .+|^FAIL:? \S+|^✕ .+|^\s+\d+\) .+"
)
_FIRST_ERROR = re.compile(
    r"^error(\[\w+\])?:|:\d+(:\d+)?:? (fatal )?error\b|\berror TS\d+|^\S+\(\d+,\d+\): error|^ERROR\b|"
    r"^npm ERR!|: error: |^E\s{3}"
)
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b(:|$)")


@dataclass(frozen=True)
class CommandRun:
    """One command whose end the log records."""

    command: str
    """Its first line, cut to ``MAX_COMMAND_CHARS``."""
    status: str
    """``exit 0``, ``exit 2``, ``failed`` (an error, its code not recorded), ``timed out`` or ``interrupted``."""
    ok: bool
    kind: CommandKind | None
    decisive: str
    """The one line that decides: the failing test, the first error, else the last line; empty when none."""


def command_of(tool_input: Mapping[str, Any]) -> str | None:
    """The command a shell tool call ran (a Codex argument list joined), or None."""
    command = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) == 3 and command[0].endswith(("bash", "sh", "zsh")) and command[1] in ("-c", "-lc"):
            return str(command[2])
        return " ".join(shlex.quote(part) for part in command)
    return str(command) if isinstance(command, str) and command.strip() else None


_OPERATORS = frozenset({"&&", "||", ";", "|", "&", ";;", "|&"})
_WRAPPER_WORDS = frozenset({"time", "sudo", "env", "nice", "npx", "bunx", "exec", "command"})
_WRAPPER_PAIRS = frozenset({("uv", "run"), ("poetry", "run"), ("pnpm", "exec"), ("pipenv", "run"), ("hatch", "run"),
                            ("pdm", "run"), ("yarn", "exec")})  # fmt: skip
_PYTHON = re.compile(r"^python(\d(\.\d+)?)?$")
_ASSIGNMENT = re.compile(r"^\w+=")


def _commands(command: str) -> list[list[str]]:
    """The simple commands of a line (``a && b; c | d``), each its words; none when the line does not parse."""
    try:
        lexer = shlex.shlex(command[:4000], posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return []
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in _OPERATORS or set(token) <= set(";&|()"):
            commands.append([])
        else:
            commands[-1].append(token)
    return [words for words in commands if words]


def _program(words: list[str]) -> str:
    """A command's program and arguments past its wrappers (``FOO=1``, ``uv run``, ``python -m``, a venv's bin)."""
    i = 0
    while i < len(words):
        word = os.path.basename(words[i])
        if _ASSIGNMENT.match(words[i]) or word in _WRAPPER_WORDS:
            i += 1
        elif i + 1 < len(words) and (
            (word, words[i + 1]) in _WRAPPER_PAIRS or (_PYTHON.match(word) and words[i + 1] == "-m")
        ):
            i += 2
        else:
            break
    rest = words[i:]
    return " ".join([os.path.basename(rest[0]), *rest[1:]]) if rest else ""


def command_kind(command: str) -> CommandKind | None:
    """``test`` or ``build`` when a command of the line starts with a test runner or a build tool, past its
    wrappers; a test runner anywhere in the line wins over a build tool."""
    kinds = set()
    for words in _commands(command):
        program = _program(words)
        if _TEST.match(program):
            kinds.add("test")
        elif _BUILD.match(program):
            kinds.add("build")
    return "test" if "test" in kinds else "build" if kinds else None


def names_credential_file(command: str) -> bool:
    """Whether a word of the command names a credential-class file (``.env``, ``~/.ssh/id_rsa``, ``--key=a.pem``);
    a line that does not parse is read word by word between blanks and quotes."""
    commands = _commands(command) or [re.split(r"[\s'\"<>|;&()]+", command)]
    words = (part for words in commands for word in words for part in word.split("="))
    return any(is_credential_file(os.path.join(os.sep, part)) for part in words if part.strip("./~"))


def shown_command(command: str) -> str:
    line = " ".join(command.strip().splitlines()[0].split()) if command.strip() else ""
    more = "\n" in command.strip()
    if len(line) > MAX_COMMAND_CHARS or more:
        return line[: MAX_COMMAND_CHARS - 1].rstrip() + "…"
    return line


def _status(text: str, is_error: bool, tool: str) -> tuple[str, bool] | None:
    """(status, ok) as the result records it; None when it does not say."""
    stripped = text.strip()
    for pattern in _EXIT_CODE:
        found = pattern.search(stripped)
        if found:
            code = int(found.group(1))
            return f"exit {code}", code == 0
    if _TIMED_OUT.match(stripped):
        return "timed out", False
    if _BACKGROUND.match(stripped):
        return None
    if tool != "Bash":  # only Claude Code's result says a success without a code
        return None
    if "interrupted by user" in stripped[:200]:
        return "interrupted", False
    if is_error:
        return None if _NOT_RUN.search(stripped[:400]) else ("failed", False)
    return "exit 0", True


def _clip(line: str) -> str:
    line = " ".join(line.split())
    if line[:1] == line[-1:] == "=":  # pytest's "===== 3 passed in 0.4s =====": the verdict without the rule
        line = line.strip("= ") or line
    return line if len(line) <= MAX_DECISIVE_CHARS else line[: MAX_DECISIVE_CHARS - 1].rstrip() + "…"


def decisive_line(text: str, ok: bool) -> str:
    """The failing test's id, else the compiler's first error, else the last exception, else the last line."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not _EXIT_CODE[0].search(line) and not _EXIT_CODE[1].match(line)]
    if lines and lines[0].startswith("Error: ") and not ok:  # Claude Code 1.x prefixes a failed result's first line
        lines[0] = lines[0][len("Error: ") :]
    if not lines:
        return ""
    if not ok:
        for pattern in (_FAILING_TEST, _FIRST_ERROR):
            found = next((line for line in lines if pattern.search(line)), None)
            if found is not None:
                return _clip(found)
        exception = next((line for line in reversed(lines) if _EXCEPTION.match(line.strip())), None)
        if exception is not None:
            return _clip(exception)
    return _clip(lines[-1])


def command_run(use: Block, result: Block) -> CommandRun | None:
    """The run of one shell tool call answered by ``result``; None when it is no shell call, or its result does not
    record how it ended (refused, cleared, still running)."""
    tool = str(use.get("name"))
    tool_input = use.get("input")
    if tool not in SHELL_TOOLS or not isinstance(tool_input, dict) or is_cleared(result):
        return None
    command = command_of(tool_input)
    if command is None:
        return None
    text = result_text(result)
    status = _status(text, bool(result.get("is_error")), tool)
    if status is None:
        return None
    label, ok = status
    decisive = "" if names_credential_file(command) else decisive_line(text, ok)
    return CommandRun(shown_command(command), label, ok, command_kind(command), decisive)
