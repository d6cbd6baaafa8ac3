"""Editor documents on their own: focus order, unsaved state, and what the owner is told."""

from __future__ import annotations

import itertools

import pytest

from compact_lsp.engine.files.editor_documents import EditorDocument, EditorDocuments, display_path


@pytest.fixture
def told() -> list[tuple[str, int, bool, bool]]:
    return []


@pytest.fixture
def docs(told: list[tuple[str, int, bool, bool]]) -> EditorDocuments:
    ticks = itertools.count(100)

    def listen(doc: EditorDocument, is_open: bool) -> None:
        told.append((doc.realpath, doc.version, doc.dirty, is_open))

    return EditorDocuments(
        resolve=lambda p: (f"/w/{p}", f"/real/{p}"),
        clock=lambda: float(next(ticks)),
        display=lambda resolved: display_path(resolved, "/w"),
        on_update=listen,
    )


def test_owner_is_told_of_every_state_change(docs: EditorDocuments, told: list[tuple[str, int, bool, bool]]) -> None:
    docs.open("a.py", "x", 1)
    docs.change("a.py", "xy", 2)
    docs.save("a.py")
    docs.focus("a.py")  # focus changes no state the owner mirrors
    docs.close("a.py")
    docs.save("a.py")  # closed: nothing to tell
    assert told == [
        ("/real/a.py", 1, False, True),
        ("/real/a.py", 2, True, True),
        ("/real/a.py", 2, False, True),
        ("/real/a.py", 2, False, False),
    ]
    assert "/real/a.py" not in docs


def test_change_without_open_is_tracked_as_open_and_dirty(docs: EditorDocuments) -> None:
    doc = docs.change("b.py", "text", 7)
    assert (doc.path, doc.display_path, doc.version, doc.dirty) == ("/w/b.py", "b.py", 7, True)
    assert docs.get("/real/b.py") is doc


@pytest.mark.parametrize(
    ("focus", "expected"),
    [
        pytest.param([], ["c.py", "b.py", "a.py"], id="open-order"),
        pytest.param(["a.py"], ["a.py", "c.py", "b.py"], id="focused-first"),
        pytest.param(["missing.py"], ["c.py", "b.py", "a.py"], id="focus-of-unopened-ignored"),
    ],
)
def test_documents_by_focus(docs: EditorDocuments, focus: list[str], expected: list[str]) -> None:
    for name in ("a.py", "b.py", "c.py"):
        docs.open(name, "", 1)
    for name in focus:
        docs.focus(name)
    assert [d.display_path for d in docs.by_focus()] == expected


@pytest.mark.parametrize(
    ("path", "root", "expected"),
    [
        pytest.param("/w/src/a.py", "/w", "src/a.py", id="inside"),
        pytest.param("/other/a.py", "/w", "/other/a.py", id="outside"),
        pytest.param("/w/a.py", None, "/w/a.py", id="no-root"),
    ],
)
def test_display_path(path: str, root: str | None, expected: str) -> None:
    assert display_path(path, root) == expected
