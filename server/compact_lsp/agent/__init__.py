"""The built-in agent: a Claude tool loop (``loop``), its tools and permissions, on top of the engine."""
