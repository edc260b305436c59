"""The command line: help, the instance and rank commands, and clear errors."""

import subprocess
import sys

import pytest

from pathfinding.cli import main


def test_module_help_runs():
    proc = subprocess.run([sys.executable, "-m", "pathfinding", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "instance" in proc.stdout and "rank" in proc.stdout


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


def test_bad_values_give_clear_errors(capsys):
    with pytest.raises(SystemExit):
        main(["instance", "--hops", "0"])
    assert "--hops: expected a whole number >= 1, got 0" in capsys.readouterr().err
    assert main(["instance", "--seeds", "1"]) == 2
    assert "seeds must be in [2," in capsys.readouterr().err
