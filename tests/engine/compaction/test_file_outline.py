"""The outline a big file's slices carry: where each part of the file is, by line, for the model to read next."""

from __future__ import annotations

import pytest

from compact_lsp.engine.compaction.file_excerpts import outline_rest
from compact_lsp.engine.compaction.file_outline import ANCHOR_EVERY, OutlineEntry, outline
from compact_lsp.engine.conversation.tokens import TiktokenCounter

PYTHON = '''import os


@decorated
class Store:
    """A store."""

    def get(self, key):
        return key

    async def put(self, key, value):
        pass


def main():
    return Store()
'''

TYPESCRIPT = """import * as vscode from "vscode";

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const x = 1;
}

export class Client {
  start(): void {}
}

export const stop = async () => {
  return;
};
"""

SHELL = """#!/bin/bash
set -e

build() {
  make all
}

deploy() {
  scp out host:
}
"""

MARKDOWN = """# Title

intro

## Install

```sh
# not a heading
pip install x
```

### From source

## Use

text
"""


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        pytest.param(
            "store.py",
            PYTHON,
            [(4, 12, "class Store", 0), (8, 9, "def get", 1), (11, 12, "def put", 1), (15, 16, "def main", 0)],
            id="python-ast-with-decorators",
        ),
        pytest.param(
            "ext.ts",
            TYPESCRIPT,
            [
                (3, 5, "export async function activate(context: vscode.ExtensionCon…", 0),
                (7, 9, "export class Client", 0),
                (11, 13, "export const stop = async () =>", 0),
            ],
            id="typescript-heuristic",
        ),
        pytest.param("deploy", SHELL, [(4, 6, "build()", 0), (8, 10, "deploy()", 0)], id="shell-by-shebang"),
        pytest.param(
            "README.md",
            MARKDOWN,
            [(1, 16, "# Title", 0), (5, 13, "## Install", 0), (12, 13, "### From source", 1), (14, 16, "## Use", 0)],
            id="markdown-headings-not-in-fences",
        ),
    ],
)
def test_outline_lists_the_parts_with_their_lines(
    path: str, text: str, expected: list[tuple[int, int, str, int]]
) -> None:
    assert [(e.first, e.last, e.label, e.depth) for e in outline(path, text)] == expected


def test_other_text_and_broken_python_get_anchors() -> None:
    text = "\n".join(f"entry {n}" for n in range(1, 251)) + "\n"
    anchors = [(e.first, e.last, e.label) for e in outline("notes.txt", text)]
    assert anchors == [(1, 100, "entry 1"), (101, 200, "entry 101"), (201, 250, "entry 201")]
    assert ANCHOR_EVERY == 100
    broken = "x = (\n" + text  # not valid Python, and no definition the heuristic knows: anchors
    assert [e.first for e in outline("bad.py", broken)] == [1, 101, 201]


def test_outline_of_the_rest_leaves_out_what_is_shown_and_fits_its_budget() -> None:
    counter = TiktokenCounter()
    entries = [OutlineEntry(n * 10 + 1, n * 10 + 10, f"def function_number_{n}", n % 2) for n in range(200)]
    text, chosen = outline_rest(entries, [(1, 20)], 10_000, counter)
    assert [e.first for e in chosen][:2] == [21, 31]  # 1-10 and 11-20 are shown
    assert "\n  31-40 def function_number_3" in text  # nested entries indented
    small, kept = outline_rest(entries, [(1, 20)], 300, counter)
    assert counter.count_text(small) <= 300
    assert all(e.depth == 0 for e in kept) and small.endswith("more outline entries]")
    assert outline_rest(entries, [(1, 2_000)], 300, counter) == ("", [])
