"""Shared fixtures: the puzzle corpus (:mod:`host.corpus`, ``../shared/puzzles``), used in place."""

from pathlib import Path

import pytest

from slitherlink.host import corpus as _corpus

REPO = Path(__file__).resolve().parent.parent
PUZZLES = _corpus.root()


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
