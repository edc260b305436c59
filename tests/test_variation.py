"""Structural variation: its invariants, for any knobs and any rng."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

from pathfinding.experiments.contrast import VARIATION
from pathfinding.synthetic.following import (
    passage_relations,
)
from pathfinding.synthetic.instances import PathFindingInstance, make_instance
from pathfinding.synthetic.variation import make_varied_instance

knobs = st.fixed_dictionaries(
    {
        "length_jitter": st.integers(0, 2),
        "noise_facts": st.integers(0, 5),
        "shared_nodes": st.integers(0, 3),
        "extra_passages": st.integers(0, 10),
    }
)


def _as_plain(inst) -> PathFindingInstance:
    """The same instance without its recorded relations and paths."""
    fields = PathFindingInstance.__dataclass_fields__
    return PathFindingInstance(**{name: getattr(inst, name) for name in fields})


def _check_question_instance(inst, depths):
    G = inst.graph
    assert (G != G.T).nnz == 0 and not G.diagonal().any()
    # every passage states its own fact with its own relation
    for text, rel, (u, v) in zip(inst.passages, inst.relations, inst.facts, strict=True):
        assert text == f"{inst.node_names[u]} {rel} {inst.node_names[v]}."
    assert passage_relations(_as_plain(inst)) == inst.relations
    # no passage names two seeds
    assert inst.mentions[inst.seeds].sum(axis=0).max() <= 1
    # each seed reaches the answer in exactly its stated depth, along its recorded path
    D = shortest_path(G, unweighted=True, indices=inst.seeds)
    assert D[:, inst.answer].tolist() == list(depths)
    adjacent = set(map(tuple, inst.facts.tolist())) | set(map(tuple, inst.facts[:, ::-1].tolist()))
    for seed, path, h in zip(inst.seeds, inst.paths, depths, strict=True):
        assert path[0] == seed and path[-1] == inst.answer and len(path) == h + 1
        assert all((a, b) in adjacent for a, b in zip(path[:-1], path[1:], strict=True))
    cand = inst.candidates
    assert np.unique(cand).size == cand.size and inst.answer in cand
    assert not np.isin(inst.seeds, cand).any()


@given(
    hops=st.one_of(st.integers(1, 4), st.lists(st.integers(1, 4), min_size=2, max_size=2)),
    distractors=st.integers(0, 6),
    rng=st.integers(0, 2**32 - 1),
)
def test_zero_variation_is_make_instance_byte_for_byte(hops, distractors, rng):
    """With every knob at its default the chapter's shape is unchanged: same rng, same instance."""
    seeds = len(hops) if isinstance(hops, list) else 2
    a = make_varied_instance(hops, distractors=distractors, seeds=seeds, rng=rng)
    b = make_instance(hops, distractors=distractors, seeds=seeds, rng=rng)
    assert a.passages == b.passages and a.node_names == b.node_names
    assert np.array_equal(a.facts, b.facts) and np.array_equal(a.seeds, b.seeds)
    assert a.answer == b.answer and np.array_equal(a.candidates, b.candidates) and a.hops == b.hops
    assert (a.graph != b.graph).nnz == 0 and (a.mentions != b.mentions).nnz == 0


@given(
    hops=st.one_of(st.integers(1, 4), st.lists(st.integers(1, 4), min_size=2, max_size=3)),
    kw=knobs,
    rng=st.integers(0, 2**32 - 1),
)
def test_varied_finding_invariants(hops, kw, rng):
    depths = hops if isinstance(hops, list) else [hops, hops]
    inst = make_varied_instance(hops, seeds=len(depths), rng=rng, **kw)
    assert inst.kind == "finding"
    _check_question_instance(inst, depths)
    # merges keep every fact; jitter shortens a chain by at most length_jitter facts
    floor = sum(9 * h - 8 * min(kw["length_jitter"], h - 1) for h in depths)
    assert inst.n_passages >= floor + kw["noise_facts"] + kw["extra_passages"]
    again = make_varied_instance(hops, seeds=len(depths), rng=rng, **kw)
    assert again.passages == inst.passages and np.array_equal(again.facts, inst.facts)
    assert np.array_equal(again.candidates, inst.candidates)


@pytest.mark.parametrize("knob", sorted(VARIATION))
def test_trials_sample_graphs_not_relabellings(knob):
    """The point of variation: across trials the graphs differ in shape, not only in names."""

    def shapes(make):
        return {tuple(np.sort(np.diff(make(rng).graph.indptr))) for rng in range(15)}

    assert len(shapes(lambda rng: make_instance(2, rng=rng))) == 1
    assert len(shapes(lambda rng: make_varied_instance(2, rng=rng, **{knob: VARIATION[knob]}))) > 1


@pytest.mark.parametrize(
    ("make", "kwargs", "error", "match"),
    [
        (make_varied_instance, {"length_jitter": -1}, ValueError, "length_jitter"),
        (make_varied_instance, {"noise_facts": 1.5}, TypeError, "noise_facts"),
        (make_varied_instance, {"shared_nodes": True}, TypeError, "shared_nodes"),
        (make_varied_instance, {"extra_passages": -2}, ValueError, "extra_passages"),
        (make_varied_instance, {"distractors": 0, "noise_facts": 1}, ValueError, "noise_facts=1"),
        (
            make_varied_instance,
            {"distractors": 1, "seeds": 2, "shared_nodes": 5},
            ValueError,
            "shared_nodes=5",
        ),
        (make_varied_instance, {"hops": 0}, ValueError, "hops"),
    ],
)
def test_bad_input_is_named(make, kwargs, error, match):
    with pytest.raises(error, match=match):
        make(**kwargs)


def test_no_shortcut_through_a_seed_with_a_shorter_bridge():
    """Found by Hypothesis: depths (1, 4) with merged nodes once let seed B reach the answer in 3."""
    for rng in range(30):
        inst = make_varied_instance([1, 4], seeds=2, rng=rng, shared_nodes=3, noise_facts=3)
        D = shortest_path(inst.graph, unweighted=True, indices=inst.seeds)
        assert D[:, inst.answer].tolist() == [1, 4]
