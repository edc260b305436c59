"""Path-following instances and the question text of any instance (pathfinding.synthetic.following):
the relations single out one chain, the paths and their passages, how a relation reads backwards,
and the question written from the relations actually on each path."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

from pathfinding.core.reference import ppr_linear_solve
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.synthetic.following import (
    answer_paths,
    make_following_instance,
    passage_relations,
    path_passages,
    path_relations,
    question_text,
    relation_phrase,
)
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.rankers import RANKERS
from pathfinding.synthetic.variation import QuestionInstance
from tests.test_variation import _as_plain, _check_question_instance, knobs


@given(hops=st.integers(1, 4), kw=knobs, rng=st.integers(0, 2**32 - 1))
def test_each_hop_passage_names_the_next_clue(hops, kw, rng):
    """On a path-following instance the fact leaving path[k-1] with the question's k-th relation is
    unique and names path[k]: following the relations reaches the answer."""
    inst = make_following_instance(hops, rng=rng, **kw)
    assert inst.kind == "following" and len(inst.seeds) == 1
    _check_question_instance(inst, [hops])
    (path,), (rels,) = inst.paths, path_relations(inst)
    assert len(rels) == hops
    for k in range(1, hops + 1):
        leaving = [
            int(v)
            for (u, v), rel in zip(inst.facts, inst.relations, strict=True)
            if u == path[k - 1] and rel == rels[k - 1]
        ]
        assert leaving == [path[k]]
    assert question_text(inst) == inst.node_names[path[0]] + " " + " someone who ".join(rels) + " whom?"


@given(hops=st.integers(1, 4), rng=st.integers(0, 2**32 - 1))
def test_path_finding_question_names_the_bridge_relations(hops, rng):
    """The relations in the question are the ones on each seed's path, in order (the old notebook text
    named relations the generator never used)."""
    inst = make_instance(hops, rng=rng)
    names = inst.node_names
    clauses = []
    D = shortest_path(inst.graph, unweighted=True, indices=inst.seeds)
    for i, (seed, rels) in enumerate(zip(inst.seeds, path_relations(inst), strict=True)):
        assert len(rels) == hops
        # walk back from the answer along the seed's shortest path, reading each passage's relation
        node, read = inst.answer, []
        while node != seed:
            (j,) = [j for j, (u, v) in enumerate(inst.facts) if v == node and D[i, u] == D[i, v] - 1]
            u = inst.facts[j, 0]
            read.append(inst.passages[j][len(names[u]) + 1 : -len(names[node]) - 2])
            node = u
        assert tuple(reversed(read)) == rels
        clauses.append(names[seed] + " " + " someone who ".join(rels))
    assert question_text(inst) == "Who is it that " + ", and that ".join(clauses) + "?"


def test_ppr_cannot_tell_the_following_answer_from_a_dead_end():
    """The FINDINGS prose says PPR's masses on path-following candidates are equal up to the solver's
    tolerance (1e-10): the exact solution ties them all."""
    for rng in range(10):
        inst = make_following_instance(3, rng=rng)
        pi = RANKERS["ppr"](inst)[inst.candidates]
        assert np.ptp(pi) <= 1e-10
        restart = np.zeros(inst.n_nodes)
        restart[inst.seeds] = 1.0
        exact = ppr_linear_solve(inst.graph, restart)[inst.candidates]
        assert np.ptp(exact) <= 1e-14 * exact.max()


def test_following_default_shape():
    inst = make_following_instance(2, rng=5)
    assert isinstance(inst, QuestionInstance)
    assert (inst.n_nodes, inst.n_passages, len(inst.candidates)) == (1 + 8 * 2 + 2, 18, 9)
    deg = np.diff(inst.graph.indptr)
    assert deg[inst.seeds[0]] == 9


def test_relations_are_read_from_the_passage_text_of_an_instance_that_does_not_record_them():
    from pathfinding.synthetic.toy import meet_node_toy

    toy = meet_node_toy()
    assert passage_relations(toy) == ("is linked to",) * 4
    inst = make_following_instance(2, rng=3)
    assert passage_relations(_as_plain(inst)) == passage_relations(inst) == inst.relations


def test_a_passage_that_is_not_subject_relation_object_is_named():
    from dataclasses import replace

    from pathfinding.synthetic.toy import meet_node_toy

    toy = meet_node_toy()
    for bad in ("w is linked to a.", "u a.", "u is linked to a"):
        broken = replace(toy, passages=[bad, *toy.passages[1:]])
        with pytest.raises(
            InvalidValueError, match=f"^passage 0 {bad!r} does not read '<subject> <relation>"
        ):
            passage_relations(broken)


def test_paths_and_their_passages_on_the_chapters_shape():
    """make_instance records no paths: a shortest path from each seed is found, and its passages are
    the facts along it, in order, whichever way each fact is stated."""
    inst = make_instance(3, rng=2)
    paths = answer_paths(inst)
    assert len(paths) == 2
    for seed, path, passages in zip(inst.seeds, paths, path_passages(inst), strict=True):
        assert path[0] == seed and path[-1] == inst.answer and len(path) == 4
        assert len(passages) == 3
        for (a, b), j in zip(zip(path[:-1], path[1:], strict=True), passages, strict=True):
            assert {int(x) for x in inst.facts[j]} == {a, b}


def test_an_answer_no_seed_reaches_is_named():
    from dataclasses import replace

    inst = make_instance(1, rng=0)
    cut = replace(inst, graph=sp.csr_array(inst.graph.shape))  # no edges at all
    with pytest.raises(InvalidValueError, match=rf"^the answer {inst.answer} is not reachable from seed "):
        answer_paths(cut)


def test_a_relation_read_against_its_direction():
    assert relation_phrase("mentored", forward=True) == "mentored"
    assert relation_phrase("mentored", forward=False) == "was mentored by"
    assert relation_phrase("wrote to", forward=False) == "was written to by"  # the participle differs


def test_the_question_of_a_path_followed_against_the_facts_direction():
    """One seed whose path reads a fact backwards: the question says "was ... by"."""
    from pathfinding.synthetic.instances import instance_from_facts

    names = ["Ana", "Bo", "Cy"]
    facts = [(0, 1), (2, 1)]  # Ana mentored Bo; Cy sued Bo
    passages = ["Ana mentored Bo.", "Cy sued Bo."]
    inst = instance_from_facts(facts, names, passages, seeds=[0], answer=2, candidates=[2], hops=2)
    assert path_relations(inst) == (("mentored", "was sued by"),)
    assert question_text(inst) == "Ana mentored someone who was sued by whom?"
    assert path_passages(inst) == ((0, 1),)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"hops": 0}, InvalidValueError, "hops"),
        ({"hops": 65}, InvalidValueError, "hops"),
        ({"distractors": -1}, InvalidValueError, "distractors"),
        ({"hops": [1, 2]}, InvalidTypeError, "hops"),
        ({"noise_facts": -1}, InvalidValueError, "noise_facts"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_following_instance(**kwargs)


def test_the_same_rng_gives_the_same_instance():
    a, b = (
        make_following_instance(3, rng=11, noise_facts=2),
        make_following_instance(3, rng=11, noise_facts=2),
    )
    assert a.passages == b.passages and a.relations == b.relations and a.paths == b.paths
    assert make_following_instance(3, rng=12).passages != a.passages
