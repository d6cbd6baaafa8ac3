"""A raw JSON-RPC client for the real server process, over pipes, that can kill it at any moment.

pytest-lsp owns its server's lifecycle and expects a polite shutdown; the reliability tests need the opposite:
send requests without waiting (pipelining), SIGKILL the process mid-operation, send malformed frames, and keep
one server alive across hundreds of hypothesis examples. ``RawServer`` is synchronous (a reader thread collects
responses), so hypothesis tests and the benchmarks in ``bench/`` can use it as they are.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GUARD = 60.0
"""A hang guard for waits on responses; they normally arrive within milliseconds."""

INTERNAL_ERROR_PREFIX = "compact-lsp failed unexpectedly"
"""How the server words an exception no handler expected: a bug, never an answer to bad input."""


class RpcError(Exception):
    """A JSON-RPC error response."""

    def __init__(self, error: Mapping[str, Any]) -> None:
        super().__init__(str(error.get("message")))
        self.code: int = int(error.get("code", 0))
        self.message: str = str(error.get("message", ""))
        self.data: Any = error.get("data")


class ServerGone(Exception):
    """The server process exited (or was killed) before it answered."""


def server_env(**extra: str) -> dict[str, str]:
    """The environment of a server under test: private XDG dirs, no API key unless given, no real API."""
    xdg = Path(tempfile.mkdtemp(prefix="compact-lsp-rel-xdg-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(
        {
            "XDG_STATE_HOME": str(xdg / "state"),
            "XDG_CONFIG_HOME": str(xdg / "config"),
            "XDG_CACHE_HOME": str(xdg / "cache"),
            "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # nothing listens there
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


@dataclass
class Workspace:
    """A workspace root, its session directory and a user memory root, side by side under ``base``."""

    base: Path
    root: Path = field(init=False)
    sessions: Path = field(init=False)
    user_memory: Path = field(init=False)

    def __post_init__(self) -> None:
        self.root = self.base / "ws"
        self.sessions = self.base / "sessions"
        self.user_memory = self.base / "user-memory"
        for d in (self.root, self.sessions, self.user_memory, self.root / ".compact" / "memory"):
            d.mkdir(parents=True, exist_ok=True)

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def options(self, **extra: Any) -> dict[str, Any]:
        return {
            "sessionDir": str(self.sessions),
            "memory": {"userRoot": str(self.user_memory)},
            "autoCompact": {"enabled": False},
            "sessionMemory": {"enabled": False},
            "agent": {"maxRetries": 0},
            **extra,
        }

    def session_files(self) -> list[Path]:
        return sorted(self.sessions.glob("*/*.jsonl"))

    def session_file(self, session_id: str) -> Path:
        matches = list(self.sessions.glob(f"*/{session_id}.jsonl"))
        assert len(matches) == 1, f"expected one file for {session_id}, found {matches}"
        return matches[0]


SECRET = "TOP-SECRET-OUTSIDE-THE-WORKSPACE"
"""The text of ``outside/secret.txt`` beside the workspace: no answer, file or request may ever hold it."""


def workspace_beside_a_secret(tmp_path: Path) -> Workspace:
    """A workspace with ``src/app.py``, and a secret file next to it, outside every allowed root."""
    workspace = Workspace(tmp_path)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text(f"{SECRET}\n")
    workspace.write("src/app.py", "def greet():\n    return 'hi'\n")
    return workspace


class RawServer:
    """``python -m compact_lsp --stdio`` with a Content-Length framed JSON-RPC client on its pipes."""

    def __init__(
        self,
        workspace: Workspace,
        options: dict[str, Any] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        args: tuple[str, ...] = (),
        preexec_fn: Callable[[], None] | None = None,
        initialize: bool = True,
        stderr: Any = subprocess.DEVNULL,
    ) -> None:
        self.workspace = workspace
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "compact_lsp", "--stdio", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=dict(env) if env is not None else server_env(),
            preexec_fn=preexec_fn,
        )
        self.notifications: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []
        self.prompt_answer: str | None = None
        """The action to pick in permission prompts (``window/showMessageRequest``); None dismisses them."""
        self._responses: dict[Any, dict[str, Any]] = {}
        self.null_id_responses: list[dict[str, Any]] = []
        """Responses with ``"id": null``: errors for frames whose id could not be read."""
        self._sent_at: dict[Any, float] = {}
        self.latency: dict[Any, float] = {}
        """Seconds from sending each request to its response, by id."""
        self._next_id = 0
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()
        self._closed = False
        self._reader = threading.Thread(target=self._read_loop, name="raw-lsp-reader", daemon=True)
        self._reader.start()
        if initialize:
            self.initialize(workspace.options() if options is None else options)

    # -- framing ------------------------------------------------------------------------------------------------

    def write_frame(self, body: bytes) -> None:
        """Send one frame with ``body`` as it is (it need not be valid JSON)."""
        assert self.proc.stdin is not None
        with self._write_lock:
            try:
                self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError) as exc:
                raise ServerGone(f"cannot write to the server: {exc}") from exc

    def _send(self, message: dict[str, Any]) -> None:
        self.write_frame(json.dumps(message).encode("ascii"))  # \u escapes carry lone surrogates too

    def _read_loop(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        try:
            while True:
                length = -1
                while True:
                    line = stdout.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length < 0:
                    continue
                body = stdout.read(length)
                if len(body) < length:
                    return
                self._dispatch(json.loads(body))
        finally:
            with self._cond:
                self._closed = True
                self._cond.notify_all()

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:  # a request from the server: answer it like a quiet client
            with self._cond:
                self.server_requests.append(message)
                self._cond.notify_all()
            result: Any = None
            if message["method"] == "workspace/configuration":
                result = [None for _ in message.get("params", {}).get("items", [])]
            elif message["method"] == "window/showMessageRequest" and self.prompt_answer is not None:
                result = {"title": self.prompt_answer}
            with contextlib.suppress(ServerGone):
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            return
        with self._cond:
            if "method" in message:
                self.notifications.append(message)
            elif message.get("id") is None:  # an error the server could not tie to a request (a parse error)
                self.null_id_responses.append(message)
            else:
                msg_id = message.get("id")
                if not isinstance(msg_id, (int, str)):  # an echo of an odd id (an object, a list): keep it too
                    msg_id = json.dumps(msg_id, sort_keys=True)
                self._responses[msg_id] = message
                sent = self._sent_at.pop(msg_id, None)
                if sent is not None:
                    self.latency[msg_id] = time.perf_counter() - sent
            self._cond.notify_all()

    # -- requests -----------------------------------------------------------------------------------------------

    def send(self, method: str, params: Any = None) -> int:
        """Send a request without waiting; returns its id (``wait(id)`` for the answer)."""
        with self._cond:
            self._next_id += 1
            msg_id = self._next_id
            self._sent_at[msg_id] = time.perf_counter()
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)
        return msg_id

    def answered(self, msg_id: int) -> bool:
        with self._cond:
            return msg_id in self._responses

    def wait(self, msg_id: int, timeout: float = GUARD) -> Any:
        """The result of request ``msg_id``; raises ``RpcError`` for an error response."""
        with self._cond:
            ok = self._cond.wait_for(lambda: msg_id in self._responses or self._closed, timeout=timeout)
            if msg_id not in self._responses:
                if not ok:
                    raise TimeoutError(f"no answer to request {msg_id} within {timeout} s")
                raise ServerGone(f"the server exited before answering request {msg_id}")
            response = self._responses.pop(msg_id)
        if "error" in response:
            raise RpcError(response["error"])
        return response.get("result")

    def request(self, method: str, params: Any = None, timeout: float = GUARD) -> Any:
        return self.wait(self.send(method, params), timeout)

    def command(self, name: str, argument: Any = None, *, raw_arguments: Any = ...) -> Any:
        arguments = raw_arguments if raw_arguments is not ... else ([argument] if argument is not None else [])
        return self.request("workspace/executeCommand", {"command": name, "arguments": arguments})

    def notify(self, method: str, params: Any = None) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def initialize(self, options: dict[str, Any]) -> Any:
        root = self.workspace.root
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}],
                "capabilities": {"window": {"workDoneProgress": True}},
                "initializationOptions": options,
            },
        )
        self.notify("initialized", {})
        return result

    # -- conveniences ---------------------------------------------------------------------------------------------

    def new_session(self, title: str = "reliability") -> str:
        session_id: str = self.request("compact/newSession", {"title": title})["sessionId"]
        return session_id

    def append(self, session_id: str, messages: list[dict[str, Any]], **extra: Any) -> Any:
        return self.request("compact/append", {"sessionId": session_id, "messages": messages, **extra})

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.request("compact/messages", {"sessionId": session_id})["messages"]
        return result

    def notifications_of(self, method: str) -> list[Any]:
        with self._cond:
            return [n.get("params") for n in self.notifications if n.get("method") == method]

    def wait_for_server_request(self, method: str, timeout: float = GUARD) -> dict[str, Any]:
        """The first request the server sent with ``method`` (answered as ``_dispatch`` does), once it came."""

        def found() -> dict[str, Any] | None:
            return next((r for r in self.server_requests if r.get("method") == method), None)

        with self._cond:
            self._cond.wait_for(lambda: found() is not None or self._closed, timeout=timeout)
            request = found()
        if request is None:
            raise TimeoutError(f"the server sent no {method} within {timeout} s")
        return request

    def wait_for_notification(self, method: str, predicate: Callable[[Any], bool], timeout: float = GUARD) -> Any:
        def found() -> Any:
            return next((n.get("params") for n in self.notifications if n.get("method") == method
                         and predicate(n.get("params"))), None)  # fmt: skip

        with self._cond:
            self._cond.wait_for(lambda: found() is not None or self._closed, timeout=timeout)
            params = found()
        if params is None:
            raise TimeoutError(f"no {method} notification matched within {timeout} s")
        return params

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, no atexit; what a crash or an OOM kill does."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=GUARD)
        self._close_pipes()

    def stop(self) -> None:
        """The polite way out: shutdown, exit, wait (killed if it does not go)."""
        if self.proc.poll() is None:
            try:
                self.request("shutdown", None, timeout=10)
                self.notify("exit", None)
                self.proc.wait(timeout=10)
            except (RpcError, ServerGone, TimeoutError, subprocess.TimeoutExpired):
                pass
        if self.proc.poll() is None:
            self.kill()
        self._close_pipes()

    def _close_pipes(self) -> None:
        # the process is gone: the reader sees end-of-file and stops; only then close its pipe
        for pipe in (self.proc.stdin,):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        self._reader.join(timeout=GUARD)
        if self.proc.stdout is not None and not self._reader.is_alive():
            self.proc.stdout.close()

    def __enter__(self) -> RawServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
