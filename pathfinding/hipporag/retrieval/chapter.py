"""HippoRAG's retrieval as the chapter writes it: one page of numpy and scipy, written to be read.

Steps 4-7 with nothing in the way: each query entity linked to its nearest node by the encoder's
cosine, the seeds weighted by node specificity s_i = 1/|P_i|, Personalized PageRank solved by plain
power iteration with the dangling mass sent back to the restart vector, passages scored by pi . P,
and the best k returned (equal scores by passage id). No compiled kernel, no cache, no early stop.

The fast retrievers are held to it (``tests/test_chapter.py``): :class:`~pathfinding.hipporag.
retrieval.retrieve.HippoRetriever` with v1's settings (the entities given, no fact seeds, no
passage nodes, no fusion, ``min_link_cosine`` as here) ranks every question of the synthetic
generator and of the MuSiQue tuning set as :func:`chapter_retrieve` does. The course shows it
(notebook 7) before it shows the retriever that adds to it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pathfinding.hipporag.index.model import HippoIndex

__all__ = ["chapter_link", "chapter_retrieve"]


def chapter_link(index: HippoIndex, entities, *, min_cosine: float = 0.0) -> list[int]:
    """Step 4: each entity's nearest node (an exact phrase match first), if its cosine reaches
    ``min_cosine``; equal cosines go to the lower node id. Returns the distinct seed nodes."""
    seeds = []
    for entity in dict.fromkeys(entities):
        phrase = index.normalize(entity)
        if not phrase:
            continue
        if phrase in index.phrase_ids:
            seeds.append(index.phrase_ids[phrase])
            continue
        cos = index.node_embeddings @ index.encoder([phrase]).T  # unit rows: cosines with every node
        cos = cos.toarray().ravel() if sp.issparse(cos) else np.asarray(cos).ravel()
        best = int(np.argmax(cos))  # the first of the largest: the lowest id
        if cos[best] > 0 and cos[best] >= min_cosine - 1e-12:
            seeds.append(best)
    return list(dict.fromkeys(seeds))


def chapter_retrieve(
    index: HippoIndex, entities, *, k: int = 10, restart_prob: float = 0.5, specificity: bool = True,
    synonymy: bool = True, min_link_cosine: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Steps 4-7: ``(passage ids, their scores)``, best first; empty when no entity links.

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")],
    ...                    [("Paris", "capital of", "France")]])
    >>> chapter_retrieve(idx, ["Ed Wood"], k=2)[0]
    array([0, 1])
    """
    P = sp.csr_array(index.mentions, dtype=np.float64)  # nodes x passages: the count matrix
    seeds = chapter_link(index, entities, min_cosine=min_link_cosine)
    if not seeds:
        return np.zeros(0, np.int64), np.zeros(0)
    # Step 5: the restart vector, each seed weighted by its specificity 1/|P_i|, summing to 1
    r = np.zeros(index.n_nodes)
    r[seeds] = 1.0
    if specificity:
        passages_per_node = np.asarray((P > 0).sum(axis=1)).ravel()
        r[seeds] /= passages_per_node[seeds]
    r /= r.sum()
    # Step 6: pi = a r + (1 - a) (W^T pi + (mass on nodes without edges) r). The map shrinks every
    # error by (1 - a), so enough steps for (1 - a)^steps < 1e-16 reach the fixed point
    A = sp.csr_array(index.graph(synonymy=synonymy), dtype=np.float64)
    degree = np.asarray(A.sum(axis=1)).ravel()
    dangling = degree == 0
    W = sp.diags(np.divide(1.0, degree, out=np.zeros_like(degree), where=~dangling)) @ A  # rows sum to 1
    a = restart_prob
    pi = r.copy()
    for _ in range(int(np.ceil(np.log(1e-16) / np.log(1 - a))) if a < 1 else 1):
        pi = a * r + (1 - a) * (W.T @ pi + pi[dangling].sum() * r)
    # Step 7: a passage's score is the mass of the nodes it mentions, counted: pi . P
    scores = P.T @ pi
    ids = np.lexsort((np.arange(scores.size), -scores))[: min(k, scores.size)]
    return ids.astype(np.int64), scores[ids]
