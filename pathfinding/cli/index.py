"""``pathfinding hipporag index``, ``add`` and ``delete``: build an index file, grow it, shrink it.

``index CORPUS --openie FILE -o INDEX`` or ``index CORPUS --extractor cooccurrence -o INDEX`` (no
model) builds and saves (:mod:`~pathfinding.hipporag.index.persistence`), with the query cache beside
it (:mod:`~pathfinding.hipporag.retrieval.querycache`); ``--encoder URL`` embeds the phrases with an
OpenAI-compatible embeddings endpoint (:mod:`~pathfinding.hipporag.index.embeddings`). ``add INDEX
--corpus FILE --openie FILE`` and ``delete INDEX IDS...`` update the file in place (or write ``-o``),
equal to a rebuild (:mod:`~pathfinding.hipporag.index.maintenance`), holding an exclusive lock on it
from the read to the write (:mod:`~pathfinding.hipporag.storage.safety`).

``add`` skips a passage whose title and text are already in the index (or earlier in the same
corpus), and says so, unless ``--allow-duplicates``. A Ctrl-C says what it left: before the index is
saved, the file is as it was (status 130, and rerunning is safe); once it is saved, the command's
work is done, so the interrupt only skips what follows (writing the query cache, which the next
query writes) and the status is 0, with a line that says the file was saved.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from typing import NamedTuple

from pathfinding._argtypes import positive_int
from pathfinding.cli.common import (
    add_corpus_flags,
    add_endpoint_flags,
    add_json_flag,
    add_write_flags,
    check_input_path,
    check_output_path,
    check_text_input,
    configure_endpoint,
    corpus_options,
    emit,
    guard_output,
    note,
    progress,
    says_what_was_written,
    writer_lock,
)
from pathfinding.cli.estimate import add_estimate_flags
from pathfinding.errors import InvalidValueError

__all__ = ["add_index_command", "add_update_commands", "save_with_cache", "triples_for"]


def _encoder_from_args(args):
    """The ``--encoder URL`` endpoint's encoder, or None for the offline default."""
    if getattr(args, "encoder", None) is None:
        return None
    from pathfinding.hipporag.index.embeddings import EmbeddingEncoder

    try:
        return EmbeddingEncoder(
            args.encoder,
            model=args.encoder_model,
            api_key=os.environ.get("PATHFINDING_EMBEDDINGS_API_KEY"),
            cache=args.encoder_cache or args.output + ".embeddings.sqlite",
            timeout=args.timeout,
            max_retries=args.retries,
            backoff=args.backoff,
        )
    except ValueError as exc:
        raise InvalidValueError(f"--encoder: {exc}") from None


def _why_no_triples(corpus, docs) -> dict[int, str]:
    """Passage id -> why the no-model extractor found no triple in it, for the passages without one."""
    from pathfinding.hipporag.extract.cooccurrence import why_no_triples

    return {
        j: why_no_triples(p.title, p.text) or "no pair of spans in one sentence"
        for j, (p, d) in enumerate(zip(corpus, docs, strict=True))
        if not d.triples
    }


def _reasons(why: dict[int, str]) -> str:
    """Each reason with its count and the first passage ids, most common first."""
    by_reason: dict[str, list[int]] = {}
    for j, reason in why.items():
        by_reason.setdefault(reason, []).append(j)
    parts = sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return "; ".join(
        f"{len(ids)} x {reason} (passage {', '.join(map(str, ids[:3]))}{', ...' if len(ids) > 3 else ''})"
        for reason, ids in parts
    )


def _passages_and_triples(args, corpus_path):
    """Corpus passages and, per passage, its triples (:func:`triples_for`)."""
    from pathfinding.hipporag.io.loaders import load_corpus

    _triple_source(args)
    check_text_input(corpus_path, "a corpus file or folder", folder_ok=True)
    if args.openie is not None:
        check_text_input(args.openie, "an OpenIE file")
    corpus, creport = load_corpus(corpus_path, **corpus_options(args))
    if creport.n_issues:
        note(creport.summary())
    if not corpus:
        raise InvalidValueError(f"{corpus_path}: the corpus has no passage")
    triples, report = triples_for(args, corpus, corpus_path)
    report.files = creport.files  # a folder's file stamps, kept in the index for `sync`
    return corpus, triples, report


