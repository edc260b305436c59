"""Synthetic graphs and instances: the path-finding generator and everything that competes on it.

* :mod:`~pathfinding.synthetic.instances` -- Step 9's generator
(:func:`~pathfinding.synthetic.instances.make_instance`);
* :mod:`~pathfinding.synthetic.toy` -- named tiny graphs (the chapter's two stars, the meet-node toy)
  and the course's tiny text corpus;
* :mod:`~pathfinding.synthetic.variation` -- instances whose trials sample graphs, not relabellings;
* :mod:`~pathfinding.synthetic.following` -- path-following instances and question texts;
* :mod:`~pathfinding.synthetic.rankers` and :mod:`~pathfinding.synthetic.chaining` -- the rankers
  and the iterative (IRCoT-shaped) retrievers;
* :mod:`~pathfinding.synthetic.graphs` -- seeded random graphs; :mod:`~pathfinding.synthetic.corpus`
  -- a synthetic text corpus with triples, for indexing at scale, and
  :mod:`~pathfinding.synthetic.hipporag_files` -- that corpus written as a corpus JSON and an OpenIE file.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(
        ["PathFindingInstance", "check_hops", "entity_names", "instance_from_facts", "make_instance"],
        "pathfinding.synthetic.instances",
    ),
    **dict.fromkeys(
        ["TinyCorpus", "meet_node_toy", "passage_count_matrix", "star_pair", "tiny_corpus"],
        "pathfinding.synthetic.toy",
    ),
    **dict.fromkeys(
        ["GraphBuilder", "QuestionInstance", "check_variation", "make_varied_instance", "publish", "vary"],
        "pathfinding.synthetic.variation",
    ),
    **dict.fromkeys(
        ["answer_paths", "make_following_instance", "passage_relations", "path_passages",
         "path_relations", "question_text", "relation_phrase"],
        "pathfinding.synthetic.following",
    ),
    "RANKERS": "pathfinding.synthetic.rankers",
    **dict.fromkeys(
        ["ChainTrace", "beam_retrieve", "intersection_scores", "iterative_retrieve", "nodes_at_distance"],
        "pathfinding.synthetic.chaining",
    ),
    **dict.fromkeys(["er_graph", "power_law_graph"], "pathfinding.synthetic.graphs"),
    **dict.fromkeys(
        ["SyntheticCorpus", "SyntheticQuestion", "corpus_stats", "synthetic_corpus"],
        "pathfinding.synthetic.corpus",
    ),
    "write_hipporag_files": "pathfinding.synthetic.hipporag_files",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
