"""Step 3, the index: phrase nodes, relation and synonymy edges, the count matrix P.

:mod:`~pathfinding.hipporag.index.model` is the index as data, :mod:`~pathfinding.hipporag.index.build`
makes one from triples, :mod:`~pathfinding.hipporag.index.encoder` and
:mod:`~pathfinding.hipporag.index.neighbours` find the synonymy edges,
:mod:`~pathfinding.hipporag.index.maintenance` adds and deletes passages, and
:mod:`~pathfinding.hipporag.index.persistence` saves and loads one file. Imports go one way:
model <- build <- maintenance, persistence.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(["HippoIndex", "IndexStats"], "pathfinding.hipporag.index.model"),
    **dict.fromkeys(["build_index", "index_from_openie"], "pathfinding.hipporag.index.build"),
    "CharNgramEncoder": "pathfinding.hipporag.index.encoder",
    "EmbeddingEncoder": "pathfinding.hipporag.index.embeddings",
    **dict.fromkeys(
        ["add_passages", "delete_passages", "renumber_after_delete"], "pathfinding.hipporag.index.maintenance"
    ),
    **dict.fromkeys(["save_index", "load_index"], "pathfinding.hipporag.index.persistence"),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
