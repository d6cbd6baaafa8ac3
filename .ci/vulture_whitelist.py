# Names vulture (.ci/test) sees no use of, each used where it cannot look. Keep it short: a definition nobody
# uses is deleted, not listed here.
# ruff: noqa
_ = object()

# Set for a library that reads them: logging (record fields), pygls (the stop event, the initialize result's
# experimental capabilities), functools.wraps-like names, shlex, http.server, socketserver.
_.levelname, _.exc_text, _._stop_event, _.experimental, _.__qualname__, _.whitespace_split
_.daemon_threads, _.close_connection
protocol_version  # http.server.BaseHTTPRequestHandler's class attribute (tests/support/messages_api_stub.py)

# Parameters a caller's signature requires (signal handlers, ThreadPoolExecutor.shutdown, watchdog's observer).
signum, cancel_futures, event_filter

# Fields of records read by name or kept for what they describe (dataclasses, attrs).
permission, record_uuids, is_meta, compact_summary, _.compact_summary, turns_after, cleared_results
_.cleared_results, records_before, before_compaction, _.turn_done, _.stdout_bytes

# Pytest fixtures requested by parameter name; helpers run by hand (their docstring says how).
fake_registered, write_fixture, _.events_named

# Agents' settings classes, imported by name when first used (AgentRoom.settings_at), so the hook never pays for them.
ClaudeCodeSettings, CodexSettings
