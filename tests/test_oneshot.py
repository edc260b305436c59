"""The command line's one-shot path: its BM25, linking and walk need no numba, and give the library's answers.

A question from the shell is answered by :class:`~pathfinding.hipporag.retrieval.oneshot.OneShotRetriever`
(scipy walk, certified ranking), BM25 scored from its own arrays, and entity linking in numpy. Each
piece is checked against what it replaces: bm25s' own scores and tokens, a left-to-right loop for
the dot products, the dense linear solve for the walk, and :class:`HippoRetriever` for rankings.
"""

import itertools
import json
import os
import subprocess
import sys

import bm25s
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.core.ppr import ppr_solve
from pathfinding.core.reference import ppr_linear_solve
from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs
from pathfinding.hipporag.index.build import build_index, index_from_openie
from pathfinding.hipporag.index.nearest import NearestRows, row_dots
from pathfinding.hipporag.index.persistence import load_index
from pathfinding.hipporag.language.text import words
from pathfinding.hipporag.retrieval.lexical import BM25Ranker, top_k
from pathfinding.hipporag.retrieval.oneshot import TIGHTER, OneShotRetriever, rounding_slack
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

VOCAB = ["the", "of", "and", "Ed", "Wood", "wood", "Plan", "9", "film", "Südhof", "東京都", "x1", "a", "is"]
texts = st.lists(st.sampled_from(VOCAB), min_size=0, max_size=8).map(" ".join)


# --- BM25 without bm25s at query time ------------------------------------------------------------


@settings(max_examples=60)
@given(corpus=st.lists(texts, min_size=1, max_size=6), question=texts)
def test_bm25_scores_are_bm25s_own_bit_for_bit(corpus, question):
    """Scores summed here from the stored columns equal bm25s' get_scores (float32, token order)."""
    ours = BM25Ranker(corpus).scores(question)
    ours_tokens = {"lower": False, "token_pattern": r"\S+", "stopwords": "en", "show_progress": False}
    toks = bm25s.tokenize([" ".join(words(c)) for c in corpus], **ours_tokens)
    if not toks.vocab:
        assert not ours.any()
        return
    model = bm25s.BM25()
    model.index(toks, show_progress=False)
    q = bm25s.tokenize([" ".join(words(question))], return_ids=False, **ours_tokens)[0]
    q = [t for t in q if t in model.vocab_dict]
    expected = model.get_scores(q).astype(np.float64) if q else np.zeros(len(corpus))
    assert np.array_equal(ours, expected)


@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_question_words_are_bm25s_tokens_on_ascii(text):
    """On ASCII text ``words`` splits and lower-cases as bm25s' own tokenizer does (stop words
    aside): the folding and the combining marks change only text outside ASCII."""
    theirs = bm25s.tokenize([text], stopwords=[], return_ids=False, show_progress=False)[0]
    assert words(text) == theirs


def test_a_repeated_question_word_counts_each_time():
    bm = BM25Ranker(["Ed Wood directed Plan 9.", "Paris is in France.", "Wood burns."])
    once, twice = bm.scores("wood"), bm.scores("wood wood")
    assert np.array_equal(twice, 2 * once) and once[0] > 0


def test_a_ranker_from_its_state_scores_without_bm25s(monkeypatch):
    bm = BM25Ranker(
        ["Ed Wood directed Plan 9.", "Paris is in France.", "Wood burns."], query_stopwords=["plan"]
    )
    params, vocab, arrays = bm.get_state()
    monkeypatch.setitem(sys.modules, "bm25s", None)  # any import of bm25s now fails
    again = BM25Ranker.from_state(params, vocab, arrays)
    assert np.array_equal(again.scores("Who directed Plan 9?"), bm.scores("Who directed Plan 9?"))
    assert again.tokens("Who directed Plan 9?") == ["directed"]  # "plan": a query stop word; "9": too short


# --- linking: dot products in numpy, summed as a loop sums them ----------------------------------


