"""The server's threads: one malloc arena for all of them where the C library is glibc's."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_the_server_threads_share_one_malloc_arena() -> None:
    code = "from compact_lsp.runtime.malloc_arena import share_malloc_arena; print(share_malloc_arena())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
