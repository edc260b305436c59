"""The comparison every exercise check uses (pathfinding.course.exercises.answers): right means the
exact value rounded to the stated precision; "close" only for the exact value rounded to fewer digits;
an unreadable answer is feedback, never a traceback."""

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from pathfinding.course import exercises as ex
from pathfinding.course.exercises.answers import (
    diagnose,
    feedback_on_unreadable,
    read_function,
    read_number,
    read_numbers,
)
from pathfinding.errors import InvalidTypeError

SIG2 = ex.Precision(sig=2)


def test_feedback_reads_as_a_verdict():
    assert repr(ex.Feedback(True, "x")) == "correct: x"
    assert repr(ex.Feedback(False, "y")) == "not yet: y"
    assert not ex.Feedback(False, "y")


@pytest.mark.parametrize(
    "got", [0.61, 0.6105, Fraction(61, 100), np.float32(0.61), Decimal("0.61"), np.array(0.61)]
)
def test_every_numeric_type_is_read_and_judged(got):
    assert ex.judge(read_number("x", got), 0.61047, SIG2) == "right"


@pytest.mark.parametrize(
    ("got", "want", "precision"),
    [
        (0.62, 0.61047, SIG2),  # one unit off: not the value rounded as asked
        (0.624, 0.61047, SIG2),  # the independence model of exercise 6.1
        (0.6104, 0.61047, ex.Precision(decimals=4)),  # half a unit is the limit: 0.6105 is asked
        (2224, 2222.2, ex.Precision(whole=True)),  # whole numbers: rounded down or up, not further
        (28, 29, ex.EXACT),
    ],
)
def test_right_means_the_exact_value_rounded_as_asked(got, want, precision):
    assert ex.judge(got, want, precision) == "wrong"


@pytest.mark.parametrize(
    ("got", "want", "precision"),
    [
        (0.61, 0.61047, SIG2),
        (0.610, 0.61047, ex.Precision(sig=3)),
        (0.6105, 0.61047, ex.Precision(decimals=4)),
        (2222, 2222.2, ex.Precision(whole=True)),
        (2223, 2222.2, ex.Precision(whole=True)),
        (2222.2, 2222.2222, ex.Precision(whole=True)),
        (Fraction(1, 3), 1 / 3, ex.Precision(decimals=4)),
        (1.25, 1.25, ex.Precision(sig=3)),
    ],
)
def test_rounded_as_asked_or_more_digits_is_right(got, want, precision):
    assert ex.judge(got, want, precision) == "right"


@pytest.mark.parametrize(
    ("got", "want", "precision", "verdict"),
    [
        (0.6, 0.61047, SIG2, "close"),  # the value to 1 significant digit
        (0.7, 0.61047, SIG2, "wrong"),  # one coarser unit away: not the value rounded
        (4, 3, ex.Precision(sig=3), "wrong"),
        (60_000, 50_000, ex.Precision(whole=True), "wrong"),
        (2200, 2222.2, ex.Precision(whole=True), "close"),
        (2000, 2222.2, ex.Precision(whole=True), "close"),
        (1.0, 0.61047, SIG2, "wrong"),  # it rounds to 0.6, not to 1
        (0.0, 0.0278, ex.Precision(decimals=4), "wrong"),  # rounded to nothing is not close
        (0.03, 0.0278, ex.Precision(decimals=4), "close"),
        (-1.6, -1.63, ex.Precision(decimals=2), "close"),
    ],
)
def test_close_only_for_the_exact_value_rounded_to_fewer_digits(got, want, precision, verdict):
    assert ex.judge(got, want, precision) == verdict


def test_a_vector_is_close_only_when_every_entry_is_right_or_rounded():
    want = [1 / 3, 1 / 27, 1 / 54]
    p = ex.Precision(decimals=4)
    assert ex.judge([0.3333, 0.037, 0.0185], want, p) == "right"
    assert ex.judge([0.33, 0.04, 0.02], want, p) == "close"
    assert ex.judge([0.33, 0.05, 0.02], want, p) == "wrong"
    assert ex.judge([1, 2], [1.0, 2.0, 3.0]) == "wrong"


