"""``pathfinding hipporag query`` and ``eval``: questions against an index, one or many, and R@k.

``query`` answers one question, or many in one run (``--questions FILE`` or ``-`` for stdin: one
question per line, or JSON lines with ``"question"``; JSON lines out, one object per question), with
the default retriever, BM25 or HippoRAG v1's walk (``--retriever``). The index is loaded through its
query cache (:mod:`~pathfinding.hipporag.retrieval.querycache`), so a question from the shell answers quickly.
``eval`` scores the retrievers on a question file with supporting titles
(:mod:`~pathfinding.hipporag.io.questions`).
"""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap

from pathfinding._argtypes import positive_int, unit_interval, whole_number
from pathfinding.cli.common import (
    add_endpoint_flags,
    add_json_flag,
    check_input_path,
    check_text_input,
    configure_endpoint,
    emit,
    human_size,
    note,
    progress,
)
from pathfinding.errors import InvalidValueError

__all__ = ["RETRIEVERS", "Answerer", "add_query_commands", "check_question"]

RETRIEVERS = ("default", "bm25", "v1")
"""``query --retriever`` / ``eval --retriever``: the default hybrid walk, BM25 alone, HippoRAG v1's
walk over phrases (capitalised spans, no fact seeds, no passage nodes)."""


def _load_for_query(path: str, args):
    from pathfinding.hipporag.retrieval.querycache import cache_path, load_for_query

    check_input_path(path, "an index file")

    def skipped(exc) -> None:
        why = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
        note(
            f"note: could not write {cache_path(path)} ({why}): every query of this index derives its "
            f"BM25 and graphs again until it can be written (free space, or copy the index to a "
            f"writable folder)"
        )

    def deriving(cpath) -> None:
        if sys.stderr.isatty():  # a wait the person at the terminal should know the reason for
            size = human_size(os.path.getsize(path))
            note(f"{path}: no current query cache; reading the index whole ({size}) and deriving "
                 f"BM25 and the walk's graphs once, into {cpath}, which later queries read")

    index = load_for_query(path, on_skip=skipped, on_full_load=deriving)
    url = getattr(args, "encoder", None)
    if url is not None:
        from pathfinding.hipporag.index.embeddings import EmbeddingEncoder

        if not isinstance(index.encoder, EmbeddingEncoder):
            raise InvalidValueError(
                f"--encoder {url}: {path} was built with the offline character-trigram encoder; an "
                f"embeddings endpoint must be chosen when the index is built (index --encoder URL)"
            )
        if not url.startswith(("http://", "https://")):
            raise InvalidValueError(f"--encoder must be an http(s) URL, got {url!r}")
        index.encoder.configure(base_url=url)  # the same model served elsewhere
    configure_endpoint(index.encoder, args)
    return index


def _question_lines(source: str) -> list[dict]:
    """Questions from a file or stdin (``-``): one per line, plain text or JSON with ``"question"``."""
    if source == "-":
        text = sys.stdin.read()
        name = "<stdin>"
    else:
        check_text_input(source, "a questions file")
        from pathfinding.hipporag.io.loaders import read_text

        text, name = read_text(source)
    out = []
    for i, line in enumerate(text.splitlines()):
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidValueError(
                    f"{name}: line {i + 1} starts like JSON but is not ({exc.msg})"
                ) from None
            if "question" not in rec:
                raise InvalidValueError(f'{name}: line {i + 1} has no "question" (keys: {sorted(rec)})')
            if not isinstance(rec["question"], str):
                raise InvalidValueError(
                    f'{name}: line {i + 1}: "question" must be a string, got '
                    f"{type(rec['question']).__name__} {rec['question']!r}"
                )
            out.append(rec)
        else:
            out.append({"question": line})
    if not out:
        raise InvalidValueError(f'{name}: no question (one per line, or JSON lines with "question")')
    return out


