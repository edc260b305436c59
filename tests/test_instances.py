"""The generator's structural invariants, for any shape and any rng."""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path
from scipy.stats import chisquare

from pathfinding.synthetic.instances import make_instance


def _distances(inst):
    return shortest_path(inst.graph, unweighted=True, indices=inst.seeds)


def _depths(inst):
    hops = inst.hops
    return np.array(hops if isinstance(hops, tuple) else [hops] * len(inst.seeds))


def _check_common(inst):
    G = inst.graph
    P = inst.mentions
    assert G.shape == (inst.n_nodes, inst.n_nodes)
    assert (G != G.T).nnz == 0, "graph must be symmetric"
    assert not G.diagonal().any(), "no self-loops"
    assert set(np.unique(G.data)) == {1.0}, "weight 1 per fact"
    # One passage per fact; each passage mentions exactly its fact's two nodes, once each.
    assert P.shape == (inst.n_nodes, len(inst.passages)) == (inst.n_nodes, inst.facts.shape[0])
    Pc = P.tocsc()
    assert np.all(np.diff(Pc.indptr) == 2)
    assert np.array_equal(np.sort(Pc.indices.reshape(-1, 2), axis=1), np.sort(inst.facts, axis=1))
    assert G.nnz == 2 * inst.n_passages, "each fact is one undirected edge, no fact repeated"
    # No passage mentions two seeds.
    assert P[inst.seeds].sum(axis=0).max() <= 1
    # Each passage is a sentence naming its two entities.
    for text, (u, v) in zip(inst.passages, inst.facts, strict=True):
        assert text.startswith(inst.node_names[u]) and text.endswith(inst.node_names[v] + ".")
    assert len(set(inst.node_names)) == inst.n_nodes
    # The answer is the only node at its hop depth from every seed.
    D = _distances(inst)
    at_depth = np.all(D == _depths(inst)[:, None], axis=0)
    assert np.flatnonzero(at_depth).tolist() == [inst.answer]
    cand = inst.candidates
    assert np.unique(cand).size == cand.size and inst.answer in cand


shapes = st.fixed_dictionaries(
    {
        "hops": st.integers(1, 4),
        "distractors": st.integers(0, 6),
        "seeds": st.integers(2, 4),
        "rng": st.integers(0, 2**32 - 1),
    }
)


@given(shapes)
def test_default_shape_invariants(kw):
    inst = make_instance(**kw)
    _check_common(inst)
    hops, d, s = kw["hops"], kw["distractors"], kw["seeds"]
    assert inst.hops == hops
    assert inst.n_passages == s * (d + 1) * hops
    assert inst.n_nodes == s + s * d * hops + s * (hops - 1) + 1
    assert len(inst.candidates) == s * d + 1
    deg = np.asarray(inst.graph.sum(axis=1)).ravel()
    dead_ends = np.setdiff1d(inst.candidates, [inst.answer])
    assert np.all(deg[dead_ends] == 1)
    assert np.all(deg[inst.seeds] == d + 1)
    assert deg[inst.answer] == s
    interior = np.setdiff1d(np.arange(inst.n_nodes), np.r_[inst.seeds, inst.candidates])
    assert np.all(deg[interior] == 2)
    # Every dead end and the answer sit at depth `hops` from their own seed.
    D = _distances(inst)
    assert np.all(D[:, inst.candidates].min(axis=0) == hops)


@given(shapes)
def test_same_rng_same_instance(kw):
    a, b = make_instance(**kw), make_instance(**kw)
    assert a.passages == b.passages and a.node_names == b.node_names
    assert (a.graph != b.graph).nnz == 0
    assert np.array_equal(a.candidates, b.candidates) and a.answer == b.answer


def test_generator_object_is_consumed():
    rng = np.random.default_rng(7)
    assert make_instance(2, rng=rng).passages != make_instance(2, rng=rng).passages


def test_node_ids_put_the_answer_at_chance():
    """Scoring candidates by node id must not find the answer: the permutation hides it."""
    ranks = []
    for seed in range(3000):
        inst = make_instance(2, rng=seed)
        ranks.append(1 + np.sum(inst.candidates > inst.answer))
    ranks = np.array(ranks)
    se = ranks.std(ddof=1) / np.sqrt(ranks.size)
    assert abs(ranks.mean() - 9.0) < 4 * se
    assert chisquare(np.bincount(ranks, minlength=18)[1:]).pvalue > 1e-4


def test_default_is_the_chapter_shape():
    inst = make_instance(1, rng=3)
    deg = np.asarray(inst.graph.sum(axis=1)).ravel()
    assert deg[inst.seeds].tolist() == [9.0, 9.0]
    assert len(inst.candidates) == 17