def test_a_wrong_model_is_named_before_close_and_a_property_after_it():
    value = ex.WrongModel("independent", "not independent", value=lambda: 0.624)
    prop = ex.WrongModel("sums to 1", "sums to 1", holds=lambda got: True)
    assert diagnose(0.62, 0.61047, SIG2, [value, prop]) == ("wrong model", "not independent")
    assert diagnose(0.6, 0.61047, SIG2, [value, prop]) == ("close", None)
    assert diagnose(0.5, 0.61047, SIG2, [value, prop]) == ("wrong model", "sums to 1")
    assert diagnose(0.61, 0.61047, SIG2, [value, prop]) == ("right", None)
    written = ex.WrongModel("n", lambda k: f"with k = {k}", value=lambda k: k)
    assert diagnose(3, 5, ex.EXACT, [written], (3,)) == ("wrong model", "with k = 3")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("0.61", "without quotes"),
        (None, "`return`"),
        (float("nan"), "finite"),
        (math.inf, "finite"),
        (True, "one number"),
        ([0.61], "one number"),
        (1 + 2j, "one number"),
    ],
)
def test_an_unreadable_number_says_what_was_expected(value, says):
    with pytest.raises(InvalidTypeError, match=says.replace("(", r"\(")):
        read_number("x", value)


def test_unanswered_is_none_and_vectors_say_their_shape():
    assert read_number("x", ...) is None
    assert read_numbers("v", [0.1, ...], 2) is None
    assert read_numbers("v", np.array([[0.2], [0.8]]), 2) == (0.2, 0.8)
    with pytest.raises(InvalidTypeError, match=r"2 numbers \(answer, dead end\); got 1"):
        read_numbers("v", [0.1], 2, entries="(answer, dead end)")
    with pytest.raises(InvalidTypeError, match="tuple, list or array"):
        read_numbers("v", 0.1, 2)
    assert read_function("f", ..., "f(x)") is None
    with pytest.raises(InvalidTypeError, match=r"a function f\(x\)"):
        read_function("f", 3, "f(x)")


def test_a_check_turns_an_unreadable_answer_into_feedback():
    @feedback_on_unreadable
    def check(x):
        return ex.Feedback(True, f"{read_number('x', x)}")

    assert check(0.5)
    fb = check("0.5")
    assert not fb and fb.message.startswith("cannot read this answer: x is the text '0.5'")


def test_precision_reads_in_the_singular_for_one():
    assert str(ex.Precision(decimals=1)) == "to 1 decimal place"
    assert str(ex.Precision(sig=1)) == "to 1 significant digit"
    assert str(ex.Precision(decimals=3)) == "to 3 decimal places"


def test_feedback_quotes_an_answer_with_the_digits_that_make_it_wrong():
    from pathfinding.course.exercises.answers import verdict_feedback

    near_whole = verdict_feedback("wrong", "h", shown=5.0000001, precision=ex.EXACT, right="", fallback="")
    assert near_whole.message.startswith("5.0000001; hint")
    plain = verdict_feedback("wrong", "h", shown=0.61047123, precision=ex.EXACT, right="", fallback="")
    assert plain.message.startswith("0.610471;")  # six digits when they do not hide a difference


def test_a_slip_model_comes_before_close_even_when_its_value_is_a_rounding():
    # 1 is 1.25 rounded to one digit; a listed confusion that gives 1 is named instead of "close"
    forgot = ex.WrongModel("one inflow", "count every inflow", value=lambda: 1.0)
    assert diagnose(1.0, 1.25, ex.Precision(sig=3), [forgot]) == ("wrong model", "count every inflow")
    assert diagnose(1.0, 1.25, ex.Precision(sig=3), []) == ("close", None)
