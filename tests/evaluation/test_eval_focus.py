"""Editor-focus notices in Claude Code logs."""

from __future__ import annotations

import pytest

from compact_lsp.evaluation.focus import focus_signals

OPENED = ("<ide_opened_file>The user opened the file /Users/dev/app/index.html in the IDE. This may or may not be "
          "related to the current task.</ide_opened_file>")  # fmt: skip
SELECTED = ("<ide_selection>The user selected the lines 98 to 98 from /Users/dev/app/CLAUDE.md:\nAudioWor\n\nThis "
            "may or may not be related to the current task.</ide_selection>")  # fmt: skip


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param(OPENED, ["/Users/dev/app/index.html"], id="opened-file-string"),
        pytest.param([{"type": "text", "text": SELECTED}, {"type": "text", "text": "please fix it"}],
                     ["/Users/dev/app/CLAUDE.md"], id="selection-block"),
        pytest.param([{"type": "text", "text": OPENED + SELECTED}],
                     ["/Users/dev/app/index.html", "/Users/dev/app/CLAUDE.md"], id="both-in-order"),
        pytest.param("The user opened the file /x in the IDE.", [], id="no-tag"),
    ],
)  # fmt: skip
def test_focus_signals(content: object, expected: list[str]) -> None:
    assert focus_signals({"role": "user", "content": content}, lambda p: p) == expected


def test_assistant_text_is_not_a_focus_signal() -> None:
    assert focus_signals({"role": "assistant", "content": OPENED}, lambda p: p) == []