def check_question(question: str, where: str = "the question") -> str:
    """``question`` if it has a word to search for; an empty or stop-word-only question ("what is
    the") would rank passages by nothing, so it is refused (one line, status 2)."""
    tokens = re.findall(r"\w+", question.casefold())
    if not tokens:
        raise InvalidValueError(f"{where} is empty: {question!r} has no word to search for")
    from pathfinding.hipporag.language.names import STOP_WORDS

    if all(t in STOP_WORDS for t in tokens):
        raise InvalidValueError(
            f"{where} has only stop words ({question!r}): name what you are looking for, e.g. a person, "
            f"a place or a title"
        )
    return question


class Answerer:
    """Answers questions with one named retriever over one index (built once, asked many times).

    Passages with score 0 (no evidence: BM25 shares no word, the walk never reached them) are not
    listed, for every retriever alike, so that neither gets credit in ``eval`` for passages it
    placed by id. With ``one_shot`` (``query``: a process that answers a few questions and exits)
    the default retriever is :class:`~pathfinding.hipporag.retrieval.oneshot.OneShotRetriever`: the same
    ranking, usually without loading the compiled kernels, and every walk score within ``tol``;
    ``eval``, which asks many questions and reads only rankings, keeps the compiled walk.
    """

    def __init__(self, index, name: str, extractor=None, *, one_shot: bool = False, min_link_cosine=None):
        from pathfinding.hipporag.retrieval.lexical import BM25Ranker
        from pathfinding.hipporag.retrieval.retrieve import BM25_KEY

        self.index, self.name = index, name
        if name == "bm25":
            if not index.passages:
                raise InvalidValueError("--retriever bm25 needs passage texts, and this index has none")
            # the same BM25 the default retriever falls back on and mixes in (one per index)
            self.bm25 = index.derived(BM25_KEY, lambda: BM25Ranker(index.passages))
            return
        kw = {} if extractor is None else {"extractor": extractor}
        kw["min_link_cosine"] = min_link_cosine
        if name == "v1":  # the library's v1 (experiments.realtext.V1): capitalised spans, the walk alone
            kw = {"extractor": "capitalised", "guess_weight": 1.0} | kw | {"facts": 0, "passage_weight": 0.0}
        if one_shot and name == "default":
            from pathfinding.hipporag.retrieval.oneshot import OneShotRetriever as Retriever
        else:
            from pathfinding.hipporag.retrieval.retrieve import HippoRetriever as Retriever
        self.retriever = Retriever(index, **kw)

    def rank(self, question: str, k: int):
        """Passage ids, best first (at most ``k``; none with score 0)."""
        return self.answer(question, k)[0]

    def answer(self, question: str, k: int, entities=None, explain: bool = False):
        """(ids, scores, Retrieval or None, Explanation or None); the explanation when asked for."""
        from pathfinding.hipporag.retrieval.lexical import top_k

        if self.name == "bm25":
            s = self.bm25.scores(question)
            ids = top_k(s, k)
            ids = ids[s[ids] > 0]
            if explain:
                from pathfinding.hipporag.retrieval.explain import explain_bm25

                titles = [t.partition("\n")[0] for t in self.index.passages]
                return ids, s[ids], None, explain_bm25(self.bm25, question, ids, s[ids], titles=titles)
            return ids, s[ids], None, None
        why = self.retriever.explain(question, k=k, entities=entities) if explain else None
        hit = why.retrieval if explain else self.retriever.retrieve(question, k=k, entities=entities)
        keep = hit.scores > 0  # a passage the walk never reached has no evidence: not a ranking
        return hit.passages[keep], hit.scores[keep], hit, why

    def record(self, question: str, k: int, entities=None, explain: bool = False) -> dict:
        from pathfinding.hipporag.retrieval.retrieve import NO_MATCH

        ids, scores, hit, why = self.answer(question, k, entities, explain)
        out = {"question": question, "retriever": self.name}
        if hit is not None:
            out["entities"] = list(hit.entities)
            # every entity with its nearest node and cosine; "kept": it reached the floor and seeds
            out["min_link_cosine"] = self.retriever.min_link_cosine
            out["links"] = [
                {
                    "entity": lk.entity,
                    "node": lk.node if lk.node >= 0 else None,
                    "phrase": self.index.phrases[lk.node] if lk.node >= 0 else None,
                    "cosine": lk.cosine,
                    "kept": lk.kept,
                }
                for lk in hit.links
            ]
            out["unlinked"] = [lk.entity for lk in hit.links if lk.node < 0]
            out["not_in_index"] = [lk.entity for lk in hit.links if not lk.kept]
            if hit.reading is not None:  # the question as read: which capitals came from where, and why
                out["reading"] = hit.reading.to_dict()
                out["reading"]["entities"] = [hit.reading.explain(e) for e in hit.entities]
            out["walk_weight"] = hit.walk_weight
            out["fell_back"] = hit.fell_back
            # which walk answered: "scipy" (certified to give the compiled walk's ranking), "compiled"
            walked = "compiled" if why is not None else getattr(self.retriever, "walked_by", "compiled")
            out["walk"] = None if hit.fell_back else walked
        texts, pids = self.index.passages, self.index.passage_ids
        out["passages"] = [
            {"rank": r + 1, "id": pids[j], "score": float(s), "text": texts[j] if texts else None}
            | _source(self.index, j)
            for r, (j, s) in enumerate(zip(ids.tolist(), scores.tolist(), strict=True))
        ]
        if why is not None:
            # the route; "sum_bound": parts vs score, relative; "walk_error": L1 to the exact walk
            out["explain"] = {"route": why.route, "walk_error": why.walk_error, "sum_bound": why.sum_bound}
            by_position = {pe.passage: pe for pe in why.passages}
            for row, j in zip(out["passages"], ids.tolist(), strict=True):
                row["explain"] = by_position[j].to_json()
        if not out["passages"]:
            out["message"] = hit.note if hit is not None and hit.note else NO_MATCH
        return out


