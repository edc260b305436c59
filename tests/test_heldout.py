"""The held-out HotpotQA question set loads as a test set (its bytes are checked by the data registry)."""

from pathfinding.experiments.heldout import load_heldout


def test_heldout_loads_with_two_supporting_passages_each():
    data = load_heldout()
    assert (len(data["questions"]), len(data["corpus"])) == (100, 994)
    assert all(len(q.supporting) == 2 for q in data["questions"])
    assert all(r.n_issues == 0 for r in data["reports"])
