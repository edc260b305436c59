"""What every test shares, wherever it lives (``tests/``, the package's doctests, ``README.md``): where the
data files from elsewhere are found, and what becomes of a test that needs one that no place holds.

The files (:mod:`pathfinding.hipporag.storage.datasets`) are read from the copy beside the checkout
when there is one, as ``make test`` does. A test that needs one that no place holds and no download
can bring is skipped with a one-line reason, unless the data is expected: with ``PATHFINDING_DATA``
set, or in CI with the copy present, it fails. The summary counts the tests skipped so and names the
command that fetches the files; with the data, it says that none was.

This file sits at the root, not in ``tests/``: pytest applies a conftest's hooks only to the tests
under its folder, and the package's doctests read the release too.
"""

import doctest
import os
from pathlib import Path

import pytest

from pathfinding.errors import DataError

SHARED_DATA = Path(__file__).resolve().parent.parent / "shared" / "data" / "hipporag"
if SHARED_DATA.is_dir():
    os.environ.setdefault("PATHFINDING_DATA", str(SHARED_DATA))

DATA_SKIP = "data unavailable"
"""How the reason of a test skipped for want of a data file starts (a test may skip so itself)."""

_FETCH = "`make data` (or `pathfinding data fetch`) fetches them, about 12 MB"


def _data_unavailable(exc) -> str | None:
    """The one-line message when a test failed for want of a data file, else None: raised in the test,
    in a doctest, or in a notebook's kernel (nbclient reports the kernel's exception by name)."""
    if isinstance(exc, doctest.UnexpectedException):
        exc = exc.exc_info[1]
    if isinstance(exc, DataError):
        return str(exc)
    if getattr(exc, "ename", None) in {"DataNotFoundError", "DataDownloadError"}:
        return str(exc.evalue)
    return None


def _data_expected() -> bool:
    return bool(os.environ.get("PATHFINDING_DATA") or (os.environ.get("CI") and SHARED_DATA.is_dir()))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.failed or call.excinfo is None:
        return
    reason = _data_unavailable(call.excinfo.value)
    if reason is not None and not _data_expected():
        report.outcome = "skipped"
        line = (item.location[1] or 0) + 1
        # The file's name is enough on each line; why no place had it is said once, in the summary.
        short = reason.partition(": ")[0]
        report.longrepr = (str(item.path), line, f"Skipped: {DATA_SKIP}: {short}")
        item.config.stash.setdefault(_WHY, reason)


_WHY = pytest.StashKey[str]()


def _reason(report) -> str:
    longrepr = report.longrepr
    return longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """One line: how many tests were skipped for want of the data, and how to fetch it."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if DATA_SKIP in _reason(r)]
    if skipped:
        why = config.stash.get(_WHY, "")
        terminalreporter.write_line(
            f"data: {len(skipped)} tests skipped for want of the data files from elsewhere; {_FETCH}, "
            f"and the next `make test` runs them" + (f". The first one missing: {why}" if why else ""),
            yellow=True,
        )
    elif terminalreporter.stats.get("passed"):
        terminalreporter.write_line("data: no test was skipped for want of the data files")
