"""Keep an index in step with a folder of documents: re-read only the files that changed.

An index built from a folder keeps, for every file some passage came from, a
:class:`~pathfinding.hipporag.io.records.FileStamp`: the SHA-256 of the file's bytes and the passage
size it was split to (:attr:`~pathfinding.hipporag.index.model.HippoIndex.files`). :func:`plan_sync`
reads the folder now and sorts its files as LlamaIndex's ingestion pipeline does, by content hash and
never by time stamp:

* **added**: in the folder, not in the index;
* **changed**: in both, with another hash (or split to another size);
* **removed**: in the index, no longer in the folder;
* **unchanged**: the same bytes, split the same way; neither read again nor touched.

Only added and changed files are split (:func:`~pathfinding.hipporag.io.corpusfiles.folder_document`),
and only their passages need triples. :func:`apply_sync` then deletes the passages of changed and
removed files and adds the new ones in one update
(:func:`~pathfinding.hipporag.index.maintenance.replace_passages`): every passage of an unchanged
file keeps its id, and a part of a changed file whose place in it did not change gets its id back
(ids are paths and heading slugs). The passages are then put in the order a fresh index has them
(each file's in path order), which moves positions, never ids: with ``refit=True`` (the command's
default) the result equals a fresh index of the folder, matrix for matrix and ranking for ranking
(tested over random edit sequences). Passages that came from no file (a corpus file given to
``add``) are left alone, before the folder's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.index.maintenance import replace_passages
from pathfinding.hipporag.index.model import HippoIndex
from pathfinding.hipporag.io.corpusfiles import folder_document, folder_files, read_document
from pathfinding.hipporag.io.records import FileStamp, Passage
from pathfinding.hipporag.io.splitting import DEFAULT_MAX_CHARS

__all__ = ["SyncPlan", "apply_sync", "index_max_chars", "plan_sync"]


@dataclass
class SyncPlan:
    """What :func:`apply_sync` will do to make an index match a folder.

    Attributes
    ----------
    added, changed, removed, unchanged : list of str
        Files (paths relative to the folder) in each state.
    passages : list of Passage
        The passages of the added and changed files, in path order: those that need triples.
    files : dict of str to FileStamp
        The stamps of the added and changed files, from the bytes that were split.
    gone : list of int
        Positions of the index's passages that go (those of changed and removed files).
    skipped : list of str
        Entries of the folder that are not ``.txt``/``.md`` files.
    """

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list)
    files: dict[str, FileStamp] = field(default_factory=dict)
    gone: list[int] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """True when the index matches the folder already."""
        return not (self.added or self.changed or self.removed)

    def summary(self) -> str:
        """One line: ``"2 added, 1 changed, 0 removed, 5 unchanged files; passages: +7, -4"``."""
        counts = (len(self.added), len(self.changed), len(self.removed), len(self.unchanged))
        head = "{} added, {} changed, {} removed, {} unchanged".format(*counts)
        files = "file" if sum(counts) == 1 else "files"
        return f"{head} {files}; passages: +{len(self.passages)}, -{len(self.gone)}"

    def to_dict(self) -> dict:
        """Plain-dict form for ``--json`` output (the new passages by id)."""
        return {
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "unchanged": len(self.unchanged),
            "new_passages": [p.doc_id for p in self.passages],
            "deleted_passages": len(self.gone),
        }


def index_max_chars(index: HippoIndex) -> int:
    """The passage size the index's files were split to (the default when they disagree or it has
    none): what a sync splits with unless told otherwise."""
    sizes = {stamp.max_chars for stamp in index.files.values()}
    return sizes.pop() if len(sizes) == 1 else DEFAULT_MAX_CHARS


def plan_sync(index: HippoIndex, folder, *, max_chars: int | None = None) -> SyncPlan:
    """Compare ``folder`` with the files ``index`` was made of (see the module docstring).

    Parameters
    ----------
    index : HippoIndex
    folder : str or path-like
    max_chars : int, optional
        Passage size for the files read (0: whole); a file split to another size counts as changed.
        Default: :func:`index_max_chars`.

    Returns
    -------
    SyncPlan

    Raises
    ------
    FormatError
        If the folder holds no text file or vanishes, or a file to read is binary, not UTF-8 or only
        headings.
    InvalidValueError
        If the index records no folder file but already holds passages the folder would add (an
        index built before files were recorded): adding them again would duplicate them.
    """
    import os

    folder = os.fspath(folder)
    size = index_max_chars(index) if max_chars is None else int(max_chars)
    names, skipped = folder_files(folder)
    plan = SyncPlan(skipped=skipped)
    for rel in names:
        text, sha = read_document(folder, rel)
        old = index.files.get(rel)
        if old == FileStamp(sha, size):
            plan.unchanged.append(rel)
            continue
        (plan.changed if old is not None else plan.added).append(rel)
        passages, stamp = folder_document(folder, rel, max_chars=size, read=(text, sha))
        plan.passages += passages
        plan.files[rel] = stamp
    plan.removed = sorted(set(index.files) - set(names))
    going = set(plan.changed) | set(plan.removed)
    sources = index.sources or []
    plan.gone = [j for j, s in enumerate(sources) if s is not None and s.file in going]
    if not index.files and index.passages:
        have = set(index.passages)
        again = [p for p in plan.passages if p.key in have]
        if again:
            raise InvalidValueError(
                f"the index records no folder file, yet {len(again)} of the folder's passages are in it "
                f"already (e.g. {again[0].doc_id!r}): it was built before indexes kept their files; "
                f"build it again from the folder with `index {folder}`"
            )
    return plan


def apply_sync(index: HippoIndex, plan: SyncPlan, triples_per_passage, *, refit: bool = True) -> HippoIndex:
    """The index after ``plan``: the passages of changed and removed files deleted, those of added
    and changed files added with ``triples_per_passage`` (one list per ``plan.passages``).

    ``refit=True`` refits the TF-IDF encoder on the new phrase set, so the index equals a fresh
    build over the folder; False keeps it as fitted (cheaper, as ``add`` does). An empty plan
    returns ``index`` itself.
    """
    if plan.empty:
        return index
    if len(triples_per_passage) != len(plan.passages):
        raise InvalidValueError(
            f"triples_per_passage must have one list per new passage ({len(plan.passages)}), "
            f"got {len(triples_per_passage)}"
        )
    new = replace_passages(
        index,
        plan.gone,
        triples_per_passage,
        [p.key for p in plan.passages] if index.passages else None,
        refit=refit,
        ids=[p.doc_id for p in plan.passages],
        sources=[p.source for p in plan.passages],
        files=plan.files,
    )
    return _in_folder_order(new)


def _in_folder_order(index: HippoIndex) -> HippoIndex:
    """``index`` with its passages in the order a fresh index of the folder has them: those from no
    file first, as they were, then each file's in path order (its own parts in file order).

    Positions are the index's business (ids do not move): in the same order, every tie a ranking
    breaks by position is broken as a fresh index breaks it, so the two rank alike.
    """
    sources = index.sources or [None] * index.n_passages
    keys = [("", "") if s is None or s.file is None else ("1", s.file) for s in sources]
    order = sorted(range(index.n_passages), key=keys.__getitem__)  # stable: a file's parts keep their order
    if order == list(range(index.n_passages)):
        return index
    import dataclasses

    import numpy as np
    import scipy.sparse as sp

    cols = np.asarray(order, dtype=np.int64)
    return dataclasses.replace(
        index,
        mentions=sp.csr_array(sp.csc_array(index.mentions)[:, cols]),
        triples=[index.triples[j] for j in order],
        dropped=np.asarray(index.dropped)[cols],
        passages=[index.passages[j] for j in order] if index.passages else index.passages,
        passage_ids=[index.passage_ids[j] for j in order],
        sources=[sources[j] for j in order] if index.sources is not None else None,
    )
