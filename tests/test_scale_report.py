"""The scale section's verdicts and prose, from made-up measurements (the numbers here test the
arithmetic and the wording, not the machine)."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from pathfinding.bench.scale_report import (
    STAGES,
    TARGETS,
    beyond_one_machine,
    edges_kept,
    fit_exponent,
    format_section,
    judge_targets,
)

MUSIQUE = {"matter": 10, "kept": 10, "recall": 1.0, "over_cap": 0, "same_graph": True, "r5_exact": 0.5,
           "r5_topk": 0.5, "exact_s": 1.0, "topk_s": 0.1}


def _row(n, *, build_s=None, peak=1.0):
    """A measured row: build time linear in n, every stage 1 KB per passage (the corpus 4 KB)."""
    stages = {s: {"s": 1.0, "peak_bytes": 1024 * n, "kept_bytes": 1024 * n} for s in STAGES}
    stages["generate"]["kept_bytes"] = 4096 * n
    return {
        "n_passages": n, "n_nodes": 5 * n, "n_synonymy_edges": n, "n_relation_edges": 8 * n,
        "nodes_at_cap": 0, "build_s": 3e-4 * n if build_s is None else build_s, "build_s_slowest": 3e-4 * n,
        "synonymy_s": 1e-4 * n,
        "add_s": 0.5, "delete_s": 0.4, "peak_rss_gb": peak, "file_bytes": 2**30, "load_s": 3.0,
        "generate_s": 60.0,
        "query_ms": 10.0, "query_misspelt_ms": 20.0, "seeds_ms": 1.0, "link_ms": 0.5, "bm25_ms": 0.1,
        "walk_ms": 5.0, "recall_at_5": 0.7, "walk_certified_share": 1.0, "walk_edges": 30 * n,
        "stages": stages, "synonymy_recall": None, "command_s": 5e-4 * n, "command_peak_gb": 2 * peak,
        "command_bytes": 3 * 2**30,
    }  # fmt: skip


def test_fit_exponent_recovers_a_power_law():
    rows = [{"n_passages": n, "build_s": 0.01 * n**1.5} for n in (10_000, 30_000, 100_000)]
    assert math.isclose(fit_exponent(rows), 1.5)


def test_every_target_passes_on_a_linear_build_that_fits_and_fails_where_it_does_not():
    rows = [_row(n) for n in (10_000, 30_000, 100_000, 300_000, 1_000_000)]
    targets = judge_targets(rows, [], MUSIQUE, fit_exponent(rows))
    assert {t["status"] for t in targets} == {"PASS", "INFO"}
    info = [t["status"] for t in targets if "index file" in t["name"] or "load the" in t["name"]]
    assert info == ["INFO"] * 2
    rows[-1]["peak_rss_gb"] = rows[-1]["command_peak_gb"] = TARGETS["peak_rss_gb_at_1m"] + 1
    rows[-1]["stages"]["triples"]["kept_bytes"] = 4096 * 1_000_000  # a second copy of the corpus
    failed = {t["name"] for t in judge_targets(rows, [], MUSIQUE, 1.3) if t["status"] == "FAIL"}
    assert {n.split(",")[0] for n in failed} == {
        "build-time exponent", "peak memory at 1", "largest memory a stage keeps / the corpus' own (1",
        "peak memory of `pathfinding hipporag index` at 1"}
    del rows[-1]["command_peak_gb"], rows[-1]["command_s"]  # a row measured before the command was
    status = {t["name"].split(" (")[0]: t["status"] for t in judge_targets(rows, [], MUSIQUE, 1.0)}
    assert status["peak memory of `pathfinding hipporag index` at 1,000,000 passages"] == "NOT MEASURED"


def test_a_million_passages_killed_fails_its_targets_and_an_absent_one_is_not_measured():
    rows = [_row(n) for n in (10_000, 30_000)]
    killed = judge_targets(rows, [{"n_passages": 1_000_000, "seconds_until_killed": 9.0}], MUSIQUE, 1.0)
    status = {t["name"]: t["status"] for t in killed}
    assert status["build at 1,000,000 passages (s)"] == "FAIL"
    absent = {t["name"]: t["status"] for t in judge_targets(rows, [], MUSIQUE, 1.0)}
    assert absent["build at 1,000,000 passages (s)"] == "NOT MEASURED"


def test_beyond_one_machine_says_where_memory_ends_it():
    """1 GB at a million passages: a 16 GiB machine holds about 16 million, and the stage with the
    largest peak (synonymy, made 3 KB per passage here) is named first."""
    row = _row(1_000_000)
    row["stages"]["synonymy"]["peak_bytes"] = 3 * 1024 * 1_000_000
    text = "\n".join(beyond_one_machine(row, 16 * 2**30))
    assert "hold a build of about 16.0 million passages" in text
    assert "most memory above what is already held is synonymy (3.0 KB per passage)" in text
    assert "parallelPersonalizedPageRank" in text


def test_the_section_shows_rows_stages_musique_targets_and_prose():
    rows = [_row(n) for n in (10_000, 1_000_000)]
    result = {"rows": rows, "musique": MUSIQUE, "exponent": 1.0, "sizes": [10_000, 1_000_000], "seed": 0,
              "targets": judge_targets(rows, [], MUSIQUE, 1.0)}
    text = format_section(result, ram_bytes=16 * 2**30)
    assert "| 1,000,000 | 5,000,000 |" in text and "| synonymy | 1.0 | 1.00 | 1.00 |" in text
    # two tables a page can hold, one row per size in each
    tables = [line for line in text.splitlines() if line.startswith("| passages |")]
    assert [t.count("|") - 1 for t in tables] == [9, 7, 4]
    assert sum(line.startswith("| 1,000,000 |") for line in text.splitlines()) == 3
    assert "| 1,000,000 | 500.0 | 2.00 | 3.00 |" in text  # the command a user runs
    assert "the bounded top-k search keeps 10 (recall 1.0000" in text
    assert "| build at 1,000,000 passages (s) | <= 600 | 300 | PASS |" in text
    assert "#### Beyond one machine" in text


def test_a_measurement_of_a_thousand_or_more_reads_as_a_whole_number():
    """1008.5 s read "1.01e+03" in the targets table; three significant figures stay below 1,000."""
    rows = [_row(n) for n in (10_000, 1_000_000)]
    rows[-1]["command_s"] = 1008.5
    result = {"rows": rows, "musique": MUSIQUE, "exponent": 1.0, "sizes": [10_000, 1_000_000], "seed": 0,
              "targets": judge_targets(rows, [], MUSIQUE, 1.0)}
    text = format_section(result, ram_bytes=16 * 2**30)
    command = [line for line in text.splitlines() if line.startswith("| that command at 1,000,000")]
    assert len(command) == 1 and "| 1,008 | INFO |" in command[0], command
    assert "e+0" not in text and "| <= 600 | 300 | PASS |" in text


def test_a_killed_size_is_a_row_of_the_build_table_with_the_tables_width():
    rows = [_row(10_000)]
    failed = [{"n_passages": 1_000_000, "seconds_until_killed": 321.0}]
    result = {"rows": rows, "failed": failed, "musique": MUSIQUE, "exponent": 1.0, "seed": 0,
              "sizes": [10_000, 1_000_000], "targets": judge_targets(rows, failed, MUSIQUE, 1.0)}
    lines = format_section(result, ram_bytes=16 * 2**30).splitlines()
    killed = [line for line in lines if line.startswith("| 1,000,000 |")]
    assert killed == ["| 1,000,000 | the build process was killed after 321 s (out of memory?) |" + " |" * 7]
    assert killed[0].count("|") - 1 == 9


def test_edges_kept_counts_the_pairs_of_nodes_below_the_cap_only():
    """Node 0 has three exact pairs, over a cap of 2: its own pairs do not matter, but a pair of
    node 1 (below the cap) that only node 0's list holds still counts as kept."""
    exact = sp.csr_array(np.array([[0, .9, .9, .9], [.9, 0, 0, 0], [.9, 0, 0, 0], [.9, 0, 0, 0]]))
    found = sp.csr_array(np.array([[0, .9, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]))
    assert edges_kept(exact, found, 2) == {"matter": 3, "kept": 1, "recall": 1 / 3, "over_cap": 1}
    assert edges_kept(exact, found, 3)["matter"] == 6
