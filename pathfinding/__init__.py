"""pathfinding: HippoRAG's path-finding claim as code a student can run, poke and measure.

HippoRAG (Gutiérrez et al., NeurIPS 2024, arXiv:2405.14831) answers multi-hop questions by spreading
Personalized PageRank mass from the query's entities over a knowledge graph. The package is layered,
one folder a layer:

* :mod:`pathfinding.core` -- what the chapter computes: the PPR kernels, the prepared graph, node
  specificity, passage scores, and slow readable twins of every kernel (:mod:`~pathfinding.core.reference`);
* :mod:`pathfinding.synthetic` -- the path-finding generator, the named toys, variations,
  path-following instances and the chaining retrievers;
* :mod:`pathfinding.hipporag` -- the engine on real text: loaders, OpenIE, the index, query, retrieval;
* :mod:`pathfinding.experiments` -- the sweeps behind every FINDINGS.md row;
* :mod:`pathfinding.course` -- the notebooks' exercise checks, teaching checks and drawings;
* :mod:`pathfinding.bench` -- every timing.

The engine (``core``, ``synthetic``, ``hipporag``) imports none of ``experiments``, ``course`` and
``bench``.

One rule for the API:

* every layer package (``core``, ``synthetic``, ``hipporag``, ``hipporag.index``,
  ``hipporag.extract``, ``hipporag.io``, ``course.exercises``, ``bench``) exports its public names
  lazily (:func:`pathfinding._lazy.lazy_exports`, so importing a package loads nothing it does not
  use), and only its own: names defined in its modules;
* no module lists in ``__all__`` a name it imports from another module: a name has one home, and
  is imported from there;
* the top level exports what a student or user types first: the chapter's functions, the generator,
  the toys and the rankers, the real-text retriever and its index, and every public exception
  (all of which live in :mod:`pathfinding.errors`);
* experiments and the benchmark are reached by their own module paths
  (``pathfinding.experiments.realtext``, ``pathfinding.bench.realtext``), never through the engine.

``tests/test_layout.py`` checks each point.

>>> from pathfinding.core.ppr import personalized_pagerank
>>> from pathfinding.synthetic.toy import star_pair
>>> toy = star_pair(9)
>>> pi = personalized_pagerank(toy.graph, toy.seeds)
>>> float(pi[toy.answer] / pi[toy.candidates[1]])  # the meet node against a dead end
2.0
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    # Step 6: the walk
    **dict.fromkeys(
        ["personalized_pagerank", "ppr_solve", "ppr_top_k", "walk_step", "PPRResult", "TopKResult"],
        "pathfinding.core.ppr",
    ),
    **dict.fromkeys(["prepare_graph", "PPRGraph"], "pathfinding.core.prepared"),
    # which seed's mass made each node rank
    "seed_contributions": "pathfinding.core.contributions",
    # Step 5: node specificity and the restart vector
    **dict.fromkeys(
        ["node_specificity", "passage_counts", "restart_vector", "specificity_from_counts"],
        "pathfinding.core.specificity",
    ),
    # Step 7: scores and ranks
    **dict.fromkeys(
        ["passage_scores", "mention_count_scores", "query_node_scores", "query_neighbour_scores",
         "query_two_hop_scores", "rank_of", "NODE_SCORERS"],
        "pathfinding.core.scoring",
    ),
    # Step 9: the generator, the toys and the rankers that compete on them
    **dict.fromkeys(["make_instance", "instance_from_facts", "PathFindingInstance"],
    "pathfinding.synthetic.instances"),
    **dict.fromkeys(["star_pair", "meet_node_toy", "passage_count_matrix"], "pathfinding.synthetic.toy"),
    "RANKERS": "pathfinding.synthetic.rankers",
    # Real text: the index and the retriever
    **dict.fromkeys(["build_index", "index_from_openie"], "pathfinding.hipporag.index.build"),
    "HippoIndex": "pathfinding.hipporag.index.model",
    **dict.fromkeys(["add_passages", "delete_passages"], "pathfinding.hipporag.index.maintenance"),
    **dict.fromkeys(["load_index", "save_index"], "pathfinding.hipporag.index.persistence"),
    **dict.fromkeys(["HippoRetriever", "Retrieval"], "pathfinding.hipporag.retrieval.retrieve"),
    "BM25Ranker": "pathfinding.hipporag.retrieval.lexical",
    **dict.fromkeys(["load_corpus", "load_openie", "load_questions"], "pathfinding.hipporag.io.loaders"),
    "Passage": "pathfinding.hipporag.io.records",
    **dict.fromkeys(["recall_at_k", "all_recall_at_k"], "pathfinding.hipporag.evaluation.metrics"),
    # Every public exception
    **dict.fromkeys(
        ["PathfindingError", "ValidationError", "InvalidValueError", "InvalidTypeError", "FormatError",
         "LLMError", "LLMFatalError", "DataError", "DataNotFoundError", "DataDownloadError",
         "ConvergenceWarning", "CheckFailed", "FileBusyError"],
        "pathfinding.errors",
    ),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
__version__ = "0.1.0"
