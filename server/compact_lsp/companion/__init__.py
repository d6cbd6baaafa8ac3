"""The companion for Claude Code users: its compaction hook (``hook``) and installing it (``hook_settings``)."""
