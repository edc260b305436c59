"""The ``openie`` subcommand: two-step OpenIE of a corpus through an OpenAI-compatible endpoint.

``pathfinding hipporag openie CORPUS --base-url URL --model NAME [--api-key-env VAR] -o OPENIE.json``

Registered on an argparse subparsers object by :func:`add_openie_command`. Answers are cached next to
the output (``OPENIE.json.cache.sqlite`` unless ``--cache`` says otherwise), so the same command run
again after a crash or a partial failure only sends what is missing; an answer that cannot be read
is never cached. The exit status is 0 when every passage got readable answers and at most
``--max-unusable`` of them (a share) gave no triple; 1 when some requests failed or answers could
not be read (the file is still written, those passages with empty lists and ``openie_issues:
{"request_failed": 1}`` or ``{"unreadable_answer": 1}``), or when more passages than that share
gave nothing usable; 2 on bad arguments or a fatal refusal. The last line says how many passages
gave nothing usable, and why.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from pathfinding._argtypes import positive_int, unit_interval
from pathfinding.cli.common import add_corpus_flags, add_endpoint_flags, add_write_flags, corpus_options
from pathfinding.cli.estimate import add_estimate_flags

__all__ = ["add_openie_command", "run_openie_command"]



def run_openie_command(args) -> int:
    """Run the subcommand for parsed ``args`` (see :func:`add_openie_command`); returns the exit status."""
    from pathfinding.cli.common import check_output_path, check_text_input, guard_output
    from pathfinding.errors import FormatError, LLMFatalError
    from pathfinding.hipporag.extract.llm import ChatClient
    from pathfinding.hipporag.extract.openie import run_openie, write_openie
    from pathfinding.hipporag.io.loaders import load_corpus
    from pathfinding.hipporag.storage.safety import refuse_inputs
    from pathfinding.hipporag.transport.cache import ResponseCache

    check_text_input(args.corpus, "a corpus file or folder", folder_ok=True)
    check_output_path(args.output, "the OpenIE file")
    guard_output(args.output, kind="openie", inputs=[("the corpus", args.corpus)], force=args.force)
    if args.cache:
        check_output_path(args.cache, "the cache file")
        inputs = [("the corpus", args.corpus), ("the OpenIE output", args.output)]
        refuse_inputs(args.cache, inputs, is_ours=lambda p: False)
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            print(
                f"error: environment variable {args.api_key_env} is not set (--api-key-env)", file=sys.stderr
            )
            return 2
    try:
        corpus, report = load_corpus(args.corpus, **corpus_options(args))
    except (FormatError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(report.summary(), file=sys.stderr)
    if args.limit is not None:
        corpus = corpus[: args.limit]
    try:
        client = ChatClient(
            args.base_url,
            args.model,
            api_key=api_key,
            timeout=args.timeout,
            max_retries=args.retries,
            max_tokens=args.max_tokens,
            backoff=args.backoff,
        )
    except (TypeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    cache_path = args.cache or args.output + ".cache.sqlite"
    if args.estimate:
        from pathfinding.cli.estimate import report_estimate

        pace = {"client": client, "cache_path": cache_path, "concurrency": args.concurrency}
        return report_estimate(args, corpus, **pace)
    cache = ResponseCache(cache_path)
    try:
        run = run_openie(
            corpus, client, cache=cache, concurrency=args.concurrency, json_mode=args.json_mode, progress=None
        )
    except LLMFatalError as exc:
        print(f"error: {exc}\n(answers received so far are kept in {cache_path})", file=sys.stderr)
        return 2
    finally:
        cache.close()
    write_openie(run, args.output)
    # with --json, stdout holds the JSON object alone; the prose goes to stderr
    prose = sys.stderr if args.json else sys.stdout
    print(run.summary(), file=prose)
    print(f"wrote {args.output} (cache: {cache_path})", file=prose)
    unusable = run.unusable()
    too_many = sum(unusable.values()) > args.max_unusable * len(run.docs)
    if args.json:
        out = {"output": args.output, "cache": cache_path, **run.to_json()["openie_run"]}
        out |= {"unusable": dict(unusable), "max_unusable": args.max_unusable}
        print(json.dumps(out, indent=2))
    line = run.usable_line(args.max_unusable)
    if line is not None:  # the last line, on stderr: what a script and a person must see
        print(f"pathfinding hipporag openie: {'error: ' if too_many or not run.complete else ''}{line}",
              file=sys.stderr)  # fmt: skip
    return 0 if run.complete and not too_many else 1


def add_openie_command(subparsers) -> argparse.ArgumentParser:
    """Register ``openie`` on an argparse subparsers object and return its parser.

    The parser's default ``func`` is :func:`run_openie_command` (``args.func(args) -> int``).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="pathfinding hipporag")
    >>> _ = add_openie_command(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["openie", "corpus.json", "--base-url", "http://localhost:8000/v1",
    ...                           "--model", "m", "-o", "openie.json"])
    >>> args.concurrency, args.cache, args.func.__name__
    (4, None, 'run_openie_command')
    """
    p = subparsers.add_parser(
        "openie",
        help="extract triples from a corpus with an LLM (two-step OpenIE, any OpenAI-compatible endpoint)",
        description="Two-step OpenIE (named entities, then triples) of CORPUS through POST "
        "{base-url}/chat/completions; writes HippoRAG v1 OpenIE JSON. Answers are cached (OUTPUT.cache."
        "sqlite, or --cache), so rerunning the same command resumes a killed or partly failed run "
        "without paying twice. An answer that cannot be read (no JSON list in it) fails its passage and "
        "is never cached: the rerun asks again. To ask everything again (another prompt, a model that "
        "was misconfigured), delete the cache file or give a new --cache path. The last line counts the "
        "passages that gave nothing usable; the status is 1 when any got no readable answer, or when "
        "more than --max-unusable of them gave no triple.",
    )
    p.add_argument(
        "corpus",
        metavar="CORPUS",
        help="corpus: a JSON list of {title, text}, JSON lines, HotpotQA's {title: [sentence, ...]} "
        "object, or a folder of .txt/.md files (split as `index` splits them: give both the same "
        "--max-chars)",
    )
    add_corpus_flags(p)
    p.add_argument(
        "--base-url", required=True, help="e.g. https://api.openai.com/v1 or http://localhost:8000/v1"
    )
    p.add_argument("--model", required=True, help="model name sent with every request")
    p.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the API key (none is sent without this option)",
    )
    p.add_argument(
        "-o", "--output", required=True, metavar="OPENIE.json", help="output file (.gz compresses)"
    )
    p.add_argument(
        "--cache",
        metavar="PATH",
        help="answer cache (default: OUTPUT.cache.sqlite); delete it, or name a new file, to ask again",
    )
    p.add_argument(
        "--max-unusable", type=unit_interval, default=0.1, metavar="SHARE",
        help="fail (status 1) when more than this share of passages gave no triple (default 0.1)",
    )  # fmt: skip
    p.add_argument("--concurrency", type=positive_int, default=4, help="passages in flight (default 4)")
    add_endpoint_flags(p, "the chat endpoint", timeout=120.0)
    p.add_argument("--max-tokens", type=positive_int, default=None, help="completion budget per request")
    p.add_argument("--json-mode", action="store_true", help='send response_format={"type": "json_object"}')
    p.add_argument("--limit", type=positive_int, default=None, help="only the first N passages")
    p.add_argument("--json", action="store_true", help="also print the run's counts as JSON")
    add_write_flags(p, lock=False)
    add_estimate_flags(p)
    p.set_defaults(func=run_openie_command)
    return p
