"""Shared fixtures: the puzzle corpus (:mod:`host.corpus`, ``../shared/puzzles``), used in place."""

from pathlib import Path

import pytest

from slitherlink.host import corpus as _corpus

REPO = Path(__file__).resolve().parent.parent
PUZZLES = _corpus.root()

#: The wall-clock bound of a test's subprocess (a build, the CLI, a virtual board): a
#: guard against a hang, never a verdict on speed, so it is far above what any takes on
#: a machine that is busy with something else (a nice'd suite beside three place-and-route
#: runs took over 600 s for a 2x2 SoC's Arty tree, which takes about a minute alone).
HANG_SECONDS = 3600


def manifest():
    """Rows of the corpus's manifest.csv, or an empty list without the corpus."""
    return _corpus.manifest(required=False)


def load(name):
    """(puzzle, solution or None) of a corpus puzzle."""
    return _corpus.load(name)


@pytest.fixture(scope="session")
def corpus():
    try:
        return _corpus.manifest()
    except _corpus.CorpusMissing as error:
        pytest.fail(str(error))