def _triple_source(args) -> str:
    """``"openie"`` or ``"cooccurrence"``: where the command takes triples from (exactly one given)."""
    extractor = getattr(args, "extractor", None)
    if args.openie is not None and extractor is not None:
        raise InvalidValueError("give either --openie FILE or --extractor, not both")
    if args.openie is None and extractor is None:
        raise InvalidValueError(
            "no triples for the corpus: pass --openie FILE (a HippoRAG OpenIE JSON for these passages, "
            "e.g. from `pathfinding hipporag openie`) or --extractor cooccurrence (no model)"
        )
    return "openie" if args.openie is not None else extractor


def triples_for(args, corpus, corpus_path: str):
    """Per passage of ``corpus``, its triples, and the report of where they came from; every source
    of triples is chosen here.

    The triples come from a HippoRAG OpenIE file (``--openie``, e.g. written by ``pathfinding
    hipporag openie``), matched to the corpus by title and text, or from the model-free extractor
    (``--extractor cooccurrence``).
    """
    from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs
    from pathfinding.hipporag.io.loaders import iter_openie
    from pathfinding.hipporag.io.records import LoadReport

    if _triple_source(args) == "cooccurrence":
        docs = cooccurrence_docs(corpus)
        report = LoadReport(source="cooccurrence", n_records=len(docs))
        why = _why_no_triples(corpus, docs)
        if len(why) == len(corpus):
            raise InvalidValueError(
                f"--extractor cooccurrence found no triple in any of the {len(corpus)} passages of "
                f"{corpus_path} ({_reasons(why)}); use an LLM's triples instead: "
                f"`pathfinding hipporag openie` then --openie FILE"
            )
        if why:
            note(f"{len(why)} of {len(corpus)} passages gave no triple: {_reasons(why)}")
        return [d.triples for d in docs], report
    check_text_input(args.openie, "an OpenIE file")
    # The file is read record by record and only the triples are kept, found by a digest of the
    # passage's title and text (16 bytes a passage, not a second copy of the corpus' text): at a
    # million synthetic passages the reading held 7.06 GB when the file was loaded whole, 3.83 GB
    # read this way (before the triples' strings were interned).
    first: dict[bytes, int] = {}
    for j, p in enumerate(corpus):
        first.setdefault(_digest(p.key), j)
    found: list = [None] * len(corpus)
    unused = 0
    oreport = LoadReport(source=str(args.openie))
    for d in iter_openie(args.openie, oreport):
        j = first.get(_digest(d.key))
        if j is None or corpus[j].key != d.key:
            unused += 1
        elif found[j] is None:  # the first record of a passage is its triples
            found[j] = d.triples
    if oreport.n_issues:
        note(oreport.summary())
    triples = [found[first[_digest(p.key)]] for p in corpus]  # a repeated passage: its first's
    missing = [j for j, t in enumerate(triples) if t is None]
    if missing:
        j = missing[0]
        raise InvalidValueError(
            f"{len(missing)} of {len(corpus)} corpus passages have no record in {args.openie} "
            f"(matched by title and text; first: [{j}] {corpus[j].title!r})"
        )
    if unused:
        note(f"note: {unused} records of {args.openie} match no corpus passage and were not used")
    return triples, oreport


def _digest(key: str) -> bytes:
    return hashlib.blake2b(key.encode(), digest_size=16).digest()


def save_with_cache(index, path: str) -> None:
    """Write the index to ``path`` and its query cache beside it, as ``index`` and ``add`` do."""
    _save(index, path)


def _stats_dict(index) -> dict:
    return dataclasses.asdict(index.stats)


def _save(index, path: str) -> None:
    """Write the index, then its query cache (so that the first question is quick too)."""
    from pathfinding.hipporag.index.persistence import save_index
    from pathfinding.hipporag.retrieval.querycache import write_cache

    save_index(index, path)
    try:
        # the command exits next: each derived object is freed once written (its peak memory is
        # the largest of them, not their sum)
        write_cache(index, path, keep_derived=False)
    except OSError as exc:
        note(f"note: no query cache written beside {path} ({exc.strerror or exc})")
    except InvalidValueError as exc:
        note(f"note: no query cache written: {exc}")


