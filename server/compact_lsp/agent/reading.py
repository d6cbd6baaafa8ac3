"""Tools that look without touching: read_file, list_directory, glob, grep.

read_file is the server's own reader (``tracking.reader``, the one behind ``compact/readFile``); the loop
records each read in the read-file state once its result is in the conversation. grep uses ripgrep when it is
on PATH (it honours .gitignore and never follows symlinks) and otherwise Python ``re`` in a child process killed
after 30 s (``python_grep``: a pattern that backtracks forever must not freeze the server). Every listing stays
inside the workspace by realpath.
"""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import fnmatch
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from compact_lsp.agent import python_grep
from compact_lsp.agent.prompts import FILE_UNCHANGED
from compact_lsp.agent.python_grep import GREP_TIMEOUT, MAX_GREP_LINES, SKIPPED_DIRS
from compact_lsp.agent.tools import (
    Tool,
    ToolContext,
    ToolError,
    ToolOutput,
    bound,
    int_arg,
    path_arg,
    string_arg,
)
from compact_lsp.engine.files.file_gate import AllowedRoots, opened_path
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.runtime.io_threads import run_io
from compact_lsp.tracking.reader import FileRead, ReadRefused, read_text_file

MAX_READ_CHARS = 100_000
"""A read returns at most this much text (about 25k tokens); the note says how to read on."""

MAX_LIST_ENTRIES = 1_000
MAX_GLOB_MATCHES = 500
MAX_GLOB_RECURSIONS = 2
"""'**' components a glob pattern may have: pathlib walks the tree again for each."""


def _inside(real: str, roots: list[str]) -> bool:
    for root in roots:
        try:
            if os.path.commonpath([real, root]) == root:
                return True
        except ValueError:
            continue
    return False


def _allowed_roots(ctx: ToolContext) -> list[str]:
    return [real_path(r) for r in (ctx.workspace_root, *ctx.read_roots) if r]


# -- read_file ---------------------------------------------------------------------------------------------


def holds_whole(session: ContextSession, real: str, content: str) -> bool:
    """The conversation still holds the whole of ``real`` as ``content`` (its last read or re-attachment showed
    it whole, no microcompaction or compaction took it away since, and the file has not changed since)."""
    record = session.read_state.get(real)
    seen = session.state.seen.get(real)
    return (
        record is not None
        and record.in_history
        and seen is not None
        and seen.start_line == 1
        and seen.num_lines is None
        and seen.text.rstrip("\n") == content.rstrip("\n")
    )


def _cap_read(read: FileRead) -> FileRead:
    if len(read.content) <= MAX_READ_CHARS:
        return read
    cut = read.content.rfind("\n", 0, MAX_READ_CHARS) + 1 or MAX_READ_CHARS
    content = read.content[:cut]
    lines = content.count("\n") + (0 if content.endswith("\n") else 1)
    return dataclasses.replace(read, content=content, num_lines=lines, truncated=True)


async def _read_file(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    path = path_arg(args)
    offset, limit = int_arg(args, "offset"), int_arg(args, "limit")
    display, _real, _asked = await ctx.resolve_admitting(path)
    try:
        read = await run_io(
            read_text_file, path, ctx.workspace_root, offset=offset, limit=limit, extra_roots=ctx.read_roots
        )
    except ReadRefused as exc:
        raise ToolError(str(exc)) from None
    read = _cap_read(read)
    if offset in (None, 1) and limit is None and not read.truncated and read.content:
        session, content = ctx.session, read.content
        if await ctx.runner.run(lambda: holds_whole(session, read.real_path, content), changes=False):
            return ToolOutput(FILE_UNCHANGED.format(path=display))
    blocks: list[dict[str, Any]] = [{"type": "text", "text": read.content}] if read.content else []
    last = read.start_line + read.num_lines - 1
    if not read.content:
        blocks.append({"type": "text", "text": f"[{display} is empty]"})
    elif read.truncated or read.start_line > 1:
        note = f"[{display}: lines {read.start_line}-{last} of {read.total_lines}"
        more = f"; read on with offset={last + 1}]" if last < read.total_lines else "]"
        blocks.append({"type": "text", "text": note + more})
    return ToolOutput(blocks, read=read)


def read_file_tool() -> Tool:
    return Tool(
        name="read_file",
        summary="read a text file (optionally a range of lines)",
        description=(
            "Read a text file in the workspace or a managed-memory folder. Returns the file's text as it is "
            "(no line numbers); at most 2000 lines from 'offset' (1-based) unless 'limit' says otherwise. "
            "A file outside the workspace is read only if the user allows it. Binary files and directories are "
            "refused."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "workspace-relative or absolute path"},
                "offset": {"type": "integer", "minimum": 1, "description": "first line to read (1-based)"},
                "limit": {"type": "integer", "minimum": 1, "description": "number of lines to read"},
            },
            "required": ["file_path"],
        },
        run=_read_file,
    )


