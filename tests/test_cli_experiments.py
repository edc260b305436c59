"""``pathfinding findings`` and ``realtext`` (pathfinding.cli.experiments): the flags and their
defaults, and what each command hands to the experiment and writes back, with the work stubbed."""

import json

import pytest

from pathfinding.cli import build_parser, main
from pathfinding.cli.experiments import QUICK_QUESTIONS
from pathfinding.experiments import DEFAULT_BOOT


def test_findings_flags_and_their_defaults():
    args = build_parser().parse_args(["findings"])
    assert (args.trials, args.seed, args.quick, args.check, args.json) == (None, 0, False, False, None)
    assert (args.output, args.figures) == ("FINDINGS.md", "figures")
    args = build_parser().parse_args(["findings", "--quick", "--check", "--trials", "7", "--output", "F.md"])
    assert (args.trials, args.quick, args.check, args.output) == (7, True, True, "F.md")


def test_findings_hands_its_arguments_to_the_findings_command(monkeypatch):
    import pathfinding.experiments.findings as findings

    seen = []
    monkeypatch.setattr(findings, "findings_command", lambda args: seen.append(args) or 3)
    assert main(["findings", "--quick", "--seed", "4"]) == 3  # its status is the command's
    assert (seen[0].quick, seen[0].seed) == (True, 4)


def test_realtext_flags_refuse_what_means_nothing(capsys):
    args = build_parser().parse_args(["realtext"])
    assert (args.seed, args.boot, args.quick, args.json) == (0, DEFAULT_BOOT, False, None)
    for bad in (["--seed", "-1"], ["--boot", "0"], ["--boot", "many"]):
        with pytest.raises(SystemExit) as exc:
            build_parser().parse_args(["realtext", *bad])
        assert exc.value.code == 2 and f"argument {bad[0]}" in capsys.readouterr().err


class _Result:
    def to_json(self):
        return {"b": 1, "a": [0.5]}


@pytest.fixture
def calls(monkeypatch):
    import pathfinding.experiments.realtext as realtext

    seen = []
    monkeypatch.setattr(realtext, "run_realtext", lambda **kw: seen.append(kw) or _Result())
    monkeypatch.setattr(realtext, "format_report", lambda result: "the report")
    return seen


def test_realtext_runs_the_whole_set_or_the_first_questions(calls, capsys):
    assert main(["realtext", "--seed", "3", "--boot", "50"]) == 0
    assert calls[-1] == {"seed": 3, "n_boot": 50, "n_questions": None}
    assert capsys.readouterr().out == "the report\n"
    assert main(["realtext", "--quick"]) == 0
    assert calls[-1] == {"seed": 0, "n_boot": DEFAULT_BOOT, "n_questions": QUICK_QUESTIONS}


def test_realtext_writes_its_json_sorted_and_says_where(calls, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["realtext", "--json", str(out)]) == 0
    assert out.read_text() == json.dumps({"a": [0.5], "b": 1}, indent=2) + "\n"
    assert capsys.readouterr().out == f"the report\n\nwrote {out}\n"
