"""``python -m rankscope``: the command line."""

import sys

from rankscope.cli import main

sys.exit(main())
