"""The default encoder against scikit-learn's TfidfVectorizer, computed here on its own.

``CharNgramEncoder`` promises scikit-learn's rows bit for bit, in its own small-batch path as in
scikit-learn's, for every analyzer, n-gram range and ``sublinear_tf``; a state saved as data gives
the same rows; and every bad parameter or state is refused by name.
"""

import random
import string

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.encoder import CharNgramEncoder, char_ngrams

FIT = ["ed wood", "plan 9 from outer space", "the beatles", "beatles", "a", "Thomas Südhof", "new  york"]
QUERY = ["ed woods", "Beatles!", "zzzz", "", "south  hof", "plan nine", "a b", "ed wood ed wood ed"]
CONFIGS = [
    {},
    {"sublinear_tf": False},
    {"analyzer": "char", "ngram_range": (1, 3)},
    {"analyzer": "char", "ngram_range": (2, 4), "sublinear_tf": False},
    {"analyzer": "char_wb", "ngram_range": (1, 2)},
    {"analyzer": "char_wb", "ngram_range": (2, 5)},
]


def _sklearn(cfg):
    return TfidfVectorizer(
        analyzer=cfg.get("analyzer", "char_wb"),
        ngram_range=cfg.get("ngram_range", (3, 3)),
        sublinear_tf=cfg.get("sublinear_tf", True),
    ).fit(FIT)


@pytest.mark.parametrize("cfg", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_rows_are_scikit_learns_bit_for_bit(cfg):
    """A few texts (the encoder's own path), many texts (scikit-learn's path) and an encoder rebuilt
    from its saved state (no vectorizer at all) give scikit-learn's rows exactly, unit or zero."""
    want = sp.csr_array(_sklearn(cfg).transform(QUERY))
    enc = CharNgramEncoder(**cfg).fit(FIT)
    loaded = CharNgramEncoder.from_state(*enc.get_state())
    for got in (enc(QUERY), loaded(QUERY), enc(QUERY * 5)[: len(QUERY)], loaded(QUERY * 5)[: len(QUERY)]):
        assert got.shape == want.shape
        assert (got != want).nnz == 0
    assert enc(QUERY).dtype == np.float64 and enc(QUERY).indices.dtype == np.int32
    norms = np.sqrt(enc(QUERY).multiply(enc(QUERY)).sum(axis=1))
    np.testing.assert_allclose(norms, (np.diff(want.indptr) > 0).astype(float), atol=1e-12)
    assert want.indptr[4] == want.indptr[3]  # "" matches nothing: a zero row


@pytest.mark.parametrize("cfg", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_state_is_scikit_learns_vocabulary_and_idf(cfg):
    """The saved state lists scikit-learn's n-grams in column order with their IDF, and the
    parameters as plain data."""
    sk = _sklearn(cfg)
    params, grams, idf = CharNgramEncoder(**cfg).fit(FIT).get_state()
    assert grams == sorted(sk.vocabulary_, key=sk.vocabulary_.get)
    np.testing.assert_array_equal(idf, sk.idf_)
    assert params == {
        "ngram_range": list(cfg.get("ngram_range", (3, 3))),
        "analyzer": cfg.get("analyzer", "char_wb"),
        "sublinear_tf": cfg.get("sublinear_tf", True),
    }


@pytest.mark.parametrize("cfg", CONFIGS, ids=[str(c) for c in CONFIGS])
def test_fit_transform_gives_the_rows_of_fit_then_encode(cfg):
    """Fitting and encoding in one pass (what a build does) gives scikit-learn's rows and state, bit
    for bit, and the rows a fitted encoder gives the same texts."""
    texts = FIT + QUERY
    enc = CharNgramEncoder(**cfg)
    got = enc.fit_transform(texts)
    sk = TfidfVectorizer(analyzer=enc.analyzer, ngram_range=enc.ngram_range, sublinear_tf=enc.sublinear_tf)
    want = sp.csr_array(sk.fit(texts).transform(texts))
    assert got.shape == want.shape and got.has_sorted_indices
    for rows in (want, enc(texts), CharNgramEncoder(**cfg).fit(texts)(texts)):
        assert np.array_equal(got.indptr, rows.indptr) and np.array_equal(got.indices, rows.indices)
        assert np.array_equal(got.data, rows.data)
    assert enc._vocab == sk.vocabulary_ and np.array_equal(enc._idf, sk.idf_)


@given(st.lists(st.text(alphabet="abcdé gh-'", min_size=0, max_size=15), min_size=1, max_size=30))
def test_fit_transform_equals_fit_then_encode(texts):
    """On any texts: the same rows as fit then encode (each summed in the same order), or the same
    error when no text has an n-gram."""
    if all(not t.strip() for t in texts):
        with pytest.raises(InvalidValueError, match="at least one text with a character n-gram"):
            CharNgramEncoder().fit_transform(texts)
        return
    got = CharNgramEncoder().fit_transform(texts)
    want = CharNgramEncoder().fit(texts)(texts)
    assert (got != want).nnz == 0 and np.array_equal(got.indices, want.indices)


def test_one_character_grams_of_the_char_analyzer():
    """The "char" analyzer with n from 1 counts every character, spaces included, then longer grams."""
    assert char_ngrams("Ab  c", analyzer="char", ngram_range=(1, 2)) == ["a", "b", " ", "c", "ab", "b ", " c"]
    assert char_ngrams("ab", analyzer="char", ngram_range=(2, 5)) == ["ab"]
    assert char_ngrams("abc", analyzer="char_wb", ngram_range=(2, 2)) == [" a", "ab", "bc", "c "]
    assert char_ngrams("a b", analyzer="char_wb", ngram_range=(3, 4)) == [" a ", " b "]


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"analyzer": "word"}, InvalidValueError, r"analyzer must be 'char_wb' or 'char', got 'word'"),
        ({"ngram_range": (0, 3)}, InvalidValueError, r"ngram_range\[0\] must be in \[1, inf\], got 0"),
        ({"ngram_range": (3, 2)}, InvalidValueError, r"ngram_range\[1\] must be in \[3, inf\], got 2"),
        (
            {"ngram_range": (2.5, 3)},
            InvalidTypeError,
            r"ngram_range\[0\] must be an integer, got 2\.5 \(float\)",
        ),
    ],
)
def test_bad_parameters_are_named(kwargs, error, message):
    """Each bad parameter is refused with its name and value."""
    with pytest.raises(error, match="^" + message + "$"):
        CharNgramEncoder(**kwargs)


