"""Label-free monitors of index recall behave as facts are deleted."""

import numpy as np
import pytest

from pathfinding.course.monitoring import drop_facts, index_health, recall_sweep
from pathfinding.synthetic.instances import make_instance
from pathfinding.synthetic.toy import meet_node_toy, star_pair


def test_drop_facts_keeps_ids_and_removes_share():
    inst = make_instance(2, rng=1)
    damaged = drop_facts(inst, 0.25, rng=0)
    assert damaged.n_nodes == inst.n_nodes
    assert damaged.n_passages == inst.n_passages - round(0.25 * inst.n_passages)
    assert damaged.answer == inst.answer
    np.testing.assert_array_equal(damaged.seeds, inst.seeds)
    kept = {tuple(f) for f in damaged.facts}
    assert kept <= {tuple(f) for f in inst.facts}
    assert drop_facts(inst, 0.0, rng=0).n_passages == inst.n_passages
    with pytest.raises(ValueError, match="fraction"):
        drop_facts(inst, 1.5)


def test_index_health_on_toys():
    toy = meet_node_toy()
    h = index_health(toy.graph, toy.mentions, toy.seeds)
    assert h.seeds_connected and h.unlinked_seeds == 0
    # cut w's link to a: the seeds fall into two components
    cut = drop_facts(star_pair(2), 0.0)
    from pathfinding.synthetic.instances import instance_from_facts

    broken = instance_from_facts(
        cut.facts[[0, 2, 3]],
        cut.node_names,
        [cut.passages[k] for k in (0, 2, 3)],
        seeds=cut.seeds,
        answer=cut.answer,
        candidates=cut.candidates,
        hops=1,
    )
    h = index_health(broken.graph, broken.mentions, broken.seeds)
    assert not h.seeds_connected and h.unlinked_seeds == 0
    with pytest.raises(ValueError, match="rows"):
        index_health(toy.graph, toy.mentions[:3], toy.seeds)


def test_recall_sweep_degrades_monotonically():
    rows = recall_sweep([0.0, 0.2, 0.5], trials=30, seed=3)
    assert rows[0].hit_at_1 == 1.0 and rows[0].connected_rate == 1.0
    # common random numbers: facts deleted at 0.2 are also deleted at 0.5
    assert rows[0].connected_rate >= rows[1].connected_rate >= rows[2].connected_rate
    assert rows[0].mean_seed_degree > rows[1].mean_seed_degree > rows[2].mean_seed_degree
    assert rows[2].hit_at_1 < rows[0].hit_at_1


def test_label_free_query_hides_the_labels():
    from pathfinding.course.monitoring import label_free

    inst = make_instance(2, rng=0)
    view = label_free(inst)
    assert view.n_nodes == inst.n_nodes and view.seeds.tolist() == inst.seeds.tolist()
    for label in ("answer", "candidates", "hops"):
        assert not hasattr(view, label)


def test_alarm_rates_fix_the_false_alarms_and_reject_bad_input():
    from pathfinding.course.monitoring import alarm_rates

    def seed_mass(query, pi):
        return float(pi[query.seeds].sum())

    rates = alarm_rates(seed_mass, queries=60, resamples=500)
    assert rates.false_alarm <= 0.05 + 1e-9 and rates.low < rates.high
    # without damage the damaged index is the intact one: the monitor alarms no more than by chance
    same = alarm_rates(seed_mass, fraction=0.0, queries=60, resamples=500)
    assert same.detection == pytest.approx(same.false_alarm)
    with pytest.raises(TypeError, match="monitor"):
        alarm_rates("not a function")
    with pytest.raises(TypeError, match="number"):
        alarm_rates(lambda query, pi: "high", queries=2)
    with pytest.raises(ValueError, match="fraction"):
        alarm_rates(seed_mass, fraction=1.5)
    with pytest.raises(ValueError, match="damage must be one of"):
        alarm_rates(seed_mass, damage="shuffle")


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_replace_facts_keeps_every_count_of_the_index_and_its_components(hops):
    from scipy.sparse.csgraph import connected_components

    from pathfinding.course.monitoring import replace_facts

    inst = make_instance(hops, distractors=6, rng=hops)
    wrong = replace_facts(inst, 0.3, rng=1)
    assert (wrong.n_nodes, wrong.n_passages, wrong.graph.nnz, wrong.mentions.nnz) == (
        inst.n_nodes,
        inst.n_passages,
        inst.graph.nnz,
        inst.mentions.nnz,
    )
    assert connected_components(wrong.graph)[0] == connected_components(inst.graph)[0] == 1
    assert wrong.passages == inst.passages  # the text stays; the extracted fact is wrong
    changed = (np.sort(wrong.facts, axis=1) != np.sort(inst.facts, axis=1)).any(axis=1)
    assert changed.sum() == round(0.3 * inst.facts.shape[0])
    # each wrong fact keeps one entity of the fact it replaces
    kept = [
        set(a) & set(b)
        for a, b in zip(wrong.facts[changed].tolist(), inst.facts[changed].tolist(), strict=True)
    ]
    assert all(len(k) == 1 for k in kept)
    assert (replace_facts(inst, 0.0, rng=1).facts == inst.facts).all()
    with pytest.raises(ValueError, match="fraction"):
        replace_facts(inst, -0.1)