def _source(index, j: int) -> dict:
    """A ranked passage's ``source`` (file, headings, character span) for ``--json``, when it has one."""
    src = index.source_of(j)
    return {} if src is None else {"source": src.to_dict()}


def _print_record(rec: dict) -> None:
    emit(f"question: {rec['question']}")
    reading = rec.get("reading")
    if reading is not None and reading["read_as"] != rec["question"]:
        emit(f"read as:  {reading['read_as']}")
        for change in reading["changes"]:
            line = f"  {change['typed']!r} -> {change['read']!r}: {change['why']}"
            for part in textwrap.wrap(line, WIDTH, subsequent_indent="    ") if "explain" in rec else [line]:
                emit(part)
    if "entities" in rec:
        emit("entities: " + (", ".join(rec["entities"]) if rec["entities"] else "(none)"))
        floor = rec["min_link_cosine"]
        for lk in rec["links"]:
            if lk["kept"]:
                emit(f"  {lk['entity']!r} -> node {lk['node']} {lk['phrase']!r} (cosine {lk['cosine']:.3f})")
            elif lk["node"] is not None:
                emit(
                    f"  {lk['entity']!r} is not in the index: its nearest node {lk['phrase']!r} has "
                    f"cosine {lk['cosine']:.3f}, below the floor {floor:g} (--min-link-cosine)"
                )
        if rec["unlinked"]:
            emit("  not in the index (no node has a positive cosine with it): " + ", ".join(rec["unlinked"]))
        if rec["fell_back"] and rec["passages"]:
            emit("no entity linked to a node: passages ranked by BM25")
        elif not rec["fell_back"] and not any(lk["kept"] for lk in rec["links"]):
            emit("no entity linked to a node: the walk starts from the facts that share the question's words")
    else:
        emit("retriever: BM25 over the passages")
    if "message" in rec:
        emit(rec["message"])
    if "explain" in rec:
        from pathfinding.hipporag.retrieval.explain import ROUTES

        emit(f"explained: {ROUTES[rec['explain']['route']]}")
    for row in rec["passages"]:
        text = (row["text"] or "").replace("\n", " | ")
        if "explain" in row:
            head = f"{row['rank']:3d}. [{row['id']}] {row['score']:.6g}  "
            emit(head + _short(text, WIDTH - len(head)))
            for line in explanation_lines(row["explain"]):
                emit(line)
        else:
            emit(f"{row['rank']:3d}. [{row['id']}] {row['score']:.6g}  {text[:160]}")


