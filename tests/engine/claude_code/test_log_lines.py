"""``parse_log_lines``: which lines become records and which are problems, said the same way whatever the path."""

from __future__ import annotations

import pytest

from compact_lsp.engine.claude_code.log_lines import COUNT_BRACKETS_UP_TO, parse_log_lines

TOOL_USE = '{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/w/a.py","offset":%s}}'


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        pytest.param('{"type":"assistant","message":{"role":"assistant","content":[%s]}}' % (TOOL_USE % "NaN"),
                     "assistant message.content[0].input.offset is not a finite number", id="nan-in-message"),
        pytest.param('{"type":"assistant","message":{"role":"assistant","content":[%s]}}' % (TOOL_USE % "1e400"),
                     "assistant message.content[0].input.offset is not a finite number", id="overflow-in-message"),
        pytest.param('{"type":"assistant","message":{"role":"assistant","content":[%s]}}' % (TOOL_USE % "-Infinity"),
                     "assistant message.content[0].input.offset is not a finite number", id="infinity-in-message"),
        pytest.param('{"type":"assistant","costUSD":NaN,"message":{"role":"assistant","content":[%s]}}'
                     % (TOOL_USE % "1.5"), None, id="nan-outside-the-message"),
        pytest.param('{"type":"assistant","message":{"role":"assistant","content":[%s]}}' % (TOOL_USE % "2.5e3"),
                     None, id="finite-float"),
        pytest.param('\ufeff{"type":"user"}', "not valid JSON (Unexpected UTF-8 BOM (decode using utf-8-sig) at "
                     "column 1)", id="bom"),
        pytest.param('{"type":"user","message":{"role":"user","content":"x"}', "not valid JSON (Expecting ',' "
                     "delimiter at column 55)", id="torn"),
        pytest.param('{"type":"user","n":NaN,"message":{"role":"user","content":"x"', "not valid JSON",
                     id="nan-then-torn"),
    ],
)  # fmt: skip
def test_non_finite_numbers_are_refused_only_in_the_message(line: str, problem: str | None) -> None:
    records, problems = parse_log_lines((line + "\n").encode())
    if problem is None:
        assert not problems and records[0].message is not None
    else:
        assert len(problems) == 1 and problems[0].reason.startswith(problem), problems


@pytest.mark.parametrize("pad", [0, COUNT_BRACKETS_UP_TO], ids=["counted", "long-line-walked"])
@pytest.mark.parametrize(("depth", "refused"), [(90, False), (96, False), (97, True), (150, True)])
def test_a_message_nested_too_deep_is_refused(depth: int, refused: bool, pad: int) -> None:
    value = "[" * depth + "]" * depth  # in a tool input: message, content, block and input are four levels
    line = TOOL_USE.replace('"offset":%s', '"deep":' + value + ',"text":"' + "x" * pad + '"')
    record = '{"type":"assistant","message":{"role":"assistant","content":[' + line + "]}}"
    _, problems = parse_log_lines((record + "\n").encode())
    assert bool(problems) == refused, problems
    if refused:
        assert "nested more than 100 levels deep" in problems[0].reason


def test_a_lean_record_keeps_its_message_id_and_its_side_data_type() -> None:
    lines = [
        '{"type":"assistant","uuid":"a1","parentUuid":"u0","message":{"id":"msg_1","role":"assistant","model":"m",'
        '"usage":{"input_tokens":3},"content":[' + TOOL_USE % 0 + "]}}",
        '{"type":"user","uuid":"u1","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result",'
        '"tool_use_id":"t1","content":"text"}]},"toolUseResult":{"type":"text","file":{"content":"text"}}}',
        '{"type":"user","uuid":"u2","message":{"role":"user","content":"hi"},"toolUseResult":"Error: no"}',
    ]
    data = ("\n".join(lines) + "\n").encode()
    full, _ = parse_log_lines(data)
    lean, _ = parse_log_lines(data, copy=False, lean=True)
    assert [r.message for r in lean] == [r.message for r in full]
    assert [(r.uuid, r.parent, r.message_id) for r in lean] == [(r.uuid, r.parent, r.message_id) for r in full]
    assert [r.data["message"] for r in lean] == [{"id": "msg_1"}, {}, {}]
    assert [r.data.get("toolUseResult") for r in lean] == [None, {"type": "text"}, "Error: no"]
