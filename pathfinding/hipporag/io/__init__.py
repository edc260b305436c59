"""The files people bring: corpora, OpenIE outputs, the release's question and query-NER files.

* :mod:`~pathfinding.hipporag.io.loaders` -- one loader per format of the HippoRAG release (corpus,
  OpenIE, MuSiQue questions, query NER), with what each found wrong counted in a ``LoadReport``;
* :mod:`~pathfinding.hipporag.io.corpusfiles` -- the corpus shapes beyond the release's: JSON lines,
  HotpotQA's title -> sentences object, a folder of text files;
* :mod:`~pathfinding.hipporag.io.splitting` -- long documents cut into passages along their
  headings, paragraphs and sentences;
* :mod:`~pathfinding.hipporag.io.formats` -- HotpotQA's and 2WikiMultihopQA's question files;
* :mod:`~pathfinding.hipporag.io.questions` -- your own question files, with supporting titles;
* :mod:`~pathfinding.hipporag.io.records` -- the records the loaders return.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(
        ["ID_FIELDS", "check_alignment", "iter_openie", "load_corpus", "load_openie", "load_query_ner",
         "load_questions", "need", "read_json", "read_text"],
        "pathfinding.hipporag.io.loaders",
    ),
    "CORPUS_SUFFIXES": "pathfinding.hipporag.io.corpusfiles",
    **dict.fromkeys(["FileStamp", "LoadReport", "OpenIEPassage", "Passage", "QueryNER", "Question", "Source"],
                    "pathfinding.hipporag.io.records"),
    **dict.fromkeys(["DEFAULT_MAX_CHARS", "split_document"], "pathfinding.hipporag.io.splitting"),
    **dict.fromkeys(["load_2wiki_questions", "load_hotpotqa_questions"], "pathfinding.hipporag.io.formats"),
    **dict.fromkeys(["EvalQuestion", "read_eval_questions"], "pathfinding.hipporag.io.questions"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
