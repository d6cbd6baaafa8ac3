"""Anthropic SDK and transport failures as ``SummaryError``s: a kind, and a message a person can act on.

Shared by the summariser and the built-in agent, so both name a failure the same way.
"""

from __future__ import annotations

from typing import Any

from compact_lsp.engine.summarize.base import SummaryError


def map_api_error(exc: BaseException) -> SummaryError:
    """The SummaryError for an SDK or transport exception, with a message a person can act on."""
    import anthropic

    if isinstance(exc, SummaryError):
        return exc
    if isinstance(exc, anthropic.APITimeoutError):
        return SummaryError(
            "timeout", "The Anthropic API did not answer in time; try again, or raise the summary timeout."
        )
    if isinstance(exc, anthropic.APIConnectionError):
        return SummaryError(
            "connection",
            "Could not reach the Anthropic API; check the network and compactLsp.baseUrl (or ANTHROPIC_BASE_URL).",
        )
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        error_type = getattr(exc, "type", None) or ""
        detail = getattr(exc, "api_message", None) or ""
        if isinstance(exc, anthropic.AuthenticationError) or error_type == "authentication_error":
            return SummaryError(
                "auth",
                f"The Anthropic API rejected the key ({status}): set ANTHROPIC_API_KEY or compactLsp.apiKey.",
                status=status,
            )
        if isinstance(exc, anthropic.PermissionDeniedError) or error_type == "permission_error":
            return SummaryError(
                "auth", f"The API key may not use this model ({status}): {detail}".rstrip(": "), status=status
            )
        if isinstance(exc, anthropic.RateLimitError) or error_type == "rate_limit_error":
            retry_after = _retry_after(exc)
            wait = f" The API asked to wait {retry_after:g} s." if retry_after is not None else ""
            return SummaryError(
                "rate_limit",
                f"The Anthropic API rate limit was hit (429).{wait} Try again later.",
                status=status,
                retry_after=retry_after,
            )
        if status == 529 or error_type == "overloaded_error":
            return SummaryError(
                "overloaded", "The Anthropic API is overloaded (529); try again in a minute.", status=status
            )
        return SummaryError(
            "api",
            f"The Anthropic API returned an error ({status} {error_type}): {detail}".rstrip(": "),
            status=status,
        )
    if is_transport_error(exc):
        return SummaryError(
            "connection", f"The connection to the Anthropic API broke off ({type(exc).__name__}); try again."
        )
    return SummaryError("api", f"The summary request failed: {type(exc).__name__}: {exc}")


def is_transport_error(exc: BaseException, names: tuple[str, ...] = ("TransportError",)) -> bool:
    """A broken connection below the SDK (a reset mid-stream surfaces as the HTTP library's own error):
    an exception of one of ``names`` from httpx or httpcore."""
    return any(
        cls.__module__.split(".")[0] in ("httpx", "httpx2", "httpcore", "httpcore2") and cls.__name__ in names
        for cls in type(exc).__mro__
    )


def _retry_after(exc: Any) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    try:
        if headers.get("retry-after-ms") is not None:
            return float(headers["retry-after-ms"]) / 1000
        if headers.get("retry-after") is not None:
            return float(headers["retry-after"])
    except ValueError:
        return None
    return None
