"""Normalised messages: one copy of each key, role and block type, however many lines they were parsed from."""

from __future__ import annotations

import json

from compact_lsp.engine.conversation.messages import normalize_message

LINE = (
    '{"role": "assistant", "content": [{"type": "text", "text": "t"},'
    ' {"type": "tool_use", "id": "toolu_%d", "name": "Read", "input": {"file_path": "/w/f.py"}}]}'
)


def test_messages_parsed_apart_share_their_keys_roles_and_types() -> None:
    one, two = (normalize_message(json.loads(LINE % n)) for n in (1, 2))
    assert one["role"] is two["role"]
    for a, b in zip(one["content"], two["content"], strict=True):
        assert all(x is y for x, y in zip(a, b, strict=True))  # the keys
        assert a["type"] is b["type"]
    assert one["content"][1]["name"] is two["content"][1]["name"]
    assert one["content"][1]["id"] != two["content"][1]["id"]
    assert normalize_message(json.loads(LINE % 1)) == json.loads(LINE % 1)  # equal, only shared
