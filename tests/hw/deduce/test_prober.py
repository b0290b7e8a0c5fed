"""The band engine's probing sequencer (hw/deduce/prober.py) against
model.deduce.Engine.deduce as model.band.BandEngine counts it, in Amaranth's
simulator: on the inputs of every deduce call of real searches of corpus
puzzles, in order (the label memory kept from one call to the next when the
model's label registers are the ones the last call left, else loaded as from
the trail; the dirty flag loaded as the engine will), the final state read
back, ``conflict``, every counter (probes, probe hits, saves, restores, sweeps,
flood and label passes, flood and label runs), the best cell and the
documented clock count."""

import pytest
from amaranth.hdl import Fragment

import slitherlink.model.band as band_model
import slitherlink.model.deduce as D
from slitherlink.hw.deduce.prober import Prober
from slitherlink.model.band import register_labels
from slitherlink.model.deduce import H1, V1
from tests.conftest import load
from tests.hw.deduce.gateware_cases import puzzle_of, to_build
from tests.hw.deduce.test_labels import to_build_labels

from tests.hw.deduce.test_propagator import Driver
from tests.hw.deduce.test_sweep import simulate as sweep_simulate

COUNTERS = ("probes", "probe_hits", "saves", "restores",
            "sweeps", "flood_passes", "label_passes", "floods", "label_runs",
            "sweep_words", "sweep_inner", "snap_words")


def spy_engine(puzzle, band=1):
    """A BandEngine whose deduce calls are recorded, in order: ``(geo, state, registers
    before, new state, conflict, counter deltas, best bit, registers after, assumed)``;
    ``assumed``: the row of the cell the decision or backtrack before the call set
    (None: a loaded state)."""
    engine = band_model.band_engine(puzzle, band=band, check=False, span_bands=(band,))
    calls = []
    real = engine.deduce

    def counts():
        c, b = engine.counters, engine.band_counters
        return (c.probes, c.probe_hits, c.saves, c.restores, c.sweeps, b.flood_passes,
                b.label_passes, c.floods, c.label_runs, *b.sweep_spans[band],
                b.snapshot_words[band])

    def spy(state):
        before, regs, assumed = counts(), engine.registers, engine._assumed
        new, bad = real(state)
        delta = tuple(a - z for a, z in zip(counts(), before))
        calls.append((engine.geo, list(state), regs, list(new), bad, delta, engine.best,
                      engine.registers, assumed))
        return new, bad
    engine.deduce = spy
    return engine, calls


def recorded_calls(name, limit, *, band=1, max_decisions=30):
    puzzle = puzzle_of(name)
    engine, calls = spy_engine(puzzle, band)
    D.solve(puzzle, max_solutions=2, max_decisions=max_decisions, engine=engine)
    return puzzle, calls[:limit]


def implied_skips(name):
    """The model's probes skipped as implied (``Engine.skipped``) in the whole search."""
    puzzle = puzzle_of(name)
    engine = band_model.band_engine(puzzle, check=False, span_bands=(1,))
    D.solve(puzzle, max_solutions=2, max_decisions=30, engine=engine)
    return engine.skipped


def wrong_guesses(name, count):
    """deduce calls on the initial state with one grid cell given the colour its
    solution does not have (the first ``count`` cells in scan order), each from
    cleared label registers: conflicts found by propagation, by probing, or not."""
    puzzle, solution = load(name)
    engine, calls = spy_engine(puzzle)
    geo = engine.geo
    for r in range(puzzle.rows):
        for c in range(puzzle.cols):
            if len(calls) >= count:
                return puzzle, calls
            engine.clear_labels()
            inside = solution[r][c] if solution is not None else 0
            bit = geo.bit(r, c).bit_length() - 1
            state = engine._assume(engine.initial_state(), bit, 1 - inside)
            engine._assumed = None   # not set in a fixpoint: the first sweep is whole
            engine.deduce(state)
    return puzzle, calls


class ProberDriver(Driver):
    def __init__(self, dut, ctx):
        self.dut, self.ctx = dut, ctx
        self.lb = dut.propagator.labels_block

    async def deduce(self, geo, assumed, limit):
        """One deduce of a puzzle of model geometry ``geo`` (``assumed``: as the propagator
        driver's)."""
        dut, ctx = self.dut, self.ctx
        self.set_span(geo, assumed)
        await self.run(limit, "deduce")
        got = {n: ctx.get(getattr(dut, n)) for n in COUNTERS + (
            "cells", "snap_words", "prop_clocks", "scan_clocks", "clocks")}
        best = ctx.get(dut.best_index) if ctx.get(dut.best_valid) else None
        return bool(ctx.get(dut.conflict)), got, best


def simulate(dut, bench):
    sweep_simulate(dut, bench, ProberDriver)


