from __future__ import annotations

import sys

from compact_lsp.cli import main

sys.exit(main())
