"""The ``hipporag`` command group: index a corpus, query it, add and delete passages, score questions.

``pathfinding hipporag`` works on a user's own corpus and one index file:

* ``openie CORPUS --base-url URL --model NAME -o OPENIE.json`` -- two-step LLM OpenIE through any
  OpenAI-compatible endpoint, resumable (:mod:`~pathfinding.cli.openie`);
* ``index CORPUS --openie FILE -o INDEX`` or ``index CORPUS --extractor cooccurrence -o INDEX`` (no
  model) -- build and save, with the query cache beside it (:mod:`~pathfinding.cli.index`);
* ``query INDEX "question" -k 5`` (or ``--questions FILE``) and ``eval QUESTIONS --index INDEX``
  (:mod:`~pathfinding.cli.query`);
* ``add INDEX --corpus FILE --openie FILE`` and ``delete INDEX IDS...`` -- update the file in place
  (or write ``-o``), equal to a rebuild (:mod:`~pathfinding.cli.index`);
* ``sync INDEX FOLDER`` -- make an index built from a folder match the folder: only the files whose
  content changed are read again (:mod:`~pathfinding.cli.sync`);
* ``info INDEX`` -- counts and settings, ``--passages`` lists ids and titles
  (:mod:`~pathfinding.cli.info`).

A corpus is a JSON list of ``{title, text}``, JSON lines, HotpotQA's title -> sentences object, or a
folder of ``.txt``/``.md`` files, each split into passages along its headings and paragraphs
(:func:`~pathfinding.hipporag.io.loaders.load_corpus`). Every command takes
``--json`` for machine-readable output on stdout; progress bars go to stderr and only on a terminal.
Every path is checked before any work (:mod:`~pathfinding.cli.common`); an output never
replaces what the user gave, and ``index``, ``add``, ``delete`` and ``sync`` hold an exclusive lock on
the file they write for the whole read-modify-write (:mod:`~pathfinding.hipporag.storage.safety`);
output piped into ``head`` stops quietly.
"""

from __future__ import annotations

from pathfinding.cli import bench, index, info, openie, query, sync

__all__ = ["add_commands"]


def add_commands(sub) -> None:
    """Register the ``hipporag`` group and its commands on the top-level subparsers."""
    group = sub.add_parser(
        "hipporag",
        help="index your own corpus, query it, add and delete passages, keep it in sync with a folder",
        description="HippoRAG on your own corpus: extract triples, build one index file, ask it "
        "questions, score it on your questions, add and delete passages, keep it in sync with a folder.",
    )
    gsub = group.add_subparsers(dest="hipporag_command", required=True, metavar="SUBCOMMAND")
    openie.add_openie_command(gsub)
    index.add_index_command(gsub)
    query.add_query_commands(gsub)
    index.add_update_commands(gsub)
    sync.add_sync_command(gsub)
    info.add_info_command(gsub)
    bench.add_old_spellings(gsub)