def _loop_dots(X, q_idx, q_val, rows):
    out = []
    for r in rows:
        acc = 0.0
        for j in range(X.indptr[r], X.indptr[r + 1]):
            hit = np.flatnonzero(q_idx == X.indices[j])
            if hit.size:
                acc += X.data[j] * q_val[hit[0]]
        out.append(acc)
    return np.array(out)


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12), d=st.integers(1, 15))
def test_row_dots_sum_left_to_right(seed, n, d):
    """Bit for bit the sequential sum a compiled loop makes (numpy's pairwise sum would differ)."""
    rng = np.random.default_rng(seed)
    X = sp.random_array((n, d), density=0.6, rng=rng, format="csr")
    X.data = rng.normal(size=X.data.size) * 10.0 ** rng.integers(-8, 8, size=X.data.size)
    X.sort_indices()
    X.data[rng.random(X.data.size) < 0.2] = 0.0  # stored zeros: a shared feature with no mass
    q_idx = np.sort(rng.choice(d, size=rng.integers(0, d + 1), replace=False)).astype(np.int64)
    q_val = rng.normal(size=q_idx.size)
    rows = rng.integers(0, n, size=rng.integers(0, 2 * n))
    assert np.array_equal(row_dots(X, q_idx, q_val, rows), _loop_dots(X, q_idx, q_val, rows))


@settings(max_examples=80)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 30), d=st.integers(1, 12), k=st.integers(1, 4))
def test_nearest_rows_are_the_brute_force_top_k(seed, n, d, k):
    """The pruned search returns what scoring every row does: the k largest positive dots, ties to
    the lower row (fewer when fewer rows share a feature with the query)."""
    rng = np.random.default_rng(seed)
    X = sp.random_array((n, d), density=0.3, rng=rng, format="csr")
    X.data = rng.random(X.data.size)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1))).ravel()
    X = sp.csr_array(sp.diags_array(np.divide(1.0, norms, out=np.zeros(n), where=norms > 0)) @ X)
    X.sort_indices()
    X.data[rng.random(X.data.size) < 0.2] = 0.0  # stored zeros: a shared feature with no mass
    q_idx = np.sort(rng.choice(d, size=rng.integers(1, d + 1), replace=False)).astype(np.int64)
    q_val = rng.random(q_idx.size) * (rng.random(q_idx.size) < 0.8) + 1e-3
    q_val /= np.linalg.norm(q_val)
    dots = np.array([row_dots(X, q_idx, q_val, np.array([r]))[0] for r in range(n)])
    positive = np.flatnonzero(dots > 0)
    expected = positive[np.lexsort((positive, -dots[positive]))][:k]
    rows, values = NearestRows(X).top_k(q_idx, q_val, k=k)
    assert rows.tolist() == expected.tolist() and values.tolist() == dots[expected].tolist()


def test_nearest_rows_leave_the_callers_matrix_alone_and_link_one_node_by_default():
    data, indices, indptr = np.array([0.6, 0.8, 0.5, 1.0]), np.array([1, 0, 1, 1]), np.array([0, 2, 4])
    X = sp.csr_array((data, indices, indptr), shape=(2, 2))
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    nearest = NearestRows(X)  # unsorted, duplicated entries: summed in its own copy
    assert all(np.array_equal(a, b) for a, b in zip(before, (X.data, X.indices, X.indptr), strict=True))
    rows, values = nearest.top_k(np.array([1]), np.array([1.0]))
    assert rows.tolist() == [1] and values.tolist() == [1.5]


# --- rankings: the library's, certified or walked by the compiled kernels -------------------------


@pytest.fixture(scope="module")
def heldout():
    from pathfinding.experiments.heldout import load_heldout

    data = load_heldout()
    questions = [q.question for q in data["questions"]]
    return index_from_openie(cooccurrence_docs(data["corpus"])), questions + [q.lower() for q in questions]


OTHER_SETTINGS = {"restart_prob": 0.2, "passage_weight": 0.4, "fact_weight": 0.3, "guess_weight": 0.5}


@pytest.mark.parametrize(("settings_", "n_questions"), [({}, None), (OTHER_SETTINGS, 40)])
def test_one_shot_rankings_are_the_librarys(heldout, settings_, n_questions):
    """Off the tuning set, cased and lower-cased (and with other settings on some questions): the
    same passages in the same order (10 by default), the same fused scores, walk scores within the
    certified error; and most answers need no compiled walk."""
    index, questions = heldout
    questions = questions if n_questions is None else questions[:n_questions] + questions[-n_questions:]
    library, one_shot = HippoRetriever(index, **settings_), OneShotRetriever(index, **settings_)
    walked_by = []
    for q in questions:
        a, b = library.retrieve(q), one_shot.retrieve(q)
        walked_by.append(one_shot.walked_by)
        assert a.passages.tolist() == b.passages.tolist() and b.passages.size == 10, q
        if a.walk_weight < 1:  # fused: ranks only, computed alike
            assert np.array_equal(a.scores, b.scores), q
        else:
            assert np.all(np.abs(a.scores - b.scores) <= a.walk_error + b.walk_error), q
        if one_shot.walked_by == "scipy":
            assert b.walk_error < one_shot.tol
    assert walked_by.count("scipy") >= 0.8 * len(questions), walked_by
    one_shot.retrieve("what is the?")  # stop words only: no seed, no BM25 match, no walk
    assert one_shot.walked_by is None


