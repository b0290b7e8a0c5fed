"""Shared fixtures: the puzzle corpus of ../shared/puzzles, used in place."""

import csv
import os
from pathlib import Path

import pytest

from slitherlink.host.puzzle import parse_colouring, parse_plain

REPO = Path(__file__).resolve().parent.parent
PUZZLES = Path(os.environ.get("SLK_PUZZLES", REPO.parent / "shared" / "puzzles"))


def manifest():
    """Rows of ../shared/puzzles/manifest.csv, or an empty list without the corpus."""
    path = PUZZLES / "manifest.csv"
    if not path.exists():
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["rows"], row["cols"] = int(row["rows"]), int(row["cols"])
        row["cells"] = row["rows"] * row["cols"]
    return rows


def load(name):
    """(puzzle, solution or None) of a corpus puzzle."""
    puzzle = parse_plain((PUZZLES / f"{name}.txt").read_text(), name=name)
    sol = PUZZLES / f"{name}.sol"
    return puzzle, (parse_colouring(sol.read_text()) if sol.exists() else None)


@pytest.fixture(scope="session")
def corpus():
    rows = manifest()
    if not rows:
        pytest.fail(f"the puzzle corpus is missing: expected {PUZZLES}/manifest.csv "
                    f"(../shared/puzzles beside the repository, or set SLK_PUZZLES)")
    return rows
