"""Supporting passages matched to an index and retrievers scored on them (``evaluation.compare``)."""

import unicodedata

import numpy as np
import pytest

from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.evaluation.compare import evaluate_retrievers, match_supporting
from pathfinding.hipporag.io.questions import EvalQuestion


def test_matching_uses_the_whole_passage_first_then_every_passage_with_the_title():
    """Passages 0 and 2 share the title "A"; a question giving A's full text matches 0 only, one
    giving the title matches both; "Z" matches nothing and is counted once per question naming it."""
    passages = ["A\nfirst", "B\nb", "A\nsecond", "A\nfirst"]
    qs = [
        EvalQuestion("0", "Q?", ("A", "Z"), ("A\nfirst",)),
        EvalQuestion("1", "Q?", ("A", "B")),
        EvalQuestion("2", "Q?", ("Z",)),
        EvalQuestion("3", "Q?", ("B",), ("B\nnot there",)),
    ]
    gold, unmatched = match_supporting(qs, passages)
    assert [g.tolist() for g in gold] == [[0], [0, 1, 2, 3], [], [1]]
    assert all(g.dtype == np.int64 for g in gold)
    assert unmatched == {"Z": 2}


def test_evaluation_numbers_by_hand():
    """Gold {0} and {1, 2}. Ranker "a" returns [0, 5] and [1, 2]: R@1 = (1 + 1/2)/2 = 0.75, R@2 = 1,
    AR@1 = (1 + 0)/2 = 0.5, AR@2 = 1. Ranker "b" returns [5, 0] and [3, 4]: R@1 = 0, R@2 = 0.5,
    AR@1 = 0, AR@2 = 0.5. The differences a - b are 0.75, 0.5 (R) and 0.5, 0.5 (AR); every
    interval holds its mean, and the same seed gives the same intervals."""
    runs = {"a": {"q1": [0, 5], "q2": [1, 2]}, "b": {"q1": [5, 0], "q2": [3, 4]}}
    asked = []

    def ranker(name):
        def rank(q, k):
            asked.append(k)
            return np.array(runs[name][q])

        return rank

    gold = [np.array([0]), np.array([1, 2])]
    out = evaluate_retrievers(
        ["q1", "q2"], gold, {"a": ranker("a"), "b": ranker("b")}, ks=(1, 2), n_boot=50, seed=3
    )
    assert asked == [2, 2, 2, 2]
    assert (out["ks"], out["n_questions"], out["n_boot"], out["seed"]) == ([1, 2], 2, 50, 3)
    means = {n: {m: [row[0] for row in v] for m, v in out["methods"][n].items()} for n in ("a", "b")}
    assert means == {"a": {"R": [0.75, 1.0], "AR": [0.5, 1.0]}, "b": {"R": [0.0, 0.5], "AR": [0.0, 0.5]}}
    assert list(out["differences"]) == ["b"]
    diff = out["differences"]["b"]
    assert [row[0] for row in diff["R"]] == [0.75, 0.5] and [row[0] for row in diff["AR"]] == [0.5, 0.5]
    for rows in [*out["methods"]["a"].values(), *out["methods"]["b"].values(), diff["R"], diff["AR"]]:
        assert all(lo <= mean <= hi for mean, lo, hi in rows)
    again = evaluate_retrievers(
        ["q1", "q2"], gold, {"a": ranker("a"), "b": ranker("b")}, ks=(1, 2), n_boot=50, seed=3
    )
    assert again == out
    assert evaluate_retrievers(["q1", "q2"], gold, {"a": ranker("a")}, ks=(2,), n_boot=50)["seed"] == 0


def test_a_ranker_compared_with_itself_differs_by_exactly_zero():
    rank = {"q1": [0], "q2": [2], "q3": [9]}
    gold = [np.array([0]), np.array([1, 2]), np.array([3])]
    out = evaluate_retrievers(
        list(rank), gold, {"x": lambda q, k: rank[q], "y": lambda q, k: rank[q]}, ks=(1,), n_boot=40
    )
    assert out["differences"]["y"] == {"R": [[0.0, 0.0, 0.0]], "AR": [[0.0, 0.0, 0.0]]}
    assert out["methods"]["x"]["R"][0][0] == pytest.approx(0.5) and out["methods"]["x"]["AR"][0][
        0
    ] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"ks": (1, 0)}, r"^k must be in \[1, inf\], got 0"),
        ({"rankers": {}}, r"^rankers must name at least one ranker"),
        ({"questions": []}, r"^no question with a matched supporting passage to evaluate"),
        ({"n_boot": 0}, r"^n_boot must be in \[1, inf\], got 0"),
    ],
)
def test_evaluation_arguments_are_checked(kw, message):
    args = {"questions": ["q"], "gold": [np.array([0])], "rankers": {"a": lambda q, k: [0]}, **kw}
    with pytest.raises(InvalidValueError, match=message):
        evaluate_retrievers(args.pop("questions"), args.pop("gold"), args.pop("rankers"), **args)


