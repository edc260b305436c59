"""``pathfinding data``: list the data files from elsewhere (HippoRAG's release) and fetch them."""

from __future__ import annotations

import os

from pathfinding._argtypes import positive_seconds

__all__ = ["add_commands"]


def _cmd_data_list(args) -> int:
    import json

    from pathfinding.cli.common import human_size
    from pathfinding.hipporag.storage.datasets import REGISTRY, get_data_home, local_status

    rows = []
    for f in REGISTRY.values():
        path, status = local_status(f.name)
        rows.append({"name": f.name, "file": f.filename, "size": f.size, "sha256": f.sha256,
                     "url": f.url, "licence": f.licence, "path": None if path is None else str(path),
                     "status": status})  # fmt: skip
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name']:<{width}}  {human_size(r['size']):>9}  {r['path'] or r['status']}")
        print(f"{'':<{width}}  {r['licence']}")
    missing = [r["name"] for r in rows if r["status"] == "missing"]
    corrupt = [r["name"] for r in rows if r["path"] is None and r["status"] != "missing"]
    total = sum(r["size"] for r in rows)
    print(f"{len(rows)} files, {human_size(total)}; cache {get_data_home()}, "
          f"local copy $PATHFINDING_DATA={os.environ.get('PATHFINDING_DATA') or '(not set)'}")
    if missing:
        print(f"missing: {len(missing)} (get them with `pathfinding data fetch`)")
    if corrupt:
        print(f"corrupt: {len(corrupt)} (`pathfinding data fetch {' '.join(corrupt)}` replaces them)")
    return 0


def _cmd_data_fetch(args) -> int:
    from pathfinding.cli.common import note
    from pathfinding.errors import DataDownloadError, DataError
    from pathfinding.hipporag.storage.datasets import REGISTRY, entry, fetch

    files = [entry(name) for name in dict.fromkeys(args.names)] if args.names else list(REGISTRY.values())
    failed: dict[str, DataError] = {}
    for f in files:  # each one tried, each one reported; the status says whether any failed
        try:
            path = fetch(f.name, source=args.source, timeout=args.timeout)
        except DataError as exc:
            if len(files) == 1:
                raise  # one file: its one line, as any other command's error
            failed[f.name] = exc
            note(f"{f.name}: failed: {exc}")
            continue
        print(f"{f.name}: {path}", flush=True)
    if not failed:
        return 0
    note(
        f"pathfinding data fetch: error: {len(failed)} of {len(files)} files failed "
        f"({', '.join(failed)}); the others are in place, and rerunning fetches only what is missing"
    )
    return 1 if any(isinstance(e, DataDownloadError) for e in failed.values()) else 2


def add_commands(sub) -> None:
    """Register ``data list`` and ``data fetch`` on the top-level subparsers."""
    p = sub.add_parser(
        "data",
        help="list and fetch the data files from elsewhere (HippoRAG's release)",
        description="The files of HippoRAG's release that the real-text rows, notebooks 7-8 and some "
        "tests read: none is in the repository. `list` says where each is (or why it is not usable), "
        "`fetch` downloads and verifies them into the cache.",
    )
    data = p.add_subparsers(dest="data_command", required=True, metavar="SUBCOMMAND")
    q = data.add_parser(
        "list",
        help="each file: size, licence, where it is, or that it is missing or corrupt",
        description="Each registry file: its size, its licence, and the verified local copy that "
        "would be read ($PATHFINDING_DATA first, then the cache), or why none can be: missing, or "
        "corrupt (its checksum differs from the registry's) with the command that replaces it.",
    )
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
