"""Grow and shrink a built index: the result equals a fresh
:func:`~pathfinding.hipporag.index.build.build_index`.

Equal means the same phrases (hence node ids), edges, P, specificity, stats and retrieval results as
``build_index`` over the new passage list with the index's settings and encoder (tested with
Hypothesis over random add/delete sequences). Node ids are positions in the sorted phrase list, so
map a node across versions by its phrase (``new.phrase_ids[old.phrases[i]]``). :func:`add_passages`
appends passages; :func:`delete_passages` closes the gaps in order (:func:`renumber_after_delete`
gives the map of positions). Passage *ids* (:attr:`~pathfinding.hipporag.index.model.HippoIndex.
passage_ids`) never move: an add gives the new passages their own ids (``ids=``) or the next free
integers, a delete (by position, or by id with ``ids=``) removes ids and renumbers none, and each
passage keeps its source; a folder file's stamp is kept while a passage of it is.

Only the relation edges and P of the passages touched change. An add (no passage deleted) writes
each matrix of the index once, with the new entries merged on the way
(:func:`~pathfinding.hipporag.index.growth.grow`), and keeps every synonymy edge whose two nodes
the new passages leave alone (:func:`~pathfinding.hipporag.index.synonymy.patch_synonymy_edges`):
no pass sorts or transposes a whole matrix, so at a million passages its cost is about one copy of
the index's arrays and one pass over the embeddings.

By default the encoder stays as fitted, as a pretrained one would: only the new phrases are encoded
and compared with every node (exactly), each node keeps its k nearest of its stored list
(:attr:`HippoIndex.pairs`) and the new rows, and a node whose full list lost a deleted node is
searched again, exactly; equal to ``build_index(..., encoder=index.encoder, fit_encoder=False)``;
n-grams the fitted TF-IDF never saw then do not count. "Equal" assumes the build's neighbour search
was not cut by its budget for the nodes an update touches (true at the sizes of the released
corpora, tested); where it was, the update gives those nodes their exact k nearest, a build its
bounded search's. ``refit=True`` refits a copy on the new phrase set, equal to a fresh default
build, at about the cost of one (:mod:`~pathfinding.bench.add` measures both).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import (
    assemble_index,
    clean_triples,
    encode_phrases,
    fit_encode,
    relation_and_mentions,
    similar_pairs,
    synonymy_eligible,
)
from pathfinding.hipporag.index.growth import (
    complement,
    grow,
    merge_rows,
    remap,
    rows_outside,
    subtract_stored,
)
from pathfinding.hipporag.index.model import HippoIndex, PositionalIds, check_passage_ids, next_free_ids
from pathfinding.hipporag.index.nearest import KEEP_SLACK
from pathfinding.hipporag.index.synonymy import keep_nearest, patch_synonymy_edges
from pathfinding.hipporag.language.text import index_normalization

__all__ = ["add_passages", "delete_passages", "renumber_after_delete", "replace_passages"]


def add_passages(
    index: HippoIndex,
    triples_per_passage,
    passages: Sequence[str] | None = None,
    *,
    refit: bool = False,
    ids: Sequence[str | None] | None = None,
    sources=None,
    files=None,
) -> HippoIndex:
    """A new index with passages appended (the given index is not modified).

    Parameters
    ----------
    index : HippoIndex
    triples_per_passage : sequence of iterables of (str, str, str)
        The new passages' triples, one list per passage.
    passages : sequence of str, optional
        Their texts; required when ``index`` keeps passage texts, refused when it keeps none.
    refit : bool, default False
        False keeps the index's encoder fixed (cheap); True refits a copy on the new phrase set.
    ids : sequence of str or None, optional
        The new passages' ids (e.g. ``[p.doc_id for p in corpus]``); a None entry, or no ``ids``,
        takes the next free integer (:func:`~pathfinding.hipporag.index.model.next_free_ids`).
    sources : sequence of Source or None, optional
        Where each new passage came from.
    files : dict of str to FileStamp, optional
        Stamps of the folder files the new passages came from (replacing older stamps).

    Returns
    -------
    HippoIndex
        Equal to ``build_index(old triples + new triples, passages=old texts + new texts, ...)`` with
        ``index.settings`` and ``encoder=index.encoder, fit_encoder=False`` (``refit=True``: with the
        encoder refit, ``fit_encoder=True``). New passages take positions ``index.n_passages``
        onwards; every old passage keeps its id.

    Raises
    ------
    ValueError
        If a triple is not three strings, ``passages``, ``ids`` or ``sources`` is missing, extra or
        of the wrong length, or an id is already in the index or given twice.

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")]], passages=["Ed Wood directed Plan 9."])
    >>> bigger = add_passages(idx, [[("Plan 9", "filmed in", "Burbank")]], ["Plan 9 was filmed in Burbank."])
    >>> bigger.phrases, bigger.n_passages, idx.n_passages
    (['burbank', 'ed wood', 'plan 9'], 2, 1)
    """
    _check_index(index)
    new_triples, new_dropped = clean_triples(
        triples_per_passage, normalization=index_normalization(index.settings)
    )
    texts = _check_texts(index, passages, len(new_triples))
    labels = _new_labels(index, len(new_triples), ids, sources, files)
    keep = np.arange(index.n_passages)
    return _update(index, keep, new_triples, new_dropped, texts, refit=_check_refit(refit), labels=labels)


def delete_passages(index: HippoIndex, positions=None, *, ids=None, refit: bool = False) -> HippoIndex:
    """A new index without some passages, named by position or by id (the given index is not modified).

    Parameters
    ----------
    index : HippoIndex
    positions : iterable of int, optional
        Positions to delete, each in ``[0, index.n_passages)``, no repeats.
    ids : iterable of str, optional
        Instead of ``positions``: the ids of the passages to delete (``index.passage_ids``).
    refit : bool, default False
        As in :func:`add_passages`.

    Returns
    -------
    HippoIndex
        Equal to a fresh build over the remaining passages in their order (with the encoder fixed or
        refit, as in :func:`add_passages`); survivors move up to close the gaps
        (:func:`renumber_after_delete`) and keep their ids; phrases no remaining passage mentions
        are gone.

    Raises
    ------
    ValueError
        If a position is out of range or repeated, an id is not in the index, both or neither of
        ``positions`` and ``ids`` are given, if every passage would go (an index is never empty), or
        if no phrase would remain.
    TypeError
        If a position is not an integer, or an id not a string.

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")]])
    >>> smaller = delete_passages(idx, ids=["0"])
    >>> smaller.phrases, list(smaller.passage_ids)
    (['burbank', 'plan 9'], ['1'])
    """
    _check_index(index)
    if (positions is None) == (ids is None):
        raise InvalidValueError("name the passages to delete by positions or by ids=, one of the two")
    if ids is not None:
        positions = index.positions_of(ids).tolist()
    gone = _check_ids(positions, index.n_passages)
    if gone.size == index.n_passages:
        raise InvalidValueError(
            f"deleting all {index.n_passages} passages would leave an empty index, and an index holds at "
            f"least one passage with a triple (a node to start a walk from); to start afresh, build a new "
            f"index from a corpus, or remove the file"
        )
    keep = complement(gone, index.n_passages)
    return _update(index, keep, [], np.zeros(0, np.int64), [], refit=_check_refit(refit), labels=None)


def replace_passages(
    index: HippoIndex, positions, triples_per_passage, passages=None, *, refit=False, ids=None, sources=None,
    files=None,
) -> HippoIndex:  # fmt: skip
    """:func:`delete_passages` of ``positions`` and :func:`add_passages` of the rest, as one update.

    A new passage may take the id of one deleted here (a changed file's part that came back), and
    the index never passes through the state between the two, which may have no phrase left.

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")]], passages=["v1"])
    >>> idx = add_passages(idx, [[("Plan 9", "filmed in", "Burbank")]], ["v1"], ids=["a.md"])
    >>> new = replace_passages(idx, [1], [[("Plan 9", "filmed in", "Glendale")]], ["v2"], ids=["a.md"])
    >>> list(new.passage_ids), new.phrases
    (['0', 'a.md'], ['ed wood', 'glendale', 'plan 9'])
    """
    _check_index(index)
    gone = _check_ids(positions, index.n_passages)
    keep = np.setdiff1d(np.arange(index.n_passages), gone)
    new_triples, new_dropped = clean_triples(
        triples_per_passage, normalization=index_normalization(index.settings)
    )
    texts = _check_texts(index, passages, len(new_triples))
    labels = _new_labels(index, len(new_triples), ids, sources, files, freed=gone)
    return _update(index, keep, new_triples, new_dropped, texts, refit=_check_refit(refit), labels=labels)


def renumber_after_delete(n_passages: int, ids) -> np.ndarray:
    """Old passage id -> new id after deleting ``ids`` (-1 for a deleted passage).

    Examples
    --------
    >>> renumber_after_delete(5, [1, 3])
    array([ 0, -1,  1, -1,  2])
    """
    gone = _check_ids(ids, n_passages)
    out = np.full(n_passages, -1, dtype=np.int64)
    keep = np.setdiff1d(np.arange(n_passages), gone)
    out[keep] = np.arange(keep.size)
    return out


def _new_labels(index: HippoIndex, n_new: int, ids, sources, files, freed=()) -> tuple:
    """The new passages' ids (given, or the next free integers), sources and file stamps, checked;
    the ids of the passages at positions ``freed`` (deleted in the same update) may be taken again."""
    if ids is None:
        new_ids = next_free_ids(index.passage_ids, n_new)
    else:
        if isinstance(ids, str):
            raise InvalidTypeError(f"ids must be a sequence of passage ids, got the string {ids!r}")
        ids = list(ids)
        if len(ids) != n_new:
            raise InvalidValueError(
                f"ids must have one id (or None) per new passage ({n_new}), got {len(ids)}"
            )
        free = iter(next_free_ids(index.passage_ids, sum(x is None for x in ids)))
        new_ids = [next(free) if x is None else x for x in ids]
        check_passage_ids(new_ids, n_new)
        released = set(np.asarray(freed).tolist())
        taken = [x for x in new_ids if _holds(index, x) and int(index.positions_of([x])[0]) not in released]
        if taken:
            raise InvalidValueError(
                f"passage id {taken[0]!r} is already in the index ({len(taken)} of the new ids are); "
                f"delete the old passage first, or give another id"
            )
    if sources is not None:
        sources = list(sources)
        if len(sources) != n_new:
            raise InvalidValueError(
                f"sources must have one entry per new passage ({n_new}), got {len(sources)}"
            )
    return new_ids, sources, dict(files or {})


def _holds(index: HippoIndex, pid: str) -> bool:
    """True when ``index`` has a passage with id ``pid`` (no list of every id is made)."""
    if isinstance(index.passage_ids, PositionalIds):
        return index.passage_ids.position(pid) >= 0
    return pid in index.derived("id_positions", lambda: {x: j for j, x in enumerate(index.passage_ids)})


def _labelled(new: HippoIndex, old: HippoIndex, keep: np.ndarray, labels) -> HippoIndex:
    """``new`` (built by :func:`_update`) with the ids, sources and file stamps of the passages it
    kept from ``old`` and of the new ones (``labels``: from :func:`_new_labels`, None for none)."""
    new_ids, new_sources, new_files = labels if labels is not None else ([], None, {})
    pure_add = keep.size == old.n_passages
    positional = isinstance(old.passage_ids, PositionalIds) and pure_add
    gone = complement(keep, old.n_passages)
    if positional and new_ids == next_free_ids(old.passage_ids, len(new_ids)):
        ids = PositionalIds(old.n_passages + len(new_ids))
    else:
        ids = _without(old.passage_ids[:], gone) + list(new_ids)
    sources = None
    if old.sources is not None or new_sources is not None:
        old_s = old.sources if old.sources is not None else [None] * old.n_passages
        sources = _without(old_s, gone) + list(new_sources or [None] * len(new_ids))
    files = {**old.files, **new_files}
    alive = {s.file for s in sources or () if s is not None and s.file is not None}
    files = {f: stamp for f, stamp in files.items() if f in alive}
    # Not checked again: the kept ids were when the old index was made, the new ones by _new_labels
    # (distinct, and none an old id that stays), and a million-id check costs a second and a half.
    if len(ids) != new.n_passages:
        raise InvalidValueError(f"{len(ids)} passage ids for {new.n_passages} passages")
    new.passage_ids = ids
    new.sources = sources if sources is None or any(s is not None for s in sources) else None
    new.files = files
    return new


def _check_index(index) -> None:
    if not isinstance(index, HippoIndex):
        raise InvalidTypeError(f"index must be a HippoIndex, got {type(index).__name__}")
    if len(index.triples) != index.n_passages or index.pairs is None or not index.settings:
        raise InvalidValueError(
            "this index lacks the triples, pairs or settings that updates need; rebuild it"
        )
    if index.settings.get("mentions", "triples") != "triples":
        raise InvalidValueError(
            f"this index counts P as mentions={index.settings['mentions']!r}; updates keep P as "
            "triple counts, so rebuild it with build_index instead"
        )


def _check_refit(refit) -> bool:
    if not isinstance(refit, bool | np.bool_):
        raise InvalidTypeError(f"refit must be True or False, got {refit!r}")
    return bool(refit)


def _check_ids(ids, n_passages: int) -> np.ndarray:
    if isinstance(ids, str):
        raise InvalidTypeError(f"ids must be integers, got the string {ids!r}")
    out = []
    for x in ids:
        if isinstance(x, bool) or not isinstance(x, int | np.integer):
            raise InvalidTypeError(f"passage ids must be integers, got {x!r} ({type(x).__name__})")
        if not 0 <= int(x) < n_passages:
            raise InvalidValueError(
                f"passage id {int(x)} is out of range: the index has {n_passages} passages"
            )
        out.append(int(x))
    arr = np.asarray(out, dtype=np.int64)
    uniq, counts = np.unique(arr, return_counts=True)
    if np.any(counts > 1):
        raise InvalidValueError(f"passage id {int(uniq[np.argmax(counts > 1)])} is given more than once")
    return uniq


def _check_texts(index: HippoIndex, passages, n_new: int) -> list[str]:
    if passages is None:
        if index.passages:
            raise InvalidValueError(f"this index keeps passage texts: pass passages= ({n_new} texts)")
        return []
    if isinstance(passages, str):
        raise InvalidTypeError("passages must be a sequence of strings, got a string")
    passages = list(passages)
    if not index.passages and index.n_passages:
        raise InvalidValueError("this index keeps no passage texts (built without passages=): pass none")
    if len(passages) != n_new:
        raise InvalidValueError(f"passages must have one text per new passage ({n_new}), got {len(passages)}")
    for j, t in enumerate(passages):
        if not isinstance(t, str):
            raise InvalidTypeError(f"passages[{j}] must be a string, got {type(t).__name__}")
    return passages


_FEW = 64
"""Up to this many new phrases are inserted into the sorted list one by one; more are merged by a sort."""


def _update(
    index: HippoIndex, keep: np.ndarray, new_triples, new_dropped, new_texts, *, refit: bool, labels
) -> HippoIndex:
    """The index over passages ``keep`` (old ids, increasing) followed by the new passages."""
    old = index
    refit = refit and hasattr(old.encoder, "fit")  # an encoder with nothing to fit is always fixed
    settings = {**old.settings, "fit_encoder": refit}
    pure_add = keep.size == old.n_passages  # keep is increasing: every old passage, in order
    gone = np.zeros(0, dtype=np.int64) if pure_add else complement(keep, old.n_passages)
    kept_triples = _without(old.triples, gone)
    triples = kept_triples + list(new_triples)

    # Old nodes survive if a kept passage still mentions them (every phrase of a triple is in P).
    mentioned = {p for doc in new_triples for s, _, o in doc for p in (s, o)}
    if gone.size:
        alive = rows_outside(sp.csr_array(old.mentions), gone)
        kept_phrases = _without(old.phrases, complement(alive, old.n_nodes))
        stays = np.zeros(old.n_nodes, dtype=bool)
        stays[alive] = True
        added = sorted(p for p in mentioned if (i := _old_id(old, p)) < 0 or not stays[i])
    else:  # a pure add keeps every node: no scan of P or of the phrase list
        alive = np.arange(old.n_nodes)
        kept_phrases = old.phrases
        added = sorted(p for p in mentioned if _old_id(old, p) < 0)
    if len(added) > _FEW:
        phrases = sorted(kept_phrases + added)  # two sorted runs: a linear merge for Timsort
    else:  # a few phrases into a sorted list: inserts, no sort
        phrases = list(kept_phrases)
        for a in added:
            phrases.insert(bisect.bisect_left(phrases, a), a)
    if not phrases:
        raise InvalidValueError(
            f"no phrase nodes would remain: none of the {keep.size + len(new_triples)} passages left has "
            f"a usable triple, and an index needs at least one node to start a walk from"
        )
    n = len(phrases)
    # Kept phrase k moves up by the number of added phrases sorting before it.
    at = np.asarray([bisect.bisect_left(kept_phrases, a) for a in added], dtype=np.int64)
    added_pos = at + np.arange(at.size)
    old_to_new = np.full(old.n_nodes, -1, dtype=np.int64)
    old_to_new[alive] = np.arange(alive.size) + np.searchsorted(at, np.arange(alive.size), side="right")
    # New id of every phrase the new triples mention (a kept node or an added one).
    ids = {old.phrases[i]: int(old_to_new[i]) for i in _phrases_of(old, new_triples)}
    ids.update(zip(added, added_pos.tolist(), strict=True))

    # Relation counts: move, subtract what the deleted passages stated, add the new passages'.
    R_old = old.relation_graph
    if gone.size:
        gone_triples = [old.triples[j] for j in gone.tolist()]
        # the ids of their phrases alone: the whole phrase -> id table costs 2 s at 4.7 million nodes
        gone_ids = {old.phrases[i]: i for i in _phrases_of(old, gone_triples)}
        R_gone, _ = relation_and_mentions(gone_triples, gone_ids, old.n_nodes)
    R_new, P_new = relation_and_mentions(list(new_triples), ids, n)
    col_map = np.full(old.n_passages, -1, dtype=np.int64)
    col_map[keep] = np.arange(keep.size)
    P_new = sp.coo_array(P_new)
    P_new = sp.csr_array((P_new.data, (P_new.row, P_new.col + keep.size)), shape=(n, len(triples)))
    if pure_add:  # one copy of each matrix, the new entries merged on the way
        R = grow(R_old, (n, n), R_new, row_map=old_to_new, col_map=old_to_new)
        P = grow(old.mentions, (n, len(triples)), P_new, row_map=old_to_new, col_map=col_map)
    else:
        # Every edge the deleted triples counted is an edge of R: subtracted from R's fresh copy, in
        # place; a deleted node's edges all came from deleted triples, so remap has dropped them.
        R = remap(R_old, old_to_new, old_to_new, (n, n))
        R = subtract_stored(R, remap(R_gone, old_to_new, old_to_new, (n, n)))
        if R_new.nnz:
            R = sp.csr_array(R + R_new)
            R.sum_duplicates()
            R.eliminate_zeros()
        P = remap(old.mentions, old_to_new, col_map, (n, len(triples)))
        if P_new.nnz:
            P = sp.csr_array(P + P_new)
            P.sum_duplicates()

    S = None  # the synonymy edges: from pairs by assemble_index after a refit, else the old ones patched
    if refit:
        # Refitting changes every IDF, hence every row and cosine: recompute them as a build does.
        enc, E = fit_encode(old.encoder, phrases, fit=True)
        if settings["synonymy"]:
            pairs = similar_pairs(E, synonymy_eligible(phrases), tau=settings["tau"],
                                  k=settings["max_synonyms"], budget=settings.get("search_budget"))
        else:
            pairs = sp.csr_array((n, n))
    else:
        enc = old.encoder
        E_old = old.node_embeddings
        # No call for no phrase: an encoder may not return a 2-D matrix for an empty batch.
        E_add = encode_phrases(enc, added) if added else E_old[:0]
        E = merge_rows(E_old, alive, old_to_new[alive], E_add, added_pos, n)
        if settings["synonymy"]:
            k = settings["max_synonyms"]
            # after a delete, the nodes whose full list lost a neighbour (an add loses none)
            short = np.zeros(0, np.int64) if pure_add else old_to_new[_short_after_delete(old, old_to_new, k)]
            rows = np.union1d(added_pos[synonymy_eligible(added)], short)
            # A node's stored list and its exact recomputation hold the same values, so the larger
            # of the two is either one; then each node keeps its k nearest, as a build does.
            found = _new_pairs(E, rows, phrases, settings["tau"])
            if pure_add:
                moved = grow(old.pairs, (n, n), found, row_map=old_to_new, col_map=old_to_new,
                             combine=np.maximum)
            else:
                moved = sp.csr_array(remap(old.pairs, old_to_new, old_to_new, (n, n)).maximum(found))
            pairs = keep_nearest(moved, k)
            # Only the rows the new pairs reach, and the nodes whose relation edges changed (of the
            # new triples and of the deleted ones), can change an edge; a deleted node takes its
            # edges with it. The rest of the old synonymy graph is kept.
            touched = np.union1d(np.flatnonzero(np.diff(found.indptr)), list(ids.values()))
            if gone.size:
                lost = old_to_new[np.unique(sp.coo_array(R_gone).coords)]
                touched = np.union1d(touched, lost[lost >= 0])
            S = patch_synonymy_edges(old.synonymy_graph, pairs, R, touched, row_map=old_to_new)
        else:
            pairs = sp.csr_array((n, n))
    counts = _updated_counts(old, gone, new_triples)
    dropped = np.r_[old.dropped[keep], np.asarray(new_dropped, dtype=np.int64)]
    texts = []
    if old.passages or new_texts:  # an index built without texts keeps none
        texts = _without(old.passages, gone)
        texts += list(new_texts)
    new = assemble_index(
        phrases=phrases,
        triples=triples,
        dropped=dropped,
        R=R,
        P=P,
        E=E,
        pairs=pairs,
        encoder=enc,
        passages=texts,
        settings=settings,
        counts=counts,
        S=S,
    )
    return _labelled(new, old, keep, labels)


def _without(items, positions: np.ndarray) -> list:
    """``items`` as a new list without the items at ``positions`` (increasing): a copy and a few
    deletes, not a new list item by item, when there are few of them."""
    if positions.size > _FEW:
        return [items[j] for j in complement(positions, len(items)).tolist()]
    out = list(items)
    for j in positions[::-1].tolist():
        del out[j]
    return out


def _short_after_delete(old: HippoIndex, old_to_new: np.ndarray, k: int) -> np.ndarray:
    """Surviving old nodes whose list of k nearest lost a deleted node: their next nearest was never
    stored, so their list is searched again. A shorter list held every neighbour already."""
    C = sp.coo_array(old.pairs)
    dead = old_to_new[C.col] < 0
    lost = np.unique(C.row[dead])
    full = np.diff(sp.csr_array(old.pairs).indptr) >= k
    return lost[full[lost] & (old_to_new[lost] >= 0)]


def _updated_counts(old: HippoIndex, gone: np.ndarray, new_triples) -> tuple[int, int]:
    """:func:`triple_counts` after dropping passages ``gone`` and appending ``new_triples``, without
    a pass over the old triples.

    A triple is stated by an old passage only if that passage mentions both its phrases (every
    phrase of a triple is in P), so whether any kept passage states it is read from the few
    passages in both phrases' rows of P. A deleted triple leaves the distinct count when no kept
    passage states it; a new one joins it when none does. Self-loops count every occurrence.
    """
    skip = set(gone.tolist())
    removed = set().union(*(old.triples[j] for j in skip)) if skip else set()
    added = set().union(*new_triples) if new_triples else set()
    unique = old.stats.n_unique_triples
    unique -= sum(not _kept_states(old, t, skip) for t in removed)
    unique += sum(not _kept_states(old, t, skip) for t in added)
    loops = old.stats.triples_self_loop
    loops -= sum(s == o for j in skip for s, _, o in old.triples[j])
    loops += sum(s == o for doc in new_triples for s, _, o in doc)
    return unique, loops


def _kept_states(old: HippoIndex, triple, skip: set[int]) -> bool:
    """Whether an old passage outside ``skip`` states ``triple``: only the passages that mention
    both of its phrases are read, and none when no old triple joins them (no relation edge)."""
    s, _, o = triple
    i, j = _old_id(old, s), _old_id(old, o)
    if i < 0 or j < 0:
        return False
    R = old.relation_graph
    if s != o and not np.any(R.indices[R.indptr[i] : R.indptr[i + 1]] == j):
        return False  # (a self-loop has no edge: its passages are read)
    P = old.mentions
    both = np.intersect1d(P.indices[P.indptr[i] : P.indptr[i + 1]], P.indices[P.indptr[j] : P.indptr[j + 1]],
                          assume_unique=True)  # fmt: skip
    return any(triple in old.triples[p] for p in both.tolist() if p not in skip)


def _phrases_of(old: HippoIndex, triples) -> list[int]:
    """Old node ids of the phrases that ``triples`` mention."""
    found = (_old_id(old, p) for p in {p for doc in triples for s, _, o in doc for p in (s, o)})
    return [i for i in found if i >= 0]


def _old_id(old: HippoIndex, phrase: str) -> int:
    """Node id of ``phrase`` in ``old`` (-1 if absent), by bisection (:meth:`HippoIndex.node_id`): an
    update touches a few phrases, and spares building the whole ``phrase_ids`` dict."""
    return old.node_id(phrase)


_DENSE_BLOCK = 8
"""New rows compared with every node per dense block: one pass over E per block of this many."""


def _new_pairs(E, rows: np.ndarray, phrases: list[str], tau: float) -> sp.csr_array:
    """Pairs (both directions) between ``rows`` and every eligible node with cosine >= tau.

    The same product and threshold (``tau - KEEP_SLACK``) as
    :func:`~pathfinding.hipporag.index.build.cosine_neighbours`: for a sparse E each cosine is summed
    over shared n-grams in column order whichever operand is on the left, so the values are
    bit-identical to a fresh build's.
    """
    n = E.shape[0]
    if rows.size == 0:
        return sp.csr_array((n, n))
    if sp.issparse(E):
        E = sp.csr_array(E)
        # E @ (a few new rows, dense): one pass over E's entries per block, no transposed copy of E.
        # Each sum runs over E's row in column order; the new row's zeros add exact +0.0 terms.
        parts = []
        for lo in range(0, rows.size, _DENSE_BLOCK):
            block = rows[lo : lo + _DENSE_BLOCK]
            D = E @ E[block].T.toarray()
            c, j = np.nonzero(D >= tau - KEEP_SLACK)
            parts.append((c, block[j], D[c, j]))
        c, r, v = (np.concatenate(x) for x in zip(*parts, strict=True))
        ok = np.ones(r.size, dtype=bool)
    else:
        S = np.asarray(E)[rows] @ np.asarray(E).T
        r, c = np.nonzero(S >= tau - KEEP_SLACK)
        v = S[r, c]
        r = rows[r]
        ok = np.ones(r.size, dtype=bool)
    ok &= r != c
    cand = np.unique(c[ok])  # eligibility of the few candidate columns, not of every phrase
    eligible = np.zeros(n, dtype=bool)
    eligible[cand] = synonymy_eligible([phrases[i] for i in cand.tolist()])
    ok &= eligible[c]
    C = sp.csr_array((v[ok], (r[ok], c[ok])), shape=(n, n))
    return sp.csr_array(C.maximum(C.T))
