"""The ``pathfinding`` command line (also ``python -m pathfinding``)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import sys

from pathfinding._argtypes import positive_int, positive_seconds, whole_number

__all__ = ["main"]

# Modules that provide ``add_parser(subparsers)`` for their own subcommands. Each registers parsers
# only and imports its work when a command runs.
_COMMAND_MODULES: tuple[str, ...] = ("pathfinding.experiments.cli", "pathfinding.bench.cli")

RANKER_NAMES = ("mention_count", "ppr", "ppr_no_specificity", "rq_nodes", "rq_neighbours")
"""The keys of :data:`pathfinding.synthetic.rankers.RANKERS`, for ``rank --method`` without loading them."""


# What a shell reports for a process that SIGPIPE killed (128 + signal 13), as for `yes | head -1`.
BROKEN_PIPE_STATUS = 141
# ... and for one that Ctrl-C stopped (128 + SIGINT).
INTERRUPTED_STATUS = 130

class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose rejections are one line on stderr (and status 2), like every
    other error of the command line; ``--help`` still shows the usage."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _instance_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hops", type=positive_int, default=2, help="hop depth (default 2)")
    parser.add_argument(
        "--distractors", type=whole_number(0), default=8, help="dead-end chains per seed (default 8)"
    )
    parser.add_argument(
        "--seeds", type=whole_number(2), default=2, help="number of query entities (default 2)"
    )
    parser.add_argument("--seed", type=whole_number(0), default=0, help="random seed (default 0)")


def _make(args):
    from pathfinding.synthetic.instances import make_instance

    return make_instance(args.hops, distractors=args.distractors, seeds=args.seeds, rng=args.seed)


def _cmd_instance(args) -> int:
    inst = _make(args)
    names = inst.node_names
    print(
        f"Path-finding instance: hops={inst.hops}, seed={args.seed}, "
        f"{inst.n_nodes} nodes, {inst.n_passages} passages"
    )
    print("Query entities (seeds): " + ", ".join(names[s] for s in inst.seeds))
    print(f"Answer: {names[inst.answer]}")
    print("Candidates: " + ", ".join(names[c] for c in inst.candidates))
    print("\nPassages (one per fact; none mentions two seeds):")
    for j, text in enumerate(inst.passages):
        print(f"  [{j:3d}] {text}")
    return 0


def _cmd_rank(args) -> int:
    from pathfinding.core.scoring import rank_of
    from pathfinding.synthetic.rankers import RANKERS

    inst = _make(args)
    scores = RANKERS[args.method](inst)
    order = sorted(inst.candidates, key=lambda c: (-scores[c], inst.node_names[c]))
    rank = rank_of(scores, inst.answer, inst.candidates)
    print(
        f"Ranker {args.method} on hops={inst.hops}, seed={args.seed}: answer at rank {rank:g} "
        f"of {len(inst.candidates)} (ties count as the mean rank; chance "
        f"{(len(inst.candidates) + 1) / 2:g})"
    )
    for pos, c in enumerate(order, start=1):
        mark = "  <- answer" if c == inst.answer else ""
        print(f"  {pos:3d}. {scores[c]:.6f}  {inst.node_names[c]}{mark}")
    return 0


class _StderrLines(logging.Handler):
    """Each message of the library's loggers as one plain line on stderr (looked up when written,
    so a redirected stderr is honoured)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def _library_messages():
    """Show the library's progress and retry messages (logger ``pathfinding``, INFO and up) on stderr
    while a command runs: a slow or dead endpoint is never silence."""
    logger = logging.getLogger("pathfinding")
    handler, level = _StderrLines(logging.INFO), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _cmd_data_list(args) -> int:
    import json

    from pathfinding.hipporag.storage.datasets import REGISTRY, get_data_home, locate

    rows = []
    for f in REGISTRY.values():
        path = locate(f.name)
        rows.append({"name": f.name, "file": f.filename, "size": f.size, "sha256": f.sha256,
                     "url": f.url, "licence": f.licence, "path": None if path is None else str(path)})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        size = f"{r['size'] / 1e6:.1f} MB" if r["size"] >= 1e5 else f"{r['size'] / 1e3:.1f} kB"
        print(f"{r['name']:<{width}}  {size:>8}  {r['path'] or 'missing'}")
        print(f"{'':<{width}}  {r['licence']}")
    missing = [r["name"] for r in rows if r["path"] is None]
    total = sum(r["size"] for r in rows)
    print(f"{len(rows)} files, {total / 1e6:.1f} MB; cache {get_data_home()}, "
          f"local copy $PATHFINDING_DATA={os.environ.get('PATHFINDING_DATA') or '(not set)'}")
    if missing:
        print(f"missing: {len(missing)} (get them with `pathfinding data fetch`)")
    return 0


