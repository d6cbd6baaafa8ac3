"""Codex's own app server (``codex app-server``, JSON lines on stdio), as its TUI uses it for ``/hooks``: list the
hooks Codex sees for a folder, and trust them the way the TUI does (``config/batchWrite`` of
``hooks.state."<key>".trusted_hash``, measured on codex-cli 0.171.0)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any


class CodexAppServer:
    def __init__(self, codex: Path, env: dict[str, str], cwd: Path) -> None:
        self._process = subprocess.Popen(
            [str(codex), "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env, cwd=cwd, text=True,
        )  # fmt: skip
        self._next = 0
        self.call("initialize", {"clientInfo": {"name": "compact-lsp-tests", "version": "1"}})
        self._send({"method": "initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(message) + "\n")
        self._process.stdin.flush()

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self._next += 1
        self._send({"id": self._next, "method": method, "params": params})
        assert self._process.stdout is not None
        for line in self._process.stdout:  # notifications may come first; the answer carries our id
            message = json.loads(line)
            if message.get("id") == self._next:
                assert "error" not in message, message
                return message["result"]
        raise AssertionError(f"codex app-server ended without answering {method}")

    def hooks(self, cwd: Path) -> list[dict[str, Any]]:
        (listing,) = self.call("hooks/list", {"cwds": [str(cwd)]})["data"]
        hooks: list[dict[str, Any]] = listing["hooks"]
        return hooks

    def trust(self, hook: dict[str, Any]) -> None:
        edit = {"keyPath": f'hooks.state."{hook["key"]}".trusted_hash', "mergeStrategy": "upsert",
                "value": hook["currentHash"]}  # fmt: skip
        self.call("config/batchWrite", {"edits": [edit]})

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
