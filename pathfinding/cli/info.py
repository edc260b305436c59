"""``pathfinding hipporag info INDEX``: what an index holds, before a query or a ``delete``.

Counts (passages, triples, nodes, edges), the build settings, the encoder, the file's size and
whether its query cache is current; ``--passages`` lists every passage's id and title (the ids
``delete`` takes) with where it came from (a folder's file, its headings, its character span),
``--json`` prints the same as one JSON object.
"""

from __future__ import annotations

import dataclasses
import json
import os

from pathfinding.cli.common import add_json_flag, check_input_path, emit

__all__ = ["add_info_command", "index_info"]


def _encoder(index) -> dict:
    """The encoder as the index file records it, without the n-gram list (thousands of entries)."""
    from pathfinding.hipporag.index.persistence import encoder_spec

    spec = encoder_spec(index.encoder, lambda name, a: None)
    spec.pop("grams", None)
    return spec


def index_info(path: str, *, passages: bool = False) -> dict:
    """What ``info`` reports about the index file at ``path``, as a JSON-ready dict."""
    from pathfinding.hipporag.retrieval.querycache import cache_path, is_cache_file, load_for_query
    from pathfinding.hipporag.retrieval.retrieve import FACT_LINKER_KEY

    had_cache = is_cache_file(cache_path(path))
    index = load_for_query(path, write=False)
    # an index read through its cache arrives with the fact linker already derived
    absent = object()
    current = index.derived(FACT_LINKER_KEY, lambda: absent) is not absent
    out = {
        "index": path,
        "bytes": os.path.getsize(path),
        "stats": dataclasses.asdict(index.stats),
        "settings": index.settings,
        "encoder": _encoder(index),
        "has_texts": bool(index.passages),
        "query_cache": "current" if current else ("stale" if had_cache else "none"),
    }
    if passages:
        n = index.n_passages
        titles = [p.partition("\n")[0] for p in index.passages] if index.passages else [None] * n
        out["passages"] = [
            {"id": pid, "title": t, "source": None if src is None else src.to_dict()}
            for pid, t, src in zip(index.passage_ids, titles, index.sources or [None] * n, strict=True)
        ]
    return out


def _cmd_info(args) -> int:
    check_input_path(args.index, "an index file")
    info = index_info(args.index, passages=args.passages)
    if args.json:
        emit(json.dumps(info, indent=2, ensure_ascii=False))
        return 0
    s = info["stats"]
    emit(f"{info['index']}: {info['bytes']:,} bytes, query cache {info['query_cache']}")
    emit(
        f"  {s['n_passages']} passages, {s['n_triples']} triples ({s['n_unique_triples']} unique), "
        f"{s['n_nodes']} phrase nodes, {s['n_relation_edges']} relation edges, "
        f"{s['n_synonymy_edges']} synonymy edges"
    )
    emit("  settings: " + ", ".join(f"{k}={v}" for k, v in sorted(info["settings"].items())))
    emit("  encoder: " + ", ".join(f"{k}={v}" for k, v in info["encoder"].items()))
    if not info["has_texts"]:
        emit("  passage texts: none stored (BM25 and titles are unavailable)")
    for p in info.get("passages", []):
        src = p["source"]
        where = f"  ({src['file']}: characters {src['start']}-{src['end']})" if src and src["file"] else ""
        emit(f"  [{p['id']}] {p['title'] if p['title'] is not None else '(no text stored)'}{where}")
    return 0


def add_info_command(gsub) -> None:
    """Register ``info`` on the ``hipporag`` group's subparsers."""
    p = gsub.add_parser(
        "info",
        help="counts and settings of an index file (--passages: ids and titles, for delete)",
        description="Counts, build settings, encoder and query-cache state of an index file; "
        "--passages lists each passage's id (what delete takes), title and source (a folder's file, "
        "its headings and character span).",
    )
    p.add_argument("index", help="an index file")
    p.add_argument("--passages", action="store_true", help="list every passage's id and title")
    add_json_flag(p)
    p.set_defaults(func=_cmd_info)
