"""The paper's running path-finding example, walked through the package.

"Which Stanford professor works on the neuroscience of Alzheimer's?" (:data:`CHAPTER_QUESTION`:
Figure 1, Table 7 and §5.3 of the paper, and the chapter) on the 43-passage university case study
of the HippoRAG v1 release (fetched by :mod:`pathfinding.hipporag.storage.datasets`). No OpenIE is released
for it, so the triples come from the caller: the no-model extractor
(:mod:`~pathfinding.hipporag.extract.cooccurrence`) or triples written by hand. :func:`walk` builds
the index, runs HippoRAG v1's retrieval and reports what the course asks of it: where the
professor's passages land, how far the meet node is from each query node, and how much mass it
gets. :func:`bm25_ranks` ranks the same passages without a graph, the per-passage baseline.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse.csgraph import shortest_path

from pathfinding.core.ppr import personalized_pagerank
from pathfinding.core.specificity import restart_vector
from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.model import HippoIndex
from pathfinding.hipporag.io.loaders import load_corpus, load_questions
from pathfinding.hipporag.io.records import Passage, Question
from pathfinding.hipporag.language.names import capitalised_spans
from pathfinding.hipporag.retrieval.explain import Explanation
from pathfinding.hipporag.retrieval.linking import link_entities
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever
from pathfinding.hipporag.storage.datasets import fetch

__all__ = [
    "CHAPTER_QUESTION",
    "HAND_TRIPLES",
    "CaseStudyWalk",
    "bm25_ranks",
    "hand_triples",
    "load_university",
    "walk",
]

CHAPTER_QUESTION = "Which Stanford professor works on the neuroscience of Alzheimer's?"
"""The running example as the chapter and the paper's Table 7 word it; the v1 release's question file
words it "Which Stanford University professor works on Alzheimer's?"."""


# Written by hand for this course from each passage's own title and text, for the passages the
# question needs (Südhof: 0, 1, 36; Malenka: 2, 3), with a few short facts for every other passage so
# that the graph has its distractors; not the output of any model.
HAND_TRIPLES = {
    0: [("Thomas C. Südhof", "is", "German-American biochemist"),
        ("Thomas C. Südhof", "born on", "December 22, 1955"),
        ("Thomas C. Südhof", "known for study of", "synaptic transmission"),
        ("Thomas C. Südhof", "professor at", "Stanford University"),
        ("Thomas C. Südhof", "professor in", "department of molecular and cellular physiology")],
    1: [("Thomas C. Südhof", "researches", "synaptic transmission"),
        ("Thomas C. Südhof", "researches", "synapse formation"),
        ("Thomas C. Südhof", "advanced knowledge of", "Alzheimer's"),
        ("Thomas C. Südhof", "advanced knowledge of", "Schizophrenia"),
        ("Thomas C. Südhof", "advanced knowledge of", "Autism"),
        ("Thomas C. Südhof", "works with", "Howard Hughes Medical Institute")],
    2: [("Robert C. Malenka", "born on", "June 21, 1955"),
        ("Robert C. Malenka", "professor at", "Stanford University"),
        ("Robert C. Malenka", "professor in", "Psychiatry and Behavioral Sciences"),
        ("Robert C. Malenka", "director of", "Nancy Friend Pritzker Laboratory")],
    3: [("Robert Malenka", "member of", "National Academies of Sciences, Engineering, and Medicine"),
        ("Robert Malenka", "member of", "American Academy of Arts and Sciences"),
        ("Robert Malenka", "research with", "National Alzheimer's Foundation"),
        ("Robert Malenka", "researches", "Alzheimer's disease")],
    4: [("David Eagleman", "is", "American neuroscientist"),
        ("David Eagleman", "teaches neuroscience at", "Stanford University"),
        ("David Eagleman", "CEO of", "Neosensory")],
    5: [("Brian Kobilka", "recipient of", "2012 Nobel Prize in Chemistry"),
        ("Brian Kobilka", "professor at", "Stanford University School of Medicine"),
        ("Brian Kobilka", "studies", "G protein-coupled receptors")],
    6: [("Karl Deisseroth", "professor of bioengineering at", "Stanford University"),
        ("Karl Deisseroth", "developed", "optogenetics"),
        ("Karl Deisseroth", "developed", "CLARITY")],
    7: [("Eric Knudsen", "professor of neurobiology at", "Stanford University"),
        ("Eric Knudsen", "discovered", "brain map of sound location"),
        ("Eric Knudsen", "studied", "barn owl")],
    8: [("Tina Seelig", "is", "American educator"),
        ("Tina Seelig", "faculty member at", "Stanford University"),
        ("Tina Seelig", "writes about", "creativity and innovation")],
    9: [("Russell Poldrack", "is", "American psychologist"),
        ("Russell Poldrack", "professor of psychology at", "Stanford University"),
        ("Russell Poldrack", "director of", "Stanford Center for Reproducible Neuroscience")],
    10: [("Lisa Giocomo", "is", "American neuroscientist"),
         ("Lisa Giocomo", "professor at", "Stanford University School of Medicine"),
         ("Lisa Giocomo", "studies", "spatial navigation and memory")],
    11: [("Jennifer Dionne", "pioneer of", "nanophotonics"),
         ("Jennifer Dionne", "vice provost at", "Stanford University"),
         ("Jennifer Dionne", "professor of", "materials science and engineering")],
    12: [("Fei-Fei Li", "established", "ImageNet"),
         ("Fei-Fei Li", "professor of computer science at", "Stanford University"),
         ("Fei-Fei Li", "co-director of", "Stanford Institute for Human-Centered Artificial Intelligence")],
    13: [("Robert Sapolsky", "is", "neuroendocrinology researcher"),
         ("Robert Sapolsky", "professor of neurology at", "Stanford University")],
    14: [("Carla J. Shatz", "is", "American neurobiologist"),
         ("Carla J. Shatz", "member of", "National Academy of Sciences"),
         ("Carla J. Shatz", "tenured at", "Stanford Medical School")],
    15: [("Andrea Goldsmith", "dean at", "Princeton University"),
         ("Andrea Goldsmith", "previously professor at", "Stanford University"),
         ("Andrea Goldsmith", "is", "electrical engineer")],
    16: [("Emmanuel Mignot", "director of", "Stanford Center for Sleep Sciences and Medicine"),
         ("Emmanuel Mignot", "works at", "Stanford University"),
         ("Emmanuel Mignot", "known for work on", "narcolepsy")],
    17: [("Subhasish Mitra", "professor at", "Stanford University"),
         ("Subhasish Mitra", "directs", "Stanford Robust Systems Group")],
    18: [("Henry Greely", "is", "American lawyer"),
         ("Henry Greely", "professor of law at", "Stanford University"),
         ("Henry Greely", "expert on", "implications of biomedical technologies")],
    19: [("Eric Shooter", "investigated", "nerve growth factor"),
         ("Eric Shooter", "affiliated with", "Stanford University School of Medicine"),
         ("Eric Shooter", "founding chairman of", "Department of Neurobiology")],
    20: [("Richard Tsien", "director of", "NYU Neuroscience Institute"),
         ("Richard Tsien", "emeritus faculty of", "Stanford University School of Medicine")],
    21: [("Denis Baylor", "is", "American neurobiologist"),
         ("Denis Baylor", "professor emeritus at", "Stanford University")],
    22: [("Andrew Huberman", "is", "American neuroscientist"),
         ("Andrew Huberman", "associate professor at", "Stanford University School of Medicine"),
         ("Andrew Huberman", "hosts", "Huberman Lab podcast")],
    23: [("Brian Knutson", "professor of psychology at", "Stanford University"),
         ("Brian Knutson", "researches", "neural basis of emotion")],
    24: [("Giovanna Mallucci", "tested drug for", "frontotemporal dementia"),
         ("Alzheimer's Society", "funds", "Giovanna Mallucci"),
         ("Giovanna Mallucci", "researches", "Alzheimer's disease")],
    25: [("Karen Ashe", "awarded", "Metlife Foundation Award"),
         ("Karen Ashe", "earned", "Potamkin Prize"),
         ("Karen Ashe", "researches", "Alzheimer's disease")],
    26: [("Michael I. Miller", "researches", "Alzheimer's disease"),
         ("Michael I. Miller", "collaborated with", "John Csernansky"),
         ("Michael I. Miller", "uses", "diffeomorphometry")],
    27: [("Michela Gallagher", "received", "Melvin R. Goodes Prize"),
         ("Michela Gallagher", "researches", "Alzheimer's drug discovery")],
    28: [("Susan Curtiss", "researched", "language of adults with Alzheimer's disease"),
         ("Susan Curtiss", "supports", "modularity of syntactic and semantic faculties")],
    29: [("Gerard D. Schellenberg", "identified genes of", "Alzheimer's disease"),
         ("Gerard D. Schellenberg", "located gene of", "Werner syndrome"),
         ("Gerard D. Schellenberg", "awarded", "Potamkin Prize")],
    30: [("Judes Poirier", "researches", "Alzheimer's disease"),
         ("Judes Poirier", "researches", "apolipoprotein E")],
    31: [("Eva Feldman", "develops stem-cell therapy for", "Alzheimer's disease"),
         ("Eva Feldman", "researches", "ALS")],
    32: [("Manolis Kellis", "studied", "Alzheimer's disease"),
         ("Manolis Kellis", "works at", "MIT"),
         ("Manolis Kellis", "collaborated with", "Li-Huei Tsai")],
    33: [("Mathias Jucker", "researches", "brain aging"),
         ("Mathias Jucker", "researches", "Alzheimer's disease")],
    34: [("Mathias Jucker", "received", "Research Prize of the Swiss Alzheimer Association"),
         ("Mathias Jucker", "received", "Zenith Fellows Award")],
    35: [("Tara Spires-Jones", "researches", "neurodegeneration"),
         ("Tara Spires-Jones", "studies synapses in", "Alzheimer's disease")],
    36: [("Thomas C. Sudhof", "serves on", "Research Consortium of Cure Alzheimer's Fund")],
    37: [("Tara Spires-Jones", "studies", "tau pathology"),
         ("Tara Spires-Jones", "contributed to", "clinical trial for Alzheimer's disease")],
    38: [("Dena Dubal", "studies", "APOE e4"),
         ("Dena Dubal", "researches", "Alzheimer's disease")],
    39: [("Gerard D. Schellenberg", "awarded", "R37 Merit Award"),
         ("National Institute on Aging", "awarded", "Gerard D. Schellenberg")],
    40: [("Barbara J. Sahakian", "researches", "Alzheimer's disease"),
         ("Barbara J. Sahakian", "uses", "neuroimaging")],
    41: [("Anne B. Young", "researches", "Alzheimer's disease"),
         ("Anne B. Young", "researches", "metabotropic glutamate receptors")],
    42: [("Nozomi Nishimura", "studies", "blood flow in the brain"),
         ("Nozomi Nishimura", "researches", "Alzheimer's disease")],
}  # fmt: skip
"""Passage id -> triples written by hand for the university case study (see above)."""


def hand_triples() -> list[list[tuple[str, str, str]]]:
    """:data:`HAND_TRIPLES` as one list per passage, in corpus order.

    Examples
    --------
    >>> triples = hand_triples()
    >>> len(triples), triples[36]
    (43, [('Thomas C. Sudhof', 'serves on', "Research Consortium of Cure Alzheimer's Fund")])
    """
    return [list(HAND_TRIPLES[j]) for j in range(len(HAND_TRIPLES))]


@functools.lru_cache(maxsize=1)
def load_university() -> tuple[Question, list[Passage]]:
    """The university case study of the HippoRAG release: its one question and its 43 passages.

    Examples
    --------
    >>> question, corpus = load_university()
    >>> question.question, len(corpus), corpus[0].title
    ("Which Stanford University professor works on Alzheimer's?", 43, 'Thomas C. Südhof')
    """
    questions, _ = load_questions(fetch("university_questions"))
    corpus, _ = load_corpus(fetch("university_corpus"))
    return questions[0], corpus


def bm25_ranks(question: str, corpus: Sequence[Passage]) -> np.ndarray:
    """Rank (1 = first) of every passage of ``corpus`` under BM25 on title + text, for ``question``.

    Examples
    --------
    >>> question, corpus = load_university()
    >>> ranks = bm25_ranks(CHAPTER_QUESTION, corpus)
    >>> sorted(ranks.tolist()) == list(range(1, len(corpus) + 1))
    True
    """
    from pathfinding.hipporag.retrieval.lexical import BM25Ranker

    order = np.asarray(BM25Ranker([p.key for p in corpus]).rank(question, len(corpus)))
    ranks = np.empty(len(corpus), dtype=np.int64)
    ranks[order] = np.arange(1, len(corpus) + 1)
    return ranks


@dataclass
class CaseStudyWalk:
    """What :func:`walk` measured.

    Attributes
    ----------
    index : HippoIndex
    seeds : list of str
        The query nodes (normalised phrases), one per linked query entity.
    passage_rank : numpy.ndarray of int, shape (n_passages,)
        Rank (1 = first) of every passage under v1's pi . P, ties broken by passage id.
    hops : dict of str to tuple of float
        Node phrase -> its hop distance from each seed (``inf`` when unreachable), for the
        ``nodes`` asked about that are in the index.
    mass : dict of str to float
        Node phrase -> its PPR mass.
    mass_rank : dict of str to int
        Node phrase -> 1 + the number of nodes with more mass (the seeds included).
    explanation : Explanation
        The ranking with each passage's score split by seed, its nodes and their paths
        (:meth:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever.explain`).
    """

    index: HippoIndex
    seeds: list[str]
    passage_rank: np.ndarray
    hops: dict[str, tuple[float, ...]]
    mass: dict[str, float]
    mass_rank: dict[str, int]
    explanation: Explanation

    def best_rank(self, passage_ids: Sequence[int]) -> int:
        """The best (smallest) rank among ``passage_ids``."""
        return int(self.passage_rank[list(passage_ids)].min())


def walk(
    triples_per_passage, corpus: Sequence[Passage], question: str, *, nodes: Sequence[str] = (), **index_kw
) -> CaseStudyWalk:
    """Index ``corpus`` from the given triples and run HippoRAG v1 on ``question``.

    Parameters
    ----------
    triples_per_passage : sequence of sequences of (str, str, str)
        One list of triples per passage of ``corpus``.
    corpus : sequence of Passage
    question : str
        Its entities are the capitalised spans (what an LLM's query NER returns for this question).
    nodes : sequence of str, optional
        Phrases (as written; they are normalised here) whose hop distance and mass to report.
    **index_kw
        Passed to :func:`~pathfinding.hipporag.index.build.build_index` (e.g. ``mentions="text"``);
        ``normalization`` defaults to HippoRAG v1's ASCII rule here, since the walk reproduces v1.

    Returns
    -------
    CaseStudyWalk

    Raises
    ------
    ValueError
        If there is not one list of triples per passage, or no query entity is found.
    """
    if len(triples_per_passage) != len(corpus):
        raise InvalidValueError(
            f"triples_per_passage must have one list per passage ({len(corpus)}), "
            f"got {len(triples_per_passage)}"
        )
    index_kw = {"normalization": "ascii", **index_kw}
    index = build_index(triples_per_passage, passages=[p.key for p in corpus], **index_kw)
    entities = capitalised_spans(question)
    if not entities:
        raise InvalidValueError(f"no capitalised entity in the question {question!r}")
    seeds = np.unique(link_entities(index, entities).nodes)
    v1 = HippoRetriever(index, extractor="capitalised", facts=0, passage_weight=0, guess_weight=1.0)
    ranking = v1.retrieve(question, k=index.n_passages)
    passage_rank = np.empty(index.n_passages, dtype=np.int64)
    passage_rank[np.asarray(ranking.passages)] = np.arange(1, index.n_passages + 1)
    pi = personalized_pagerank(
        index.prepared(), restart_vector(index.n_nodes, seeds, specificity=index.specificity)
    )
    dist = shortest_path(index.graph(), unweighted=True, indices=seeds)
    hops, mass, mass_rank = {}, {}, {}
    for name in nodes:
        phrase = index.normalize(name)
        if phrase in index.phrase_ids:
            i = index.phrase_ids[phrase]
            hops[phrase] = tuple(float(d) for d in dist[:, i])
            mass[phrase] = float(pi[i])
            mass_rank[phrase] = 1 + int(np.sum(pi > pi[i]))
    return CaseStudyWalk(
        index=index,
        seeds=[index.phrases[s] for s in seeds],
        passage_rank=passage_rank,
        hops=hops,
        mass=mass,
        mass_rank=mass_rank,
        explanation=v1.explain(question, k=index.n_passages),
    )