@given(
    hops=st.integers(2, 4),
    branching=st.integers(1, 4),
    rng=st.integers(0, 2**32 - 1),
)
def test_bridge_branching_hangs_leaves_on_bridge_interiors(hops, branching, rng):
    inst = make_instance(hops, bridge_branching=branching, rng=rng)
    _check_common(inst)
    deg = np.asarray(inst.graph.sum(axis=1)).ravel()
    assert np.sum(deg == 2 + branching) == 2 * (hops - 1)
    assert len(inst.candidates) == 17
    assert inst.n_passages == 2 * 9 * hops + 2 * (hops - 1) * branching


@given(hops=st.integers(2, 5), data=st.data(), rng=st.integers(0, 2**32 - 1))
def test_decoy_is_a_candidate_closer_than_the_answer(hops, data, rng):
    decoy_hops = data.draw(st.integers(1, hops - 1))
    inst = make_instance(hops, decoy_hops=decoy_hops, rng=rng)
    _check_common(inst)
    D = _distances(inst)
    decoys = np.flatnonzero(np.all(D == decoy_hops, axis=0))
    assert decoys.size == 1 and decoys[0] in inst.candidates
    assert len(inst.candidates) == 18


@given(hops=st.lists(st.integers(1, 4), min_size=2, max_size=3), rng=st.integers(0, 2**32 - 1))
def test_unequal_hops(hops, rng):
    inst = make_instance(hops, seeds=len(hops), rng=rng)
    _check_common(inst)
    assert inst.hops == (tuple(hops) if len(set(hops)) > 1 else hops[0])


@given(extra=st.integers(1, 30), rng=st.integers(0, 2**32 - 1))
def test_hub_passages_make_the_first_seed_a_hub(extra, rng):
    inst = make_instance(2, hub_passages=extra, rng=rng)
    _check_common(inst)
    counts = np.diff(inst.mentions.indptr)
    assert counts[inst.seeds].tolist() == [9 + extra, 9]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"hops": 0}, ValueError, r"hops must be in \[1,"),
        ({"hops": -3}, ValueError, "hops"),
        ({"hops": 2.0}, TypeError, "hops must be an integer"),
        ({"hops": True}, TypeError, "hops must be an integer"),
        ({"hops": "2"}, TypeError, "hops must be an integer"),
        ({"hops": [1, 2, 3]}, ValueError, "one depth per seed"),
        ({"hops": 2, "distractors": -1}, ValueError, "distractors"),
        ({"hops": 2, "distractors": 1.5}, TypeError, "distractors"),
        ({"hops": 2, "seeds": 1}, ValueError, r"seeds must be in \[2,"),
        ({"hops": 2, "seeds": False}, TypeError, "seeds"),
        ({"hops": 2, "decoy_hops": 2}, ValueError, "decoy_hops"),
        ({"hops": 2, "bridge_branching": -1}, ValueError, "bridge_branching"),
        ({"hops": 2, "hub_passages": -1}, ValueError, "hub_passages"),
        ({"hops": 3, "distractors": 10**9}, ValueError, "memory"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_instance(**kwargs)


@given(shapes, st.integers(0, 2), st.booleans())
def test_beyond_one_hop_no_passage_names_the_answer_and_a_seed(kw, branching, decoy):
    """The chapter's rule: for min(hops) >= 2, no passage links the answer to a seed, in P and in text."""
    kw = {**kw, "hops": max(kw["hops"], 2), "bridge_branching": branching}
    if decoy:
        kw["decoy_hops"] = 1
    inst = make_instance(**kw)
    P = inst.mentions.toarray() > 0
    assert not np.any(P[inst.answer] & P[inst.seeds].any(axis=0))
    answer_name = inst.node_names[inst.answer]
    seed_names = [inst.node_names[s] for s in inst.seeds]
    for text in inst.passages:
        # names are "First Last"; below 1,600 nodes none is a prefix of another
        assert not (answer_name in text and any(name in text for name in seed_names)), text


def test_one_hop_passages_do_name_the_answer_and_a_seed():
    inst = make_instance(1, rng=0)  # the rule's boundary: at one hop every bridge passage does
    P = inst.mentions.toarray() > 0
    assert np.count_nonzero(P[inst.answer] & P[inst.seeds].any(axis=0)) == len(inst.seeds)


def test_no_sysconf_means_no_memory_check(monkeypatch):
    """Windows has no os.sysconf: the generator must still work there."""
    import os

    monkeypatch.delattr(os, "sysconf")
    inst = make_instance(2, rng=0)
    assert inst.n_nodes == 37


def test_importing_the_generator_does_not_load_the_solver():
    code = (
        "import sys, pathfinding, pathfinding.synthetic.instances, pathfinding.synthetic.toy; "
        "print(sorted(m for m in ('numba', 'pathfinding.core.ppr', 'pathfinding.core._kernels')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
