"""The command line, one module per command group: ``pathfinding COMMAND`` (also ``python -m pathfinding``).

* :mod:`~pathfinding.cli.entry` -- the parser, and how every command ends (one line, a status);
* :mod:`~pathfinding.cli.common` -- what the commands share: output, ``--json``, paths checked first;
* :mod:`~pathfinding.cli.synthetic` -- ``instance``, ``rank``: one generated instance;
* :mod:`~pathfinding.cli.data` -- ``data list``, ``data fetch``: the release's files;
* :mod:`~pathfinding.cli.experiments` -- ``findings``, ``realtext``: the rows of FINDINGS.md;
* :mod:`~pathfinding.cli.bench` -- ``bench``: every timing;
* :mod:`~pathfinding.cli.hipporag` -- the ``hipporag`` group: :mod:`~pathfinding.cli.openie`,
  :mod:`~pathfinding.cli.index` (index, add, delete), :mod:`~pathfinding.cli.query` (query, eval)
  and :mod:`~pathfinding.cli.info`.

Building the parser imports no numerical library: each command imports its work when it runs.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = dict.fromkeys(["build_parser", "console", "main"], "pathfinding.cli.entry")

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
