"""``python -m pathfinding``: the command line."""

import sys

from pathfinding.cli.entry import main

sys.exit(main())
