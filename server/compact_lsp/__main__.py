from __future__ import annotations

import sys

if sys.argv[2:3] == ["hook"]:  # the agents' hooks start fresh on every compaction: no parser, no server imports
    import gc

    gc.disable()  # nor the cyclic collector, for a process of a fraction of a second (run_hook says why)
    import types

    class _ImportedOnUse(types.ModuleType):
        """A module imported at its first use. ``inspect``: dataclasses imports it (with ast and dis: ~26M
        instructions) for a signature it writes only into a class without a docstring, and the hook's classes all
        have one. ``traceback``: logging imports it (with textwrap, linecache and tokenize: ~11M) to format an
        exception, which a hook that answers never logs."""

        def __getattr__(self, name: str) -> object:
            import importlib

            del sys.modules[self.__name__]
            module = importlib.import_module(self.__name__)
            self.__dict__.update(module.__dict__)  # who imported this stand-in sees the real module from now on
            return getattr(module, name)

    for _name in ("inspect", "traceback"):
        sys.modules[_name] = _ImportedOnUse(_name)
    from compact_lsp.agents.hook_process import exit_now, hook_main

    code = hook_main(sys.argv[1:])
    if code is not None:
        exit_now(code)

from compact_lsp.cli.main import main

sys.exit(main())