# -- list_directory ----------------------------------------------------------------------------------------


def _list(real: str, display: str, roots: AllowedRoots) -> str:
    """The folder's entries, listed through the descriptor the verified open holds: a folder swapped for a link
    out of the roots after it was resolved is refused, never listed."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except NotADirectoryError:
        raise ToolError(f"{display} is a file, not a directory; read it with read_file") from None
    except FileNotFoundError:
        raise ToolError(f"{display}: no such directory") from None
    except PermissionError:
        raise ToolError(f"{display}: permission denied") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # swapped for a link since it was resolved
            raise ToolError(f"{display} changed while it was opened (now a link); nothing was listed") from None
        raise
    try:
        opened = opened_path(fd)
        if opened is not None and opened.startswith("/") and roots.root_of(opened) is None:
            raise ToolError(f"{display} was swapped for a link to a folder outside the workspace; nothing was listed")
        with os.scandir(fd) as found:
            entries = sorted(found, key=lambda e: e.name)
        lines = [f"{e.name}/" if e.is_dir(follow_symlinks=False) else e.name for e in entries[:MAX_LIST_ENTRIES]]
    finally:
        os.close(fd)
    if len(entries) > MAX_LIST_ENTRIES:
        lines.append(f"[... {len(entries) - MAX_LIST_ENTRIES} more entries not shown]")
    return bound("\n".join(lines) if lines else f"[{display} is empty]")


async def _list_directory(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    path = path_arg(args) or "."
    display, real = ctx.resolve(path)
    return ToolOutput(await run_io(_list, real, display, AllowedRoots(tuple(_allowed_roots(ctx)))))


def list_directory_tool() -> Tool:
    return Tool(
        name="list_directory",
        summary="list a directory's entries (directories end with /)",
        description="List the entries of a directory in the workspace, sorted by name; directories end with '/'.",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string", "description": "directory; default: the workspace root"}},
        },
        run=_list_directory,
    )


# -- glob --------------------------------------------------------------------------------------------------


def _matches(pattern: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """``parts`` (a path's components) match ``pattern``'s, '**' standing for any number of folders."""
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_matches(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pattern[0]) and _matches(pattern[1:], parts[1:])


def _walk_matching(base: str, pattern: tuple[str, ...]) -> Iterator[str]:
    """Files (and links to files) below ``base`` whose relative path matches ``pattern``. The walk never enters a
    link to a folder (``os.walk`` without ``followlinks``), so it cannot leave the roots through one, and it
    skips folders it cannot read."""
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        relative = () if folder == base else Path(os.path.relpath(folder, base)).parts
        if "**" not in pattern and len(relative) >= len(pattern) - 1:
            dirs[:] = []  # without '**' nothing deeper can match
        for name in sorted(files):
            if _matches(pattern, (*relative, name)):
                yield os.path.join(folder, name)


def _glob(ctx: ToolContext, base_real: str, pattern: str) -> str:
    if os.path.isabs(pattern) or ".." in Path(pattern).parts:
        raise ToolError("'pattern' must be relative to 'path' and must not contain '..'")
    if sum(part == "**" for part in Path(pattern).parts) > MAX_GLOB_RECURSIONS:
        # each '**' walks the whole tree again below the last: the work grows as the tree's depth to that power
        raise ToolError(f"'pattern' may use '**' at most {MAX_GLOB_RECURSIONS} times; one '**' already matches "
                        "any number of folders")  # fmt: skip
    roots = _allowed_roots(ctx)
    workspace = real_path(ctx.workspace_root) if ctx.workspace_root else base_real
    matches: list[str] = []
    for match in _walk_matching(base_real, Path(pattern).parts):
        real = real_path(match)  # a file link counts when it resolves inside the roots
        if not _inside(real, roots) or not os.path.isfile(real):
            continue
        matches.append(os.path.relpath(match, workspace) if _inside(match, [workspace]) else match)
        if len(matches) > MAX_GLOB_MATCHES:
            break
    if not matches:
        return f"[no files match {pattern}]"
    matches.sort()
    lines = matches[:MAX_GLOB_MATCHES]
    if len(matches) > MAX_GLOB_MATCHES:
        lines.append(f"[... stopped after {MAX_GLOB_MATCHES} matches; narrow the pattern]")
    return bound("\n".join(lines))


async def _glob_tool(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    pattern = string_arg(args, "pattern")
    _display, real = ctx.resolve(path_arg(args) or ".")
    return ToolOutput(await run_io(_glob, ctx, real, pattern))


def glob_tool() -> Tool:
    return Tool(
        name="glob",
        summary="find files by name pattern (e.g. src/**/*.py)",
        description=(
            "Find files whose path matches a glob pattern ('**' matches any folders), relative to 'path' "
            "(default: the workspace root). Returns workspace-relative paths, sorted."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "glob pattern, e.g. '**/*.py'"},
                "path": {
                    "type": "string",
                    "description": "folder to search from; default: the workspace root",
                },
            },
            "required": ["pattern"],
        },
        run=_glob_tool,
    )


# -- grep --------------------------------------------------------------------------------------------------


async def _ripgrep(rg: str, cwd: str, target: str, pattern: str, file_glob: str, ignore_case: bool) -> str:
    argv = [rg, "--line-number", "--with-filename", "--no-heading", "--color=never", "--max-columns=500"]
    argv += ["-e", pattern]
    if file_glob:
        argv += ["--glob", file_glob]
    if ignore_case:
        argv.append("--ignore-case")
    if target != ".":  # searching the cwd itself keeps the paths free of a leading ./
        argv += ["--", target]
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        stdout, stderr = await asyncio.wait_for(proc.communicate(), GREP_TIMEOUT)
    except BaseException:  # timeout or cancellation: do not leave ripgrep running
        proc.kill()
        await proc.wait()
        raise
    if proc.returncode == 2 and not stdout:
        raise ToolError(f"grep failed: {stderr.decode('utf-8', 'replace').strip()[:500]}")
    lines = stdout.decode("utf-8", "replace").splitlines()
    if len(lines) > MAX_GREP_LINES:
        lines = [
            *lines[:MAX_GREP_LINES],
            f"[... {len(lines) - MAX_GREP_LINES} more matching lines not shown]",
        ]
    return "\n".join(lines)


def grep_tool(ripgrep: str | None = None) -> Tool:
    """``ripgrep``: the rg executable to use (``shutil.which("rg")``), or None for the Python search."""

    async def run(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
        pattern = string_arg(args, "pattern")
        file_glob = string_arg(args, "glob", required=False)
        ignore_case = bool(args.get("ignore_case", False))
        display, real = ctx.resolve(path_arg(args) or ".")
        if ripgrep and ctx.workspace_root:
            cwd = real_path(ctx.workspace_root)
            target = os.path.relpath(real, cwd) if _inside(real, [cwd]) else real
            text = await _ripgrep(ripgrep, cwd, target, pattern, file_glob, ignore_case)
        else:
            workspace = real_path(ctx.workspace_root) if ctx.workspace_root else real
            try:
                text = await python_grep.search(real, _allowed_roots(ctx), workspace, pattern, file_glob, ignore_case)
            except python_grep.GrepFailed as exc:
                raise ToolError(str(exc)) from None
        return ToolOutput(bound(text) if text else f"[no matches for {pattern!r} in {display}]")

    return Tool(
        name="grep",
        summary="search file contents with a regular expression",
        description=(
            "Search the contents of files for a regular expression. Returns 'path:line:text' for each "
            "matching line (at most 300). 'glob' limits the files searched (e.g. '*.py')."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "regular expression"},
                "path": {"type": "string", "description": "file or folder; default: the workspace root"},
                "glob": {"type": "string", "description": "only files matching this glob, e.g. '*.py'"},
                "ignore_case": {"type": "boolean"},
            },
            "required": ["pattern"],
        },
        run=run,
        extra={"ripgrep": ripgrep},
    )
