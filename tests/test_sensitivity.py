"""How much the default retriever's weights matter (pathfinding.experiments.sensitivity): the rules
that chose the fusion and the linking floor, applied to grids written by hand, and the grids'
text; the full grids on MuSiQue are slow."""

import pytest

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.experiments.sensitivity import (
    chosen_fusion,
    chosen_link_floor,
    format_grid,
    format_link_floor_grid,
    weight_grid,
)
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever


def test_chosen_fusion_is_the_closest_to_bm25_that_keeps_the_target():
    def row(lam, c, r5, others=0.0):
        return {"guess_weight": lam, "fusion_c": c, "gain": [others, others, r5, others]}

    grid = {
        "ks": [1, 2, 5, 10],
        "grid": [
            row(0.6, 10, 0.04),
            row(0.7, 10, 0.06, 0.01),
            row(0.8, 10, 0.09, 0.02),
            row(0.7, 60, 0.05, 0.03),
        ],
    }
    # c=10 -> 0.7 (mean 0.0225); c=60 -> 0.7 (mean 0.035): the larger mean gain wins
    assert chosen_fusion(grid) == (0.7, 60)
    with pytest.raises(ValueError, match="no fusion on the grid"):
        chosen_fusion(grid, target=0.5)


@pytest.mark.slow  # 2,700 retrievals on the MuSiQue index (about half a minute)
def test_defaults_are_what_the_stated_rule_chooses_on_musique():
    import inspect

    from pathfinding.experiments.sensitivity import chosen_fusion, fusion_grid

    params = inspect.signature(HippoRetriever).parameters
    assert chosen_fusion(fusion_grid()) == (params["guess_weight"].default, params["fusion_c"].default)


def test_chosen_link_floor_is_the_highest_that_loses_nothing_on_musique():
    def row(floor, cased, lower):
        return {"floor": floor, "cased": cased, "lower": lower, "weak": {}}

    free = [0.3, 0.5, 0.7, 0.8]
    grid = {"ks": [1, 2, 5, 10], "sets": {"musique": {"grid": [
        row(0.0, free, free),
        row(0.4, [0.3, 0.5, 0.71, 0.8], free),  # a gain is no loss
        row(0.5, free, [0.3, 0.5, 0.7, 0.79]),  # a loss at R@10, lower-cased
        row(0.6, free, free),  # above a losing floor, and losing nothing: still the highest
    ]}}}  # fmt: skip
    assert chosen_link_floor(grid) == 0.6
    grid["sets"]["musique"]["grid"][3]["cased"] = [0.29, 0.5, 0.7, 0.8]
    assert chosen_link_floor(grid) == 0.4
    grid["sets"]["musique"]["grid"] = grid["sets"]["musique"]["grid"][1:]
    with pytest.raises(ValueError, match="needs floor 0"):
        chosen_link_floor(grid)


@pytest.mark.slow  # the default retriever at ten floors on both question sets (about half a minute)
def test_min_link_cosine_is_what_the_stated_rule_chooses_on_musique():
    from pathfinding.experiments.sensitivity import chosen_link_floor, link_floor_grid
    from pathfinding.hipporag.retrieval.linking import MIN_LINK_COSINE

    assert chosen_link_floor(link_floor_grid()) == MIN_LINK_COSINE


def test_the_fusion_rule_reads_r5_and_takes_the_smallest_weight_per_offset():
    def row(lam, c, gain):
        return {"guess_weight": lam, "fusion_c": c, "gain": gain}

    grid = {"ks": [1, 2, 5, 10], "grid": [
        row(0.9, 30, [0.0, 0.0, 0.2, 0.0]),  # larger gain, but a larger weight than needed
        row(0.6, 30, [0.0, 0.0, 0.05, 0.0]),  # exactly at the target: kept
        row(0.5, 30, [0.9, 0.9, 0.049, 0.9]),  # below the target at R@5: the other ks do not count
    ]}  # fmt: skip
    assert chosen_fusion(grid) == (0.6, 30)
    assert chosen_fusion(grid, target=0.1) == (0.9, 30)


def test_the_weight_grid_as_text():
    res = {"k": 5, "bm25": 0.5, "n_questions": 3, "grid": [
        {"fact_weight": 0.1, "passage_weight": 0.2, "cased": 0.6, "lower": 0.55},
        {"fact_weight": 1.0, "passage_weight": 0.0, "cased": 0.45, "lower": 0.52},
    ]}  # fmt: skip
    lines = format_grid(res).splitlines()
    assert lines[0].startswith("R@5 minus BM25 (50.0), points, cased / lower-cased; 3 MuSiQue")
    assert lines[2].split() == ["0.1", "0.2", "+10.0", "+5.0"]
    assert lines[3].split() == ["1", "0", "-5.0", "+2.0"]
    assert lines[-1] == "smallest over the grid: -5.0 cased, +2.0 lower-cased"


def test_the_floor_grid_as_text_lists_the_links_each_floor_removed():
    weak = [("ed", "ed wood", 0.41), ("zed", "red", 0.2)]
    res = {"ks": [1, 2, 5, 10], "sets": {"musique": {"bm25": [0.1, 0.2, 0.3, 0.4], "grid": [
        {"floor": 0.5, "cased": [0, 0.25, 0.5, 0], "lower": [0, 0.2, 0.4, 0],
         "weak": {"cased": weak, "lower": weak[:1]}},
    ]}}}  # fmt: skip
    lines = format_link_floor_grid(res).splitlines()
    assert lines[0] == "musique: R@2 / R@5 in %, BM25 20.0 / 30.0"
    assert lines[2].startswith("  0.50    25.0/50.0      20.0/40.0  ")
    assert lines[2].endswith("2: 'zed'->'red' 0.20, 'ed'->'ed wood' 0.41")  # the weakest first, each once


def test_the_weight_grid_checks_k_and_the_question_count():
    with pytest.raises(InvalidValueError, match=r"k must be one of \(1, 2, 5, 10\), got 3"):
        weight_grid(k=3)
    with pytest.raises(InvalidTypeError, match="k must be an integer"):
        weight_grid(k=5.0)
    with pytest.raises(InvalidValueError, match="n_questions"):
        weight_grid(n_questions=0)
