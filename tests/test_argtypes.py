"""The argparse types every command shares (pathfinding._argtypes): each bound, each message."""

import argparse
import math

import pytest

from pathfinding._argtypes import positive_int, positive_seconds, seconds, unit_interval, whole_number


def _refused(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError) as exc:
        parse(text)
    assert str(exc.value) == message


def test_whole_numbers_from_their_bound_up():
    at_least_3 = whole_number(3)
    assert at_least_3("3") == 3 and at_least_3(" 12 ") == 12 and isinstance(at_least_3("4"), int)
    _refused(at_least_3, "2", "expected a whole number >= 3, got 2")
    _refused(at_least_3, "3.0", "expected a whole number, got '3.0'")
    _refused(at_least_3, "many", "expected a whole number, got 'many'")
    assert whole_number(0)("0") == 0
    _refused(whole_number(0), "-1", "expected a whole number >= 0, got -1")
    assert positive_int("1") == 1
    _refused(positive_int, "0", "expected a whole number >= 1, got 0")


def test_seconds_are_finite_and_not_negative():
    parse = seconds()
    assert parse("0") == 0.0 and parse("2.5") == 2.5 and parse("1e-3") == 0.001
    for text in ("-0.5", "inf", "nan", "-inf"):
        _refused(parse, text, f"expected a number of seconds >= 0, got {text!r}")
    _refused(parse, "soon", "expected a number of seconds, got 'soon'")


def test_positive_seconds_refuse_zero():
    assert positive_seconds("0.01") == 0.01 and seconds(positive=True)("3") == 3.0
    _refused(positive_seconds, "0", "expected a number of seconds > 0, got '0'")
    _refused(positive_seconds, "-0.0", "expected a number of seconds > 0, got '-0.0'")
    _refused(positive_seconds, "nan", "expected a number of seconds > 0, got 'nan'")


def test_unit_interval_includes_both_ends():
    assert unit_interval("0") == 0.0 and unit_interval("1") == 1.0 and unit_interval("0.25") == 0.25
    for text in ("-0.01", "1.01", "nan", "inf"):
        _refused(unit_interval, text, f"expected a number in [0, 1], got {text!r}")
    _refused(unit_interval, "half", "expected a number in [0, 1], got 'half'")
    assert not math.isnan(unit_interval("1e-300"))


def test_a_parser_turns_the_refusal_into_a_usage_error(capsys):
    p = argparse.ArgumentParser(prog="cmd")
    p.add_argument("--wait", type=seconds())
    with pytest.raises(SystemExit) as exc:
        p.parse_args(["--wait", "-1"])
    assert exc.value.code == 2
    assert "argument --wait: expected a number of seconds >= 0, got '-1'" in capsys.readouterr().err


def test_importing_the_types_loads_no_numerical_library():
    import subprocess
    import sys

    code = "import sys, pathfinding._argtypes; print(sorted({'numpy', 'scipy'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