def _tied_index():
    # two passages with the same facts: every walk gives them the same score, no order is certain
    facts = [
        [("Ed Wood", "directed", "Plan 9")],
        [("Ed Wood", "directed", "Plan 9")],
        [("Paris", "in", "France")],
    ]
    texts = ["Ed Wood directed Plan 9.", "Ed Wood directed Plan 9.", "Paris is in France."]
    return build_index(facts, passages=texts)


@pytest.mark.parametrize("question", ["What did Ed Wood direct?", "what did ed wood direct?"])
def test_a_tie_is_left_to_the_compiled_walk(question):
    index = _tied_index()
    one_shot = OneShotRetriever(index)
    got = one_shot.retrieve(question, k=2)
    assert one_shot.walked_by == "compiled"
    assert got.passages.tolist() == HippoRetriever(index).retrieve(question, k=2).passages.tolist() == [0, 1]


def _four_passages():
    facts = [
        [("Ed Wood", "directed", "Plan 9")],
        [("Plan 9", "filmed in", "Burbank")],
        [("Ed Wood", "born in", "Poughkeepsie")],
        [("Paris", "capital of", "France")],
    ]
    texts = ["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank.", "Ed Wood was born in Poughkeepsie.",
             "Paris is the capital of France."]  # fmt: skip
    return build_index(facts, passages=texts)


D = 1e-6
NONE_ZERO = np.zeros(4, bool)
LAST_ZERO = np.array([False, False, False, True])


@pytest.mark.parametrize(
    ("walk", "zero", "k", "walked_by"),
    [
        ([0.3, 0.3 - 0.5 * D, 0.1, 0.05], NONE_ZERO, 2, "compiled"),  # 1st and 2nd within d
        ([0.3, 0.3 - 2.0 * D, 0.1, 0.05], NONE_ZERO, 2, "scipy"),  # every gap of the top 2 wider
        ([0.3, 0.2, 0.2 - 0.5 * D, 0.05], NONE_ZERO, 2, "compiled"),  # the 2nd and the next within d
        ([0.3, 0.2, 0.1, 0.1], NONE_ZERO, 2, "scipy"),  # a tie below the next passage does not matter
        ([0.3, 0.2, 0.1, 0.0], NONE_ZERO, 4, "compiled"),  # a 0 that the compiled walk may reach
        ([0.3, 0.2, 0.1, 0.0], LAST_ZERO, 4, "scipy"),  # a 0 that no walk reaches
        ([0.3, 0.2, 0.5 * D, 0.0], LAST_ZERO, 4, "compiled"),  # a score within d of 0
    ],
)
def test_a_walk_ranking_is_kept_only_when_certain(monkeypatch, walk, zero, k, walked_by):
    """The certificate on crafted scipy walks (d = 1e-6): gaps within d, and zeros that a compiled
    walk could turn positive, leave the ranking to the compiled walk."""
    one_shot = OneShotRetriever(_four_passages())
    walk = np.array(walk)
    monkeypatch.setattr(one_shot, "_scipy_walk", lambda question, w: (walk, D, zero))
    got = one_shot.retrieve("What did Ed Wood direct?", k=k)
    assert one_shot.walked_by == walked_by
    if walked_by == "scipy":
        assert got.passages.tolist() == list(range(k)) and got.scores.tolist() == walk[:k].tolist()
        assert got.walk_error == pytest.approx(D - one_shot.tol)


def test_unreachable_passages_are_certainly_zero():
    """Passages outside the seeds' connected components score exactly 0 in every walk, so a
    ranking that lists them (by id, after the others) is still certified."""
    index = _four_passages()
    one_shot = OneShotRetriever(index)
    got = one_shot.retrieve("Where was the film by Ed Wood shot?", k=4)
    assert one_shot.walked_by == "scipy" and got.scores[-1] == 0 and got.passages[-1] == 3
    library = HippoRetriever(index).retrieve("Where was the film by Ed Wood shot?", k=4)
    assert got.passages.tolist() == library.passages.tolist()


