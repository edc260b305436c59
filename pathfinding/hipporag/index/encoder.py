"""The default phrase encoder: character n-gram TF-IDF with unit rows, and its state as plain data.

:class:`CharNgramEncoder` lives here rather than in :mod:`~pathfinding.hipporag.index.build` so that the
index module stays about the graph.

Two promises the index relies on, both tested:

* a phrase's row does not depend on the batch it is encoded in (one phrase, 32 phrases or 16,000
  give bit-identical rows), so an index grown by
  :func:`~pathfinding.hipporag.index.maintenance.add_passages`
  has exactly the embeddings of a fresh build;
* the fitted state is plain data (the n-gram list and the IDF array), so a saved index stores it
  without pickle (:mod:`~pathfinding.hipporag.index.persistence`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError

__all__ = ["CharNgramEncoder", "char_ngrams"]

_WHITE_SPACES = re.compile(r"\s\s+")


def char_ngrams(text: str, *, analyzer: str = "char_wb", ngram_range: tuple[int, int] = (3, 3)) -> list[str]:
    """The character n-grams scikit-learn's ``TfidfVectorizer`` counts, in the same order.

    The same steps as its ``char_wb`` and ``char`` analyzers (lower-case, runs of whitespace to one
    space, then n-grams; ``char_wb`` pads each word with a space and counts a word shorter than n
    once), written out so that loading an index and encoding a query's entities need not import
    scikit-learn, which costs longer than the query. Tested against scikit-learn's analyzer.

    Examples
    --------
    >>> char_ngrams("Ed  Wood")
    [' ed', 'ed ', ' wo', 'woo', 'ood', 'od ']
    """
    text = _WHITE_SPACES.sub(" ", text.lower())
    lo, hi = ngram_range
    out: list[str] = []
    if analyzer == "char":
        if lo == 1:
            out.extend(text)
            lo = 2
        for n in range(lo, min(hi + 1, len(text) + 1)):
            out.extend(text[i : i + n] for i in range(len(text) - n + 1))
        return out
    for w in text.split():
        w = " " + w + " "
        w_len = len(w)
        for n in range(lo, hi + 1):
            offset = 0
            out.append(w[offset : offset + n])
            while offset + n < w_len:
                offset += 1
                out.append(w[offset : offset + n])
            if offset == 0:  # a word shorter than n is counted once
                break
    return out


class CharNgramEncoder:
    """Character n-gram TF-IDF vectors with unit L2 norm: an encoder that needs no model download.

    Character trigrams inside word boundaries (``analyzer="char_wb"``) match phrases that differ by
    inflection, punctuation, word order or a typo ("beatles" / "the beatles"), which is what
    synonymy edges and entity linking need most from an offline encoder; word-level TF-IDF would miss
    "Sudhof" vs "Südhof"-style near misses and has nothing to say about one-word phrases. IDF is fit on
    the node phrases, so trigrams shared by thousands of phrases ("ion", " th") weigh little.

    Parameters
    ----------
    ngram_range : tuple of int, default (3, 3)
    analyzer : {"char_wb", "char"}, default "char_wb"
    sublinear_tf : bool, default True

    Examples
    --------
    >>> enc = CharNgramEncoder().fit(["the beatles", "beatles", "ed wood"])
    >>> X = enc(["the beatles", "beatles", "ed wood"])
    >>> (X @ X.T).toarray().round(2)
    array([[1.  , 0.76, 0.  ],
           [0.76, 1.  , 0.  ],
           [0.  , 0.  , 1.  ]])
    """

    def __init__(
        self, *, ngram_range: tuple[int, int] = (3, 3), analyzer: str = "char_wb", sublinear_tf=True
    ):
        if analyzer not in ("char_wb", "char"):
            raise InvalidValueError(f"analyzer must be 'char_wb' or 'char', got {analyzer!r}")
        lo = check_int("ngram_range[0]", ngram_range[0], low=1)
        hi = check_int("ngram_range[1]", ngram_range[1], low=lo)
        self.ngram_range = (lo, hi)
        self.analyzer = analyzer
        self.sublinear_tf = bool(sublinear_tf)
        self._vectorizer = None
        self._vocab = None

    def _make_vectorizer(self, vocabulary=None):
        from sklearn.feature_extraction.text import TfidfVectorizer

        return TfidfVectorizer(
            analyzer=self.analyzer,
            ngram_range=self.ngram_range,
            lowercase=True,
            sublinear_tf=self.sublinear_tf,
            dtype=np.float64,
            vocabulary=vocabulary,
        )

    def fit(self, texts: Sequence[str]) -> CharNgramEncoder:
        """Learn the n-gram vocabulary and IDF from ``texts`` (the node phrases).

        Raises
        ------
        ValueError
            If no text has a character n-gram (every one is blank), so there is nothing to learn.
        """
        self._fit_counts(list(texts))
        return self

    def fit_transform(self, texts: Sequence[str]) -> sp.csr_array:
        """Fit on ``texts`` and return their rows, counting each text's n-grams once, not twice.

        The rows are those of ``fit(texts)`` then ``self(texts)``, bit for bit: the counts are
        sorted by column before they are weighted, as an encode sorts them, so each row's squares
        are summed in the same order. At a million passages (4.7 million phrases) fitting and then
        encoding counted every n-gram twice, half of the build's encode stage.
        """
        counts, weights = self._fit_counts(list(texts))
        return sp.csr_array(weights.transform(counts, copy=False))

    def _fit_counts(self, texts: list[str]):
        """(the n-gram counts of ``texts``, columns sorted in each row; the fitted IDF weighting)."""
        from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

        counter = CountVectorizer(analyzer=self.analyzer, ngram_range=self.ngram_range, lowercase=True,
                                  dtype=np.float64)  # fmt: skip
        try:
            counts = counter.fit_transform(texts)
        except ValueError as err:  # scikit-learn's "empty vocabulary", said in our terms
            if any(counter.build_analyzer()(t) for t in texts):
                raise
            shown = texts if len(texts) <= 5 else [*texts[:5], "..."]
            raise InvalidValueError(
                f"the encoder needs at least one text with a character n-gram to fit, got {len(texts)} "
                f"text(s) with none: {shown!r}"
            ) from err
        counts.sort_indices()
        weights = TfidfTransformer(sublinear_tf=self.sublinear_tf).fit(counts)
        self._vectorizer = None  # built from the state on first use (_fitted_vectorizer)
        self._set_state(counter.vocabulary_, weights.idf_)
        return counts, weights

    def _set_state(self, vocab: dict, idf: np.ndarray) -> None:
        params = {"analyzer": self.analyzer, "ngram_range": self.ngram_range}
        self._analyze = lambda text: char_ngrams(text, **params)
        self._vocab = vocab
        self._idf = idf

    def _fitted_vectorizer(self):
        """scikit-learn's vectorizer with this state, built on first use (large batches only)."""
        if self._vectorizer is None:
            vec = self._make_vectorizer(vocabulary=self._vocab)
            vec.idf_ = self._idf  # also validates the vocabulary; no fit, so nothing is recomputed
            self._vectorizer = vec
        return self._vectorizer

    @property
    def is_fitted(self) -> bool:
        return self._vocab is not None

    def clone(self) -> CharNgramEncoder:
        """An unfitted encoder with the same parameters (what :func:`build_index` fits)."""
        return CharNgramEncoder(
            ngram_range=self.ngram_range, analyzer=self.analyzer, sublinear_tf=self.sublinear_tf
        )

    def get_state(self) -> tuple[dict, list[str], np.ndarray]:
        """The fitted state as data: (parameters, n-grams in column order, IDF per column).

        Examples
        --------
        >>> params, grams, idf = CharNgramEncoder().fit(["abcd"]).get_state()
        >>> params, grams, idf
        ({'ngram_range': [3, 3], 'analyzer': 'char_wb', 'sublinear_tf': True}, [' ab', 'abc', 'bcd', 'cd '],
         array([1., 1., 1., 1.]))
        """
        if not self.is_fitted:
            raise InvalidValueError("CharNgramEncoder is not fitted: nothing to save")
        grams = [""] * len(self._vocab)
        for g, j in self._vocab.items():
            grams[j] = g
        params = {
            "ngram_range": list(self.ngram_range),
            "analyzer": self.analyzer,
            "sublinear_tf": self.sublinear_tf,
        }
        return params, grams, np.asarray(self._idf, dtype=np.float64)

    @classmethod
    def from_state(cls, params: dict, grams: Sequence[str], idf) -> CharNgramEncoder:
        """Rebuild a fitted encoder from :meth:`get_state` output, without refitting.

        Raises
        ------
        ValueError
            If the parameters are invalid, the n-grams repeat, or ``idf`` does not have one finite
            positive value per n-gram.
        """
        enc = cls(
            ngram_range=tuple(params["ngram_range"]),
            analyzer=params["analyzer"],
            sublinear_tf=params["sublinear_tf"],
        )
        idf = np.asarray(idf, dtype=np.float64)
        vocab = {g: j for j, g in enumerate(grams)}
        if len(vocab) != len(grams):
            raise InvalidValueError(f"n-gram list repeats an entry ({len(grams) - len(vocab)} duplicates)")
        if idf.shape != (len(grams),) or not np.all(np.isfinite(idf) & (idf > 0)):
            raise InvalidValueError(
                f"idf must hold {len(grams)} finite positive values, got shape {idf.shape}"
            )
        if any(not isinstance(g, str) or not g for g in grams):
            raise InvalidValueError("every n-gram must be a non-empty string")
        enc._set_state(vocab, idf)
        return enc

    def __call__(self, texts: Sequence[str]) -> sp.csr_array:
        """Encode ``texts`` as unit rows (all-zero for a text with no known n-gram)."""
        if not self.is_fitted:
            raise InvalidValueError("CharNgramEncoder must be fit on the node phrases before encoding")
        texts = list(texts)
        if len(texts) > self.small_batch:
            return sp.csr_array(self._fitted_vectorizer().transform(texts))
        return self._transform_small(texts)

    small_batch = 32
    """Batches up to this size skip scikit-learn's per-call overhead: a query's few
    entities are encoded here with the same analyzer, vocabulary and IDF, and the same operations
    in the same order, so both paths give bit-identical rows (tested)."""

    def _transform_small(self, texts: list[str]) -> sp.csr_array:
        indptr, indices, data = [0], [], []
        for text in texts:
            counts: dict[int, int] = {}
            for gram in self._analyze(text):
                j = self._vocab.get(gram)
                if j is not None:
                    counts[j] = counts.get(j, 0) + 1
            cols = np.fromiter(sorted(counts), dtype=np.int64, count=len(counts))
            tf = np.array([counts[j] for j in cols.tolist()], dtype=np.float64)
            if self.sublinear_tf:
                np.log(tf, out=tf)
                tf += 1.0
            w = tf * self._idf[cols]
            # scikit-learn's row normalisation sums squares left to right; so do we, not BLAS's
            # blocked dot, so that a phrase's row is the same bits in either path.
            sq = 0.0
            for x in w.tolist():
                sq += x * x
            if sq > 0:
                w /= math.sqrt(sq)
            indices.extend(cols.tolist())
            data.extend(w.tolist())
            indptr.append(len(indices))
        return sp.csr_array(
            (
                np.asarray(data, dtype=np.float64),
                np.asarray(indices, dtype=np.int32),
                np.asarray(indptr, dtype=np.int32),
            ),
            shape=(len(texts), self._idf.size),
        )

    def __repr__(self) -> str:
        return f"CharNgramEncoder(ngram_range={self.ngram_range}, analyzer={self.analyzer!r})"
