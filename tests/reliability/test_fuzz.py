"""Fuzzing the wire: hypothesis-made params for every custom method and command against ONE real server.

Every call must end in a JSON-RPC error a person can read, or a valid result; the server must stay alive; a call
that errored must leave the session exactly as it was (``compact/messages`` and the bytes of its file). An error
worded "compact-lsp failed unexpectedly" is an exception no handler expected: a bug, never an answer.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .crash import read_round
from .rpc import INTERNAL_ERROR_PREFIX, RawServer, RpcError, Workspace

pytestmark = pytest.mark.timeout(600)

EXAMPLES = 60
"""Examples per method; the whole module stays well under a minute on two cores."""

VICTIM = "VICTIM"
"""Replaced by the id of the session every example may hit."""

# -- values ---------------------------------------------------------------------------------------------------

odd_text = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(codec="utf-8"), max_size=20),
    st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3),  # lone surrogates
    st.sampled_from(["", " ", "\x00", "../../../etc/passwd", "/proc/self/environ", "/dev/zero", "C:\\x", "%s%n",
                     "\u202e\u200b", "ses_" + "9" * 200, "😀" * 50, "null", "{}", ".", "..", "~"]),
)  # fmt: skip
numbers = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63),
    st.integers(min_value=-3, max_value=3),
    st.floats(allow_nan=False),
    st.sampled_from([2**64, -(2**64), 10**30, math.inf, -math.inf]),
)
leaves = st.one_of(st.none(), st.booleans(), numbers, odd_text)
json_values = st.recursive(
    leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(odd_text, inner, max_size=4)),
    max_leaves=12,
)


def nested(depth: int, kind: str) -> Any:
    value: Any = "deep"
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value}
    return value


huge_or_deep = st.one_of(
    st.builds(lambda n: "x" * n, st.sampled_from([100_000, 2_000_000])),
    st.builds(nested, st.sampled_from([30, 200]), st.sampled_from(["list", "dict"])),
    st.builds(lambda n: list(range(n)), st.sampled_from([10_000, 200_000])),
)
anything = st.one_of(json_values, huge_or_deep)
session_ids = st.one_of(st.just(VICTIM), st.sampled_from(["ses_unknown000", "ses_" + "0" * 20]), odd_text, anything)

block = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": odd_text}),
    st.fixed_dictionaries(
        {"type": st.just("tool_use"), "id": odd_text, "name": odd_text, "input": st.one_of(json_values, st.just({}))}
    ),
    st.fixed_dictionaries(
        {"type": st.just("tool_result"), "tool_use_id": odd_text, "content": st.one_of(odd_text, json_values)},
        optional={"is_error": json_values},
    ),
    st.fixed_dictionaries({"type": odd_text}, optional={"text": json_values, "source": json_values}),
    json_values,
)
message = st.one_of(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant"]), "content": st.one_of(odd_text, st.lists(block, max_size=3))}
    ),
    st.fixed_dictionaries({"role": st.one_of(odd_text, json_values), "content": json_values}),
    json_values,
)
messages = st.one_of(st.lists(message, max_size=4), anything)


def params_of(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """An object with any subset of ``fields`` (and stray keys), or not an object at all."""
    return st.one_of(
        st.fixed_dictionaries({}, optional=fields).flatmap(
            lambda known: st.dictionaries(odd_text, json_values, max_size=2).map(lambda extra: {**extra, **known})
        ),
        anything,
    )


METHODS: dict[str, st.SearchStrategy[Any]] = {
    "compact/newSession": params_of({"title": st.one_of(odd_text, anything)}),
    "compact/sessions": params_of({}),
    "compact/append": params_of({"sessionId": session_ids, "messages": messages, "usage": anything}),
    "compact/messages": params_of({"sessionId": session_ids}),
    "compact/readFile": params_of(
        {
            "sessionId": session_ids,
            "path": st.one_of(odd_text, anything, st.just("src/app.py")),
            "offset": st.one_of(numbers, anything),
            "limit": st.one_of(numbers, anything),
            "toolUseId": anything,
        }
    ),
    "compact/status": params_of({"sessionId": session_ids}),
    "compact/chat": params_of({"sessionId": session_ids, "text": st.one_of(odd_text, anything)}),
}
COMMANDS: dict[str, st.SearchStrategy[Any]] = {
    name: st.one_of(
        st.lists(params_of({"sessionId": session_ids, "instructions": st.one_of(odd_text, anything)}), max_size=3),
        anything,
    )
    for name in ("compact.microcompact", "compact.compact", "compact.undo", "compact.status",
                 "compact.rehydrationPreview", "compact.noSuchCommand")
}  # fmt: skip


def substitute(value: Any, session_id: str) -> Any:
    if value == VICTIM:
        return session_id
    if isinstance(value, dict):
        return {k: substitute(v, session_id) for k, v in value.items()}
    if isinstance(value, list) and len(value) < 50:
        return [substitute(v, session_id) for v in value]
    return value


# -- one server for the module ----------------------------------------------------------------------------------


class Target:
    """The long-lived server and the session the examples aim at, with its last known state."""

    def __init__(self, base: Path) -> None:
        self.workspace = Workspace(base)
        self.workspace.write("src/app.py", "def greet():\n    return 'hi'\n")
        self.server = RawServer(self.workspace)
        self.session_id = self.server.new_session("fuzz target")
        self.server.append(
            self.session_id,
            [{"role": "user", "content": "Look at the app."},
             *read_round("toolu_f1", "src/app.py", "def greet():\n    return 'hi'\n")],
        )  # fmt: skip
        self.file = self.workspace.session_file(self.session_id)
        self.snapshot()

    def snapshot(self) -> None:
        self.messages = self.server.messages(self.session_id)
        self.bytes = self.file.read_bytes()

    def call(self, method: str, params: Any) -> None:
        params = substitute(params, self.session_id)
        try:
            self.server.request(method, params)
        except RpcError as exc:
            assert not exc.message.startswith(INTERNAL_ERROR_PREFIX), f"{method} crashed a handler: {exc.message}"
            assert exc.message.strip(), f"{method}: an error without a message"
            assert self.server.alive
            assert self.file.read_bytes() == self.bytes, f"{method} failed but changed the session file"
            assert self.server.messages(self.session_id) == self.messages, f"{method} failed but changed the session"
        else:
            assert self.server.alive
            self.snapshot()  # a valid call may change the session: later examples compare with the new state


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    target = Target(tmp_path_factory.mktemp("fuzz"))
    yield target
    target.server.stop()


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


@pytest.mark.parametrize("method", [pytest.param(m, id=m.split("/")[1]) for m in METHODS])
def test_custom_methods_survive_any_params(target: Target, method: str) -> None:
    @FUZZ
    @given(params=METHODS[method])
    def check(params: Any) -> None:
        target.call(method, params)

    check()


@pytest.mark.parametrize("command", [pytest.param(c, id=c) for c in COMMANDS])
def test_commands_survive_any_arguments(target: Target, command: str) -> None:
    @FUZZ
    @given(arguments=COMMANDS[command])
    def check(arguments: Any) -> None:
        target.call("workspace/executeCommand", {"command": command, "arguments": arguments})

    check()


@pytest.mark.parametrize(
    "frame",
    [
        pytest.param(b"{not json", id="invalid-json"),
        pytest.param(b"\xff\xfe\x00garbage", id="not-utf8"),
        pytest.param(b"[]", id="empty-batch"),
        pytest.param(b"42", id="a-number"),
        pytest.param(b'{"jsonrpc": "2.0", "id": 1}', id="no-method"),
        pytest.param(b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "compact/status"}', id="object-id"),
        pytest.param(b'{"jsonrpc": "2.0", "id": 99, "method": "compact/noSuchMethod"}', id="unknown-method"),
        pytest.param(b'{"jsonrpc": "2.0", "method": "compact/append", "params": 7}', id="bad-notification"),
        pytest.param(
            b'{"jsonrpc": "2.0", "id": 98, "method": "compact/status", "params": '
            + b"[" * 100_000
            + b"]" * 100_000
            + b"}",
            id="nested-100k-deep",
        ),
    ],
)
def test_malformed_frames_leave_the_server_answering(target: Target, frame: bytes) -> None:
    target.server.write_frame(frame)
    assert target.server.messages(target.session_id) == target.messages
    assert target.file.read_bytes() == target.bytes


# -- malformed Claude Code logs on import ------------------------------------------------------------------------


GOOD = [
    '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"fz","timestamp":"2026-01-01T00:00:00Z",'
    '"message":{"role":"user","content":"Fix the login bug"}}',
    '{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"fz","timestamp":"2026-01-01T00:00:01Z",'
    '"message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Looking at it."}]}}',
]


@given(bad=st.lists(st.one_of(st.text(max_size=30).filter(lambda s: "\n" not in s and "\r" not in s and s.strip()),
                              st.sampled_from(['{"type":"user"', "[1,2]", '{"type":"user","message":7}', "\x00\x01"])),
                    min_size=1, max_size=4))  # fmt: skip
@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_import_reports_each_bad_line_and_imports_the_rest(tmp_path: Path, bad: list[str]) -> None:
    work = tmp_path / f"import-{abs(hash(tuple(bad)))}"
    workspace = Workspace(work)
    log = work / "fz.jsonl"
    lines = [GOOD[0], *bad, GOOD[1]]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "compact_lsp", "import", str(log), "--workspace", str(workspace.root),
         "--session-dir", str(workspace.sessions)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2 messages" in done.stdout
    reported = {int(n) for n in __import__("re").findall(r"line (\d+):", done.stderr)}
    bad_lines = {i for i, text in enumerate(lines, start=1) if text not in GOOD}
    assert reported == bad_lines, done.stderr