def expected_clocks(dut, got):
    """The documented clock count (module docstring of band_prober)."""
    return (got["prop_clocks"] + 1 + got["probes"] + got["probe_hits"]
            + got["cells"] * 2 + got["restores"] + got["snap_words"]
            + got["scan_clocks"])


def check(max_rows, max_cols, band, searches, dut=None):
    dut = dut or Prober(max_rows, max_cols, band=band)
    geo_b = dut.geometry
    failures = []
    stats = {"calls": 0, "kept": 0, "conflicts": 0, "probes": 0, "hits": 0, "best": 0,
             "probe_conflicts": 0, "clocks": 0}

    async def bench(drv):
        for puzzle, calls in searches:
            await drv.load_puzzle(puzzle)
            await drv.clear_labels()
            last_key = D.Engine(puzzle).registers
            for geo, state, regs, new, bad, counts, best, after, assumed in calls:
                stats["calls"] += 1
                await drv.load_state(to_build(geo, geo_b, state))
                if regs is last_key:
                    stats["kept"] += 1
                else:
                    start = {} if regs[0] is None else register_labels(geo, regs[0])
                    await drv.load_labels(to_build_labels(geo, drv.dut, start) if start else {})
                await drv.set_dirty((state[H1], state[V1]) != regs[1])
                conflict, got, hw_best = await drv.deduce(geo, assumed, 200_000)
                want_best = None if best is None else \
                    (best // geo.width) * geo_b.width + best % geo.width
                have = tuple(got[n] for n in COUNTERS)
                ok = (conflict, have, hw_best) == (bad, counts, want_best)
                ok &= got["clocks"] == expected_clocks(dut, got)
                if not bad:
                    ok &= await drv.read_state() == to_build(geo, geo_b, new)
                if not ok:
                    failures.append((puzzle.name, stats["calls"], (conflict, have, hw_best),
                                     (bad, counts, want_best)))
                stats["conflicts"] += bad
                stats["probe_conflicts"] += bad and counts[0] > 0
                stats["probes"] += counts[0]
                stats["hits"] += counts[1]
                stats["best"] += best is not None
                stats["clocks"] += got["clocks"]
                last_key = after

    simulate(dut, bench)
    assert not failures, (len(failures), failures[:3])
    return stats


def test_elaborates():
    dut = Prober(4, 5)
    assert (dut.groups, dut.word_bits) == (6, 7)
    Fragment.get(dut, None)
    Fragment.get(Prober(6, 6, band=2), None)


def test_searches_4x5():
    """Whole searches (the small corpus puzzles that need probing or branching)."""
    names = ["janko_0003", "edge_2x4_global_unsat", "edge_3x3_noclues",
             "edge_1x3_two_solutions", "edge_2x2_noclues", "edge_2x2_3_corner"]
    stats = check(4, 5, 1, [recorded_calls(n, 40) for n in names])
    assert stats["probes"] >= 100 and stats["hits"] >= 1 and stats["best"] >= 10
    assert stats["conflicts"] >= 1 and stats["kept"] >= 5
    # a deduce call in which no cell scored: the best cell is the first candidate
    assert implied_skips("edge_1x3_two_solutions")["unscored"] >= 1


def test_searches_and_wrong_guesses_6x6():
    searches = [recorded_calls("janko_0025", 5), wrong_guesses("janko_0014", 4)]
    stats = check(6, 6, 1, searches)
    assert stats["hits"] >= 6 and stats["conflicts"] >= 2 and stats["probe_conflicts"] >= 1


@pytest.mark.parametrize("name", [
    # janko_0022 has every kind of skip janko_0029 has (and cells with both colours implied)
    "janko_0022", pytest.param("janko_0029", marks=pytest.mark.slow)])
def test_implied_colours_6x6(name):
    """Searches (one deduce each) in which probes are skipped as implied (docs/deduce.md
    section 4): an IN probe (the cell probed OUT first, not scored) and an OUT
    probe (not scored); janko_0022 also has cells with both colours implied."""
    skipped = implied_skips(name)
    assert skipped["in"] >= 1 and skipped["out"] >= 1, skipped
    assert name != "janko_0022" or skipped["cell"] >= 1, skipped
    stats = check(6, 6, 1, [recorded_calls(name, 1)])
    assert stats["calls"] == 1 and stats["probes"] >= 14


@pytest.mark.slow
@pytest.mark.parametrize("max_rows,max_cols,band,names,limit", [
    (6, 6, 2, ["janko_0022", "janko_0026", "edge_3x3_noclues"], 12),
    (6, 6, 1, ["janko_0022", "edge_5x5_noclues"], 8),
    (8, 9, 3, ["janko_0025", "edge_5x5_noclues"], 4),
])
def test_recorded_searches_slow(max_rows, max_cols, band, names, limit):
    stats = check(max_rows, max_cols, band,
                  [recorded_calls(n, limit, band=band) for n in names])
    assert stats["probes"] >= 10 and stats["hits"] >= 1 and stats["best"] >= 1
