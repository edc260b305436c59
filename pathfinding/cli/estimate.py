"""``--estimate`` of ``index``, ``openie`` and ``sync``: the bill before you pay it.

Prints, with no network call and no file written: the passages and their characters, the LLM calls
the two-step OpenIE would make (and the one call a question costs at query time), the tokens in and
out, the cost at the prices given, the time at the rate given or at the cache's own pace, and the
no-model route's build time and peak memory, measured now on a sample of the corpus. How each is
estimated is said beside it (:mod:`~pathfinding.hipporag.extract.estimate`).
"""

from __future__ import annotations

import json
import os

from pathfinding.cli.common import emit, human_size

__all__ = ["add_estimate_flags", "estimate_corpus", "report_estimate"]


def add_estimate_flags(p) -> None:
    """``--estimate``, ``--price-in``, ``--price-out`` and ``--rate``."""
    from pathfinding._argtypes import amount

    p.add_argument(
        "--estimate", action="store_true",
        help="print what the run would cost (passages, LLM calls, tokens, cost, time, the no-model "
        "build's time and memory) and stop: no network call, nothing written",
    )  # fmt: skip
    p.add_argument(
        "--price-in", type=amount("dollars"), metavar="USD", help="price per million prompt tokens"
    )
    p.add_argument(
        "--price-out", type=amount("dollars"), metavar="USD", help="price per million completion tokens"
    )
    p.add_argument(
        "--rate",
        type=amount("calls", positive=True),
        metavar="CALLS",
        help="calls a minute the endpoint answers",
    )


def _cache_pace(cache) -> tuple[float, int] | None:
    times = [] if cache is None else cache.answer_seconds()
    return (sum(times) / len(times), len(times)) if times else None


def estimate_corpus(args, path: str) -> int:
    """``index --estimate``: read the corpus at ``path`` as the command would, and report its bill."""
    from pathfinding.cli.common import check_text_input, corpus_options, note
    from pathfinding.hipporag.io.loaders import load_corpus

    check_text_input(path, "a corpus file or folder", folder_ok=True)
    corpus, report = load_corpus(path, **corpus_options(args))
    if report.n_issues:
        note(report.summary())
    return report_estimate(args, corpus)


def report_estimate(
    args, corpus, *, client=None, cache_path=None, concurrency: int = 1, note=None, built=None
) -> int:
    """Estimate the bill of ``corpus`` (see the module docstring) and print it, or ``--json`` it.

    ``client`` and ``cache_path`` (``openie``): requests the cache at ``cache_path`` already
    answered are not counted as calls, and its timings give the pace; ``note`` is a line printed
    first (``sync``: what it would change); ``built`` the passages the no-model build would cover,
    when they are more than ``corpus`` (``sync`` rebuilds the whole folder's index).
    """
    from pathfinding.hipporag.extract.estimate import CHARS_PER_TOKEN, estimate_openie, measure_no_model
    from pathfinding.hipporag.transport.cache import ResponseCache

    cache = None
    if cache_path is not None and os.path.isfile(cache_path):
        cache = ResponseCache(cache_path, readonly=True)
    try:
        bill = estimate_openie(
            corpus, client=client, cache=cache, json_mode=getattr(args, "json_mode", False)
        )
        pace = _cache_pace(cache)
    finally:
        if cache is not None:
            cache.close()
    built = corpus if built is None else built
    no_model = measure_no_model(built) if built else None
    cost = None
    if args.price_in is not None and args.price_out is not None:
        cost = bill.cost(args.price_in, args.price_out)
    minutes = None
    if args.rate is not None:
        minutes, how = bill.calls / args.rate, f"at {args.rate:g} calls a minute"
    elif pace is not None:
        minutes = bill.calls * pace[0] / max(concurrency, 1) / 60
        how = (
            f"at the cache's pace ({pace[0]:.2f} s an answer over {pace[1]} answers, {concurrency} at a time)"
        )
    if getattr(args, "json", False):
        out = {"estimate": bill.to_dict(), "cost_usd": cost, "minutes": minutes, "no_model": no_model}
        emit(json.dumps(out, indent=2))
        return 0
    if note:
        emit(note)
    lengths = bill.lengths
    emit("estimate (no request sent, nothing written):")
    emit(
        f"  passages: {bill.passages:,} ({bill.characters:,} characters; text p50 {lengths['p50']:,}, "
        f"p90 {lengths['p90']:,}, max {lengths['max']:,})"
    )
    emit(
        f"  OpenIE, two calls a passage (entities, then triples): {bill.calls:,} calls to send"
        + (f", {bill.cached_calls:,} answered by the cache" if cache is not None else "")
    )
    emit(
        f"  tokens: ~{bill.tokens_in:,} in, ~{bill.tokens_out:,} out ({CHARS_PER_TOKEN} characters a token; "
        f"prompts as sent, answers guessed from the passages' named spans)"
    )
    if cost is not None:
        shown = f"{cost:,.2f}" if cost >= 1 else f"{cost:.4f}"
        emit(f"  cost: ${shown} at ${args.price_in:g} in / ${args.price_out:g} out per million tokens")
    else:
        emit("  cost: give --price-in and --price-out (dollars per million tokens) for one")
    if minutes is not None:
        emit(f"  time: ~{_duration(minutes * 60)} {how}")
    else:
        emit("  time: give --rate CALLS (a minute) for one, or run once: the cache then measures the pace")
    emit(
        f"  at query time: 1 call a question when an LLM reads its entities (~{bill.question_tokens_in} "
        f"tokens in, ~{bill.question_tokens_out} out)"
    )
    if no_model is not None:
        part = no_model["sample"]
        where = "all of them" if part == len(built) else f"{part:,} of {len(built):,} passages, scaled"
        peak = human_size(no_model["peak_bytes_all"])
        emit(
            f"  no model (--extractor cooccurrence): ~{_duration(no_model['seconds_all'])} to extract and "
            f"build, ~{peak} allocated at the peak (measured now on {where})"
        )
    return 0


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.1f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"