WIDTH = 100
"""Columns an explained answer fits in."""


def explanation_lines(explain: dict, *, width: int = WIDTH, nodes: int = 3) -> list[str]:
    """A passage's explanation as a short tree of lines, none longer than ``width``: the parts as
    percentages of the score, then the ``nodes`` nodes that brought most, each with its split by
    source and one path per contributing seed."""
    def wrap(head: str, body: str, indent: int) -> list[str]:
        return textwrap.wrap(body, width, initial_indent=head, subsequent_indent=" " * indent) or [head]

    shown = [p for p in explain["parts"] if abs(p["share"]) >= 0.0005]
    small = sum(p["share"] for p in explain["parts"] if abs(p["share"]) < 0.0005)
    parts = [f"{_short(p['source'])} {100 * p['share']:.1f}%" for p in shown]
    if round(100 * small, 1):
        parts.append(f"others {100 * small:.1f}%")
    lines = wrap("       parts ", " + ".join(parts), 13)
    total = sum(v["mass"] for v in explain["via"]) + explain.get("own_restart", 0.0)
    for v in explain["via"][:nodes]:
        share = v["mass"] / total if total > 0 else 0.0
        split = ", ".join(f"{_short(s, 24)} {100 * m / v['mass']:.0f}%" for s, m in v["parts"].items()
                          if v["mass"] > 0 and m >= 0.005 * v["mass"])  # fmt: skip
        lines += wrap("       via  ", f"{v['node']} (x{v['count']:g}) brings {100 * share:.0f}%: {split}", 12)
        for seed, steps in v["path"].items():
            lines += wrap(f"{'':12}{_short(seed, 24)}: ", _path_text(steps), 16)
    return lines


def _path_text(steps: list[dict]) -> str:
    """A seed's path as one line, passages in brackets as the ranking lines show them: a title that
    is also a phrase ("doc2 -[mentioned 5x]- [doc2]") then reads as the step it is, not as a loop.
    A path starts at a seed (a phrase), and every passage step crosses between a phrase and a
    passage, so the steps say which end is which."""
    walk, in_passage = steps[0]["from"], False
    for st in steps:
        in_passage ^= st["kind"] == "passage"
        walk += f" -[{st['label']}]- " + (f"[{st['to']}]" if in_passage else st["to"])
    return walk


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _cmd_query(args) -> int:
    if (args.question is None) == (args.questions is None):
        raise InvalidValueError('give one question, or --questions FILE (or "-" for stdin), not both')
    if args.retriever == "bm25" and (args.entity or args.extractor or args.min_link_cosine is not None):
        raise InvalidValueError(
            "--entity, --extractor and --min-link-cosine choose the walk's seeds; --retriever bm25 has none"
        )
    blank = [e for e in args.entity or () if not e.strip()]
    if blank:
        raise InvalidValueError(f"--entity needs a name, got {blank[0]!r}")
    batch = _question_lines(args.questions) if args.questions is not None else None
    index = _load_for_query(args.index, args)
    if batch is None:
        check_question(args.question)
    answerer = Answerer(
        index, args.retriever, args.extractor, one_shot=True, min_link_cosine=args.min_link_cosine
    )
    if batch is None:
        rec = answerer.record(args.question, args.k, args.entity, args.explain)
        if args.json:
            emit(json.dumps(rec, indent=2, ensure_ascii=False))
        else:
            _print_record(rec)
        return 0
    unsearchable = []
    for i, q in enumerate(batch):  # JSON lines: one object per question, the input's other fields kept
        try:
            check_question(q["question"], f"question {i + 1}")
            rec = answerer.record(q["question"], args.k, args.entity, args.explain)
        except InvalidValueError as exc:  # the others are still answered; this one says why not
            unsearchable.append(i + 1)
            rec = {"question": q["question"], "passages": [], "message": str(exc)}
        emit(json.dumps({k: v for k, v in q.items() if k != "question"} | rec, ensure_ascii=False))
    if unsearchable:
        shown = ", ".join(map(str, unsearchable[:5])) + (", ..." if len(unsearchable) > 5 else "")
        note(
            f"pathfinding hipporag query: error: {len(unsearchable)} of {len(batch)} questions have no "
            f"word to search for (question {shown}); their lines say why"
        )
        return 1
    return 0


