"""The band deduction engine behind its bus (hw/deduce/band_engine.py) against the model.

The firmware's search through the registers (``tests.hw.deduce.test_engine_bus``), on
:class:`~hw.deduce.band_engine.BandDeduceEngine` builds of several band heights: the
solutions, the end of the search and every counter equal :func:`model.band.band_solve`'s
(:func:`model.deduce.solve` with the band passes counted: DEDUCE_FLOOD_ITERATIONS and
DEDUCE_LABEL_ITERATIONS are the flood and label passes), on corpus puzzles and on small
random puzzles with several solutions or none (where the trail works hardest).  The
10x10 build runs on the virtual board (tests/sim/test_vboard_band.py), where the same search
is thousands of times faster than in Amaranth's simulator; the registers and a full
trail are tested beside the parallel engine's (test_engine_bus.py).
"""

import random

import pytest

from slitherlink.hw.deduce.band_engine import BandDeduceEngine
from slitherlink.model.band import band_solve
from tests.conftest import PUZZLES, load
from tests.hw.deduce.test_engine_bus import COUNTERS, random_puzzle, run


def band_counters(band):
    def model(puzzle, max_solutions):
        want = band_solve(puzzle, band=band, max_solutions=max_solutions)
        c, b = want.outcome.counters, want.band
        registers = {name: getattr(c, name) for name in COUNTERS}
        registers["flood_iterations"] = b.flood_passes
        registers["label_iterations"] = b.label_passes
        return want.outcome, registers
    return model


def corpus(max_rows, max_cols, count):
    jobs = []
    for path in sorted(PUZZLES.glob("*.txt")):
        puzzle, _ = load(path.stem)
        if puzzle.rows <= max_rows and puzzle.cols <= max_cols:
            jobs.append((puzzle, 2))
    assert len(jobs) >= count
    return jobs[:count]


@pytest.mark.parametrize("band,label_network", [(1, "small"), (2, "small"), (3, "small"),
                                                (1, "fast")])
def test_band_engine_solves_corpus_puzzles_as_the_model(band, label_network):
    """The fast label network (docs/deduce.md section 12.17) changes no result or
    counter (its clocks: test_band_propagator.py)."""
    dut = BandDeduceEngine(5, 5, band=band, trail_depth=8, label_network=label_network)
    seen = run(dut, corpus(5, 5, 8), band_counters(band))
    assert any(found == 1 for found, _, _ in seen)


@pytest.mark.parametrize("band", [1, 2])
def test_band_engine_backtracks_through_the_trail_as_the_model(band):
    """Random small puzzles smaller than the build: many solutions or none."""
    rng = random.Random(12 + band)
    jobs = [(random_puzzle(rng, rng.randint(2, 4), rng.randint(2, 5), 0.35), 3)
            for _ in range(10)]
    jobs = jobs[:4] if band == 1 else jobs   # band 1's first four: 12 decisions
    dut = BandDeduceEngine(4, 5, band=band, trail_depth=16)
    seen = run(dut, jobs, band_counters(band))
    assert sum(d for _, d, _ in seen) >= 5 and sum(b for _, _, b in seen) >= 5