def test_fitting_on_blank_texts_says_so():
    """Texts without one n-gram: the count and the texts, all of them up to five, else the first five
    and "..."."""
    with pytest.raises(InvalidValueError, match=r"got 2 text\(s\) with none: \['', ' '\]$"):
        CharNgramEncoder().fit(["", " "])
    blanks = ["", " ", "  ", "\t", "\n", "   ", "    "]
    five = r"\['', ' ', '  ', '\\t', '\\n'"
    with pytest.raises(InvalidValueError, match=r"got 5 text\(s\) with none: " + five + r"\]$"):
        CharNgramEncoder().fit(blanks[:5])
    for n in (6, 7):
        with pytest.raises(
            InvalidValueError, match=rf"got {n} text\(s\) with none: " + five + r", '\.\.\.'\]$"
        ):
            CharNgramEncoder().fit(blanks[:n])


def test_an_unfitted_encoder_is_refused():
    """Encoding or saving before fitting is an error that says what to do."""
    enc = CharNgramEncoder()
    assert not enc.is_fitted
    with pytest.raises(
        InvalidValueError, match="^CharNgramEncoder must be fit on the node phrases before encoding$"
    ):
        enc(["x"])
    with pytest.raises(InvalidValueError, match="^CharNgramEncoder is not fitted: nothing to save$"):
        enc.get_state()


@pytest.mark.parametrize(
    "grams, idf, message",
    [
        (["ab", "ab", "cd"], [1.0, 1.0, 1.0], r"n-gram list repeats an entry \(1 duplicates\)"),
        (["ab", "cd"], [1.0, 0.0], r"idf must hold 2 finite positive values, got shape \(2,\)"),
        (["ab", "cd"], [1.0, np.nan], r"idf must hold 2 finite positive values, got shape \(2,\)"),
        (["ab", "cd"], [1.0, -1.0], r"idf must hold 2 finite positive values, got shape \(2,\)"),
        (["ab", "cd"], [1.0, 1.0, 1.0], r"idf must hold 2 finite positive values, got shape \(3,\)"),
        (["ab", ""], [1.0, 1.0], r"every n-gram must be a non-empty string"),
        (["ab", 7], [1.0, 1.0], r"every n-gram must be a non-empty string"),
    ],
)
def test_a_bad_state_is_refused(grams, idf, message):
    """A state with repeated or empty n-grams, or an IDF that is not one finite positive value per
    n-gram, is refused by what is wrong."""
    params = {"ngram_range": [2, 2], "analyzer": "char", "sublinear_tf": True}
    with pytest.raises(InvalidValueError, match="^" + message + "$"):
        CharNgramEncoder.from_state(params, grams, idf)