def _cmd_eval(args) -> int:
    from pathfinding.hipporag.evaluation.compare import evaluate_retrievers, match_supporting, shared_titles
    from pathfinding.hipporag.io.questions import read_eval_questions

    check_text_input(args.questions, "a questions file")
    questions, shape = read_eval_questions(args.questions)
    index = _load_for_query(args.index, args)
    if not index.passages:
        raise InvalidValueError(
            f"{args.index} has no passage texts, so no title to match supporting passages to"
        )
    gold, unmatched = match_supporting(questions, index.passages, passage_ids=index.passage_ids)
    shared = shared_titles(questions, index.passages)
    if shared:
        shown = ", ".join(f"{t!r} x {n}" for t, n in list(shared.items())[:5])
        note(
            f"{len(shared)} supporting titles are shared by several passages of "
            f"{os.path.basename(args.index)} and the questions give no text to tell them apart "
            f"({shown}{', ...' if len(shared) > 5 else ''}): every passage with the title counts as "
            f"supporting; give the text (MuSiQue paragraphs, HotpotQA context, or "
            f'"supporting": [{{"title", "text"}}]) to match one'
        )
    keep = [i for i, g in enumerate(gold) if g.size]
    if unmatched:
        shown = ", ".join(repr(t) for t in list(unmatched)[:5]) + (", ..." if len(unmatched) > 5 else "")
        note(
            f"{len(unmatched)} supporting titles (or ids) match no passage of "
            f"{os.path.basename(args.index)}: "
            f"{shown}; {len(questions) - len(keep)} of {len(questions)} questions have no matched "
            f"supporting passage and are left out"
        )
    if not keep:
        raise InvalidValueError(
            f"no question of {args.questions} has a supporting passage in {args.index} (matched by "
            f"title: the first line of each passage)"
        )
    names = list(dict.fromkeys(args.retriever))
    answerers = {name: Answerer(index, name, min_link_cosine=args.min_link_cosine) for name in names}
    with progress(len(keep) * len(names), "eval", unit="question") as bar:

        def counted(rank):
            def rank_and_count(question, k):
                ids = rank(question, k)
                bar.update()
                return ids

            return rank_and_count

        result = evaluate_retrievers(
            [questions[i].question for i in keep],
            [gold[i] for i in keep],
            {name: counted(a.rank) for name, a in answerers.items()},
            ks=args.k,
            n_boot=args.boot,
            seed=args.seed,
        )
    result |= {"questions_file": args.questions, "format": shape, "index": args.index}
    result |= {"n_questions_read": len(questions), "unmatched_titles": unmatched, "shared_titles": shared}
    if args.json:
        emit(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    emit(
        f"{result['n_questions']} questions ({shape}; {len(questions) - len(keep)} left out) on "
        f"{os.path.basename(args.index)}, {index.n_passages} passages; 95% bootstrap intervals over "
        f"questions ({args.boot} resamples, seed {args.seed})"
    )
    rows = {metric: [] for metric in ("R", "AR")}
    for metric in rows:
        for name in names:
            cells = [
                f"{100 * m:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"
                for m, lo, hi in result["methods"][name][metric]
            ]
            rows[metric].append((name, cells))
        for name in names[1:]:
            diffs = result["differences"][name][metric]
            cells = [f"{100 * m:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]" for m, lo, hi in diffs]
            rows[metric].append((f"{names[0]} - {name}", cells))
    left = max(len(label) for r in rows.values() for label, _ in r) + 2
    width = max(len(c) for r in rows.values() for _, cells in r for c in cells) + 2
    for metric, title in (("R", "R@k (recall)"), ("AR", "AR@k (all supporting found)")):
        emit(f"\n{title}")
        emit(" " * (2 + left) + "".join(f"{f'k={k}':>{width}s}" for k in result["ks"]))
        for label, cells in rows[metric]:
            emit(f"  {label:{left}s}" + "".join(f"{c:>{width}s}" for c in cells))
    return 0


def _floor_flag(p) -> None:
    p.add_argument(
        "--min-link-cosine",
        type=unit_interval,
        metavar="C",
        help="an entity whose nearest node has a lower cosine is not in the index and seeds nothing "
        "(default: the floor chosen on the MuSiQue tuning set for the offline encoder, none with an "
        "--encoder endpoint; --json reports it; 0 links every entity)",
    )


def add_query_commands(gsub) -> None:
    """Register ``query`` and ``eval`` on the ``hipporag`` group's subparsers."""
    p = gsub.add_parser(
        "query",
        help="rank passages for a question (or many: --questions FILE, JSON lines out)",
        description="Rank passages for one question, or for many (--questions FILE or - for stdin: one "
        'question per line, or JSON lines with "question"; one JSON object per question out). The '
        "first query writes INDEX.query-cache beside the index (what retrieval derives from it), so "
        "the next ones start fast. An empty or stop-word-only question is refused (status 2); in "
        "--questions, its line says why, the others are answered, and the status is 1.",
    )
    p.add_argument("index", help="an index file")
    p.add_argument("question", nargs="?", help="the question (or use --questions)")
    p.add_argument("--questions", metavar="FILE", help='questions, one per line or JSON lines ("-": stdin)')
    p.add_argument("-k", type=positive_int, default=5, help="passages to return (default 5)")
    p.add_argument(
        "--retriever", choices=RETRIEVERS, default="default",
        help="default (the hybrid walk), bm25 (BM25 alone), v1 (HippoRAG v1's walk over phrases)",
    )  # fmt: skip
    p.add_argument(
        "--extractor", choices=["capitalised", "node_ngrams", "union"], help="query entity extractor"
    )
    p.add_argument("--entity", action="append", metavar="TEXT", help="a query entity (repeatable)")
    _floor_flag(p)
    p.add_argument(
        "--encoder",
        metavar="URL",
        help="where the embeddings endpoint the index was built with is served now (default: the "
        "address recorded in the index)",
    )
    p.add_argument(
        "--explain", action="store_true",
        help="say why each passage ranked: its score split by source (seed entities, fact seeds, the "
        "passages' BM25 restart, BM25's term or question terms), the nodes it came through, and the "
        "most probable walk from each seed (with --json: an \"explain\" object per passage)",
    )  # fmt: skip
    add_endpoint_flags(p, "the index's embeddings endpoint (if it has one)", timeout=60.0)
    add_json_flag(p)
    p.set_defaults(func=_cmd_query)

    p = gsub.add_parser(
        "eval",
        help="R@k and AR@k of the default and BM25 on your questions, with paired intervals",
        description="Score retrievers on QUESTIONS whose supporting passages are known (matched to the "
        "index's passages by title, and by text when the questions give it): R@k and AR@k of each, and "
        "the first minus each other, with paired bootstrap intervals over questions. A bar on stderr "
        "(on a terminal) shows the questions answered so far.",
    )
    p.add_argument(
        "questions",
        help="questions: MuSiQue, HotpotQA or 2WikiMultihopQA JSON, or JSON lines of "
        "{question, supporting: [titles]}",
    )
    p.add_argument("--index", required=True, help="index file (supporting passages are matched by title)")
    p.add_argument(
        "-k", type=positive_int, nargs="+", default=[1, 2, 5, 10], help="cut-offs (default 1 2 5 10)"
    )
    p.add_argument(
        "--retriever", choices=RETRIEVERS, nargs="+", default=["default", "bm25"],
        help="retrievers, the first is compared with each other (default: default bm25)",
    )  # fmt: skip
    p.add_argument(
        "--boot", type=positive_int, default=1000, metavar="N", help="bootstrap resamples (default 1000)"
    )
    p.add_argument("--seed", type=whole_number(0), default=0, help="bootstrap seed (default 0)")
    add_endpoint_flags(p, "the index's embeddings endpoint (if it has one)", timeout=60.0)
    _floor_flag(p)
    add_json_flag(p)
    p.set_defaults(func=_cmd_eval)
