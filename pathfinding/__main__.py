"""``python -m pathfinding``: the command line."""

from pathfinding.cli.entry import console

console()
