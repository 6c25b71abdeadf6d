"""`python -m gitgraph`."""

import sys

from .cli import main

sys.exit(main())
