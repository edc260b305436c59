"""Path-following instances, and the question text of any instance.

A *path-following* question names one entity and the relations to follow from it ("Ines Ballard
mentored someone who sued whom?"): each hop's passage names the next clue, so a retriever that chains
lookups can walk to the answer. :func:`make_following_instance` builds it from the same parts as the
path-finding generator: one seed, ``distractors`` dead-end chains of ``hops`` facts, and one answer
chain whose relations the question names. At every hop the answer chain's relation differs from every
other fact leaving the same node, so the relations single out one chain; they are the only thing that
does, since all the chains have the same shape.

:func:`question_text` writes the question an instance answers, naming the relations actually on its
path(s), for both shapes.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import breadth_first_order

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError
from pathfinding.synthetic.instances import RELATIONS, PathFindingInstance
from pathfinding.synthetic.variation import GraphBuilder, QuestionInstance, check_variation, publish, vary

__all__ = [
    "answer_paths",
    "make_following_instance",
    "passage_relations",
    "path_passages",
    "path_relations",
    "question_text",
    "relation_phrase",
]

# Past participles where they differ from the past tense (for a fact read against its direction).
_PARTICIPLE = {"wrote to": "written to"}


def make_following_instance(
    hops: int = 2,
    *,
    distractors: int = 8,
    rng=None,
    length_jitter: int = 0,
    noise_facts: int = 0,
    shared_nodes: int = 0,
    extra_passages: int = 0,
) -> QuestionInstance:
    """Generate a path-following instance: one seed, distractor chains, and a chain the question names.

    Parameters
    ----------
    hops : int, default 2
        Facts from the seed to the answer (``>= 1``); the question names this many relations.
    distractors : int, default 8
        Dead-end chains from the seed (``>= 0``).
    rng : None, int, numpy.random.Generator or SeedSequence
        The one source of randomness.
    length_jitter, noise_facts, shared_nodes, extra_passages : int, default 0
        Structural variation, as in :func:`pathfinding.synthetic.variation.make_varied_instance`.

    Returns
    -------
    QuestionInstance
        ``kind == "following"``, one seed, candidates the answer and every dead end
        (``distractors + 1``, 9 by default).

    Raises
    ------
    TypeError, ValueError
        For a bad count, naming it.

    Notes
    -----
    Relations are drawn as in the path-finding generator; any fact that leaves a node of the answer's
    chain with the same relation as the chain's own next fact is redrawn among the other relations, so
    "the fact leaving this node with relation r" names exactly one next entity at every hop.

    Examples
    --------
    >>> inst = make_following_instance(2, rng=0)
    >>> len(inst.seeds), len(inst.candidates), inst.n_passages
    (1, 9, 18)
    >>> question_text(inst)
    'Agnes Quist coached someone who recruited whom?'
    """
    hops = check_int("hops", hops, low=1, high=64)
    distractors = check_int("distractors", distractors, low=0, high=10_000)
    jitter, noise, shared, extra = check_variation(length_jitter, noise_facts, shared_nodes, extra_passages)
    rng = np.random.default_rng(rng)
    builder = GraphBuilder(1)
    builder.build((hops,), distractors, jitter, rng)
    vary(builder, rng, (shared, noise, extra))
    path_edges = builder.path_edges[0]
    edges = builder.edges

    def fix(relations):
        relations = relations.copy()
        on_path = set(path_edges)
        for e in path_edges:
            subject = edges[e][0]
            for j, (u, _) in enumerate(edges):
                if j not in on_path and u == subject and relations[j] == relations[e]:
                    relations[j] = (relations[j] + 1 + rng.integers(len(RELATIONS) - 1)) % len(RELATIONS)
        return relations

    return publish(builder, rng, (hops,), kind="following", fix_relations=fix)


def passage_relations(inst: PathFindingInstance) -> tuple[str, ...]:
    """The relation each passage states, read from the instance (or from the passage text).

    Instances from :func:`~pathfinding.synthetic.instances.make_instance` and the toy graphs do not record
    relations; their passages read ``"<subject> <relation> <object>."``, so the relation is the text
    between the two names.

    Raises
    ------
    ValueError
        If a passage does not have that form.

    Examples
    --------
    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> passage_relations(meet_node_toy())[:2]
    ('is linked to', 'is linked to')
    """
    if isinstance(inst, QuestionInstance):
        return inst.relations
    out = []
    for j, (text, (u, v)) in enumerate(zip(inst.passages, inst.facts, strict=True)):
        head, tail = inst.node_names[u] + " ", " " + inst.node_names[v] + "."
        if not (text.startswith(head) and text.endswith(tail)) or len(text) <= len(head) + len(tail):
            raise InvalidValueError(f"passage {j} {text!r} does not read '<subject> <relation> <object>.'")
        out.append(text[len(head) : -len(tail)])
    return tuple(out)


def answer_paths(inst: PathFindingInstance) -> tuple[tuple[int, ...], ...]:
    """Per seed, the node ids of a shortest path from the seed to the answer.

    A :class:`~pathfinding.synthetic.variation.QuestionInstance` records its bridges; for any other
    instance this
    is a breadth-first shortest path (unique in the chapter's default shape).

    Raises
    ------
    ValueError
        If the answer is not reachable from a seed.
    """
    if isinstance(inst, QuestionInstance):
        return inst.paths
    paths = []
    for s in inst.seeds:
        _, pred = breadth_first_order(inst.graph, int(s), directed=False, return_predecessors=True)
        node, path = inst.answer, [inst.answer]
        while node != s:
            node = int(pred[node])
            if node < 0:
                raise InvalidValueError(f"the answer {inst.answer} is not reachable from seed {int(s)}")
            path.append(node)
        paths.append(tuple(reversed(path)))
    return tuple(paths)


def path_passages(inst: PathFindingInstance) -> tuple[tuple[int, ...], ...]:
    """Per seed, the passage ids along its path to the answer (one per hop), in order.

    Examples
    --------
    >>> inst = make_following_instance(2, rng=0)
    >>> [inst.passages[j] for j in path_passages(inst)[0]]
    ['Agnes Quist coached Dario Reyes.', 'Dario Reyes recruited Selma Orsini.']
    """
    index = {}
    for j, (u, v) in enumerate(inst.facts.tolist()):
        index.setdefault((u, v), j)
        index.setdefault((v, u), j)
    return tuple(
        tuple(index[a, b] for a, b in zip(path[:-1], path[1:], strict=True)) for path in answer_paths(inst)
    )


def path_relations(inst: PathFindingInstance) -> tuple[tuple[str, ...], ...]:
    """Per seed, the relation phrases along its path to the answer, read in the path's direction.

    A fact stated against the path's direction ("B mentored A" on the way from A to B) reads as
    ``"was mentored by"``.
    """
    rel = passage_relations(inst)
    index = {}
    for j, (u, v) in enumerate(inst.facts.tolist()):
        index.setdefault((u, v), j)
    out = []
    for path in answer_paths(inst):
        phrases = []
        for a, b in zip(path[:-1], path[1:], strict=True):
            if (a, b) in index:
                phrases.append(relation_phrase(rel[index[a, b]], forward=True))
            else:
                phrases.append(relation_phrase(rel[index[b, a]], forward=False))
        out.append(tuple(phrases))
    return tuple(out)


def relation_phrase(relation: str, *, forward: bool) -> str:
    """How a fact's relation reads from its subject (``forward``) or from its object.

    Examples
    --------
    >>> relation_phrase("wrote to", forward=True), relation_phrase("wrote to", forward=False)
    ('wrote to', 'was written to by')
    """
    return relation if forward else f"was {_PARTICIPLE.get(relation, relation)} by"


def _trail(name: str, relations) -> str:
    return f"{name} " + " someone who ".join(relations)


def question_text(inst: PathFindingInstance) -> str:
    """The question an instance answers, naming the relations on the path from each seed.

    Path-following (one seed): ``"A mentored someone who sued whom?"``. Path-finding (several seeds):
    ``"Who is it that A mentored someone who sued, and that B hired someone who funded?"`` — each seed's
    relations are the ones on its own bridge.

    Examples
    --------
    >>> from pathfinding.synthetic.instances import make_instance
    >>> question_text(make_instance(1, rng=0))
    'Who is it that Agnes Quist photographed, and that Selma Orsini recruited?'
    >>> print(question_text(make_instance(2, rng=0)).replace(", and", ",\\n and"))
    Who is it that Xaver Reyes sued someone who wrote to,
     and that Ines Marsh mentored someone who photographed?
    """
    names = inst.node_names
    trails = [_trail(names[int(s)], rels) for s, rels in zip(inst.seeds, path_relations(inst), strict=True)]
    if len(trails) == 1:
        return f"{trails[0]} whom?"
    return "Who is it that " + ", and that ".join(trails) + "?"
