"""FINDINGS' P, B, V and VK rows (pathfinding.experiments.contrast_findings): every number written is
one the sweeps measured, each row's command, seed and trials are the run's, and percentages never
claim an exact 0% or 100% that was not measured."""

import re

import pytest

from pathfinding.experiments import contrast_findings as cf
from pathfinding.experiments.contrast import RETRIEVERS, VARIATION
from pathfinding.experiments.stats import format_ci


@pytest.fixture(scope="module")
def section():
    lines, data = cf.findings_section(0, "python -m pathfinding findings --quick", quick=True)
    return lines, data, cf.run_all(0, True)


def _rows(lines, prefix):
    return [line for line in lines if re.match(rf"\| {prefix}\d+ \|", line)]


def test_percentages_round_to_whole_numbers_except_near_0_and_100():
    assert cf._pct(0.5) == "50%" and cf._pct(0.0) == "0%" and cf._pct(1.0) == "100%"
    assert cf._pct(0.004) == "0.4%" and cf._pct(0.999) == "99.9%"  # not a 0% or 100% never measured
    assert cf._pct(0.25, 0.1, 0.4) == "25% [10, 40]"
    assert cf._pct(0.0, 0.0, 0.161) == "0% [0, 16]"


def test_spans_collapse_when_the_ends_print_alike():
    assert cf._span([1.0, 1.001]) == "1.00" and cf._span([1.0, 2.5]) == "1.00–2.50"
    assert cf._pspan([0.5, 0.501]) == "50%" and cf._pspan([0.25, 0.5]) == "25–50%"


def test_one_row_per_cell_numbered_with_its_prefix(section):
    lines, _, (contrast, varied, knobs, budget) = section
    n_retrievers = len(RETRIEVERS)
    assert len(_rows(lines, "P")) == 2 * 4 * n_retrievers == len(contrast.summary())
    assert len(_rows(lines, "V")) == len(varied.summary())
    assert len(_rows(lines, "VK")) == len(VARIATION) * len(cf.KNOB_RETRIEVERS)
    assert len(_rows(lines, "B")) == 2 * 8
    numbers = [int(re.match(r"\| VK(\d+) ", line).group(1)) for line in _rows(lines, "VK")]
    assert numbers == list(range(1, len(numbers) + 1))  # one numbering across the knobs' tables


def test_each_row_writes_its_cells_measured_numbers(section):
    lines, _, (contrast, _, knobs, budget) = section
    first = contrast.summary()[0]
    assert _rows(lines, "P")[0] == (
        f"| P1 | path-{first.shape} | {first.hops} | `{first.retriever}` | "
        f"{format_ci(first.mean, first.ci_low, first.ci_high)} | "
        f"{cf._pct(first.hit_at_1, first.hit_low, first.hit_high)} | {cf._pct(first.reached)} | "
        f"{first.chance:.2f} | `python -m pathfinding findings --quick` | 0 | {cf.QUICK_TRIALS} |"
    )
    ppr = next(r for r in _rows(lines, "P") if "`ppr`" in r)
    assert ppr.split(" | ")[6] == "—"  # a single-step ranker reaches nothing: a dash
    vk = _rows(lines, "VK")[0]
    assert "path-finding (length_jitter=1)" in vk  # each knob's rows say which knob
    b = budget.summary()[0]
    assert _rows(lines, "B")[0].startswith(
        f"| B1 | `{b['retriever']}` | {b['budget']} | {format_ci(*b['mean'])} |"
    )


def test_the_numbers_dict_is_the_same_run(section):
    _, data, (contrast, varied, knobs, budget) = section
    assert data["contrast"] == [r.__dict__ for r in contrast.summary()]
    assert data["varied"] == [r.__dict__ for r in varied.summary()]
    assert set(data["varied_knobs"]) == set(VARIATION)
    assert data["budget_ppr_mean"] == pytest.approx(float(budget.ppr_ranks.mean()))
    assert [r["budget"] for r in data["budget"]] == [r["budget"] for r in budget.summary()]
    assert cf.run_all(0, True)[0] is contrast  # one run, cached, which the figures reuse


def test_the_prose_quotes_the_rows(section):
    lines, _, (contrast, _, _, budget) = section
    text = "\n".join(lines)
    cells = {(r.shape, r.hops, r.retriever): r for r in contrast.summary()}
    ppr_finding = cf._pspan([cells["finding", h, "ppr"].hit_at_1 for h in contrast.hops])
    assert f"PPR ranks it first in {ppr_finding} at every depth" in text
    ppr_mean = float(budget.ppr_ranks.mean())
    assert f"against PPR's {ppr_mean:.2f} on the same {budget.trials} instances" in text
    assert 'asks "' in text and "17 candidates" in text
