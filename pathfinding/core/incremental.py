"""Keeping the index current: incremental node specificity against corpus-level IDF.

Node specificity ``s_i = 1/|P_i|`` depends only on the passages that mention node i, so adding a
passage changes it only for the nodes that passage mentions. A corpus-level IDF such as
``log(N / df_i)`` is as cheap to keep (the counts ``df_i`` and one counter N), but its value depends
on N, so every stored or cached weight goes stale whenever any passage is added.
:class:`SpecificityIndex` maintains ``|P_i|`` passage by passage and reports which nodes it touched;
:func:`replay_additions` measures, passage after passage, how many nodes' values change under each
weighting.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import as_csr, check_int
from pathfinding.core.specificity import specificity_from_counts
from pathfinding.errors import InvalidValueError

__all__ = [
    "SpecificityIndex",
    "ReplayLog",
    "corpus_idf",
    "replay_additions",
]


def corpus_idf(counts, n_passages: int) -> np.ndarray:
    """Corpus-level inverse document frequency ``log(N / df_i)``, the weighting s_i is contrasted with.

    Parameters
    ----------
    counts : array_like of int, shape (n_nodes,)
        Document frequency df_i (passages mentioning node i).
    n_passages : int
        Corpus size N (``>= 1``).

    Returns
    -------
    numpy.ndarray of float64, shape (n_nodes,)
        ``log(N / max(df_i, 1))``: a node in no passage is treated as if found in one, the same
        convention :func:`~pathfinding.core.specificity.node_specificity` uses.

    Raises
    ------
    ValueError
        If ``n_passages < 1`` or a count is negative or larger than ``n_passages``.

    Examples
    --------
    >>> corpus_idf([1, 2, 4], 4).round(4)
    array([1.3863, 0.6931, 0.    ])
    """
    n_passages = check_int("n_passages", n_passages, low=1)
    df = np.asarray(counts)
    if df.ndim != 1 or not np.issubdtype(df.dtype, np.integer):
        raise InvalidValueError(f"counts must be a 1-D integer array, got dtype {df.dtype} shape {df.shape}")
    if df.size and (df.min() < 0 or df.max() > n_passages):
        raise InvalidValueError(f"counts must be in [0, n_passages={n_passages}], got {df.min()}..{df.max()}")
    return np.log(n_passages / np.maximum(df, 1))


class SpecificityIndex:
    """|P_i| maintained passage by passage, so s_i = 1/|P_i| never needs a rebuild.

    Parameters
    ----------
    n_nodes : int, default 0
        Initial number of nodes; the index grows when a passage mentions a larger node id.

    Attributes
    ----------
    counts : numpy.ndarray of int64
        |P_i| per node.
    n_passages : int
        Passages added so far.

    See Also
    --------
    pathfinding.core.specificity.passage_counts : the same counts from the full matrix P (the rebuild).

    Examples
    --------
    >>> idx = SpecificityIndex()
    >>> idx.add_passage([0, 1])
    array([0, 1])
    >>> idx.add_passage([0, 2, 0])  # a node mentioned twice in one passage counts once
    array([0, 2])
    >>> idx.counts
    array([2, 1, 1])
    >>> idx.specificity()
    array([0.5, 1. , 1. ])
    """

    def __init__(self, n_nodes: int = 0):
        n_nodes = check_int("n_nodes", n_nodes, low=0)
        self.counts = np.zeros(n_nodes, dtype=np.int64)
        self.n_passages = 0

    @property
    def n_nodes(self) -> int:
        """Number of nodes the index knows about."""
        return self.counts.size

    def add_passage(self, nodes) -> np.ndarray:
        """Record one passage that mentions ``nodes``; return the node ids whose |P_i| changed.

        Work is proportional to the passage's mentions, not to the corpus: only these counts move.

        Parameters
        ----------
        nodes : array_like of int
            Node ids mentioned in the passage (repeats allowed, counted once; may be empty).

        Returns
        -------
        numpy.ndarray of int64
            The distinct node ids touched, sorted.

        Raises
        ------
        ValueError
            If a node id is negative.
        """
        ids = np.asarray(nodes)
        if ids.size == 0:
            self.n_passages += 1
            return np.zeros(0, dtype=np.int64)
        if not np.issubdtype(ids.dtype, np.integer) or ids.ndim != 1:
            raise InvalidValueError(f"nodes must be a 1-D array of integer node ids, got {nodes!r}")
        if ids.min() < 0:
            raise InvalidValueError(f"node ids must be non-negative, got {int(ids.min())}")
        touched = np.unique(ids).astype(np.int64)
        if touched[-1] >= self.counts.size:
            grown = np.zeros(int(touched[-1]) + 1, dtype=np.int64)
            grown[: self.counts.size] = self.counts
            self.counts = grown
        self.counts[touched] += 1
        self.n_passages += 1
        return touched

    def specificity(self) -> np.ndarray:
        """s_i = 1/|P_i| for every node (1.0 for a node in no passage)."""
        return specificity_from_counts(self.counts)

    def idf(self) -> np.ndarray:
        """Corpus-level ``log(N / df_i)`` for every node, for contrast (see :func:`corpus_idf`)."""
        return corpus_idf(self.counts, max(self.n_passages, 1))


@dataclass(frozen=True)
class ReplayLog:
    """What changed when the passages of a corpus were added one at a time.

    Attributes
    ----------
    touched : numpy.ndarray of int, shape (n_passages,)
        Nodes whose |P_i| changed at each addition (the nodes the passage mentions).
    changed_specificity : numpy.ndarray of int, shape (n_passages,)
        Nodes whose s_i value changed at each addition.
    changed_idf : numpy.ndarray of int, shape (n_passages,)
        Nodes seen so far whose ``log(N/df)`` value changed at each addition.
    seen : numpy.ndarray of int, shape (n_passages,)
        Nodes mentioned by at least one passage after each addition.
    index : SpecificityIndex
        The index after the last addition.
    """

    touched: np.ndarray
    changed_specificity: np.ndarray
    changed_idf: np.ndarray
    seen: np.ndarray
    index: SpecificityIndex


def replay_additions(mentions) -> ReplayLog:
    """Add the passages (columns of P) one at a time and count whose weights change each time.

    Parameters
    ----------
    mentions : sparse matrix or array_like, shape (n_nodes, n_passages)
        The count matrix P; passage j is added at step j.

    Returns
    -------
    ReplayLog

    Examples
    --------
    Three passages over three nodes: after the first, IDF moves for every node already seen, while
    s_i moves only where a count went from 1 to 2.

    >>> import numpy as np
    >>> P = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1]])
    >>> log = replay_additions(P)
    >>> log.touched, log.changed_specificity, log.changed_idf
    (array([2, 2, 1]), array([0, 1, 1]), array([0, 1, 3]))
    """
    P = sp.csc_array(as_csr("mentions", mentions))
    n_nodes, n_passages = P.shape
    index = SpecificityIndex(n_nodes)
    touched = np.zeros(n_passages, dtype=np.int64)
    changed_s = np.zeros(n_passages, dtype=np.int64)
    changed_idf = np.zeros(n_passages, dtype=np.int64)
    seen = np.zeros(n_passages, dtype=np.int64)
    s_before = index.specificity()
    idf_before = None
    prev_seen = np.zeros(n_nodes, dtype=bool)
    for j in range(n_passages):
        nodes = P.indices[P.indptr[j] : P.indptr[j + 1]]
        touched[j] = index.add_passage(nodes).size
        s_after = index.specificity()
        idf_after = index.idf()
        seen_mask = index.counts > 0
        seen[j] = int(seen_mask.sum())
        changed_s[j] = int(np.sum(s_after != s_before))
        if idf_before is not None:
            # Only nodes already in the index have an IDF a retriever would have used.
            changed_idf[j] = int(np.sum(prev_seen & (idf_after != idf_before)))
        s_before, idf_before, prev_seen = s_after, idf_after, seen_mask
    return ReplayLog(touched, changed_s, changed_idf, seen, index)
