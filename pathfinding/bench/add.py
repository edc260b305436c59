"""What adding one passage costs against a rebuild, on the released 1,890-passage MuSiQue index.

The target: adding one passage costs at most :data:`ADD_TARGET` (5%) of a fresh
:func:`~pathfinding.hipporag.index.build.build_index` over the same passages. Two modes, each timed
against the rebuild it equals, in one interleaved run (timings on a shared machine drift; a ratio
of medians measured side by side does not):

``kept`` (the default; the target applies)
    ``add_passages(index, ...)`` keeps the encoder the build fitted: the new phrases are encoded and
    compared with every node. Its rebuild is ``build_index(..., encoder=index.encoder,
    fit_encoder=False)``.
``refit`` (opt-in, no target)
    ``add_passages(index, ..., refit=True)`` refits the TF-IDF on the new phrase set, which moves
    every IDF, hence every embedding and cosine: it redoes most of a build. Its rebuild is the
    default ``build_index``.

Each trial holds out one passage (spread over the corpus), builds the index without it (default
settings, not timed), then times the add and the rebuild and checks that the two indexes are equal.
``make bench`` shows the rows; :func:`format_add_benchmark` renders them.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.maintenance import add_passages
from pathfinding.hipporag.io.loaders import load_openie
from pathfinding.hipporag.storage.datasets import fetch

__all__ = ["ADD_TARGET", "MODES", "MODE_LABELS", "benchmark_add", "format_add_benchmark"]

ADD_TARGET = 0.05
"""Largest accepted ratio of the time to add one passage to the time of a rebuild."""


def _equal(a, b) -> bool:
    if a.phrases != b.phrases or a.stats != b.stats:
        return False
    mats = ("relation_graph", "synonymy_graph", "mentions", "pairs", "node_embeddings")
    return all((sp.csr_array(getattr(a, m)) != sp.csr_array(getattr(b, m))).nnz == 0 for m in mats) and (
        np.array_equal(a.specificity, b.specificity)
    )


MODES = ("kept", "refit")
MODE_LABELS = {"kept": "encoder kept (the default)", "refit": "refit=True: TF-IDF refit"}
"""Encoder modes of an add: the default keeps the fitted encoder; ``refit=True`` refits it."""


def benchmark_add(*, trials: int = 3, modes: tuple[str, ...] = MODES) -> dict:
    """Median time of adding one passage and of a rebuild, their ratio and PASS/FAIL per encoder mode.

    Parameters
    ----------
    trials : int, default 3
        Held-out passages per mode; each costs one untimed build, one timed add, one timed rebuild.
    modes : tuple of {"kept", "refit"}

    Returns
    -------
    dict
        ``{"n_passages", "target", "trials", "modes": {mode: {"add_seconds", "rebuild_seconds"
        (lists, one per trial), "add_median", "rebuild_median", "ratio", "status", "equal"}}}``;
        ``status`` is ``"PASS"`` when ``ratio <= target`` and every add equalled its rebuild, for the
        ``kept`` mode; ``refit`` has no target and its status is ``"INFO"`` (``"FAIL"`` if unequal).
    """
    trials = check_int("trials", trials, low=1)
    for m in modes:
        if m not in MODES:
            raise InvalidValueError(f"modes must be among {MODES}, got {m!r}")
    docs, _ = load_openie(fetch("musique_openie"))
    triples = [d.triples for d in docs]
    texts = [d.title + "\n" + d.text for d in docs]
    n = len(docs)
    held = [int(j) for j in np.linspace(0, n - 1, trials + 2)[1:-1].round()]
    out = {"n_passages": n, "target": ADD_TARGET, "trials": trials, "held_out": held, "modes": {}}
    bar = tqdm(total=len(modes) * trials, desc="add vs rebuild", unit="trial", file=sys.stderr, disable=None)
    for mode in modes:
        adds, rebuilds, equal = [], [], True
        for j in held:
            bar.set_postfix_str(mode)
            keep = [i for i in range(n) if i != j]
            base_t, base_x = [triples[i] for i in keep], [texts[i] for i in keep]
            base = build_index(base_t, passages=base_x)
            refit = mode == "refit"
            kw = {} if refit else {"encoder": base.encoder, "fit_encoder": False}
            t0 = time.perf_counter()
            grown = add_passages(base, [triples[j]], [texts[j]], refit=refit)
            t1 = time.perf_counter()
            fresh = build_index(base_t + [triples[j]], passages=base_x + [texts[j]], **kw)
            t2 = time.perf_counter()
            adds.append(t1 - t0)
            rebuilds.append(t2 - t1)
            equal &= _equal(grown, fresh)
            bar.update()
        ratio = float(np.median(adds) / np.median(rebuilds))
        out["modes"][mode] = {
            "add_seconds": adds,
            "rebuild_seconds": rebuilds,
            "add_median": float(np.median(adds)),
            "rebuild_median": float(np.median(rebuilds)),
            "ratio": ratio,
            "equal": bool(equal),
            "status": _status(mode, ratio, equal),
        }
    bar.close()
    return out


def _status(mode: str, ratio: float, equal: bool) -> str:
    if not equal:
        return "FAIL"
    if mode == "refit":
        return "INFO"
    return "PASS" if ratio <= ADD_TARGET else "FAIL"


def format_add_benchmark(result: dict) -> str:
    """One line per mode: add time, rebuild time, their ratio, equality and PASS/FAIL (or INFO)."""
    lines = []
    for mode, r in result["modes"].items():
        what = MODE_LABELS[mode]
        target = "no target" if mode == "refit" else f"target <= {100 * result['target']:.0f}%"
        lines.append(
            f"add 1 passage ({result['n_passages'] - 1} -> {result['n_passages']} MuSiQue passages, "
            f"{what}): median "
            f"{r['add_median']:.3f} s vs rebuild {r['rebuild_median']:.2f} s = {100 * r['ratio']:.1f}% "
            f"({target}, "
            f"{result['trials']} trials, equal to the rebuild: "
            f"{'yes' if r['equal'] else 'NO'}) {r['status']}"
        )
    return "\n".join(lines)
