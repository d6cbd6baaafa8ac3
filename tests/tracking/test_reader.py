"""The server's read tool: inside the workspace only, text only, bounded, by line range."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from compact_lsp.engine.files.file_gate import AllowedRoots
from compact_lsp.tracking.reader import ReadRefused, current_text, read_text_file


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    (tmp_path / "secret.txt").write_text("outside\n")
    return root


@pytest.mark.parametrize(
    ("offset", "limit", "content", "start", "num", "truncated"),
    [
        pytest.param(None, None, "".join(f"line {i}\n" for i in range(1, 11)), 1, 10, False, id="whole-file"),
        pytest.param(3, 2, "line 3\nline 4\n", 3, 2, True, id="range"),
        pytest.param(9, 50, "line 9\nline 10\n", 9, 2, True, id="range-past-end"),
        pytest.param(None, 1, "line 1\n", 1, 1, True, id="first-line"),
    ],
)
def test_reads_lines(
    ws: Path, offset: int | None, limit: int | None, content: str, start: int, num: int, truncated: bool
) -> None:
    read = read_text_file("src/app.py", str(ws), offset=offset, limit=limit)
    assert (read.content, read.start_line, read.num_lines, read.total_lines, read.truncated) == (
        content,
        start,
        num,
        10,
        truncated,
    )
    assert read.path == os.path.join("src", "app.py")


def test_absolute_path_inside_is_shown_relative(ws: Path) -> None:
    assert read_text_file(str(ws / "src" / "app.py"), str(ws)).path == os.path.join("src", "app.py")


def test_empty_file(ws: Path) -> None:
    (ws / "empty.txt").write_text("")
    read = read_text_file("empty.txt", str(ws))
    assert (read.content, read.num_lines, read.total_lines, read.truncated) == ("", 0, 0, False)


def test_byte_order_mark_is_dropped(ws: Path) -> None:
    (ws / "bom.txt").write_bytes("\ufeffhello\n".encode())
    assert read_text_file("bom.txt", str(ws)).content == "hello\n"


def _symlink_escape(ws: Path) -> str:
    (ws / "link").symlink_to(ws.parent / "secret.txt")
    return "link"


def _dir_symlink_escape(ws: Path) -> str:
    (ws / "up").symlink_to(ws.parent)
    return "up/secret.txt"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(lambda ws: "../secret.txt", "outside the workspace", id="dotdot-escape"),
        pytest.param(lambda ws: str(ws.parent / "secret.txt"), "outside the workspace", id="absolute-outside"),
        pytest.param(_symlink_escape, "outside the workspace", id="symlink-escape"),
        pytest.param(_dir_symlink_escape, "outside the workspace", id="directory-symlink-escape"),
        pytest.param(lambda ws: "/proc/self/status", "outside the workspace", id="proc"),
        pytest.param(lambda ws: "src", "is a directory", id="directory"),
        pytest.param(lambda ws: "missing.py", "no such file", id="missing"),
        pytest.param(lambda ws: "", "non-empty file path", id="empty-path"),
    ],
)
def test_refusals_say_why(ws: Path, make: object, message: str) -> None:
    path = make(ws)  # type: ignore[operator]
    with pytest.raises(ReadRefused, match=message):
        read_text_file(path, str(ws))


def test_fifo_is_refused_without_blocking(ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    with pytest.raises(ReadRefused, match="is a FIFO"):
        read_text_file("pipe", str(ws))


def test_socket_is_refused(ws: Path) -> None:
    path = ws / "s.sock"
    if len(str(path)) > 100:
        pytest.skip("socket path too long for AF_UNIX")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        with pytest.raises(ReadRefused, match=r"(socket|cannot open)"):
            read_text_file("s.sock", str(ws))


def test_device_outside_is_refused_but_inside_symlink_to_device_too(ws: Path) -> None:
    (ws / "null").symlink_to("/dev/null")
    with pytest.raises(ReadRefused, match="outside the workspace"):
        read_text_file("null", str(ws))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "looks binary", id="nul-bytes"),
        pytest.param(b"caf\xe9 latin-1\n", "not UTF-8", id="latin-1"),
        pytest.param(b"ok\n" * 5000 + b"\x00late", "looks binary", id="nul-after-sniff-window"),
    ],
)
def test_binary_files_are_refused(ws: Path, data: bytes, message: str) -> None:
    (ws / "blob").write_bytes(data)
    with pytest.raises(ReadRefused, match=message):
        read_text_file("blob", str(ws))


def test_file_over_the_cap_is_refused_whole_but_readable_by_range(ws: Path) -> None:
    (ws / "big.log").write_text("".join(f"entry {i}\n" for i in range(2000)))
    with pytest.raises(ReadRefused, match="read it by range"):
        read_text_file("big.log", str(ws), max_bytes=1000)
    read = read_text_file("big.log", str(ws), offset=1500, limit=2, max_bytes=1000)
    assert read.content == "entry 1499\nentry 1500\n" and read.total_lines == 2000


def test_range_over_the_cap_is_refused(ws: Path) -> None:
    (ws / "big.log").write_text("x" * 100 + "\n" + "y" * 2000 + "\n")
    with pytest.raises(ReadRefused, match="read a smaller range"):
        read_text_file("big.log", str(ws), offset=1, limit=2, max_bytes=1000)


@pytest.mark.parametrize(
    ("offset", "limit", "message"),
    [
        pytest.param(0, None, "1-based line number", id="offset-zero"),
        pytest.param(None, 0, "at least 1 line", id="limit-zero"),
        pytest.param(50, 1, "has 10 lines", id="offset-past-end"),
    ],
)
def test_bad_ranges_are_refused(ws: Path, offset: int | None, limit: int | None, message: str) -> None:
    with pytest.raises(ReadRefused, match=message):
        read_text_file("src/app.py", str(ws), offset=offset, limit=limit)


def test_memory_roots_outside_the_workspace_are_readable(ws: Path, tmp_path: Path) -> None:
    memory = tmp_path / "user-memory"
    memory.mkdir()
    (memory / "topic.md").write_text("remember this\n")
    read = read_text_file(str(memory / "topic.md"), str(ws), extra_roots=[str(memory)])
    assert read.content == "remember this\n"
    assert read.path == str((memory / "topic.md").resolve())


def test_relative_path_without_a_workspace_is_refused() -> None:
    with pytest.raises(ReadRefused, match="needs a workspace folder"):
        read_text_file("a.py", None)


def test_current_text_is_the_whole_file_beyond_the_line_limit(ws: Path) -> None:
    big = ws / "big.txt"
    big.write_text("".join(f"{i}\n" for i in range(3000)))  # more lines than a read returns by default
    assert current_text(str(big), AllowedRoots.of(str(ws))) == big.read_text()


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda ws: str(ws / "gone.txt"), id="gone"),
        pytest.param(lambda ws: (os.mkfifo(ws / "pipe"), str(ws / "pipe"))[1], id="fifo-without-blocking"),
        pytest.param(lambda ws: ((ws / "b.bin").write_bytes(b"ab\x00cd"), str(ws / "b.bin"))[1], id="binary"),
        pytest.param(lambda ws: ((ws / "l1.txt").write_bytes(b"caf\xe9\n"), str(ws / "l1.txt"))[1], id="not-utf8"),
        pytest.param(lambda ws: str(ws / "src"), id="directory"),
        pytest.param(lambda ws: ((ws / "l").symlink_to(ws.parent / "outside.txt"), str(ws / "l"))[1], id="link-out"),
    ],
)
def test_current_text_is_none_for_what_cannot_be_diffed(ws: Path, make: object) -> None:
    (ws.parent / "outside.txt").write_text("secret\n")
    assert current_text(make(ws), AllowedRoots.of(str(ws))) is None  # type: ignore[operator]


def test_current_text_is_none_over_the_cap(ws: Path) -> None:
    assert current_text(str(ws / "src" / "app.py"), AllowedRoots.of(str(ws)), max_bytes=10) is None
