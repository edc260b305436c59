"""A sampled mutation run over the engine (``pathfinding/hipporag/``) with cosmic-ray.

``make mutation`` runs this. For each engine module that is not a package face, cosmic-ray enumerates
every mutant (``cosmic-ray init`` on a config of that module alone); a seeded sample of
``--per-module`` of them is kept and the rest are marked skipped in cosmic-ray's own session
database; ``cosmic-ray exec`` then runs the sample, one mutant at a time, against **that module's own
test file only** (the name ``tests/test_layout.py`` gives it): a module must be guarded by its own
tests, not by a neighbour's luck.

* The run mutates a copy of the checkout (``build/mutation/tree``), never the checkout itself, so an
  interrupted run leaves no mutant behind and the tests can be edited while it runs.
* Each module's test file is first run on the unmutated copy: it must pass, and its time sets the
  mutant's timeout (``--timeout-factor`` times it, at least ``--min-timeout`` seconds, since a mutant
  of a numba kernel recompiles it). A module whose clean run exceeds ``--slow-seconds`` gets half the
  sample.
* The sample is ``random.Random(f"{seed}:{module}")`` over the mutants in cosmic-ray's enumeration
  order, so a seed names the same mutants as long as the module's source and cosmic-ray's version
  are the same: rerunning one module (``--modules``) after adding a test shows the mutant killed.

The score is (killed + timed out) / sampled with its 95% Wilson interval; every survivor is printed
with its line, operator and diff, to be killed by a test or accepted with a reason in
``tools/mutation-accepted.md``.

    .venv/bin/python tools/mutation.py --seed 42 --per-module 6 --json build/mutation/result.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import random
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from pathfinding.experiments.stats import wilson

ROOT = Path(__file__).resolve().parents[1]
ENGINE = "pathfinding.hipporag."
COPIED = ["pathfinding", "tests", "conftest.py", "pyproject.toml", "README.md"]


def engine_modules() -> dict[str, tuple[str, str]]:
    """Dotted name -> (source path, test file) for every engine module that is not a package face.

    The rule that names a module's test file lives in ``tests/test_layout.py``; it is read from there.
    """
    spec = importlib.util.spec_from_file_location("_layout", ROOT / "tests" / "test_layout.py")
    layout = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layout)
    names = layout._test_file_names()
    return {
        module: (str(path.relative_to(ROOT)), f"tests/{names[module]}")
        for module, path in sorted(layout.MODULES.items())
        if module.startswith(ENGINE) and path.name != "__init__.py"
    }


def copy_tree(tree: Path) -> None:
    """A fresh copy of the package, its tests and their configuration, where the mutants are made."""
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", ".hypothesis")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=ignore)
        else:
            shutil.copy2(source, tree / name)
    found = subprocess.run(
        [sys.executable, "-c", "import pathfinding; print(pathfinding.__file__)"],
        cwd=tree, capture_output=True, text=True, check=True,
    ).stdout.strip()
    if not found.startswith(str(tree)):
        sys.exit(f"the copy's tests would import {found}, not the copy under {tree}")


def test_command(test_file: str) -> str:
    # quoted: a checkout or an interpreter path with a space in it is still one word
    return f"{shlex.quote(sys.executable)} -m pytest {shlex.quote(test_file)} -x -q -p no:cacheprovider"


def clean_run(tree: Path, test_file: str) -> tuple[bool, float, str]:
    """Whether the test file passes on the unmutated copy, how long it took, and its last line."""
    start = time.perf_counter()
    done = subprocess.run(shlex.split(test_command(test_file)), cwd=tree, capture_output=True, text=True)
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return done.returncode == 0, time.perf_counter() - start, last


def cosmic_ray(*args: str, cwd: Path) -> None:
    subprocess.run([sys.executable, "-m", "cosmic_ray.cli", *args], cwd=cwd, check=True)


def write_config(path: Path, source: str, test_file: str, timeout: float) -> None:
    # JSON's string escapes are TOML's: a quote or a backslash in a path stays in the string
    path.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(source)}\n"
        f"timeout = {timeout:.0f}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(test_command(test_file))}\n\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
    )


def sample(work_db, module: str, seed: int, n: int) -> tuple[int, set[str]]:
    """Mark all but a seeded sample of ``n`` mutants skipped; return the count and the sample's ids."""
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    items = sorted(
        work_db.work_items,
        key=lambda w: (w.mutations[0].operator_name, w.mutations[0].occurrence),
    )
    chosen = random.Random(f"{seed}:{module}").sample(items, k=min(n, len(items)))
    keep = {w.job_id for w in chosen}
    skipped = [w.job_id for w in items if w.job_id not in keep]
    work_db.set_multiple_results(skipped, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
    return len(items), keep


def outcome(result) -> str:
    """killed, timeout, survived or incompetent (cosmic-ray counts a timeout as killed)."""
    if result.test_outcome is None:
        return str(result.worker_outcome.value)
    if result.test_outcome.value == "killed" and result.output == "timeout":
        return "timeout"
    return str(result.test_outcome.value)


def one_line(diff: str) -> str:
    """A unified diff's changed lines, ``- old / + new``, stripped."""
    changed = [
        line[0] + " " + line[1:].strip()
        for line in (diff or "").splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    return " / ".join(changed)


def run_module(tree: Path, module: str, source: str, test_file: str, args) -> dict:
    from cosmic_ray.work_db import WorkDB, use_db

    row = {"module": module, "source": source, "test_file": test_file}
    passed, seconds, last = clean_run(tree, test_file)
    row.update(clean_seconds=round(seconds, 1), clean_result=last)
    if not passed:
        row["error"] = f"the clean test file fails: {last}"
        return row
    n = args.per_module if seconds <= args.slow_seconds else max(1, args.per_module // 2)
    timeout = max(args.min_timeout, args.timeout_factor * seconds)
    row.update(timeout=round(timeout), slow=seconds > args.slow_seconds)
    session = args.workdir / "sessions" / module
    session.mkdir(parents=True, exist_ok=True)
    config, db = session / "config.toml", session / "session.sqlite"
    db.unlink(missing_ok=True)
    write_config(config, source, test_file, timeout)
    cosmic_ray("init", str(config.resolve()), str(db.resolve()), cwd=tree)
    with use_db(str(db), WorkDB.Mode.open) as work_db:
        row["enumerated"], keep = sample(work_db, module, args.seed, n)
    cosmic_ray("exec", str(config.resolve()), str(db.resolve()), cwd=tree)
    if (tree / source).read_bytes() != (ROOT / source).read_bytes():
        sys.exit(f"cosmic-ray left {source} mutated in {tree}")
    mutants = []
    with use_db(str(db), WorkDB.Mode.open) as work_db:
        for item, result in work_db.completed_work_items:
            if item.job_id in keep:
                spec = item.mutations[0]
                mutants.append({
                    "job_id": item.job_id,
                    "line": spec.start_pos[0],
                    "operator": spec.operator_name.removeprefix("core/"),
                    "occurrence": spec.occurrence,
                    "outcome": outcome(result),
                    "diff": one_line(result.diff),
                })
    mutants.sort(key=lambda m: (m["line"], m["operator"]))
    row["sampled"] = len(mutants)
    for kind in ("killed", "timeout", "survived", "incompetent"):
        row[kind] = sum(m["outcome"] == kind for m in mutants)
    row["mutants"] = mutants
    return row


def summary(rows: list[dict], args, version: str) -> dict:
    done = [r for r in rows if "sampled" in r]
    sampled = sum(r["sampled"] - r["incompetent"] for r in done)
    caught = sum(r["killed"] + r["timeout"] for r in done)
    score, lo, hi = wilson(caught, sampled) if sampled else (math.nan, math.nan, math.nan)
    return {
        "seed": args.seed, "per_module": args.per_module, "cosmic_ray": version,
        "command": " ".join(["tools/mutation.py", *sys.argv[1:]]),
        "modules": len(rows), "sampled": sampled, "caught": caught,
        "score": score, "ci95": [lo, hi], "rows": rows,
    }


def print_report(result: dict) -> None:
    print(f"\n{'module':42} {'enum':>5} {'samp':>4} {'kill':>4} {'surv':>4} {'tout':>4} {'clean s':>7}")
    for r in result["rows"]:
        name = r["module"].removeprefix(ENGINE)
        if "sampled" not in r:
            print(f"{name:42} {r.get('error', 'not run')}")
            continue
        slow = " slow: half the sample" if r["slow"] else ""
        print(f"{name:42} {r['enumerated']:5} {r['sampled']:4} {r['killed']:4} {r['survived']:4}"
              f" {r['timeout']:4} {r['clean_seconds']:7.1f}{slow}")
        if r["incompetent"]:
            print(f"{'':42} {r['incompetent']} incompetent (not counted)")
    print(f"\nscore (killed + timed out) / sampled = {result['caught']}/{result['sampled']}"
          f" = {result['score']:.3f}, 95% Wilson [{result['ci95'][0]:.3f}, {result['ci95'][1]:.3f}]"
          f"; seed {result['seed']}, {result['per_module']} per module, cosmic-ray {result['cosmic_ray']}")
    survivors = [(r, m) for r in result["rows"] for m in r.get("mutants", []) if m["outcome"] == "survived"]
    if survivors:
        print("\nsurvivors:")
    for r, m in survivors:
        print(f"  {r['source']}:{m['line']} {m['operator']} #{m['occurrence']}: {m['diff']}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--per-module", type=int, default=6, help="mutants sampled per module")
    parser.add_argument("--modules", nargs="+", default=None,
                        help="only the modules whose dotted name ends with one of these (e.g. io.loaders)")
    parser.add_argument("--json", type=Path, default=None, help="write the whole result here")
    parser.add_argument("--workdir", type=Path, default=ROOT / "build" / "mutation")
    parser.add_argument("--timeout-factor", type=float, default=3.0)
    parser.add_argument("--min-timeout", type=float, default=30.0)
    parser.add_argument("--slow-seconds", type=float, default=60.0)
    args = parser.parse_args(argv)

    from importlib.metadata import version

    modules = engine_modules()
    if args.modules:
        modules = {m: v for m, v in modules.items() if m.endswith(tuple(args.modules))}
        if not modules:
            parser.error(f"no engine module ends with any of {args.modules}")
    data = ROOT.parent / "shared" / "data" / "hipporag"
    if data.is_dir():
        os.environ.setdefault("PATHFINDING_DATA", str(data))
    args.workdir = args.workdir.resolve()
    tree = args.workdir / "tree"
    copy_tree(tree)
    rows = []
    for module, (source, test_file) in modules.items():
        print(f"== {module}: {test_file}", flush=True)
        rows.append(run_module(tree, module, source, test_file, args))
    result = summary(rows, args, version("cosmic-ray"))
    print_report(result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
