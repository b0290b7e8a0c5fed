"""The deduction engine's golden model on the puzzle corpus: every answer agrees with
the puzzle's .sol and the manifest's ``unique`` column.

The CI sample is every puzzle up to 10x10 plus a few large ones (well under two
minutes on one core); the whole corpus is behind the ``slow`` marker
(``bench/band_model.py`` prints the measured table).
"""

import time

import pytest

from slitherlink.host.check import check
from slitherlink.model.deduce import solve
from tests.conftest import load, manifest

LARGE = ["loopy_20x36_hard_01", "puzzleloop_30x25_hard_124212", "loopy_30x30_hard_01"]
SAMPLE = [row["name"] for row in manifest() if row["cells"] <= 100] + LARGE
REST = [row["name"] for row in manifest() if row["name"] not in SAMPLE]

#: the search budget per puzzle (docs/deduce.md lists the puzzles that need more)
MAX_DECISIONS = 20_000
SECONDS = 120


def agree(name, corpus, *, seconds=None):
    row = next(r for r in corpus if r["name"] == name)
    puzzle, solution = load(name)
    outcome = solve(puzzle, max_solutions=2, max_decisions=MAX_DECISIONS,
                    deadline=None if seconds is None else time.monotonic() + seconds)
    for found in outcome.solutions:
        assert check(puzzle, found).ok
    if outcome.limit_reached:
        assert seconds is not None, f"{name}: the CI sample must finish"
        # what was found so far must still be right
        assert len(outcome.solutions) <= (2 if row["unique"] == "no" else 1)
        if row["unique"] == "yes":
            assert outcome.solutions in ([], [solution])
        pytest.skip(f"search limit after {outcome.counters.decisions} decisions "
                    f"(see docs/deduce.md)")
    verdict = {0: "unsat", 1: "yes", 2: "no"}[len(outcome.solutions)]
    assert verdict == row["unique"]
    assert outcome.exhausted == (verdict != "no")
    if verdict == "yes":
        assert outcome.solutions[0] == solution
    if verdict == "no":
        assert outcome.solutions[0] != outcome.solutions[1]
    return outcome


def test_the_sample(corpus):
    names = {r["name"] for r in corpus}
    assert set(LARGE) <= names and len(SAMPLE) > 300


@pytest.mark.parametrize("name", SAMPLE)
def test_corpus_sample(name, corpus):
    agree(name, corpus)


@pytest.mark.slow
@pytest.mark.parametrize("name", REST)
def test_corpus_rest(name, corpus):
    agree(name, corpus, seconds=SECONDS)
