"""Commands: ``realtext`` and ``realtext-bench`` (the MuSiQue experiment), and the ``hipporag`` group.

``pathfinding hipporag`` works on a user's own corpus and one index file:

* ``openie CORPUS --base-url URL --model NAME -o OPENIE.json`` -- two-step LLM OpenIE through any
  OpenAI-compatible endpoint, resumable (:mod:`~pathfinding.hipporag.extract.cli`);
* ``index CORPUS --openie FILE -o INDEX`` or ``index CORPUS --extractor cooccurrence -o INDEX`` (no
  model) -- build and save (:mod:`~pathfinding.hipporag.index.persistence`);
* ``query INDEX "question" -k 5`` -- passages with scores, the entities and the seeds they linked to;
* ``add INDEX --corpus FILE --openie FILE`` and ``delete INDEX IDS...`` -- update the file in place
  (or write ``-o``), equal to a rebuild (:mod:`~pathfinding.hipporag.index.maintenance`);
* ``bench-add`` -- the add-versus-rebuild ratio on the vendored MuSiQue index.

Every command takes ``--json`` for machine-readable output on stdout; progress bars go to stderr
and only on a terminal. Output piped into ``head`` stops quietly.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time

from pathfinding._validation import positive_int, whole_number
from pathfinding.errors import InvalidValueError

__all__ = ["add_parser"]

_nonneg_int = whole_number(0)


# --- the hipporag group ---------------------------------------------------------------------------

_PIPE_CLOSED = 141  # 128 + SIGPIPE: what `yes | head` reports for `yes`


def _emit(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _quiet_pipe(func):
    """Run a command; when stdout's reader has gone (``| head``), stop without a traceback."""

    def run(args) -> int:
        try:
            return func(args)
        except BrokenPipeError:
            # Point stdout at /dev/null so the interpreter's final flush does not fail again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return _PIPE_CLOSED

    return run


def _progress(total: int, desc: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="step", file=sys.stderr, disable=None, leave=False)


def _note(text: str) -> None:
    print(text, file=sys.stderr)


def _passages_and_triples(args, corpus_path):
    """Corpus passages and, per passage, its triples; every source of triples is chosen here.

    The triples come from a HippoRAG OpenIE file (``--openie``, e.g. written by ``pathfinding
    hipporag openie``), matched to the corpus by title and text, or from the model-free extractor
    (``--extractor cooccurrence``).
    """
    from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs
    from pathfinding.hipporag.io import LoadReport, load_corpus, load_openie

    corpus, creport = load_corpus(corpus_path)
    if creport.n_issues:
        _note(creport.summary())
    extractor = getattr(args, "extractor", None)
    if args.openie is not None and extractor is not None:
        raise InvalidValueError("give either --openie FILE or --extractor, not both")
    if extractor == "cooccurrence":
        docs = cooccurrence_docs(corpus)
        report = LoadReport(source="cooccurrence", n_records=len(docs))
        return [p.key for p in corpus], [d.triples for d in docs], report
    if args.openie is None:
        raise InvalidValueError(
            "no triples for the corpus: pass --openie FILE (a HippoRAG OpenIE JSON for these passages, "
            "e.g. from `pathfinding hipporag openie`) or --extractor cooccurrence (no model)"
        )
    docs, oreport = load_openie(args.openie)
    if oreport.n_issues:
        _note(oreport.summary())
    by_key: dict[str, tuple] = {}
    for d in docs:
        by_key.setdefault(d.key, d.triples)
    missing = [j for j, p in enumerate(corpus) if p.key not in by_key]
    if missing:
        j = missing[0]
        raise InvalidValueError(
            f"{len(missing)} of {len(corpus)} corpus passages have no record in {args.openie} "
            f"(matched by title and text; first: [{j}] {corpus[j].title!r})"
        )
    used = {p.key for p in corpus}
    unused = sum(1 for d in docs if d.key not in used)
    if unused:
        _note(f"note: {unused} records of {args.openie} match no corpus passage and were not used")
    return [p.key for p in corpus], [by_key[p.key] for p in corpus], oreport


def _stats_dict(index) -> dict:
    return dataclasses.asdict(index.stats)


