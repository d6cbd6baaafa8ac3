"""What the model's prompts cost with prompt caching: billed input token-equivalents over a replayed session.

The model is the Anthropic Messages API's prompt cache as Claude Code uses it: every request ends with a cache
breakpoint, so a request reads from the cache the longest prefix of messages it shares with the previous request
(billed 0.1 per token) and writes the rest (1.25 per token); uncached input (1.0) is what is sent with no
breakpoint after it, which this model never does. A cached prefix lives ``ttl`` seconds after its last use:
after a longer pause the whole prompt is written again. A microcompaction rewrites history, so the request after
it reads only up to the first rewritten message and writes everything after it again: that is its cost; what it
cleared is no longer read (or written) at every later request: that is its saving.

The system prompt and tool definitions are left out: they are the same for every policy, and cached apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.tokens import TokenCounter

CACHE_READ = 0.1
CACHE_WRITE = 1.25
DEFAULT_TTL_SECONDS = 5 * 60.0
"""The API's default (ephemeral) cache lifetime; the 1.25 write price is this lifetime's."""


@dataclass
class CacheMeter:
    """Follows one conversation's requests and adds up what each reads from and writes to the cache."""

    counter: TokenCounter
    ttl: float = DEFAULT_TTL_SECONDS
    as_logged: Callable[[Message], Message] = lambda m: m
    """The message as the log had it, to count (a replay's paths name its temporary directory, whose random
    name would make the figures vary from run to run)."""
    cache_read: int = 0
    cache_write: int = 0
    requests: int = 0
    _previous: list[Message] = field(default_factory=list)
    _tokens: dict[int, tuple[Message, int]] = field(default_factory=dict)
    _last_at: float | None = None

    def _count(self, message: Message) -> int:
        key = id(message)
        known = self._tokens.get(key)
        if known is not None and known[0] is message:
            return known[1]
        tokens = self.counter.count_message(self.as_logged(message))
        self._tokens[key] = (message, tokens)  # the message is kept, so its id is not reused while cached here
        return tokens

    def request(self, messages: Sequence[Message], at: float) -> None:
        """One request to the model with ``messages`` at time ``at`` (seconds)."""
        sizes = [self._count(m) for m in messages]
        shared = 0
        if self._last_at is not None and at - self._last_at <= self.ttl:
            for before, now in zip(self._previous, messages, strict=False):
                if before is not now and before != now:
                    break
                shared += 1
        read = sum(sizes[:shared])
        self.cache_read += read
        self.cache_write += sum(sizes) - read
        self.requests += 1
        self._previous = list(messages)
        self._last_at = at
        if len(self._tokens) > 4 * len(messages) + 64:  # forget messages no longer in the conversation
            live = {id(m) for m in messages}
            self._tokens = {k: v for k, v in self._tokens.items() if k in live}

    @property
    def billed(self) -> float:
        return CACHE_WRITE * self.cache_write + CACHE_READ * self.cache_read
