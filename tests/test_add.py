"""What adding one passage costs against a rebuild (pathfinding.bench.add): the passages held out,
the add compared with the rebuild it must equal, and PASS/FAIL/INFO per encoder mode."""

from types import SimpleNamespace

import pytest

from pathfinding.bench import add
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import build_index

TRIPLES = [
    [("Ed Wood", "directed", "Plan 9")],
    [("Plan 9", "filmed in", "Burbank")],
    [("Bela Lugosi", "starred in", "Plan 9")],
    [("Bela Lugosi", "born in", "Lugos")],
    [("Burbank", "city in", "California")],
    [("Ed Wood", "born in", "Poughkeepsie")],
]


@pytest.fixture
def small_release(monkeypatch):
    """Six passages in place of the 1,890 of MuSiQue's release."""
    docs = [SimpleNamespace(title=t[0][0], text=" ".join(t[0]), triples=t) for t in TRIPLES]
    monkeypatch.setattr(add, "fetch", lambda name: name)
    monkeypatch.setattr(add, "load_openie", lambda path: (docs, None))


def test_each_mode_adds_a_held_out_passage_and_equals_its_rebuild(small_release):
    res = add.benchmark_add(trials=2)
    assert (res["n_passages"], res["trials"], res["target"]) == (6, 2, add.ADD_TARGET)
    assert res["held_out"] == [2, 3]  # spread over the corpus, never the first or the last
    assert list(res["modes"]) == ["kept", "refit"]
    for mode, r in res["modes"].items():
        assert r["equal"], mode
        assert len(r["add_seconds"]) == len(r["rebuild_seconds"]) == 2
        assert r["ratio"] == pytest.approx(r["add_median"] / r["rebuild_median"])
        assert r["status"] == add._status(mode, r["ratio"], True)
    assert res["modes"]["refit"]["status"] == "INFO"
    assert list(add.benchmark_add(trials=1, modes=("refit",))["modes"]) == ["refit"]


def test_bad_arguments_are_refused_before_any_build(small_release):
    with pytest.raises(InvalidValueError, match=r"modes must be among \('kept', 'refit'\), got 'fast'"):
        add.benchmark_add(modes=("kept", "fast"))
    with pytest.raises(InvalidValueError, match="trials"):
        add.benchmark_add(trials=0)
    with pytest.raises(InvalidTypeError, match="trials"):
        add.benchmark_add(trials=1.5)


def test_the_status_of_each_mode():
    assert add._status("kept", add.ADD_TARGET, True) == "PASS"  # at the target: accepted
    assert add._status("kept", add.ADD_TARGET + 1e-9, True) == "FAIL"
    assert add._status("kept", 0.0, False) == "FAIL"  # fast and wrong is a failure
    assert add._status("refit", 0.9, True) == "INFO"  # no target
    assert add._status("refit", 0.0, False) == "FAIL"


def test_two_indexes_are_equal_only_when_every_part_is():
    a = build_index(TRIPLES[:3])
    assert add._equal(a, build_index(TRIPLES[:3]))
    assert not add._equal(a, build_index(TRIPLES[:2]))
    b = build_index(TRIPLES[:3])
    b.specificity[0] += 1e-12
    assert not add._equal(a, b)


def test_the_report_line_of_each_mode():
    result = {
        "n_passages": 1890, "target": 0.05, "trials": 5,
        "modes": {
            "kept": {"add_median": 0.0123, "rebuild_median": 1.5, "ratio": 0.0082, "equal": True,
                     "status": "PASS"},
            "refit": {"add_median": 1.2, "rebuild_median": 1.5, "ratio": 0.8, "equal": False,
                      "status": "FAIL"},
        },
    }  # fmt: skip
    kept, refit = add.format_add_benchmark(result).splitlines()
    assert kept == (
        "add 1 passage (1889 -> 1890 MuSiQue passages, encoder kept (the default)): median 0.012 s vs "
        "rebuild 1.50 s = 0.8% (target <= 5%, 5 trials, equal to the rebuild: yes) PASS"
    )
    assert refit.endswith("= 80.0% (no target, 5 trials, equal to the rebuild: NO) FAIL")