def _cmd_index(args) -> int:
    from pathfinding.hipporag.index.build import build_index
    from pathfinding.hipporag.index.persistence import save_index

    t0 = time.perf_counter()
    with _progress(3, "index") as bar:
        bar.set_postfix_str("reading")
        texts, triples, report = _passages_and_triples(args, args.corpus)
        bar.update()
        bar.set_postfix_str("building")
        index = build_index(triples, passages=texts, tau=args.tau, max_synonyms=args.max_synonyms)
        bar.update()
        bar.set_postfix_str("writing")
        save_index(index, args.output)
        bar.update()
    secs = time.perf_counter() - t0
    if args.json:
        out = {"index": args.output, "bytes": os.path.getsize(args.output), "seconds": secs}
        out |= {"stats": _stats_dict(index), "settings": index.settings, "openie": report.to_dict()}
        _emit(json.dumps(out, indent=2))
    else:
        _emit(index.stats.summary())
        _emit(f"wrote {args.output} ({os.path.getsize(args.output):,} bytes) in {secs:.1f} s")
    return 0


def _cmd_query(args) -> int:
    from pathfinding.hipporag.index.persistence import load_index
    from pathfinding.hipporag.query import link_entities
    from pathfinding.hipporag.retrieve import HippoRetriever

    index = load_index(args.index)
    kw = {} if args.extractor is None else {"extractor": args.extractor}
    retriever = HippoRetriever(index, **kw)
    hit = retriever.retrieve(args.question, k=args.k, entities=args.entity)
    link = link_entities(index, list(hit.entities))
    links = [
        {"entity": e, "node": int(n), "phrase": index.phrases[n], "cosine": float(c)}
        for e, n, c in zip(link.entities, link.nodes.tolist(), link.scores.tolist(), strict=True)
    ]
    texts = index.passages
    rows = [
        {"rank": r + 1, "id": int(j), "score": float(s), "text": texts[j] if texts else None}
        for r, (j, s) in enumerate(zip(hit.passages.tolist(), hit.scores.tolist(), strict=True))
    ]
    if args.json:
        out = {"question": args.question, "entities": list(hit.entities), "links": links}
        out |= {"unlinked": list(link.unlinked), "fell_back": hit.fell_back, "passages": rows}
        _emit(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    _emit(f"question: {args.question}")
    _emit("entities: " + (", ".join(hit.entities) if hit.entities else "(none)"))
    for lk in links:
        _emit(f"  {lk['entity']!r} -> node {lk['node']} {lk['phrase']!r} (cosine {lk['cosine']:.3f})")
    if link.unlinked:
        _emit("  not linked: " + ", ".join(link.unlinked))
    if hit.fell_back:
        _emit("no entity linked to a node: passages ranked by BM25")
    for row in rows:
        text = (row["text"] or "").replace("\n", " | ")
        _emit(f"{row['rank']:3d}. [{row['id']}] {row['score']:.6g}  {text[:160]}")
    return 0


def _save_updated(index, args) -> str:
    from pathfinding.hipporag.index.persistence import save_index

    out = args.output or args.index
    save_index(index, out)
    return out


def _cmd_add(args) -> int:
    from pathfinding.hipporag.index.maintenance import add_passages
    from pathfinding.hipporag.index.persistence import load_index

    t0 = time.perf_counter()
    with _progress(3, "add") as bar:
        bar.set_postfix_str("reading")
        index = load_index(args.index)
        texts, triples, report = _passages_and_triples(args, args.corpus)
        bar.update()
        bar.set_postfix_str("adding")
        first = index.n_passages
        index = add_passages(index, triples, texts if index.passages else None, refit=args.refit)
        bar.update()
        bar.set_postfix_str("writing")
        out = _save_updated(index, args)
        bar.update()
    secs = time.perf_counter() - t0
    new_ids = list(range(first, index.n_passages))
    if args.json:
        res = {"index": out, "added_ids": new_ids, "seconds": secs, "stats": _stats_dict(index)}
        _emit(json.dumps(res | {"openie": report.to_dict()}, indent=2))
    else:
        span = f"ids {new_ids[0]}..{new_ids[-1]}" if new_ids else "none"
        _emit(f"added {len(new_ids)} passages ({span})")
        _emit(index.stats.summary())
        _emit(f"wrote {out} in {secs:.1f} s")
    return 0


def _cmd_delete(args) -> int:
    from pathfinding.hipporag.index.maintenance import delete_passages, renumber_after_delete
    from pathfinding.hipporag.index.persistence import load_index

    index = load_index(args.index)
    old_to_new = renumber_after_delete(index.n_passages, args.ids)
    index = delete_passages(index, args.ids, refit=args.refit)
    out = _save_updated(index, args)
    if args.json:
        res = {"index": out, "deleted_ids": sorted(args.ids), "old_to_new": old_to_new.tolist()}
        _emit(json.dumps(res | {"stats": _stats_dict(index)}, indent=2))
    else:
        _emit(
            f"deleted {len(args.ids)} passages; the others keep their order and close the gaps "
            f"(new id = old id - deleted ids below it)"
        )
        _emit(index.stats.summary())
        _emit(f"wrote {out}")
    return 0


def _triple_extractor_flag(p) -> None:
    p.add_argument(
        "--extractor",
        choices=["cooccurrence"],
        help="make triples with no model: named spans that share a sentence (instead of --openie)",
    )


def _add_hipporag_group(sub):
    from pathfinding.hipporag.extract.cli import add_openie_command
    from pathfinding.hipporag.query import EXTRACTORS

    group = sub.add_parser("hipporag", help="index your own corpus, query it, add and delete passages")
    gsub = group.add_subparsers(dest="hipporag_command", required=True, metavar="SUBCOMMAND")
    add_openie_command(gsub)

    def json_flag(p):
        p.add_argument("--json", action="store_true", help="machine-readable output on stdout")

    p = gsub.add_parser("index", help="build an index from a corpus and its triples, save it to one file")
    p.add_argument("corpus", help="corpus JSON: a list of {title, text}")
    p.add_argument("--openie", metavar="FILE", help="HippoRAG OpenIE JSON with the passages' triples")
    _triple_extractor_flag(p)
    p.add_argument("-o", "--output", required=True, metavar="INDEX", help="index file to write")
    p.add_argument("--tau", type=float, default=0.8, help="synonymy threshold on the cosine (default 0.8)")
    p.add_argument(
        "--max-synonyms", type=positive_int, default=100, help="synonymy neighbours per node (default 100)"
    )
    json_flag(p)
    p.set_defaults(func=_quiet_pipe(_cmd_index))

    p = gsub.add_parser("query", help="rank passages for one question")
    p.add_argument("index", help="index file")
    p.add_argument("question")
    p.add_argument("-k", type=positive_int, default=5, help="passages to return (default 5)")
    p.add_argument("--extractor", choices=sorted(EXTRACTORS), help="query entity extractor")
    p.add_argument("--entity", action="append", metavar="TEXT", help="a query entity (repeatable)")
    json_flag(p)
    p.set_defaults(func=_quiet_pipe(_cmd_query))

    p = gsub.add_parser("add", help="append a corpus's passages to an index file")
    p.add_argument("index", help="index file (rewritten unless -o)")
    p.add_argument("--corpus", required=True, help="corpus JSON of the new passages")
    p.add_argument("--openie", metavar="FILE", help="HippoRAG OpenIE JSON with their triples")
    _triple_extractor_flag(p)
    p.add_argument("-o", "--output", metavar="INDEX", help="write here instead of over the input")
    _refit_flag(p)
    json_flag(p)
    p.set_defaults(func=_quiet_pipe(_cmd_add))

    p = gsub.add_parser("delete", help="delete passages by id from an index file")
    p.add_argument("index", help="index file (rewritten unless -o)")
    p.add_argument("ids", nargs="+", type=_nonneg_int, metavar="ID", help="passage ids")
    p.add_argument("-o", "--output", metavar="INDEX", help="write here instead of over the input")
    _refit_flag(p)
    json_flag(p)
    p.set_defaults(func=_quiet_pipe(_cmd_delete))
    return gsub



def _refit_flag(p) -> None:
    p.add_argument(
        "--refit",
        action="store_true",
        help="refit the TF-IDF encoder on the new phrase set (costs about a rebuild; by default the "
        "encoder stays as fitted and only the new phrases are encoded)",
    )


def add_parser(sub):
    """Register the ``hipporag`` group on argparse subparsers; return the group's own subparsers."""
    return _add_hipporag_group(sub)