def test_a_title_is_the_first_line_of_a_passage_of_several_lines():
    """A passage key is its title, a newline and its text; a text of several lines keeps its title."""
    gold, unmatched = match_supporting([EvalQuestion("0", "Q?", ("A",))], ["A\nline one\nline two", "B\nb"])
    assert [g.tolist() for g in gold] == [[0]] and unmatched == {}
    gold, _ = match_supporting(
        [EvalQuestion("0", "Q?", ("A",), ("A\nline one\nline two",))], ["A\nline one\nline two", "A\nx"]
    )
    assert [g.tolist() for g in gold] == [[0]]


def test_evaluation_resamples_as_asked():
    """1000 resamples by default; one resample gives intervals of zero width (its own mean); the seed
    decides the draw (the same seed, the same intervals; another seed, other intervals); k and n_boot
    must be at least 1."""
    hits = {f"q{i}": [i % 3] for i in range(30)}  # right for every third question
    gold = [np.array([0])] * 30
    rankers = {"a": lambda q, k: np.array(hits[q])}
    qs = list(hits)
    assert evaluate_retrievers(qs, gold, rankers, ks=(1,))["n_boot"] == 1000
    one = evaluate_retrievers(qs, gold, rankers, ks=(1,), n_boot=1)["methods"]["a"]["R"][0]
    assert one[1] == one[2]
    runs = [
        evaluate_retrievers(qs, gold, rankers, ks=(1,), n_boot=20, seed=s)["methods"]["a"]["R"]
        for s in (5, 5, 6)
    ]
    assert runs[0] == runs[1] != runs[2]
    with pytest.raises(InvalidValueError, match=r"^k must be in \[1, inf\], got 0$"):
        evaluate_retrievers(qs, gold, rankers, ks=(0,))
    with pytest.raises(InvalidValueError, match=r"^n_boot must be in \[1, inf\], got 0$"):
        evaluate_retrievers(qs, gold, rankers, n_boot=0)


def test_evaluation_cut_offs_default_to_1_2_5_and_10():
    """Without ``ks`` the columns are R@1, R@2, R@5 and R@10 and each ranker is asked for 10 ids."""
    asked = []

    def rank(q, k):
        asked.append(k)
        return np.array([3, 1, 2, 4, 0])  # the gold passage at rank 5

    out = evaluate_retrievers(["q"], [np.array([0])], {"a": rank}, n_boot=1)
    assert out["ks"] == [1, 2, 5, 10] and asked == [10]
    assert [r[0] for r in out["methods"]["a"]["R"]] == [0.0, 0.0, 1.0, 1.0]


def test_eval_matches_a_repeated_title_by_its_text():
    """Three passages titled "A": a question that gives the text (HotpotQA's context, MuSiQue's
    paragraph, or {"title", "text"}) gets the one passage it means, and AR@1 can be 1 again; a
    question that gives only the title gets every "A", and the title is named as shared."""
    from pathfinding.hipporag.evaluation.compare import shared_titles

    passages = ["A\nthe letter.", "A\nthe river.", "B\nb.", "A\nthe film."]
    by_text = EvalQuestion("0", "Q?", ("A",), ("A\nthe river.",))
    by_title = EvalQuestion("1", "Q?", ("A", "B"))
    gold, unmatched = match_supporting([by_text, by_title], passages)
    assert [g.tolist() for g in gold] == [[1], [0, 1, 2, 3]] and unmatched == {}
    assert shared_titles([by_text, by_title], passages) == {"A": 3}
    assert shared_titles([by_text], passages) == {}
    # decomposed on one side only: still the same passage
    nfd = [unicodedata.normalize("NFD", p) for p in ["Zoë\nx.", "Zoë\ny."]]
    gold, _ = match_supporting([EvalQuestion("2", "Q?", ("Zoë",), ("Zoë\ny.",))], nfd)
    assert [g.tolist() for g in gold] == [[1]]


def test_a_supporting_passage_named_by_id_is_found_by_its_id():
    from pathfinding.hipporag.io.questions import EvalQuestion

    passages = ["Manual > Install\nRun it.", "Manual > Install\nReboot.", "Other\nx"]
    ids = ["manual.md#install", "manual.md#install:2", "other.md"]
    q = [EvalQuestion("0", "How?", (), (), ("manual.md#install:2", "gone.md"))]
    gold, unmatched = match_supporting(q, passages, passage_ids=ids)
    assert gold[0].tolist() == [1] and unmatched == {"gone.md": 1}
    assert match_supporting(q, passages)[0][0].tolist() == []  # no ids given: nothing to find them by
