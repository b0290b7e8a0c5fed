"""The band deduction engine behind its bus (hw/deduce/band_engine.py) against the model.

The firmware's search through the registers (``tests.deduce.test_engine_bus``), on
:class:`~hw.deduce.band_engine.BandDeduceEngine` builds of several band heights: the
solutions, the end of the search and every counter equal :func:`model.band.band_solve`'s
(:func:`model.deduce.solve` with the band passes counted: DEDUCE_FLOOD_ITERATIONS and
DEDUCE_LABEL_ITERATIONS are the flood and label passes), on corpus puzzles and on small
random puzzles with several solutions or none (where the trail works hardest).  The
10x10 build runs on the virtual board (tests/test_vboard_band.py), where the same search
is thousands of times faster than in Amaranth's simulator.
"""

import random

import pytest
from amaranth.sim import Simulator

from slitherlink.host.puzzle import Puzzle
from slitherlink.hw.deduce.band_engine import BandDeduceEngine
from slitherlink.model.band import band_solve
from slitherlink.spec import registers as regmap
from tests.conftest import PUZZLES, load
from tests.deduce.test_engine_bus import COUNTERS, command, random_puzzle, read, run, write


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


@pytest.mark.parametrize("band", [1, 2, 3])
def test_band_engine_solves_corpus_puzzles_as_the_model(band):
    dut = BandDeduceEngine(5, 5, band=band, trail_depth=8)
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


def test_band_engine_registers_and_a_full_trail():
    """ID and CONFIG read back; a write to DEDUCE_SIZE reads back; rows beyond the build
    read 0; with a one-entry trail the nested DECIDE is ignored (STATUS.trail_full) and
    BACKTRACK pops the entry."""
    puzzle = Puzzle(((None,) * 4,) * 4)   # no clues: many solutions, nested decisions
    dut = BandDeduceEngine(4, 4, trail_depth=1)
    seen = []

    async def bench(ctx):
        b = dut.bus
        ident = regmap.DeduceId.unpack(await read(ctx, b, regmap.DeduceId.address))
        assert ident == {"version": regmap.DEDUCE_VERSION, "magic": regmap.DEDUCE_ID_MAGIC}
        config = regmap.DeduceConfig.unpack(await read(ctx, b, regmap.DeduceConfig.address))
        assert config == {"max_rows": 4, "max_cols": 4, "trail_depth": 1}
        for r in range(4):
            for c in range(4):
                await write(ctx, b, regmap.deduce_clue_address(r, c), regmap.CLUE_BLANK)
        await write(ctx, b, regmap.DeduceSize.address,
                    regmap.DeduceSize.pack(rows=4, cols=4, island=1))
        assert regmap.DeduceSize.unpack(await read(ctx, b, regmap.DeduceSize.address)) == {
            "rows": 4, "cols": 4, "island": 1}
        await command(ctx, b, "load")
        status = await command(ctx, b, "deduce")
        assert status["trail_empty"] and not status["trail_full"] and not status["complete"]
        status = await command(ctx, b, "decide")
        assert status["trail_full"] and not status["trail_empty"]
        decisions = regmap.DEDUCE_COUNTER_REGISTERS[
            regmap.DEDUCE_HW_COUNTERS.index("decisions")].address
        if not status["complete"] and not status["conflict"]:
            again = await command(ctx, b, "decide")   # ignored: the trail is full
            assert again == status
            assert await read(ctx, b, decisions) == 1
        assert await read(ctx, b, regmap.deduce_row_address(5, 0)) == 0
        assert await read(ctx, b, regmap.deduce_row_address(0, 1)) == 0
        status = await command(ctx, b, "backtrack")
        assert status["trail_empty"] and not status["trail_full"]
        seen.append(status)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert len(seen) == 1