class _Label(NamedTuple):
    """What :func:`~pathfinding.hipporag.index.model.with_passage_labels` reads of a record."""

    doc_id: str | None
    source: object


def _cmd_index(args) -> int:
    from pathfinding.hipporag.index.build import build_index
    from pathfinding.hipporag.index.model import with_passage_labels

    if args.estimate:
        from pathfinding.cli.estimate import estimate_corpus

        return estimate_corpus(args, args.corpus)

    check_output_path(args.output)
    inputs = [("the corpus", args.corpus), ("the OpenIE file", args.openie)]
    guard_output(args.output, kind="index", inputs=inputs, force=args.force)
    encoder = _encoder_from_args(args)
    t0 = time.perf_counter()
    with progress(3, "index") as bar:
        bar.set_postfix_str("reading")
        corpus, triples, report = _passages_and_triples(args, args.corpus)
        bar.update()
        bar.set_postfix_str("building")
        # The index keeps each passage as one string (title, newline, text) and the labels need only
        # the records' ids and sources, so the records go before the build and the triples after it:
        # held through the build, the save and the query cache, they were a second copy of the
        # corpus' text (1.4 GB of records at a million passages) and 1.2 KB of triples a passage.
        passages = [p.key for p in corpus]
        labels = [_Label(p.doc_id, p.source) for p in corpus]
        del corpus
        index = build_index(
            triples, passages=passages, tau=args.tau, max_synonyms=args.max_synonyms, encoder=encoder,
        )  # fmt: skip
        del triples, passages
        index = with_passage_labels(index, labels, files=report.files)
        bar.update()
        bar.set_postfix_str("writing")
        with writer_lock(args.output, args):
            _save(index, args.output)
        bar.update()
    secs = time.perf_counter() - t0
    if args.json:
        out = {"index": args.output, "bytes": os.path.getsize(args.output), "seconds": secs}
        out |= {"stats": _stats_dict(index), "settings": index.settings, "openie": report.to_dict()}
        emit(json.dumps(out, indent=2))
    else:
        emit(index.stats.summary())
        emit(f"wrote {args.output} ({os.path.getsize(args.output):,} bytes) in {secs:.1f} s")
    return 0


def _duplicates(index, corpus) -> list[int]:
    """Positions of the corpus passages whose title and text are in the index or earlier in the corpus."""
    have = set(index.passages)
    out = []
    for j, p in enumerate(corpus):
        if p.key in have:
            out.append(j)
        have.add(p.key)
    return out


def _skip_duplicates(args, index, corpus, triples):
    """The corpus and triples without the passages already in the index (unless --allow-duplicates),
    and how many were skipped; each decision said on stderr."""
    name, where = os.path.basename(args.corpus), os.path.basename(args.index)
    if not index.passages:
        note(f"note: {where} keeps no passage texts, so a passage already in it cannot be recognised")
        return corpus, triples, 0
    dup = _duplicates(index, corpus)
    if not dup:
        return corpus, triples, 0
    first = f"e.g. [{dup[0]}] {corpus[dup[0]].title!r}"
    if args.allow_duplicates:
        note(f"{name}: {len(dup)} of {len(corpus)} passages are already in {where} (same title and text), "
             f"added again as --allow-duplicates asks, {first}")  # fmt: skip
        return corpus, triples, 0
    note(f"{name}: {len(dup)} of {len(corpus)} passages are already in {where} (same title and text) and "
         f"were skipped, {first}; --allow-duplicates adds them again")  # fmt: skip
    gone = set(dup)
    keep = [j for j in range(len(corpus)) if j not in gone]
    return [corpus[j] for j in keep], [triples[j] for j in keep], len(dup)


