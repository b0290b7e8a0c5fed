"""The band engine's propagation sequencer (hw/deduce/propagator.py) against
model.deduce.Engine.propagate as model.band.BandEngine counts it, in Amaranth's
simulator: on the inputs of every propagate call of real searches of corpus
puzzles, in order (the label memory kept from one call to the next when the
model's label registers are the ones the last call left, else loaded as from the
trail; the dirty flag loaded as the engine will), the final state read back,
``conflict``, the counters (sweeps, flood and label passes, runs, the label
passes beyond the flood runs) and the exact clocks, and the label memory after
each call (the model's label array: label runs beside the flood runs, some
dropped)."""

import pytest
from amaranth.hdl import Fragment

import slitherlink.model.band as band_model
import slitherlink.model.deduce as D
from slitherlink.hw.deduce.labels import DRAIN, NETWORKS
from slitherlink.hw.deduce.propagator import Propagator
from slitherlink.model.deduce import C0, C1, H1, V1
from tests.hw.deduce.gateware_cases import puzzle_of, to_build
from tests.hw.deduce.test_labels import LabelPorts, build_clocks, to_build_labels
from tests.hw.deduce.test_sweep import Driver as SweepDriver
from tests.hw.deduce.test_sweep import simulate as sweep_simulate


# -- recorded propagations ------------------------------------------------------------------------

def spy_engine(puzzle, band=1):
    """A BandEngine for ``puzzle`` whose propagate calls are recorded, in order, in the
    returned list: ``(geo, state, registers before, new state, conflict, counts,
    registers after, info)``; ``counts`` = (sweeps, flood_passes, label_passes,
    floods, label_runs, sweep words, inner sweep spans, late label passes, late label
    runs) of the call (the spans at ``band``); ``info``: how many flood and label stages
    of the call deduced something (applied through the sweep's ``fix`` port), how the
    call ended (:func:`ending`), and ``assumed``: the row of the cell an assumption set
    in the state (None: the first sweep pass is over every group)."""
    engine = band_model.band_engine(puzzle, band=band, check=False, span_bands=(band,))
    calls = []
    real = engine.propagate
    info = {}

    def stage(method, key):
        def wrapped(state):
            passes = engine.band_counters.label_passes
            if key == "label_fixes":   # a used label run: what it starts from
                info["label_runs"].append((engine.geo, list(state), engine.registers[2],
                                           engine._flood_run))
            new, bad = method(state)
            if key == "flood_fixes":   # a label run beside it dropped
                info["dropped"] += engine.band_counters.label_passes > passes
            info[key] += not bad and new != state
            info["last"] = (key, bad)
            return new, bad
        return wrapped
    engine._flood_stage = stage(engine._flood_stage, "flood_fixes")
    engine._label_stage = stage(engine._label_stage, "label_fixes")

    def counts():
        c, b = engine.counters, engine.band_counters
        return (c.sweeps, b.flood_passes, b.label_passes, c.floods, c.label_runs,
                *b.sweep_spans[band], b.late_label_passes, b.late_label_runs)

    def spy(state):
        before, regs = counts(), engine.registers
        info.update(flood_fixes=0, label_fixes=0, dropped=0, last=None,
                    assumed=engine._assumed, label_runs=[])
        new, bad = real(state)
        info["end"] = ending(new, bad, info.pop("last"))
        delta = tuple(a - z for a, z in zip(counts(), before))
        calls.append((engine.geo, list(state), regs, list(new), bad, delta, engine.registers,
                      dict(info)))
        return new, bad
    engine.propagate = spy
    return engine, calls


def ending(new, bad, last):
    """How a propagation ended (the FSM's exits)."""
    if not bad:
        return "fixpoint after labels" if last and last[0] == "label_fixes" else \
            "fixpoint after floods"
    if last and last[1]:
        return "flood conflict" if last[0] == "flood_fixes" else "label conflict"
    return "sweep conflict" if D.conflict_of(new) else "no loop"


