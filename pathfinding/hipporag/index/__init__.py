"""Step 3, the index: phrase nodes, relation and synonymy edges, the count matrix P.

:mod:`~pathfinding.hipporag.index.model` is the index as data, :mod:`~pathfinding.hipporag.index.build`
makes one from triples, :mod:`~pathfinding.hipporag.index.encoder` and
:mod:`~pathfinding.hipporag.index.neighbours` find the synonymy edges,
:mod:`~pathfinding.hipporag.index.maintenance` adds and deletes passages (by position, or by their
ids, which never move), :mod:`~pathfinding.hipporag.index.persistence` saves and loads one file, and
:mod:`~pathfinding.hipporag.index.sync` keeps an index built from a folder in step with it. Imports
go one way: model <- build <- maintenance, persistence <- sync.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(
        ["HippoIndex", "IndexStats", "PositionalIds", "with_passage_labels"],
        "pathfinding.hipporag.index.model",
    ),
    **dict.fromkeys(["build_index", "index_from_openie"], "pathfinding.hipporag.index.build"),
    "CharNgramEncoder": "pathfinding.hipporag.index.encoder",
    "EmbeddingEncoder": "pathfinding.hipporag.index.embeddings",
    **dict.fromkeys(
        ["add_passages", "delete_passages", "renumber_after_delete", "replace_passages"],
        "pathfinding.hipporag.index.maintenance",
    ),
    **dict.fromkeys(["SyncPlan", "apply_sync", "plan_sync"], "pathfinding.hipporag.index.sync"),
    **dict.fromkeys(["save_index", "load_index"], "pathfinding.hipporag.index.persistence"),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
