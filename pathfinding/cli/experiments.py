"""``pathfinding findings`` and ``realtext``: every FINDINGS.md row regenerated or checked, and HippoRAG
against BM25 on the MuSiQue tuning set of the HippoRAG release."""

from __future__ import annotations

import json

from pathfinding._argtypes import positive_int, whole_number

__all__ = ["add_commands"]

QUICK_QUESTIONS = 20


def _cmd_realtext(args) -> int:
    from pathfinding.experiments.realtext import format_report, run_realtext

    n_q = QUICK_QUESTIONS if args.quick else None
    result = run_realtext(seed=args.seed, n_boot=args.boot, n_questions=n_q)
    print(format_report(result))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result.to_json(), fh, indent=2, sort_keys=True)
            fh.write("\n")
        print(f"\nwrote {args.json}")
    return 0


def add_commands(sub) -> None:
    """Register ``findings`` and ``realtext`` on the top-level subparsers."""
    _add_findings(sub)
    from pathfinding.experiments import DEFAULT_BOOT

    p = sub.add_parser(
        "realtext",
        help="HippoRAG vs BM25 recall@k on the MuSiQue tuning set (offline, released OpenIE)",
        description="HippoRAG against BM25 on the MuSiQue tuning set of the HippoRAG release (100 "
        "questions, 1,890 passages, the authors' GPT-3.5 triples): R@k and AR@k with paired bootstrap "
        "intervals, offline. The files are fetched on first use (`pathfinding data fetch`).",
    )
    p.add_argument("--seed", type=whole_number(0), default=0, help="bootstrap seed (default 0)")
    p.add_argument(
        "--boot",
        type=positive_int,
        default=DEFAULT_BOOT,
        metavar="N",
        help=f"bootstrap resamples (default {DEFAULT_BOOT})",
    )
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p.add_argument(
        "--quick", action="store_true", help=f"only the first {QUICK_QUESTIONS} questions (full index)"
    )
    p.set_defaults(func=_cmd_realtext)


def _cmd_findings(args) -> int:
    from pathfinding.experiments.findings import findings_command

    return findings_command(args)


def _add_findings(sub) -> None:
    """Register the ``findings`` subcommand (the work is imported when it runs)."""
    p = sub.add_parser(
        "findings",
        help="regenerate FINDINGS.md and figures/, or --check them",
        description="Regenerate every row of FINDINGS.md and every figure from the code (each row "
        "names its command, seed, trials and library versions), or with --check rerun them and fail, "
        "naming the row, on any difference.",
    )
    p.add_argument(
        "--trials", type=int, default=None, help="trials per hop depth (default 1000; 50 with --quick)"
    )
    p.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    p.add_argument("--quick", action="store_true", help="few trials, no real-text section: seconds")
    p.add_argument("--check", action="store_true", help="rerun and fail, naming the row, on any difference")
    p.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    p.add_argument("--output", default="FINDINGS.md", help="the Markdown file (default FINDINGS.md)")
    p.add_argument("--figures", default="figures", help="directory for the PNGs (default figures/)")
    p.set_defaults(func=_cmd_findings)
