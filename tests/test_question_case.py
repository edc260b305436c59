"""The question-case experiment: its forms, its ways of reading names, and the rule that chose the
restored weight."""

import numpy as np
import pytest

from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.language.casing import casing_model
from tests.test_casing import TEXTS, TRIPLES


@pytest.fixture(scope="module")
def index():
    return build_index(TRIPLES, passages=TEXTS)


def test_typed_forms_are_deterministic_per_seed():
    from pathfinding.experiments.question_case import FORMS, typed_forms

    qs = ["Who is Thomas Südhof?", "Where was Plan 9 from Outer Space filmed?"]
    a, b, c = typed_forms(qs, seed=0), typed_forms(qs, seed=0), typed_forms(qs, seed=1)
    assert list(a) == list(FORMS) and a == b and a["mixed"] != c["mixed"]
    assert a["upper"][0] == "WHO IS THOMAS SÜDHOF?" and a["lower"][1] == qs[1].lower()
    for typed, mixed in zip(qs, a["mixed"], strict=True):
        assert mixed.lower() == typed.lower() and mixed[0].isupper()


def test_the_restored_weight_rule_takes_the_smallest_weight_reaching_the_target():
    from pathfinding.experiments.question_case import RESTORED_WEIGHTS, chosen_restored_weight

    bm = np.zeros((4, 3))
    recall = {("bm25", "lower"): bm}
    for lam in RESTORED_WEIGHTS:  # R@5 gain 0.1 below 0.8, 0.2 from there on
        recall[(lam, "lower")] = bm + np.array([0.0, 0.2 if lam >= 0.8 else 0.1, 0.0])
    result = {"MuSiQue": {"recall": recall}}
    assert chosen_restored_weight(result) == 0.8
    assert chosen_restored_weight(result, target=0.1) == 0.65
    with pytest.raises(InvalidValueError, match="no restored weight"):
        chosen_restored_weight(result, target=0.5)


def test_reading_models_are_casing_models_of_the_index(index):
    from pathfinding.experiments.question_case import reading_models, word_model

    models = reading_models(index)
    assert models["off"] is False and models["names"] is casing_model(index)
    words = word_model(TEXTS)
    assert words.evidence("lugosi").capitalised == 4 and " " not in "".join(words.keys)
    # node phrases: names that are nodes, and the lower-case words kept for stray capitals
    nodes = models["node phrases"]
    assert {k for k, f in zip(nodes.keys, nodes.forms, strict=True) if f} <= set(index.phrases)
    merged = models["names + words"]
    assert merged.evidence("bela lugosi") == casing_model(index).evidence("bela lugosi")
    assert merged.evidence("lugosi") == words.evidence("lugosi")