def recorded_calls(name, limit, *, band=1, max_decisions=30):
    """The propagate calls of a whole search of ``name`` (the first ``limit``)."""
    puzzle = puzzle_of(name)
    engine, calls = spy_engine(puzzle, band)
    D.solve(puzzle, max_solutions=2, max_decisions=max_decisions, engine=engine)
    return puzzle, calls[:limit]


def single_calls(name, states, band=1):
    """One propagate call per state (model geometry), each from cleared label registers."""
    puzzle = puzzle_of(name)
    engine, calls = spy_engine(puzzle, band)
    for state in states:
        engine.clear_labels()
        engine.propagate(state)
    return puzzle, calls


# -- driver -------------------------------------------------------------------------------------

class Driver(SweepDriver, LabelPorts):
    """The sweep's driver (the propagator has the same load and read ports), plus the
    label memory and the propagation."""

    def __init__(self, dut, ctx):
        super().__init__(dut, ctx)
        self.lb = dut.labels_block

    async def clear_labels(self):
        dut, ctx = self.dut, self.ctx
        ctx.set(dut.clear_labels, 1)
        await ctx.tick()
        ctx.set(dut.clear_labels, 0)
        while ctx.get(dut.busy):
            await ctx.tick()

    async def set_dirty(self, value):
        dut, ctx = self.dut, self.ctx
        ctx.set(dut.dirty_in, value)
        ctx.set(dut.dirty_we, 1)
        await ctx.tick()
        ctx.set(dut.dirty_we, 0)

    def set_span(self, geo, assumed):
        """``first``, ``last`` and ``limit`` for a puzzle of model geometry ``geo``: the
        span the model's first sweep pass writes (``assumed``: as :meth:`propagate`'s)."""
        dut, ctx = self.dut, self.ctx
        words = -(-(geo.rows + 2) // dut.band)
        seed = None if assumed is None else {assumed}
        first, last = band_model.sweep_span(seed, dut.band, words)
        ctx.set(dut.first, first)
        ctx.set(dut.last, last)
        ctx.set(dut.limit, words - 1)

    async def propagate(self, geo, assumed, limit=200_000):
        """One propagation of a puzzle of model geometry ``geo`` (the last group of its
        grid is ``limit``; ``assumed``: the row of the cell an assumption set, whose
        group and one either side the first pass writes, or None: every group);
        returns (conflict, counts, clocks) and checks busy/done (at most ``limit``
        clocks)."""
        dut, ctx = self.dut, self.ctx
        self.set_span(geo, assumed)
        busy = await self.run(limit, "the propagation")
        counts = tuple(ctx.get(getattr(dut, n)) for n in (
            "sweeps", "flood_passes", "label_passes", "floods", "label_runs", "sweep_words",
            "sweep_inner", "late_label_passes", "late_label_runs"))
        return bool(ctx.get(dut.conflict)), counts, busy


def simulate(dut, bench):
    sweep_simulate(dut, bench, Driver)


def expected_clocks(dut, counts, skipped=0):
    """The documented clock count (module docstring of band_propagator); ``skipped``:
    the groups the late label passes did not stream (:func:`late_skipped`)."""
    sweeps, fp, lp, floods, runs, words, inner, late_passes, late_runs = counts
    return (words + sweeps * dut.sweep_overhead + inner * dut.sweep_inner_clocks
            + (fp + late_passes) * dut.stage_pass_clocks + floods + late_runs * DRAIN
            - skipped)


def late_skipped(dut, label_runs):
    """The groups the late label passes of the used ``label_runs`` (recorded: geometry,
    state, label array, flood run) did not stream against whole passes, less a clock
    for each whole pass after a partial one: the model's runs on the build's geometry
    (its passes stream the build's groups)."""
    skipped = 0
    for geo, state, start, flood_run in label_runs:
        _, streamed = build_clocks(geo, dut.labels_block, state, None, start, flood_run)
        late = streamed[flood_run:]
        skipped += len(late) * dut.groups - sum(late)
    return skipped


def check_searches(max_rows, max_cols, band, names, limit, label_network="small"):
    """Every recorded call of each search, in order; returns statistics."""
    return check(max_rows, max_cols, band,
                 [recorded_calls(name, limit, band=band) for name in names], label_network)


def check(max_rows, max_cols, band, searches, label_network="small"):
    """``searches``: (puzzle, recorded calls).  Each puzzle's calls in order on one
    build; every output against the model's; returns statistics."""
    dut = Propagator(max_rows, max_cols, band=band, label_network=label_network)
    geo_b = dut.geometry
    failures = []
    stats = {"calls": 0, "kept": 0, "conflicts": 0, "label_runs": 0, "flood_fixes": 0,
             "label_fixes": 0, "clocks": 0, "model_clocks": 0, "ends": set(),
             "assumed": 0, "inner": 0, "dropped": 0, "early_labels": 0, "skipped": 0}

    async def bench(drv):
        for puzzle, calls in searches:
            await drv.load_puzzle(puzzle)
            await drv.clear_labels()
            last = D.Engine(puzzle).registers    # the cleared registers
            last_key = last
            for geo, state, regs, new, bad, counts, after, info in calls:
                stats["calls"] += 1
                await drv.load_state(to_build(geo, geo_b, state))
                if regs is last_key:
                    stats["kept"] += 1        # the label memory as the last call left it
                else:                         # as the trail or a snapshot restores it
                    await drv.load_labels(to_build_labels(geo, drv.dut, regs[2]))
                await drv.set_dirty((state[H1], state[V1]) != regs[1])
                conflict, got, clocks = await drv.propagate(
                    geo, info["assumed"], 2 * expected_clocks(dut, counts) + 100)
                ok = (conflict, got) == (bad, counts)
                skipped = late_skipped(dut, info["label_runs"])
                ok &= clocks == expected_clocks(dut, got, skipped)
                stats["skipped"] += skipped
                if not bad:
                    ok &= await drv.read_state() == to_build(geo, geo_b, new)
                if after[2] is not regs[2]:
                    # the label memory: the model's label array, every point of the build
                    ok &= await drv.read_labels() == to_build_labels(geo, drv.dut, after[2])
                if not ok:
                    failures.append((puzzle.name, stats["calls"], (conflict, got, clocks),
                                     (bad, counts)))
                stats["conflicts"] += bad
                stats["flood_fixes"] += info["flood_fixes"]
                stats["label_fixes"] += info["label_fixes"]
                stats["ends"].add(info["end"])
                stats["label_runs"] += counts[4]
                # label passes dropped beside flood runs; label runs that ended first
                stats["dropped"] += info["dropped"]
                stats["early_labels"] += counts[4] > counts[8]
                stats["assumed"] += info["assumed"] is not None
                stats["inner"] += counts[6]
                stats["clocks"] += clocks
                stats["model_clocks"] += band_model.BandCycleModel(band).pass_clocks(
                    max_rows) * (counts[0] + counts[1] + counts[7])
                last_key = after

    simulate(dut, bench)
    assert not failures, (len(failures), failures[:3])
    return stats


# -- tests ----------------------------------------------------------------------------------------

def test_elaborates_and_clocks():
    dut = Propagator(4, 5)
    # band 1: a sweep pass is groups + 3 clocks and its hand-off; flood / label passes groups + 2
    assert (dut.groups, dut.sweep_clocks, dut.stage_pass_clocks) == (6, 10, 8)
    Fragment.get(dut, None)
    for rows, cols, clocks in ((10, 10, 16), (20, 36, 26)):
        # the model's groups + 2, and 2 more: 14 + 2 and 24 + 2
        assert band_model.BandCycleModel(1).pass_clocks(rows) + 2 == clocks
    # the model's label runs drain as the label block's do
    assert band_model.BandCycleModel().drain == DRAIN == 1
    half = Propagator(6, 6, band=2)
    assert (half.groups, half.sweep_clocks, half.stage_pass_clocks) == (4, 7, 6)
    Fragment.get(half, None)


SEARCHES = [
    # (build rows, build cols, band, puzzles, calls a search)
    (4, 5, 1, ["janko_0002", "edge_2x4_global_unsat", "edge_3x3_noclues", "janko_0003"], 40),
    (6, 6, 1, ["loopy_5x5_easy_02", "janko_0025", "janko_0014"], 40),
    (6, 6, 2, ["janko_0022", "janko_0026"], 30),
]


@pytest.mark.parametrize("max_rows,max_cols,band,names,limit", SEARCHES)
def test_recorded_searches(max_rows, max_cols, band, names, limit):
    stats = check_searches(max_rows, max_cols, band, names, limit)
    assert stats["conflicts"] >= 1 and stats["label_fixes"] >= 1 and stats["kept"] >= 5
    assert stats["label_runs"] >= 10
    # first passes over an assumed cell's span, and spans after group 0
    assert stats["assumed"] >= 10 and stats["inner"] >= 10
    # label runs dropped beside flood runs that deduced, and used label runs that ended
    # before the flood run beside them
    assert stats["dropped"] >= 2 and stats["early_labels"] >= 1
    # partial label passes (docs/deduce.md section 7.3) ran: the late passes streamed
    # fewer groups than whole passes (or more, with the findings pass's clock)
    assert stats["skipped"] != 0


@pytest.mark.parametrize("label_network", NETWORKS[1:])
def test_recorded_searches_label_networks(label_network):
    """The fast and pairs label row networks (docs/deduce.md section 8.3): every output,
    counter and the exact clocks as the model's, as with the small one."""
    stats = check_searches(6, 6, 1, ["loopy_5x5_easy_02", "janko_0025"], 40, label_network)
    assert stats["conflicts"] >= 1 and stats["label_runs"] >= 10 and stats["label_fixes"] >= 1


@pytest.mark.slow
@pytest.mark.parametrize("max_rows,max_cols,band,names", [
    (8, 9, 1, ["loopy_7x7_normal_01", "janko_0022", "janko_0047"]),
    (10, 10, 1, ["loopy_10x10_hard_01", "edge_10x10_two_solutions"]),
    (8, 9, 3, ["loopy_7x7_normal_01", "janko_0047"]),
])
def test_recorded_searches_larger(max_rows, max_cols, band, names):
    stats = check_searches(max_rows, max_cols, band, names, 120)
    assert stats["conflicts"] >= 1 and stats["label_runs"] >= 10


def test_initial_and_hand_made_states():
    """The initial state of puzzles (the search's first call), a puzzle whose cells are all
    OUT (the "no loop" conflict), and the flood test's hand-made states (enclosed cells,
    IN and OUT conflicts, serpentines) on a puzzle without clues."""
    from tests.hw.deduce.test_floods import hand_states
    searches = []
    for name in ["edge_2x2_33", "janko_0002", "loopy_5x5_easy_02", "00\n00\n",
                 "3.3\n.3.\n33.\n", "edge_2x4_global_unsat"]:
        engine = D.Engine(puzzle_of(name))
        searches.append(single_calls(name, [engine.initial_state()]))
    geo, states = hand_states()
    states = [s for _, s in states]
    ring = [(1, 1), (1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3)]
    for colour, other in ((C0, C1), (C1, C0)):
        # an unknown cell in a ring of OUT cells (with an IN cell outside): the IN flood
        # makes it OUT; in a ring of IN cells: the OUT flood makes it IN
        s = [0] * 10
        s[C0] = geo.frame
        s[C1] |= geo.bit(0, 4)
        for r, c in ring:
            s[colour] |= geo.bit(r, c)
        states.append(s)
        s = list(s)
        s[other] |= geo.bit(0, 0) | geo.bit(4, 4)
        states.append(s)
    # a closed loop around (2, 2) and a stray line: the floods deduce, then conflict (the
    # label stage's conflict is not reachable in a propagation: the floods fill either side
    # of a closed loop first, and the sweeps find the stray line)
    s = [0] * 10
    s[C0] = geo.frame
    s[H1] |= geo.bit(2, 1) | geo.bit(2, 2) | geo.bit(0, 0)
    s[V1] |= geo.bit(1, 2) | geo.bit(2, 2)
    states.append(s)
    searches.append(single_calls("edge_5x5_noclues", states))
    stats = check(6, 6, 1, searches)
    assert stats["ends"] == {"no loop", "sweep conflict", "flood conflict",
                             "fixpoint after floods", "fixpoint after labels"}
    assert stats["flood_fixes"] >= 2