def test_a_state_rebuilds_its_parameters():
    """from_state gives an encoder with the saved analyzer, range and tf scaling; clone gives an
    unfitted one with the same parameters."""
    enc = CharNgramEncoder(ngram_range=(2, 3), analyzer="char", sublinear_tf=False).fit(FIT)
    back = CharNgramEncoder.from_state(*enc.get_state())
    assert (back.ngram_range, back.analyzer, back.sublinear_tf, back.is_fitted) == (
        (2, 3),
        "char",
        False,
        True,
    )
    twin = enc.clone()
    assert (twin.ngram_range, twin.analyzer, twin.sublinear_tf, twin.is_fitted) == (
        (2, 3),
        "char",
        False,
        False,
    )
    assert repr(enc) == "CharNgramEncoder(ngram_range=(2, 3), analyzer='char')"


def test_rows_are_unit_rows_whatever_the_idf():
    """A state's IDF may hold any finite positive values (not only a fit's, which are at least 1):
    rows are still of norm 1, here a single n-gram of weight 0.5 and two of weights 0.5 and 0.75."""
    params = {"ngram_range": [2, 2], "analyzer": "char", "sublinear_tf": True}
    enc = CharNgramEncoder.from_state(params, ["ab", "cd"], [0.5, 0.75])
    X = enc(["ab", "abcd", "zz"]).toarray()
    np.testing.assert_allclose(
        X, [[1.0, 0.0], [0.5 / np.hypot(0.5, 0.75), 0.75 / np.hypot(0.5, 0.75)], [0.0, 0.0]]
    )


def test_a_default_encoder_clones_to_a_default_encoder():
    """clone keeps sublinear tf scaling switched on when it is on."""
    twin = CharNgramEncoder().clone()
    assert (twin.ngram_range, twin.analyzer, twin.sublinear_tf, twin.is_fitted) == (
        (3, 3),
        "char_wb",
        True,
        False,
    )


def test_small_batch_encoding_matches_sklearn_bit_for_bit():
    enc = CharNgramEncoder().fit(["journal of physics", "ed wood", "new york city", "a"])
    texts = ["journal of psychotherapy", "new york", "zzzz", "", "ed woods ed"]
    fast = enc(texts).toarray()
    slow = enc._fitted_vectorizer().transform(texts).toarray()
    np.testing.assert_array_equal(fast, slow)  # add_passages relies on batch-independent rows


@given(st.lists(st.text(alphabet="abcdefg hij", min_size=1, max_size=20), min_size=1, max_size=40))
def test_rows_do_not_depend_on_the_batch(texts):
    if all(not t.strip() for t in texts):  # no character n-gram anywhere: a clear error, not sklearn's
        with pytest.raises(ValueError, match="at least one text with a character n-gram"):
            CharNgramEncoder().fit(texts)
        return
    enc = CharNgramEncoder().fit(texts)
    whole = enc(texts + ["padding text"] * 40)[: len(texts)]  # scikit-learn's path
    for i, t in enumerate(texts):
        one = enc([t])  # the small-batch path
        assert (one != whole[[i]]).nnz == 0


def test_encoder_state_round_trip():
    enc = CharNgramEncoder(ngram_range=(2, 4), sublinear_tf=False).fit(["ed wood", "plan nine", "paris"])
    params, grams, idf = enc.get_state()
    back = CharNgramEncoder.from_state(params, grams, idf)
    texts = ["ed woods", "plan 9 from outer space"] * 20
    assert (back(texts) != enc(texts)).nnz == 0 and back.ngram_range == (2, 4)
    with pytest.raises(ValueError, match="idf must hold 3 finite positive values"):
        CharNgramEncoder.from_state(params, grams[:3], idf)
    with pytest.raises(ValueError, match="repeats an entry"):
        CharNgramEncoder.from_state(params, [grams[0]] * len(grams), idf)
    with pytest.raises(ValueError, match="not fitted"):
        CharNgramEncoder().get_state()


def test_char_ngrams_match_scikit_learn():
    from sklearn.feature_extraction.text import TfidfVectorizer

    rng = random.Random(0)
    alphabet = string.ascii_letters + "  \t\nÉéüßł東京-'.0"
    texts = ["", " ", "a", "ab", "Ed  Wood", "Thomas Südhof", "x\ty\n z"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(12))) for _ in range(300)]
    for analyzer in ("char_wb", "char"):
        for ngram_range in ((3, 3), (1, 3), (2, 4)):
            sk = TfidfVectorizer(analyzer=analyzer, ngram_range=ngram_range).build_analyzer()
            for t in texts:
                assert char_ngrams(t, analyzer=analyzer, ngram_range=ngram_range) == sk(t), (analyzer, t)
    enc = CharNgramEncoder().fit(texts[7:])
    loaded = CharNgramEncoder.from_state(*enc.get_state())
    many = loaded(texts * 2)  # scikit-learn's path
    few = loaded(texts[:20])  # our own analyzer
    assert (many[:20] != few).nnz == 0
