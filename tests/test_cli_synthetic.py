"""``pathfinding instance`` and ``rank``: the instance a student reads, the ranks a ranker gives."""


import pytest

from pathfinding.cli import main


def test_instance_prints_passages(capsys):
    assert main(["instance", "--hops", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "Query entities (seeds):" in out and "Answer:" in out
    assert out.count("\n  [") == 36


@pytest.mark.parametrize(("method", "rank"), [("ppr", "1"), ("mention_count", "9")])
def test_rank_marks_the_answer(capsys, method, rank):
    assert main(["rank", "--hops", "2", "--method", method]) == 0
    out = capsys.readouterr().out
    assert f"answer at rank {rank} of 17" in out
    assert out.count("<- answer") == 1


def test_rank_method_choices_are_the_rankers():
    from pathfinding.cli.synthetic import RANKER_NAMES
    from pathfinding.synthetic.rankers import RANKERS

    assert sorted(RANKER_NAMES) == sorted(RANKERS)
