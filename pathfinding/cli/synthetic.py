"""``pathfinding instance`` and ``pathfinding rank``: one generated path-finding instance, read or ranked."""

from __future__ import annotations

import argparse

from pathfinding._argtypes import positive_int, whole_number

__all__ = ["RANKER_NAMES", "add_commands"]

RANKER_NAMES = ("mention_count", "ppr", "ppr_no_specificity", "rq_nodes", "rq_neighbours")
"""The keys of :data:`pathfinding.synthetic.rankers.RANKERS`, for ``rank --method`` without loading them."""


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


def add_commands(sub) -> None:
    """Register ``instance`` and ``rank`` on the top-level subparsers."""
    p = sub.add_parser(
        "instance",
        help="print one generated instance a student can read",
        description="Print one generated path-finding instance: its query entities (seeds), the answer "
        "two or more hops from every seed, the candidates and one passage per fact. The same --seed "
        "prints the same instance.",
    )
    _instance_args(p)
    p.set_defaults(func=_cmd_instance)

    p = sub.add_parser(
        "rank",
        help="rank one instance's candidates with one ranker",
        description="Rank the candidates of one generated instance (the same options as `instance`) "
        "with one ranker and say where the answer lands (ties count as their mean rank).",
    )
    _instance_args(p)
    p.add_argument("--method", choices=sorted(RANKER_NAMES), default="ppr", help="ranker (default ppr)")
    p.set_defaults(func=_cmd_rank)
