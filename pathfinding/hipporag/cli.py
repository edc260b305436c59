"""Subcommands ``realtext`` (the recall table) and ``realtext-bench`` (timings)."""

from __future__ import annotations

import json

from pathfinding.cli import whole_number

__all__ = ["add_parser"]

QUICK_QUESTIONS = 20


_nonneg_int = whole_number(0)
_positive_int = whole_number(1)


def _cmd_realtext(args) -> int:
    from pathfinding.hipporag.realtext import format_report, run_realtext

    n_q = QUICK_QUESTIONS if args.quick else None
    result = run_realtext(seed=args.seed, n_boot=args.boot, n_questions=n_q)
    print(format_report(result))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result.to_json(), fh, indent=2, sort_keys=True)
            fh.write("\n")
        print(f"\nwrote {args.json}")
    return 0


def _cmd_bench(args) -> int:
    from pathfinding.hipporag.realtext import benchmark

    t = benchmark(n_builds=args.builds)
    print(
        f"index build ({t['n_nodes']} nodes, {t['n_edges']} edges, 1890 passages): "
        f"median {t['build_seconds']:.2f} s over {len(t['build_seconds_all'])} builds "
        f"({', '.join(f'{b:.2f}' for b in t['build_seconds_all'])})"
    )
    print(
        f"one query ({t['extractor']} entities, linking + PPR + passage scores, top 10): median "
        f"{t['query_ms_median']:.2f} ms, p90 {t['query_ms_p90']:.2f} ms over {t['n_queries']} questions "
        f"({t['n_fell_back']} BM25 fallbacks; median {t['query_ms_median_ppr_only']:.2f} ms over the others)"
    )
    print(
        f"with the walk stopped at L1 error 1e-6 (tol=1e-6 instead of 1e-10): median "
        f"{t['query_ms_median_tol_1e-6']:.2f} ms; top 10 identical on {t['same_top10_tol_1e-6']} of "
        f"{t['n_queries']} questions"
    )
    return 0


def add_parser(sub) -> None:
    """Register ``realtext`` and ``realtext-bench`` on an argparse subparsers object."""
    from pathfinding.hipporag.realtext import DEFAULT_BOOT

    p = sub.add_parser(
        "realtext",
        help="HippoRAG vs BM25 recall@k on the MuSiQue tuning set (offline, released OpenIE)",
    )
    p.add_argument("--seed", type=_nonneg_int, default=0, help="bootstrap seed (default 0)")
    p.add_argument(
        "--boot",
        type=_positive_int,
        default=DEFAULT_BOOT,
        metavar="N",
        help=f"bootstrap resamples (default {DEFAULT_BOOT})",
    )
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p.add_argument(
        "--quick", action="store_true", help=f"only the first {QUICK_QUESTIONS} questions (full index)"
    )
    p.set_defaults(func=_cmd_realtext)

    p = sub.add_parser("realtext-bench", help="time the index build and one query on the MuSiQue set")
    p.add_argument("--builds", type=_positive_int, default=3, help="index builds to time (default 3)")
    p.set_defaults(func=_cmd_bench)
