"""``pathfinding bench``: every timing. PPR against its peers (the default), and ``bench realtext``,
``bench add`` and ``bench query`` on real text.

The old spellings keep working and are left out of the lists ``--help`` shows: ``pathfinding
realtext-bench`` is ``bench realtext``, ``pathfinding hipporag bench-add`` and ``bench-query`` are
``bench add`` and ``bench query``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pathfinding._argtypes import positive_int
from pathfinding.cli.common import add_json_flag

__all__ = ["add_commands", "add_old_spellings"]


def _cmd_bench(args) -> int:
    from pathfinding.bench.report import findings_markdown, format_table, save_scaling_figure
    from pathfinding.bench.run import run_benchmark

    repeats = args.repeats if args.repeats is not None else (3 if args.quick else 7)
    res = run_benchmark(
        quick=args.quick,
        repeats=repeats,
        seed=args.seed,
        batch_sizes=tuple(args.batch_sizes),
        scaling=args.scaling,
        top_k=args.top_k,
        jit=not args.no_jit,
        index_scale=args.index_scale,
        large=args.large,
        explain=args.explain,
    )
    if args.scaling:
        res["figure"] = str(save_scaling_figure(res, args.figure))
    sys.stdout.write(format_table(res))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(findings_markdown(res))
    if args.findings:
        from pathfinding.experiments.findings import replace_bench_section

        path = Path(args.findings)
        path.write_text(replace_bench_section(path.read_text(), findings_markdown(res)))
        print(f"updated the performance section of {path}", file=sys.stderr)
    if args.check and any(t["status"] == "FAIL" for t in res["targets"]):
        return 1
    return 0


def add_commands(sub) -> argparse.ArgumentParser:
    """Register ``bench`` (and its old spelling ``realtext-bench``) on the top-level subparsers."""
    p = sub.add_parser(
        "bench",
        help="time our PPR against scipy, igraph and scikit-network",
        description=(
            "Time one PPR query on a 100k-node ER graph and a power-law graph (single thread), "
            "against scipy, igraph PRPACK and scikit-network; check the project's speed targets."
        ),
    )
    p.add_argument("--quick", action="store_true", help="small graphs and 3 repeats (seconds)")
    p.add_argument(
        "--repeats", type=positive_int, default=None, help="timed repeats (default 7; 3 with --quick)"
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--batch-sizes", type=positive_int, nargs="+", default=[8, 32], help="block sizes (default 8 32)"
    )
    p.add_argument("--top-k", type=positive_int, default=10, help="k for ppr_top_k (default 10)")
    p.add_argument("--scaling", action="store_true", help="also time against edge count, 1e4 to 1e7 edges")
    p.add_argument(
        "--figure",
        default="figures/bench_scaling.png",
        help="where --scaling writes its figure (default figures/bench_scaling.png)",
    )
    p.add_argument("--no-jit", action="store_true", help="skip the JIT compile-time subprocesses")
    p.add_argument(
        "--large",
        action="store_true",
        help="also time PPR at 10^6 and 10^7 edges against scipy, on 1 and 2 threads (minutes)",
    )
    p.add_argument(
        "--index-scale",
        action="store_true",
        help="also index 10k-1M synthetic passages and time build and query (about half an hour)",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="also time query --explain against query on 2WikiMultihopQA, warm and from the shell (minutes)",
    )
    p.add_argument("--json", metavar="PATH", help="write every measurement as JSON")
    p.add_argument("--markdown", metavar="PATH", help="write a Markdown section for FINDINGS.md")
    p.add_argument(
        "--findings", metavar="PATH", help="replace the performance section of this FINDINGS.md in place"
    )
    p.add_argument("--check", action="store_true", help="exit with status 1 if a target FAILs")
    p.set_defaults(func=_cmd_bench)

    bsub = p.add_subparsers(dest="bench_command", metavar="SUBCOMMAND", required=False)
    _realtext_parser(
        bsub.add_parser, "realtext", help="time the index build and one query on the MuSiQue set"
    )
    _add_parser(bsub.add_parser, "add", help="time adding one passage against a rebuild (MuSiQue)")
    _query_parser(
        bsub.add_parser, "query",
        help="time one question from the shell (fresh processes), with and without the query cache",
    )  # fmt: skip
    # the old spelling, left out of --help's list (a parser added without help= is not listed)
    _realtext_parser(sub.add_parser, "realtext-bench")
    return p


def _realtext_parser(add, name, **kw) -> None:
    rb = add(name, description="Time the index build and one query on the MuSiQue tuning set.", **kw)
    rb.add_argument("--builds", type=positive_int, default=3, help="index builds to time (default 3)")
    rb.set_defaults(func=_cmd_realtext_bench)


def _cmd_realtext_bench(args) -> int:
    from pathfinding.bench.realtext import benchmark

    t = benchmark(n_builds=args.builds)
    print(
        f"index build ({t['n_nodes']} nodes, {t['n_edges']} edges, 1890 passages): "
        f"median {t['build_seconds']:.2f} s over {len(t['build_seconds_all'])} builds "
        f"({', '.join(f'{b:.2f}' for b in t['build_seconds_all'])})"
    )
    print(
        f"one query (retriever: {t['extractor']}; linking + PPR + passage scores, top 10): median "
        f"{t['query_ms_median']:.2f} ms, p90 {t['query_ms_p90']:.2f} ms over {t['n_queries']} questions; "
        f"lower-cased questions: median {t['query_ms_median_lower']:.2f} ms"
    )
    print(
        f"with the walk stopped at L1 error 1e-6 (tol=1e-6 instead of 1e-10): median "
        f"{t['query_ms_median_tol_1e-6']:.2f} ms; top 10 identical on {t['same_top10_tol_1e-6']} of "
        f"{t['n_queries']} questions"
    )
    return 0


def _cmd_bench_add(args) -> int:
    from pathfinding.bench.add import benchmark_add, format_add_benchmark

    result = benchmark_add(trials=args.trials)
    print(json.dumps(result, indent=2) if args.json else format_add_benchmark(result))
    return 0


def _cmd_bench_query(args) -> int:
    from pathfinding.bench.query import benchmark_query, format_query_benchmark

    result = benchmark_query(args.index, args.question, runs=args.runs)
    print(json.dumps(result, indent=2) if args.json else format_query_benchmark(result))
    return 0


def _add_parser(add, name, **kw) -> None:
    p = add(name, description="Time adding one held-out MuSiQue passage against a rebuild.", **kw)
    p.add_argument("--trials", type=positive_int, default=3, help="held-out passages (default 3)")
    add_json_flag(p)
    p.set_defaults(func=_cmd_bench_add)


def _query_parser(add, name, **kw) -> None:
    p = add(
        name, description="Time one question from the shell in fresh processes, on a copy of INDEX, "
        "without its query cache (once) and with it (--runs times).", **kw,
    )  # fmt: skip
    p.add_argument("index", help="index file (copied; the original is not touched)")
    p.add_argument(
        "--question",
        default="Who is the director of the film Plan 9 from Outer Space?",
        help="the question (default: one about Plan 9 from Outer Space)",
    )
    p.add_argument("--runs", type=positive_int, default=5, help="processes timed with the cache (default 5)")
    add_json_flag(p)
    p.set_defaults(func=_cmd_bench_query)


def add_old_spellings(gsub) -> None:
    """``hipporag bench-add`` and ``bench-query``, the old spellings of ``bench add`` and ``bench
    query``, on the ``hipporag`` group's subparsers, where ``--help`` does not list them."""
    _add_parser(gsub.add_parser, "bench-add")
    _query_parser(gsub.add_parser, "bench-query")
