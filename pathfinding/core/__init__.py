"""What the chapter computes: Personalized PageRank, node specificity and passage scores.

* :mod:`~pathfinding.core.ppr` -- Step 6, the walk (:func:`~pathfinding.core.ppr.personalized_pagerank`,
  :func:`~pathfinding.core.ppr.ppr_top_k`), on a graph laid out once by
  :mod:`~pathfinding.core.prepared`; the compiled kernels are in ``_kernels``, ``_power`` and ``_push``;
* :mod:`~pathfinding.core.specificity` -- Step 5, s_i = 1/|P_i| and the restart vector;
  :mod:`~pathfinding.core.incremental` keeps it current as passages arrive;
* :mod:`~pathfinding.core.contributions` -- which seed's mass made each node rank: the PPR vector
  split exactly by source (:func:`~pathfinding.core.contributions.seed_contributions`) or by any
  grouping of the restart vector (:func:`~pathfinding.core.contributions.restart_contributions`);
* :mod:`~pathfinding.core.scoring` -- Step 7, passage scores pi . P, the Table 5 alternatives, ranks;
* :mod:`~pathfinding.core.reference` -- slow, obviously correct twins of every fast kernel.

Nothing here knows about instances, text or experiments.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(
        ["PPRResult", "TopKResult", "personalized_pagerank", "ppr_solve", "ppr_top_k", "walk_step"],
        "pathfinding.core.ppr",
    ),
    **dict.fromkeys(["PPRGraph", "prepare_graph"], "pathfinding.core.prepared"),
    **dict.fromkeys(
        ["ContributionsResult", "restart_contributions", "seed_contributions"],
        "pathfinding.core.contributions",
    ),
    **dict.fromkeys(
        ["node_specificity", "passage_counts", "restart_column", "restart_matrix", "restart_vector",
         "specificity_from_counts"],
        "pathfinding.core.specificity",
    ),
    **dict.fromkeys(
        ["SpecificityIndex", "ReplayLog", "corpus_idf", "replay_additions"], "pathfinding.core.incremental"
    ),
    **dict.fromkeys(
        ["NODE_SCORERS", "mention_count_scores", "passage_scores", "query_neighbour_scores",
         "query_node_scores", "query_two_hop_scores", "rank_of", "tie_ranks"],
        "pathfinding.core.scoring",
    ),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