def _cmd_add(args) -> int:
    from pathfinding.hipporag.index.maintenance import add_passages
    from pathfinding.hipporag.index.persistence import load_index

    check_input_path(args.index, "an index file")
    out = check_output_path(args.output or args.index)
    inputs = [("the corpus", args.corpus), ("the OpenIE file", args.openie)]
    guard_output(out, kind="index", inputs=inputs, force=args.force)
    t0 = time.perf_counter()
    with progress(3, "add") as bar:
        bar.set_postfix_str("reading")
        corpus, triples, report = _passages_and_triples(args, args.corpus)
        # Locked from reading the index to writing it: passages another writer added meanwhile are
        # in what is read, so neither process loses the other's.
        with writer_lock(out, args):
            index = load_index(args.index)
            configure_endpoint(index.encoder, args)
            corpus, triples, skipped = _skip_duplicates(args, index, corpus, triples)
            if not corpus:  # nothing new: no file is written
                what = "is unchanged" if out == args.index else "was not written"
                if args.json:
                    res = {"index": out, "added_ids": [], "duplicates_skipped": skipped, "written": False}
                    emit(json.dumps(res, indent=2))
                else:
                    emit(f"added 0 passages: {out} {what}")
                return 0
            bar.update()
            bar.set_postfix_str("adding")
            first = index.n_passages
            texts = [p.key for p in corpus]
            index = add_passages(index, triples, texts if index.passages else None, refit=args.refit,
                                 **_labels(corpus, report.files))  # fmt: skip
            bar.update()
            bar.set_postfix_str("writing")
            _save(index, out)
        bar.update()
    secs = time.perf_counter() - t0
    new_ids = list(index.passage_ids[first:])
    if args.json:
        res = {"index": out, "added_ids": new_ids, "seconds": secs, "stats": _stats_dict(index)}
        res |= {"duplicates_skipped": skipped}
        emit(json.dumps(res | {"openie": report.to_dict()}, indent=2))
    else:
        span = ("id " if len(new_ids) == 1 else f"ids {new_ids[0]} .. ") + new_ids[-1] if new_ids else "none"
        emit(f"added {len(new_ids)} passages ({span})")
        emit(index.stats.summary())
        emit(f"wrote {out} in {secs:.1f} s")
    return 0


def _labels(corpus, files) -> dict:
    """``add_passages``'s ``ids``, ``sources`` and ``files`` for new passages read from a corpus."""
    return {"ids": [p.doc_id for p in corpus], "sources": [p.source for p in corpus], "files": files}


def _cmd_delete(args) -> int:
    from pathfinding.hipporag.index.maintenance import delete_passages
    from pathfinding.hipporag.index.persistence import load_index

    check_input_path(args.index, "an index file")
    out = check_output_path(args.output or args.index)
    guard_output(out, kind="index", force=args.force)
    ids = list(dict.fromkeys(args.ids))
    with writer_lock(out, args):
        index = load_index(args.index)
        index = delete_passages(index, ids=ids, refit=args.refit)
        _save(index, out)
    if args.json:
        res = {"index": out, "deleted_ids": ids}
        emit(json.dumps(res | {"stats": _stats_dict(index)}, indent=2))
    else:
        emit(f"deleted {len(ids)} passages ({', '.join(ids)}); the others keep their ids")
        emit(index.stats.summary())
        emit(f"wrote {out}")
    return 0


def _triple_extractor_flag(p) -> None:
    p.add_argument(
        "--extractor",
        choices=["cooccurrence"],
        help="make triples with no model: named spans that share a sentence (instead of --openie)",
    )


def _encoder_flags(p) -> None:
    p.add_argument(
        "--encoder",
        metavar="URL",
        help="an OpenAI-compatible embeddings endpoint (e.g. http://localhost:8080/v1) for synonymy "
        "edges and entity linking, recorded in the index so queries use it too (default: the offline "
        "character-trigram encoder); key from $PATHFINDING_EMBEDDINGS_API_KEY",
    )
    p.add_argument("--encoder-model", metavar="NAME", default="default", help="model name for --encoder")
    p.add_argument(
        "--encoder-cache",
        metavar="PATH",
        help="embeddings cache for --encoder (default: OUTPUT.embeddings.sqlite)",
    )
    add_endpoint_flags(p, "the --encoder endpoint", timeout=60.0)


_CORPUS_HELP = (
    "corpus: a JSON list of {title, text}, JSON lines of {title, text} (an id field is an id, never "
    "a title), HotpotQA's {title: [sentence, ...]} object, or a folder of .txt/.md files (each file "
    "split into passages of at most --max-chars characters), or one such file"
)


