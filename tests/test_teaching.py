"""Checks that teach: quiet on success, a sentence on failure, an exception in strict mode."""

import numpy as np
import pytest

from pathfinding.course.teaching import STRICT_ENV, check, expect
from pathfinding.errors import CheckFailed


@pytest.fixture
def lenient(monkeypatch):
    monkeypatch.delenv(STRICT_ENV, raising=False)


def test_pass_is_quiet(lenient, capsys):
    check(True, idea="x")
    expect(np.array([0.2, 0.8]), [0.2, 0.8], atol=1e-12, idea="x")
    expect((19, 9), (19, 9), idea="sizes")
    expect("a", "a", idea="names")
    assert capsys.readouterr().out == ""


def test_failure_explains_and_goes_on(lenient, capsys):
    expect(0.03, 0.0278, atol=5e-5, idea="one inflow is 0.0278")
    out = capsys.readouterr().out
    assert "one inflow is 0.0278" in out and "got 0.03" in out and "expected 0.0278" in out
    check(np.array([True, False]), idea="every ratio is 2")
    assert "every ratio is 2" in capsys.readouterr().out
    expect([1, 2], [1, 2, 3], idea="lengths")
    assert "lengths" in capsys.readouterr().out


def test_strict_mode_raises(monkeypatch):
    monkeypatch.setenv(STRICT_ENV, "1")
    with pytest.raises(CheckFailed, match="the answer ranks first"):
        check(False, idea="the answer ranks first")
    with pytest.raises(CheckFailed, match="got 2"):
        expect(2, 1, idea="one")
    monkeypatch.setenv(STRICT_ENV, "0")
    check(False, idea="lenient again")  # does not raise


def test_idea_is_required():
    with pytest.raises(TypeError, match="idea"):
        check(True, idea="")
