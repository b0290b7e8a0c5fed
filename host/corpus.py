"""The puzzle corpus: ``manifest.csv`` and the puzzles beside it, found in one place.

The corpus is a folder of plain-format puzzles (``<name>.txt``), their solutions where
known (``<name>.sol``) and ``manifest.csv`` (one row a puzzle: ``name``, ``rows``, ``cols``,
``source``, ``unique``, ...).  Its folder is :func:`slitherlink.paths.puzzles`
(``$SLK_PUZZLES``, else ``../shared/puzzles`` beside the checkout); every reader of the
corpus (the tests, the benchmarks, the simulation benches) takes it from here.
"""

import csv
from pathlib import Path

from slitherlink.paths import puzzles as default_root

from .errors import HostError
from .puzzle import parse_colouring, parse_plain

__all__ = ["CorpusMissing", "root", "manifest", "load", "puzzle"]


class CorpusMissing(HostError):
    """No corpus where one was looked for; ``str()`` is one line."""


def root(folder=None):
    """The corpus folder: ``folder`` when given, else the default one."""
    return Path(folder) if folder is not None else default_root()


def manifest(folder=None, *, required=True):
    """The rows of ``manifest.csv``, with ``rows``, ``cols`` and ``cells`` as integers and
    ``size`` as ``"<rows>x<cols>"``.  Without the corpus: :class:`CorpusMissing`, or an
    empty list when not ``required``."""
    path = root(folder) / "manifest.csv"
    if not path.exists():
        if not required:
            return []
        raise CorpusMissing(f"no puzzle corpus at {path.parent} (manifest.csv missing): put "
                            f"it at ../shared/puzzles beside the checkout or set SLK_PUZZLES")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["rows"], row["cols"] = int(row["rows"]), int(row["cols"])
        row["cells"] = row["rows"] * row["cols"]
        row["size"] = f"{row['rows']}x{row['cols']}"
    return rows


def puzzle(name, folder=None):
    """The corpus puzzle ``name``."""
    return parse_plain((root(folder) / f"{name}.txt").read_text(), name=name)


def load(name, folder=None):
    """``(puzzle, solution or None)`` of the corpus puzzle ``name``."""
    sol = root(folder) / f"{name}.sol"
    return puzzle(name, folder), (parse_colouring(sol.read_text()) if sol.exists() else None)
