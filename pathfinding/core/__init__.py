"""What the chapter computes: Personalized PageRank, node specificity and passage scores.

* :mod:`~pathfinding.core.ppr` -- Step 6, the walk (:func:`~pathfinding.core.ppr.personalized_pagerank`,
  :func:`~pathfinding.core.ppr.ppr_top_k`), on a graph laid out once by
  :mod:`~pathfinding.core.prepared`; the compiled kernels are in ``_kernels``, ``_power`` and ``_push``;
* :mod:`~pathfinding.core.specificity` -- Step 5, s_i = 1/|P_i| and the restart vector;
  :mod:`~pathfinding.core.incremental` keeps it current as passages arrive;
* :mod:`~pathfinding.core.scoring` -- Step 7, passage scores pi . P, the Table 5 alternatives, ranks;
* :mod:`~pathfinding.core.reference` -- slow, obviously correct twins of every fast kernel.

Nothing here knows about instances, text or experiments.
"""
