"""Concurrent requests on one session over real JSON-RPC: never an internal error.

Waves of pipelined requests — status, append (valid next turns and stray ones), compact, undo, microcompact,
pin, unpin, rename, messages, rehydration preview — are sent to one real server for one session without waiting
for answers, so they overlap in every order the server allows (an append queued behind a compaction, a status
answered while a compaction has claimed the session, an undo during a compaction). Any answer may be a result
or an error a person can act on; a -32603 ("compact-lsp failed unexpectedly") fails the test. Afterwards the
session still takes an append and its messages validate. Seeded, so a failure replays.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.conversation.validate import validate

from .crash import base_conversation, read_round
from .rpc import INTERNAL_ERROR_PREFIX, RawServer, RpcError, Workspace

pytestmark = pytest.mark.timeout(180)

WAVES = 12
PER_WAVE = 24
INTERNAL_ERROR = -32603


def request_for(rng: random.Random, session_id: str, n: int) -> tuple[str, Any]:
    kind = rng.choice(["status", "status", "append", "append", "append", "compact", "undo", "micro", "pin",
                       "unpin", "rename", "messages", "preview"])  # fmt: skip
    use_id = f"toolu_fuzz_{n}"
    if kind == "append":
        messages = read_round(use_id, f"src/module_{n % 8}.py", f"x = {n}\n" * rng.randint(1, 400))
        if rng.random() < 0.2:  # a stray result, refused as invalid
            messages = messages[1:]
        return "compact/append", {"sessionId": session_id, "messages": messages}
    if kind in ("compact", "undo", "micro", "preview"):
        command = {"compact": "compact.compact", "undo": "compact.undo", "micro": "compact.microcompact",
                   "preview": "compact.rehydrationPreview"}[kind]  # fmt: skip
        return "workspace/executeCommand", {"command": command, "arguments": [{"sessionId": session_id}]}
    if kind in ("pin", "unpin"):
        target = {"toolUseId": f"toolu_fuzz_{rng.randint(0, n)}"} if rng.random() < 0.5 else {"path": "src/module_1.py"}
        return f"compact/{kind}", {"sessionId": session_id, **target}
    if kind == "rename":
        return "compact/renameSession", {"sessionId": session_id, "title": f"fuzz {n}"}
    if kind == "messages":
        return "compact/messages", {"sessionId": session_id}
    return "compact/status", {"sessionId": session_id}


def test_concurrent_requests_on_one_session_never_fail_unexpectedly(tmp_path: Path) -> None:
    rng = random.Random(23)
    workspace = Workspace(tmp_path)
    options = workspace.options(microcompact={"keepRecent": 2, "sizeThresholdTokens": 3000})
    with RawServer(workspace, options) as server:
        session_id = server.new_session()
        server.append(session_id, base_conversation(workspace, rounds=10))
        internal: list[str] = []
        n = 0
        for _ in range(WAVES):
            sent = []
            for _ in range(PER_WAVE):
                n += 1
                method, params = request_for(rng, session_id, n)
                sent.append((method, params.get("command", ""), server.send(method, params)))
            for method, command, msg_id in sent:
                try:
                    server.wait(msg_id)
                except RpcError as exc:
                    if exc.code == INTERNAL_ERROR or INTERNAL_ERROR_PREFIX in exc.message:
                        internal.append(f"{method} {command}: {exc.message}")
        assert internal == []
        role = "assistant" if last_role(server, session_id) == "user" else "user"
        server.append(session_id, [{"role": role, "content": "Go on."}])  # the session still takes an append
        assert validate(server.messages(session_id)) == []


def last_role(server: RawServer, session_id: str) -> str:
    messages = server.messages(session_id)
    return str(messages[-1]["role"]) if messages else "assistant"
