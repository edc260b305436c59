"""A synthetic corpus as the files a user brings: a corpus JSON and a HippoRAG OpenIE file.

:func:`~pathfinding.synthetic.corpus.synthetic_corpus` returns passages and triples in memory, which
is how the scale bench times the library. :func:`write_hipporag_files` writes them in the release's
formats, so that ``pathfinding hipporag index CORPUS --openie OPENIE -o INDEX`` can be run (and
measured) on a million passages as on the release's own files. Both files are written one record at
a time.
"""

from __future__ import annotations

import json
import os

from pathfinding.errors import InvalidTypeError
from pathfinding.synthetic.corpus import SyntheticCorpus

__all__ = ["write_hipporag_files"]


def write_hipporag_files(corpus: SyntheticCorpus, folder) -> tuple[str, str]:
    """Write ``corpus`` as ``corpus.json`` (a JSON list of ``{title, text}``) and ``openie.json``
    (``{"docs": [{title, text, extracted_entities, extracted_triples}]}``, HippoRAG v1's records) in
    ``folder``.

    A passage is ``title + "\\n" + text``; its entities are the subjects and objects of its triples,
    sorted.

    Returns
    -------
    (str, str)
        The paths of the corpus and of the OpenIE file.

    Examples
    --------
    >>> import tempfile
    >>> from pathfinding.hipporag.io.loaders import load_corpus, load_openie
    >>> from pathfinding.synthetic.corpus import synthetic_corpus
    >>> c = synthetic_corpus(20, rng=1)
    >>> corpus_path, openie_path = write_hipporag_files(c, tempfile.mkdtemp())
    >>> [p.key for p in load_corpus(corpus_path)[0]] == c.passages
    True
    >>> [list(d.triples) for d in load_openie(openie_path)[0]] == [list(map(tuple, t)) for t in c.triples]
    True
    """
    if not isinstance(corpus, SyntheticCorpus):
        raise InvalidTypeError(f"corpus must be a SyntheticCorpus, got {type(corpus).__name__}")
    folder = os.fspath(folder)
    corpus_path, openie_path = os.path.join(folder, "corpus.json"), os.path.join(folder, "openie.json")
    dumps = lambda record: json.dumps(record, ensure_ascii=False)  # noqa: E731
    with open(corpus_path, "w", encoding="utf-8") as fc, open(openie_path, "w", encoding="utf-8") as fo:
        fc.write("[")
        fo.write('{"docs": [')
        for j, (passage, triples) in enumerate(zip(corpus.passages, corpus.triples, strict=True)):
            title, _, text = passage.partition("\n")
            sep = ",\n" if j else "\n"
            fc.write(sep + dumps({"title": title, "text": text}))
            entities = sorted({x for s, _, o in triples for x in (s, o)})
            record = {"title": title, "text": text, "extracted_entities": entities,
                      "extracted_triples": [list(t) for t in triples]}  # fmt: skip
            fo.write(sep + dumps(record))
        fc.write("\n]\n")
        fo.write("\n]}\n")
    return corpus_path, openie_path