def _cmd_data_fetch(args) -> int:
    from pathfinding.hipporag.storage.datasets import REGISTRY, entry, fetch

    files = [entry(name) for name in args.names] if args.names else list(REGISTRY.values())
    for f in files:
        path = fetch(f.name, source=args.source, timeout=args.timeout)
        print(f"{f.name}: {path}")
    return 0


def _data_parser(sub) -> None:
    p = sub.add_parser("data", help="list and fetch the data files from elsewhere (HippoRAG's release)")
    data = p.add_subparsers(dest="data_command", required=True, metavar="SUBCOMMAND")
    q = data.add_parser("list", help="each file: size, licence, where it is or that it is missing")
    q.add_argument("--json", action="store_true", help="print JSON instead of a table")
    q.set_defaults(func=_cmd_data_list)
    q = data.add_parser(
        "fetch", help="download and verify files into the cache (all of them by default)",
        description="Copy each file into the cache (pathfinding.hipporag.storage.datasets.get_data_home), "
        "checked against its size and SHA-256; files already in $PATHFINDING_DATA or the cache are "
        "only checked.",
    )
    q.add_argument("names", nargs="*", metavar="NAME", help="file names from `pathfinding data list`")
    q.add_argument(
        "--from", dest="source", metavar="DIR_OR_URL", default=None,
        help="take the files from a folder or a mirror URL instead of upstream",
    )
    q.add_argument("--timeout", type=positive_seconds, default=30.0, help="seconds per read (default 30)")
    q.set_defaults(func=_cmd_data_fetch)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and documentation).

    Building it imports no numerical library: every module registers parsers only and imports its
    work when its command runs, so ``pathfinding hipporag query`` pays for nothing else.
    """
    parser = OneLineParser(
        prog="pathfinding",
        description="HippoRAG's path-finding claim, reproduced: instances, rankers, findings.",
    )
    import pathfinding

    parser.add_argument("--version", action="version", version=f"pathfinding {pathfinding.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("instance", help="print one generated instance a student can read")
    _instance_args(p)
    p.set_defaults(func=_cmd_instance)

    p = sub.add_parser("rank", help="rank one instance's candidates with one ranker")
    _instance_args(p)
    p.add_argument("--method", choices=sorted(RANKER_NAMES), default="ppr", help="ranker (default ppr)")
    p.set_defaults(func=_cmd_rank)

    _data_parser(sub)

    # Larger commands live beside their code; each module registers its own subcommands.
    for module in _COMMAND_MODULES:
        importlib.import_module(module).add_parser(sub)
    # The engine's own group; the benchmark adds its timing command to it.
    from pathfinding.bench.cli import add_hipporag_commands
    from pathfinding.hipporag.cli import add_parser as add_hipporag_group

    add_hipporag_commands(add_hipporag_group(sub))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status.

    A rejected argument or an endpoint that refused or never answered (any
    :class:`~pathfinding.errors.PathfindingError`), or the machine's trouble (an ``OSError``: a file
    that cannot be read or written, a full disk, a file another writer keeps locked) prints one line
    and returns 2; argparse's own rejections are one line too, and exit with status 2 as argparse
    does. A data file that is not available (:class:`~pathfinding.errors.DataError`) is one line too,
    which says how to fetch it: status 1 when a download failed, 2 when it was not found. Ctrl-C
    prints "interrupted" and returns 130. Any other exception is a bug and keeps its traceback. A
    reader that stops early (``pathfinding instance | head -1``) ends the command quietly with status
    141, as SIGPIPE does for Unix tools.
    """
    args = None
    try:
        args = build_parser().parse_args(argv)
        return _run(args)
    except KeyboardInterrupt:
        print(f"{_command_name(args)}: interrupted", file=sys.stderr)
        return INTERRUPTED_STATUS


def _run(args) -> int:
    from pathfinding.errors import DataDownloadError, DataError, PathfindingError

    try:
        with _library_messages():
            status = args.func(args)
        sys.stdout.flush()  # a closed pipe must fail here, not in the interpreter's flush at exit
        return status
    except BrokenPipeError:
        # Python flushes stdout again at exit; send that flush to devnull so it cannot fail too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE_STATUS
    except DataError as exc:
        # The machine's trouble (network, a missing copy), told in one line that says how to fetch.
        print(f"{_command_name(args)}: error: {exc}", file=sys.stderr)
        return 1 if isinstance(exc, DataDownloadError) else 2
    except PathfindingError as exc:
        print(f"{_command_name(args)}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # A path the user gave (missing, a directory, unreadable), or the machine: a full disk, a
        # permission, a lock another process holds.
        what = exc.strerror or str(exc) or type(exc).__name__
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{_command_name(args)}: error: {where}{what}", file=sys.stderr)
        return 2


def _command_name(args) -> str:
    """``pathfinding COMMAND [SUBCOMMAND]``, as the error line names it."""
    if args is None:
        return "pathfinding"
    sub = getattr(args, "hipporag_command", None) or getattr(args, "data_command", None)
    return f"pathfinding {args.command}" + (f" {sub}" if sub else "")
