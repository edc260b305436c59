"""``python -m pathfinding``: the command line."""

import sys

from pathfinding.cli import main

sys.exit(main())
