"""Files written without losing one, the binary container, and the release's data files.

* :mod:`~pathfinding.hipporag.storage.safety` -- the output guard, one writer at a time, atomic writes,
  and what a killed write leaves;
* :mod:`~pathfinding.hipporag.storage.container` -- the one binary file layout: a prefix, a JSON header,
  raw arrays, a checksum;
* :mod:`~pathfinding.hipporag.storage.datasets` -- the files from elsewhere: where each lives upstream,
  what it must hash to, a cache and a verified download.

Its names are imported from their modules, or the user-facing ones from :mod:`pathfinding.hipporag`.
"""
