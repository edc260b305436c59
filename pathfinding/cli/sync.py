"""``pathfinding hipporag sync INDEX FOLDER``: make an index built from a folder match the folder now.

New files are added, removed files deleted, changed files split again and replaced, unchanged files
left as they are (their passages keep their ids); a file's content hash decides "changed"
(:mod:`~pathfinding.hipporag.index.sync`). Triples for the new passages come from ``--openie FILE``
or ``--extractor cooccurrence``, as for ``index``; with the endpoint route, run ``openie FOLDER -o
FILE`` again first: its answer cache answers every passage it has seen, so only new passages cost a
request. ``--dry-run`` says what would change and writes nothing; otherwise the whole
read-compare-write runs under the index's writer lock and the file is replaced atomically, so an
interrupted sync leaves the index as it was, and two syncs (or a sync and an ``add``) take turns
and lose nothing.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time

from pathfinding.cli.common import (
    add_endpoint_flags,
    add_json_flag,
    add_write_flags,
    check_input_path,
    check_output_path,
    configure_endpoint,
    emit,
    guard_output,
    says_what_was_written,
    writer_lock,
)
from pathfinding.cli.estimate import add_estimate_flags
from pathfinding.errors import InvalidValueError

__all__ = ["add_sync_command"]


def _plan(args, index):
    from pathfinding.hipporag.index.sync import plan_sync

    return plan_sync(index, args.folder, max_chars=args.max_chars)


def _check_folder(folder: str) -> None:
    check_input_path(folder, "a folder of .txt/.md files", folder_ok=True)
    if not os.path.isdir(folder):
        raise InvalidValueError(
            f"{folder}: not a folder; sync compares an index with a folder of .txt/.md files (to add "
            f"a corpus file, use `add INDEX --corpus {folder}`)"
        )


def _estimate(args, index) -> int:
    """``--estimate``: the bill of the passages the sync would need triples for; the no-model
    measurement covers the whole folder's passages, which the sync's refit rebuilds."""
    from pathfinding.cli.estimate import report_estimate
    from pathfinding.hipporag.io.records import Passage

    plan = _plan(args, index)
    gone = set(plan.gone)
    kept = [Passage(*key.split("\n", 1)) for j, key in enumerate(index.passages) if j not in gone]
    note = f"sync of {args.folder} would change: {plan.summary()}"
    return report_estimate(args, plan.passages, note=note, built=kept + plan.passages)


def _cmd_sync(args) -> int:
    from pathfinding.cli.index import save_with_cache, triples_for
    from pathfinding.hipporag.index.persistence import load_index
    from pathfinding.hipporag.index.sync import apply_sync

    check_input_path(args.index, "an index file")
    _check_folder(args.folder)
    out = check_output_path(args.output or args.index)
    if args.estimate:
        return _estimate(args, load_index(args.index))
    if args.dry_run:
        plan = _plan(args, load_index(args.index))
        for state in ("added", "changed", "removed"):
            for rel in getattr(plan, state):
                emit(f"  {state}: {rel}")
        emit(f"would sync {args.index} with {args.folder}: {plan.summary()} (nothing written)")
        return 0
    if (args.openie is None) == (args.extractor is None):
        raise InvalidValueError(
            "sync needs the new passages' triples: pass --openie FILE (e.g. from `pathfinding hipporag "
            "openie FOLDER`, whose cache answers every passage it saw before) or --extractor cooccurrence"
        )
    guard_output(out, kind="index", inputs=[("the folder", args.folder)], force=args.force)
    t0 = time.perf_counter()
    # Locked from reading the index to writing it: a sync or an add that waits reads what this one
    # wrote, so neither loses the other's passages.
    with writer_lock(out, args):
        index = load_index(args.index)
        configure_endpoint(index.encoder, args)
        plan = _plan(args, index)
        report = None
        if plan.passages:
            triples, report = triples_for(args, plan.passages, args.folder)
        else:
            triples = []
        if not plan.empty or out != args.index:
            index = apply_sync(index, plan, triples, refit=not args.keep_encoder)
            save_with_cache(index, out)
    secs = time.perf_counter() - t0
    if args.json:
        res = {"index": out, "folder": args.folder, "seconds": secs, **plan.to_dict()}
        res["stats"] = dataclasses.asdict(index.stats)
        res["triples"] = None if report is None else report.to_dict()
        emit(json.dumps(res, indent=2, ensure_ascii=False))
    else:
        done = "wrote " + out if not plan.empty or out != args.index else "nothing to write"
        emit(f"synced {args.folder}: {plan.summary()}; {index.n_passages} passages; {done} in {secs:.1f} s")
    return 0


def add_sync_command(gsub) -> None:
    """Register ``sync`` on the ``hipporag`` group's subparsers."""
    from pathfinding._argtypes import whole_number

    p = gsub.add_parser(
        "sync",
        help="make an index built from a folder match the folder (only what changed is read again)",
        description="Make INDEX, built from a folder of .txt/.md files, match FOLDER now: new files are "
        "added, removed files deleted, changed files split again and replaced, unchanged files left "
        "as they are (their passages keep their ids). A file's SHA-256, not its time stamp, says "
        "whether it changed. The index is rewritten under its writer lock and replaced atomically "
        "(an interrupted sync leaves it as it was); --dry-run writes nothing.",
    )
    p.add_argument("index", help="an index file built from a folder (rewritten unless -o)")
    p.add_argument("folder", help="the folder of .txt/.md files (subfolders too)")
    p.add_argument("--openie", metavar="FILE", help="HippoRAG OpenIE JSON holding the new passages' triples")
    p.add_argument(
        "--extractor", choices=["cooccurrence"], help="make the new passages' triples with no model"
    )
    p.add_argument(
        "--max-chars", type=whole_number(0), default=None, metavar="N",
        help="passage size to split new and changed files to (default: the size the index's files were "
        "split to; another size re-splits every file)",
    )  # fmt: skip
    p.add_argument("--dry-run", action="store_true", help="say what would change; write nothing")
    p.add_argument(
        "--keep-encoder",
        action="store_true",
        help="keep the TF-IDF encoder as fitted (cheaper, as `add` does) instead of refitting it so the "
        "index equals a fresh `index` of the folder",
    )
    p.add_argument("-o", "--output", metavar="INDEX", help="write here instead of over the input")
    add_endpoint_flags(p, "the index's embeddings endpoint (if it has one)", timeout=60.0)
    add_write_flags(p)
    add_json_flag(p)
    add_estimate_flags(p)
    saved = "the folder's changes applied"
    p.set_defaults(func=says_what_was_written(_cmd_sync, "sync", lambda a: a.output or a.index, saved))
