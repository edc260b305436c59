"""The project's performance targets, each a PASS, FAIL or SKIP computed from measured numbers."""

from __future__ import annotations

__all__ = ["evaluate_targets"]


def evaluate_targets(
    graphs: dict[str, dict], scaling: list[dict] | None, work: dict | None = None
) -> list[dict]:
    """PASS/FAIL per project target, computed from the measured numbers."""
    out = []

    def add(target, graph, measured, ok):
        out.append({"target": target, "graph": graph, "measured": measured, "status": ok})

    for gname, need in (("power-law", 2.0), ("ER", 1.5)):
        if gname not in graphs:
            continue
        m = graphs[gname]["methods"]
        ratio, l1 = m["scipy-30"]["ratio"], m["ours-30"]["l1_vs_scipy_30"]
        add(
            f"ours-30 >= {need:g}x faster than scipy-30, L1(ours-30, scipy-30) <= 1e-12",
            gname,
            f"{ratio:.2f}x, L1 {l1:.1e}",
            "PASS" if ratio >= need and l1 <= 1e-12 else "FAIL",
        )
    for gname, gr in graphs.items():
        m = gr["methods"]
        peers = [k for k in ("igraph-prpack", "igraph-prpack-seeds") if k in m]
        if not peers:
            add(
                "ours-tol >= 3x faster than igraph PRPACK at equal or better L1",
                gname,
                "igraph absent",
                "SKIP",
            )
        else:
            best = min(peers, key=lambda k: m[k]["median_ms"])
            ratio = m[best]["ratio"]
            ours_l1, ig_l1 = m["ours-tol"]["l1_vs_reference"], m[best]["l1_vs_reference"]
            ok = ratio >= 3.0 and ours_l1 <= ig_l1
            add(
                "ours-tol >= 3x faster than igraph PRPACK (fastest call form) at equal or better L1",
                gname,
                f"{ratio:.2f}x ({best}), L1 ours {ours_l1:.1e} vs igraph {ig_l1:.1e}",
                "PASS" if ok else "FAIL",
            )
        peer_ratios = {k: v["ratio"] for k, v in m.items() if not k.startswith("ours") and "ratio" in v}
        worst = min(peer_ratios, key=peer_ratios.get)
        add(
            "ours ahead of every peer measured",
            gname,
            f"slowest margin {peer_ratios[worst]:.2f}x ({worst})",
            "PASS" if peer_ratios[worst] > 1.0 else "FAIL",
        )
    if scaling:
        top = max(scaling, key=lambda s: s["n_edges"])
        fp = top["query_footprint_over_csr"]
        add(
            "largest scaling graph runs; prepared graph + query peak within 2x of the CSR arrays",
            f"ER {top['n_edges']:.0e} edges",
            "n/a" if fp is None else f"{fp:.2f}x of {top['csr_bytes'] / 2**20:.0f} MiB",
            "SKIP" if fp is None else ("PASS" if fp <= 2.0 else "FAIL"),
        )
    if work:
        sweep, build, query = (
            work["findings_sweep_s"],
            work["realtext_build_s"],
            work["realtext_query_ms_median"],
        )
        add(
            "FINDINGS sweep (3 depths x 1000 trials x 5 rankers) < 10 s warm",
            "synthetic",
            f"{sweep:.2f} s",
            "PASS" if sweep < 10 else "FAIL",
        )
        add(
            "real-text index build (1,890 passages, default encoder) < 5 s",
            "MuSiQue",
            f"{build:.2f} s (median of 3)",
            "PASS" if build < 5 else "FAIL",
        )
        add(
            "real-text query, default retriever (linking + fact seeds + PPR + passage scores) median < 5 ms",
            "MuSiQue",
            f"{query:.2f} ms (p90 {work['realtext_query_ms_p90']:.2f} ms, "
            f"{work['realtext_n_queries']} questions)",
            "PASS" if query < 5 else "FAIL",
        )
        lower = work.get("realtext_query_ms_median_lower")
        if lower is not None:
            add(
                "real-text query on lower-cased questions, default retriever, median < 5 ms",
                "MuSiQue",
                f"{lower:.2f} ms ({work['realtext_n_queries']} questions)",
                "PASS" if lower < 5 else "FAIL",
            )
        from pathfinding.bench.add import MODE_LABELS

        for mode, r in (work.get("index_add") or {}).get("modes", {}).items():
            claim = "costs <= 5% of a rebuild" if mode == "kept" else "(opt-in, no target): part of a rebuild"
            add(
                f"adding 1 passage {claim} and equals it ({MODE_LABELS[mode]})",
                "MuSiQue",
                f"{100 * r['ratio']:.1f}% ({r['add_median']:.3f} s vs {r['rebuild_median']:.2f} s; "
                f"equal: {'yes' if r['equal'] else 'NO'})",
                r["status"],
            )
    return out
