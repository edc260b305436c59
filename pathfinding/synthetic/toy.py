"""Named tiny graphs with fixed, readable node ids, used by doctests, tests and notebooks.

The graphs are :class:`~pathfinding.synthetic.instances.PathFindingInstance` objects (one passage per
fact, hop depth 1), so every ranker in the package applies to them unchanged. :func:`tiny_corpus` is
the course's one small text corpus, with triples written by hand, that notebook 0 carries through
every step of HippoRAG.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_int
from pathfinding.synthetic.instances import PathFindingInstance, instance_from_facts

__all__ = ["TinyCorpus", "meet_node_toy", "passage_count_matrix", "star_pair", "tiny_corpus"]


def star_pair(degree: int = 9) -> PathFindingInstance:
    """The chapter's two stars: seeds u and w that share the answer a and own the rest.

    Node ids: ``0 = u``, ``1 = w``, ``2 = a``, then u's ``degree - 1`` dead ends ``d1, d2, ...``,
    then w's ``e1, e2, ...``. Each seed has ``degree`` neighbours: the answer and its own dead ends.

    Parameters
    ----------
    degree : int, default 9
        Degree of each seed (``>= 1``); ``degree=9`` gives the chapter's 2 + 1 + 16 = 19 nodes.

    Returns
    -------
    PathFindingInstance
        Seeds ``[0, 1]``, answer ``2``, candidates the answer followed by all dead ends.

    Examples
    --------
    >>> toy = star_pair(9)
    >>> toy.n_nodes, toy.n_passages
    (19, 18)
    >>> toy.node_names[:5]
    ['u', 'w', 'a', 'd1', 'd2']
    >>> toy.graph.sum(axis=1)[:4]
    array([9., 9., 2., 1.])
    >>> toy.passages[0]
    'u is linked to a.'
    """
    degree = check_int("degree", degree, low=1, high=10**7)
    private = degree - 1
    names = ["u", "w", "a"]
    names += [f"d{k}" for k in range(1, private + 1)]
    names += [f"e{k}" for k in range(1, private + 1)]
    facts = [(0, 2), (1, 2)]
    facts += [(0, 3 + k) for k in range(private)]
    facts += [(1, 3 + private + k) for k in range(private)]
    return instance_from_facts(
        facts,
        names,
        [f"{names[s]} is linked to {names[t]}." for s, t in facts],
        seeds=[0, 1],
        answer=2,
        candidates=list(range(2, 3 + 2 * private)),
        hops=1,
    )


def meet_node_toy() -> PathFindingInstance:
    """The smallest meet-node graph: seeds u and w share a, and own b and c.

    Node ids: ``0 = u``, ``1 = w``, ``2 = a`` (shared), ``3 = b`` (u's), ``4 = c`` (w's). It is
    :func:`star_pair` with ``degree=2``, renamed.

    Returns
    -------
    PathFindingInstance

    Examples
    --------
    >>> toy = meet_node_toy()
    >>> toy.node_names
    ['u', 'w', 'a', 'b', 'c']
    >>> toy.passages
    ['u is linked to a.', 'w is linked to a.', 'u is linked to b.', 'w is linked to c.']
    >>> toy.graph.toarray().astype(int)
    array([[0, 0, 1, 1, 0],
           [0, 0, 1, 0, 1],
           [1, 1, 0, 0, 0],
           [1, 0, 0, 0, 0],
           [0, 1, 0, 0, 0]])
    """
    star = star_pair(2)
    names = ["u", "w", "a", "b", "c"]
    return instance_from_facts(
        star.facts,
        names,
        [f"{names[s]} is linked to {names[t]}." for s, t in star.facts],
        seeds=star.seeds,
        answer=star.answer,
        candidates=star.candidates,
        hops=1,
    )


def passage_count_matrix(counts=(20, 5)) -> sp.csr_array:
    """A node x passage matrix P in which node i is found in ``counts[i]`` passages of its own.

    The chapter's specificity example uses two seeds found in 20 and 5 passages.

    Parameters
    ----------
    counts : sequence of int, default (20, 5)
        Passages per node (each ``>= 0``).

    Returns
    -------
    scipy.sparse.csr_array, shape (len(counts), sum(counts))

    Examples
    --------
    >>> from pathfinding.core.specificity import node_specificity, restart_vector
    >>> P = passage_count_matrix((20, 5))
    >>> P.shape
    (2, 25)
    >>> restart_vector(2, [0, 1], specificity=node_specificity(P))
    array([0.2, 0.8])
    """
    counts = [check_int(f"counts[{i}]", c, low=0, high=10**8) for i, c in enumerate(counts)]
    rows = np.repeat(np.arange(len(counts)), counts)
    cols = np.arange(rows.size)
    return sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(len(counts), rows.size))


@dataclass(frozen=True)
class TinyCorpus:
    """Passages, one hand-written triple list per passage, a path-finding question and its gold passages."""

    passages: list[str]
    triples: list[list[tuple[str, str, str]]]
    question: str
    gold: list[int]


def tiny_corpus() -> TinyCorpus:
    """Seven invented passages with the paper's motivating shape: no passage names both query entities.

    *Which Halvorsen Institute researcher studies coral bleaching?* Passage 0 places Mirela Okonkwo at
    the institute, passage 1 says she studies coral bleaching; the rest mention one query entity
    each. The triples are written as an OpenIE extractor would: "Dr. Mirela Okonkwo" and "Mirela
    Okonkwo" are two phrases.

    Returns
    -------
    TinyCorpus

    Examples
    --------
    >>> corpus = tiny_corpus()
    >>> len(corpus.passages), corpus.gold, corpus.triples[1]
    (7, [0, 1], [('Mirela Okonkwo', 'studies', 'coral bleaching')])
    """
    passages = [
        "Dr. Mirela Okonkwo leads a research lab at the Halvorsen Institute.",
        "Mirela Okonkwo studies coral bleaching in the Red Sea.",
        "The Halvorsen Institute was founded in Bergen.",
        "Coral bleaching is driven by rising sea temperatures.",
        "Tomasz Lindqvist teaches at the Halvorsen Institute.",
        "Ana Ferreira studies coral bleaching in Brazil.",
        "Ana Ferreira was born in Porto.",
    ]
    triples = [
        [("Dr. Mirela Okonkwo", "leads research lab at", "Halvorsen Institute")],
        [("Mirela Okonkwo", "studies", "coral bleaching")],
        [("Halvorsen Institute", "founded in", "Bergen")],
        [("coral bleaching", "driven by", "rising sea temperatures")],
        [("Tomasz Lindqvist", "teaches at", "Halvorsen Institute")],
        [("Ana Ferreira", "studies", "coral bleaching")],
        [("Ana Ferreira", "born in", "Porto")],
    ]
    question = "Which Halvorsen Institute researcher studies coral bleaching?"
    return TinyCorpus(passages, triples, question, [0, 1])
