"""Steps 4-7 on real text: a question's entities linked to seed nodes, BM25, the walk, ranked passages.

* :mod:`~pathfinding.hipporag.retrieval.linking` -- Step 4: query entities and their nearest nodes;
* :mod:`~pathfinding.hipporag.retrieval.lexical` -- BM25 over passages and over facts;
* :mod:`~pathfinding.hipporag.retrieval.retrieve` -- Steps 5-7: seeds, restart, PPR, passages ranked;
* :mod:`~pathfinding.hipporag.retrieval.oneshot` -- the same rankings, walked without compiled kernels;
* :mod:`~pathfinding.hipporag.retrieval.querycache` -- a query-ready copy of an index beside it.

Its names are imported from their modules, or the user-facing ones from :mod:`pathfinding.hipporag`.
"""