def add_index_command(gsub) -> None:
    """Register ``index`` on the ``hipporag`` group's subparsers."""
    p = gsub.add_parser(
        "index",
        help="build an index from a corpus and its triples, save it to one file",
        description="Build an index from CORPUS and its triples and save it to one file. A corpus is "
        "a JSON list of {title, text} (the HippoRAG release's corpus files), JSON lines of {title, "
        "text} (id, _id and doc_id are ids), HotpotQA's {title: [sentence, ...]} object, or a folder "
        "of .txt/.md files (subfolders too) or one such file, each split along its headings and "
        "paragraphs into passages of at most --max-chars characters (a file that fits is one "
        "passage, its path its id). The output never replaces a file this package did not "
        "write, an input, or a file inside the corpus folder; a second writer of the same file "
        "waits (--wait).",
    )  # fmt: skip
    p.add_argument("corpus", help=_CORPUS_HELP)
    p.add_argument("--openie", metavar="FILE", help="HippoRAG OpenIE JSON with the passages' triples")
    _triple_extractor_flag(p)
    add_corpus_flags(p)
    p.add_argument("-o", "--output", required=True, metavar="INDEX", help="index file to write")
    p.add_argument("--tau", type=float, default=0.8, help="synonymy threshold on the cosine (default 0.8)")
    p.add_argument(
        "--max-synonyms", type=positive_int, default=100, help="synonymy neighbours per node (default 100)"
    )
    _encoder_flags(p)
    add_write_flags(p)
    add_json_flag(p)
    add_estimate_flags(p)
    p.set_defaults(func=says_what_was_written(_cmd_index, "index", lambda a: a.output, "the whole index"))


def add_update_commands(gsub) -> None:
    """Register ``add`` and ``delete`` on the ``hipporag`` group's subparsers."""
    p = gsub.add_parser(
        "add",
        help="append a corpus's passages to an index file",
        description="Append the passages of a corpus, with their triples, to an index file (rewritten "
        "in place unless -o); the result equals a fresh build over all the passages. A passage whose "
        "title and text are already there is skipped (--allow-duplicates adds it). Ctrl-C before the "
        "save leaves the file as it was (status 130); after it, the passages are saved (status 0).",
    )
    p.add_argument("index", help="index file (rewritten unless -o)")
    p.add_argument("--corpus", required=True, help=_CORPUS_HELP + " (the new passages)")
    p.add_argument("--openie", metavar="FILE", help="HippoRAG OpenIE JSON with their triples")
    _triple_extractor_flag(p)
    add_corpus_flags(p)
    p.add_argument("-o", "--output", metavar="INDEX", help="write here instead of over the input")
    _refit_flag(p)
    p.add_argument(
        "--allow-duplicates",
        action="store_true",
        help="add a passage even when its title and text are already in the index (by default it is "
        "skipped, and said so)",
    )
    add_endpoint_flags(p, "the index's embeddings endpoint (if it has one)", timeout=60.0)
    add_write_flags(p)
    add_json_flag(p)
    saved = "the new passages added"
    p.set_defaults(func=says_what_was_written(_cmd_add, "add", lambda a: a.output or a.index, saved))

    p = gsub.add_parser(
        "delete",
        help="delete passages by id from an index file",
        description="Delete passages by id (the ids `info --passages` lists: the corpus's own ids, a "
        "folder file's path, else the passage's number) from an index file, rewritten in place "
        "unless -o; the other passages keep their ids, and the result equals a fresh build over the "
        "passages left.",
    )
    p.add_argument("index", help="index file (rewritten unless -o)")
    p.add_argument("ids", nargs="+", metavar="ID", help="passage ids")
    p.add_argument("-o", "--output", metavar="INDEX", help="write here instead of over the input")
    _refit_flag(p)
    add_write_flags(p)
    add_json_flag(p)
    gone = "the passages deleted"
    p.set_defaults(func=says_what_was_written(_cmd_delete, "delete", lambda a: a.output or a.index, gone))


def _refit_flag(p) -> None:
    p.add_argument(
        "--refit",
        action="store_true",
        help="refit the TF-IDF encoder on the new phrase set (costs about a rebuild; by default the "
        "encoder stays as fitted and only the new phrases are encoded)",
    )
