"""The context engine: pure Python, no editor or LSP imports (a test keeps it so)."""
