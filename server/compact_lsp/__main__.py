from __future__ import annotations

import sys

if sys.argv[2:3] == ["hook"]:  # the agents' hooks start fresh on every compaction: no parser, no server imports
    import gc

    gc.disable()  # nor the cyclic collector, for a process of a fraction of a second (run_hook says why)
    from compact_lsp.companion.hook_process import exit_now, hook_main

    code = hook_main(sys.argv[1:])
    if code is not None:
        exit_now(code)

from compact_lsp.cli import main

sys.exit(main())