@pytest.mark.parametrize(
    "question", ["Where was the film by Ed Wood shot?", "where was the film by ed wood shot?"]
)
@pytest.mark.parametrize("settings_", [{"passage_weight": 0.0}, {"tol": 0.0}])
def test_v1_and_an_exact_count_walk_take_the_compiled_walk(settings_, question):
    """Walk rankings and fusions alike: no certificate for v1's shape or for tol=0."""
    index = _four_passages()
    one_shot = OneShotRetriever(index, **settings_)
    got = one_shot.retrieve(question, k=3)
    assert one_shot.walked_by == "compiled"
    expected = HippoRetriever(index, **settings_).retrieve(question, k=3)
    assert got.passages.tolist() == expected.passages.tolist()


def test_given_entities_are_used_and_a_question_without_a_walk_says_so():
    index = _four_passages()
    one_shot = OneShotRetriever(index)
    question = "Where was it shot?"
    got = one_shot.retrieve(question, k=2, entities=["Plan 9"])
    assert got.entities == ("Plan 9",) and one_shot.walked_by == "scipy"
    library = HippoRetriever(index).retrieve(question, k=2, entities=["Plan 9"])
    assert got.passages.tolist() == library.passages.tolist()
    one_shot.retrieve("what is the?")  # stop words only: no seed, no BM25 match, no walk
    assert one_shot.walked_by is None


class _FixedBM25:
    """A BM25 stand-in with given scores (the hybrid restart and the fusion read only ``scores``)."""

    def __init__(self, scores):
        self.s = np.asarray(scores, dtype=np.float64)

    def scores(self, question):
        return self.s


LEVELS = [0.0, 0.3 * D, 0.01, 0.01 + 0.4 * D, 0.01 + 1.5 * D, 0.02, 0.02 - 0.9 * D, 0.3]


def _walks_within_d(walk, zero):
    """Compiled walks the certificate must allow for: each score moved by -d/2, 0 or +d/2 (so every
    difference moves by at most d), and any score within d of 0 possibly 0; unreachable ones 0."""
    maybe = np.flatnonzero((walk <= D) & ~zero)
    for shift in itertools.product([-D / 2, 0.0, D / 2], repeat=walk.size):
        base = np.maximum(walk + np.array(shift), 0.0)
        base[zero] = 0.0
        for cut in itertools.product([False, True], repeat=maybe.size):
            theirs = base.copy()
            theirs[maybe[np.array(cut, bool)]] = 0.0
            yield theirs


def test_a_certified_ranking_is_the_ranking_of_every_walk_within_d():
    """Soundness of both certificates on 600 crafted scipy walks (seeded; near-ties, zeros that may
    or may not be reached, tied BM25 scores): whenever the one-shot retriever keeps its ranking,
    every compiled walk within d ranks (walk alone) or fuses (with BM25) the same passages alike."""
    rng = np.random.default_rng(0)
    index = _four_passages()
    kept = {1.0: 0, 0.85: 0}  # the lower-cased question's name is read from the corpus: fused at 0.85
    for _ in range(600):
        walk = rng.choice(LEVELS, 4)
        zero = (walk == 0) & (rng.random(4) < 0.5)
        bm = rng.choice([0.0, 1.0, 2.0, 3.5], 4)
        k = int(rng.integers(1, 5))
        question = ["What did Ed Wood direct?", "what did ed wood direct?"][int(rng.integers(2))]
        one_shot = OneShotRetriever(index, bm25=_FixedBM25(bm))
        one_shot._scipy_walk = lambda q, w, walk=walk, zero=zero: (walk, D, zero)
        got = one_shot.retrieve(question, k=k)
        if one_shot.walked_by != "scipy":
            continue
        kept[got.walk_weight] += 1
        assert got.walk_error == pytest.approx(D - one_shot.tol, rel=1e-12, abs=0)
        for theirs in _walks_within_d(walk, zero):
            if got.walk_weight < 1:
                fused = one_shot.fuse(theirs, bm, got.walk_weight)
                ids = top_k(fused, k)
                assert ids.tolist() == got.passages.tolist() and fused[ids].tolist() == got.scores.tolist()
            else:
                assert top_k(theirs, k).tolist() == got.passages.tolist()
    assert min(kept.values()) >= 50, kept  # both certificates kept many rankings: the check has teeth


