"""FINDINGS.md is reproduced by code: --check passes on the committed file and catches any change."""

import json
from pathlib import Path

import pytest

from pathfinding.cli import main
from pathfinding.experiments.findings import compare, produce

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def full_text():
    """FINDINGS.md as the code produces it now, with the committed performance section."""
    from pathfinding.experiments.findings import bench_section

    committed = (ROOT / "FINDINGS.md").read_text()
    text, _, _ = produce(seed=0, trials=1000, quick=False, progress=False, bench=bench_section(committed))
    return text


def test_committed_findings_match_the_code(full_text):
    # A regression pin: FINDINGS.md is the code's own committed output, so this catches drift, not
    # wrong numbers; the numbers' correctness is tested against hand values and oracles elsewhere.
    committed = (ROOT / "FINDINGS.md").read_text()
    assert compare(committed, full_text) == []


def test_check_names_a_changed_row(full_text):
    changed = full_text.replace(
        "| F5 | PPR mass summing at the meet node ranks the answer first | `ppr` | 2 | 1.00",
        "| F5 | PPR mass summing at the meet node ranks the answer first | `ppr` | 2 | 1.01",
    )
    assert changed != full_text
    problems = compare(changed, full_text)
    assert len(problems) == 1 and problems[0].startswith("row F5:")


def test_check_catches_a_changed_sentence(full_text):
    changed = full_text.replace("is inside that interval", "is outside that interval")
    assert changed != full_text
    assert any("not produced by the code" in p for p in compare(changed, full_text))


def test_quick_cli_is_deterministic_and_checkable(tmp_path, capsys):
    out, figs, js = tmp_path / "F.md", tmp_path / "figs", tmp_path / "f.json"
    args = ["findings", "--quick", "--output", str(out), "--figures", str(figs)]
    assert main([*args, "--json", str(js)]) == 0
    first = out.read_bytes(), {p.name: p.read_bytes() for p in figs.iterdir()}
    assert set(first[1]) == {"mean_rank_vs_hops.png", "rank_distribution_2hops.png", "budget_sweep.png"}
    assert json.loads(js.read_text())["trials"] == 50
    assert main(args) == 0
    assert (out.read_bytes(), {p.name: p.read_bytes() for p in figs.iterdir()}) == first
    assert main([*args, "--check"]) == 0
    out.write_text(out.read_text().replace("| 100.0% |", "| 99.0% |", 1))
    capsys.readouterr()
    assert main([*args, "--check"]) == 1
    assert "row F1:" in capsys.readouterr().err


def test_check_keeps_the_bench_section_out(tmp_path):
    out = tmp_path / "F.md"
    args = ["findings", "--quick", "--output", str(out), "--figures", str(tmp_path / "f")]
    assert main(args) == 0
    text = out.read_text().replace("_Run `make bench` to measure this machine._", "| P1 | 12 ms |")
    out.write_text(text)
    assert main([*args, "--check"]) == 0
    assert main(args) == 0
    assert "| P1 | 12 ms |" in out.read_text(), "regenerating keeps the measured bench section"
