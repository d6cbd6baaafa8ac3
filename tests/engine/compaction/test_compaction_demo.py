"""docs/compaction.md shows one real run of docs/examples/compaction_demo.py: the answer the editors get and the
session the model sees after it. A reader who runs the script must see what the page shows (only the boundary's
id, the throwaway folder and the sizes that follow its name differ), so a change to the summary or the attachments
that the page does not follow fails here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _normalised(text: str) -> str:
    """Without the boundary's id, the throwaway folder and the session's sizes (its token count follows the
    folder's name)."""
    text = re.sub(r"cmp_[0-9a-f]+", "cmp_ID", text)
    text = re.sub(r'"(tokensBefore|tokensAfter)": \d+', r'"\1": N', text)
    return re.sub(r"/tmp/[^/\s]+/src/", "/tmp/ws/src/", text)


def test_the_page_shows_what_the_script_prints() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "examples" / "compaction_demo.py")],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    answer, session = done.stdout.split("-----\n", 1)
    page = (ROOT / "docs" / "compaction.md").read_text()
    run = page.split("## The run", 1)[1].split("\n## ", 1)[0]
    shown = re.findall(r"```(?:json)?\n(.*?)```", run, re.S)
    assert [_normalised(block) for block in shown] == [_normalised(answer), _normalised(session)]
    tokens = re.search(r"([\d,]+) tokens became ([\d,]+)\.", run)
    assert tokens is not None  # and the sentence says the figures the page's answer shows
    assert f'"tokensBefore": {tokens[1].replace(",", "")},' in shown[0]
    assert f'"tokensAfter": {tokens[2].replace(",", "")},' in shown[0]