def test_the_scipy_walk_its_distance_and_its_zeros():
    """The walk over phrases and passages (against the dense solve), d = tol + its certified error +
    rounding, and the passage outside the seeds' component marked as unreachable."""
    index = _four_passages()
    one_shot = OneShotRetriever(index, restart_prob=0.3)
    question = "Where was the film by Ed Wood shot?"
    w = one_shot.seed_weights(question, ["Ed Wood"]) * index.specificity
    walk, d, zero = one_shot._scipy_walk(question, w)
    P = sp.csr_array(index.mentions)
    A = sp.bmat([[index.graph(), P], [P.T, None]]).toarray()
    restart = one_shot.hybrid_restart(question, w)
    assert np.abs(walk - ppr_linear_solve(A, restart, 0.3)[index.n_nodes :]).sum() <= TIGHTER * one_shot.tol
    res = ppr_solve(A, restart, restart_prob=0.3, tol=TIGHTER * one_shot.tol, method="scipy")
    max_degree = int((A > 0).sum(axis=0).max())
    assert d == pytest.approx(one_shot.tol + res.error_bound + rounding_slack(max_degree), rel=1e-12, abs=0)
    assert zero.tolist() == [False, False, False, True]


def test_rounding_slack_grows_with_the_degree():
    eps = np.finfo(np.float64).eps
    assert rounding_slack(0) == 16 * eps and rounding_slack(98) == 800 * eps


@settings(max_examples=80)
@given(data=st.data())
def test_fused_bounds_hold_for_every_walk_within_d(data):
    """Whatever walk the compiled kernels compute within d of ours (pairwise), each passage's fused
    score lies in its bounds, and is ours exactly where the bounds say it is exact."""
    n = data.draw(st.integers(1, 12))
    levels = st.sampled_from([0.0, 1e-9, 0.01, 0.02, 0.0200000001, 0.3])
    walk = np.array(data.draw(st.lists(levels, min_size=n, max_size=n)))
    bm = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.5]), min_size=n, max_size=n)))
    lam = data.draw(st.sampled_from([0.0, 0.3, 0.65, 0.99]))
    d = 1e-8
    shift = np.array(data.draw(st.lists(st.floats(-d / 2, d / 2), min_size=n, max_size=n)))
    theirs = np.maximum(walk + shift, 0.0)
    theirs[(walk <= d) & np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))] = 0.0
    # unreachable passages: exactly 0 in both walks
    zero = (walk == 0) & np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    theirs[zero] = 0.0
    r = OneShotRetriever(_tied_index())
    low, high, exact = r._fused_bounds(walk, bm, lam, d, zero)
    fused_theirs, fused_ours = r.fuse(theirs, bm, lam), r.fuse(walk, bm, lam)
    assert np.all(low <= fused_theirs) and np.all(fused_theirs <= high)
    assert np.array_equal(fused_theirs[exact], fused_ours[exact])
    assert np.array_equal(low[exact], high[exact])


# --- the command line: one question, no numba ------------------------------------------------------


def test_one_question_from_the_shell_loads_no_numba(tmp_path):
    corpus = [
        {"title": "Ed Wood", "text": "Ed Wood directed Plan 9 from Outer Space in Burbank."},
        {"title": "Plan 9 from Outer Space", "text": "Plan 9 from Outer Space was filmed in Burbank."},
        {"title": "Burbank", "text": "Burbank is a city in Los Angeles County."},
        {"title": "Paris", "text": "Paris is the capital of France."},
    ]
    (tmp_path / "c.json").write_text(json.dumps(corpus))
    idx = str(tmp_path / "i.hippo")
    env = dict(os.environ, PYTHONPATH=ROOT)
    run = [sys.executable, "-m", "pathfinding", "hipporag"]
    subprocess.run([*run, "index", str(tmp_path / "c.json"), "--extractor", "cooccurrence", "-o", idx],
                   check=True, capture_output=True, env=env)  # fmt: skip
    code = (
        "import sys, json\n"
        "from pathfinding.cli import main\n"
        f"main(['hipporag', 'query', {idx!r}, 'Where was the film by Ed Wood shot?', '--json'])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'bm25s'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env)
    answer, _, loaded = out.stdout.rpartition("\n[")
    record = json.loads(answer)
    assert record["walk"] == "scipy" and json.loads("[" + loaded) == []
    index = load_index(idx)
    library = HippoRetriever(index).retrieve("Where was the film by Ed Wood shot?", k=5)
    want = [index.passage_ids[j] for j in library.passages[library.scores > 0].tolist()]
    assert [p["id"] for p in record["passages"]] == want
