"""Retrieval measured: R@k and AR@k with bootstrap intervals, and retrievers compared on a question file.

* :mod:`~pathfinding.hipporag.evaluation.metrics` -- R@k, AR@k, paired bootstrap intervals;
* :mod:`~pathfinding.hipporag.evaluation.compare` -- supporting passages matched, retrievers scored.

Its names are imported from their modules, or the user-facing ones from :mod:`pathfinding.hipporag`.
"""
