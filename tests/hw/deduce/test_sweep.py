"""The band sweep processor (hw/deduce/sweep.py) against the golden model's sweep
(model.deduce.sweep), in Amaranth's simulator: one pass = one sweep, on states
recorded from real searches of corpus puzzles, corruptions of them and random
states, on builds larger than the puzzle, for several band heights; and
repeated passes to the model's sweep fixpoint."""

import pytest
from amaranth import Elaboratable, Module, Signal
from amaranth.hdl import Fragment
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from slitherlink.hw.deduce.sweep import Sweep, halo_rows
from slitherlink.hw.deduce.sweep import rule_reach
from slitherlink.model.deduce import floods, sweep
from slitherlink.spec.deduce import C0, C1
from tests.hw.deduce.gateware_cases import (puzzle_inputs, puzzle_of, random_states,
                                            recorded_states, run_command, to_build)

SMALL = ["edge_2x2_33", "edge_1x2_3", "3.3\n.3.\n33.\n", "edge_3x3_noclues", "edge_2x2_3_corner"]
PAIRS = ["3.3..\n.3...\n33..3\n....3\n.3.33\n", "3.3.1\n23..0\n33.23\n1...3\n.3033\n"]

CASES = [
    # (build rows, build cols, band, puzzles)
    (3, 3, 1, SMALL),
    (3, 3, 2, SMALL),
    (3, 3, 5, SMALL),                # the whole framed grid in one word: the parallel case
    (4, 5, 1, ["janko_0002", "edge_2x4_global_unsat", "edge_1x5_ends"]),
    (4, 5, 4, ["janko_0002", "edge_2x4_global_unsat", "edge_1x5_ends"]),  # padding rows
    (6, 6, 1, PAIRS + ["loopy_5x5_easy_02", "janko_0022"]),
    (6, 6, 3, PAIRS + ["loopy_5x5_easy_02"]),
]


def words(dut, boards):
    """The memory words of the build bitboards ``boards`` (one per group of ``band`` rows)."""
    bits = dut.band * dut.geometry.width
    mask = (1 << bits) - 1
    return [sum((b >> (g * bits) & mask) << (i * bits) for i, b in enumerate(boards))
            for g in range(dut.groups)]


def unwords(dut, values, count):
    bits = dut.band * dut.geometry.width
    mask = (1 << bits) - 1
    return [sum((v >> (i * bits) & mask) << (g * bits) for g, v in enumerate(values))
            & ((1 << dut.geometry.cells) - 1) for i in range(count)]


class Driver:
    """Loads, runs and reads back a Sweep from an async testbench."""

    def __init__(self, dut, ctx):
        self.dut, self.ctx = dut, ctx

    async def load_puzzle(self, puzzle):
        dut, ctx = self.dut, self.ctx
        grid, clue, island = puzzle_inputs(puzzle, dut.geometry)
        ctx.set(dut.island, island)
        for g, word in enumerate(words(dut, [grid] + clue)):
            ctx.set(dut.waddr, g)
            ctx.set(dut.clue_in.as_value(), word)
            ctx.set(dut.clue_we, 1)
            await ctx.tick()
        ctx.set(dut.clue_we, 0)

    async def load_state(self, build):
        dut, ctx = self.dut, self.ctx
        for g, word in enumerate(words(dut, build)):
            ctx.set(dut.waddr, g)
            ctx.set(dut.state_in.as_value(), word)
            ctx.set(dut.state_we, 1)
            await ctx.tick()
        ctx.set(dut.state_we, 0)

    async def read_state(self):
        """The state read back through ``addr``; on a Sweep its label block's port,
        ``line_addr``, reading the groups in the other order, must give the same words."""
        dut, ctx = self.dut, self.ctx
        lines_too = isinstance(dut, Sweep)
        values, lines = [], {}
        for g in range(dut.groups):
            ctx.set(dut.addr, g)
            if lines_too:
                ctx.set(dut.line_addr, dut.groups - 1 - g)
            await ctx.tick()
            values.append(ctx.get(dut.state_out.as_value()))
            if lines_too:
                lines[dut.groups - 1 - g] = ctx.get(dut.line_out.as_value())
        if lines_too:
            assert [lines[g] for g in range(dut.groups)] == values, "line_out differs"
        return unwords(dut, values, 10)

    async def run(self, limit, what="the command"):
        """Pulse ``start`` and wait for ``done`` (``busy`` high meanwhile, at most
        ``limit`` clocks); checks that ``clocks`` counted them; returns them."""
        dut, ctx = self.dut, self.ctx
        busy = await run_command(dut, ctx, limit, what)
        assert busy == ctx.get(dut.clocks)
        return busy

    async def run_pass(self, first=0, last=None):
        """One pass over the span ``first .. last`` (default: every group); returns
        (changed, conflict) and checks the clock count (module docstring of band.py)."""
        dut, ctx = self.dut, self.ctx
        last = dut.groups - 1 if last is None else last
        ctx.set(dut.first, first)
        ctx.set(dut.last, last)
        up, down = dut.clue_halo
        clocks = (last - first + 1) + down + 1 + (up if first else 0)
        assert await self.run(clocks, "the pass") == clocks
        return ctx.get(dut.changed), ctx.get(dut.conflict)


def simulate(dut, bench, driver=Driver):
    """Run the async ``bench(driver(dut, ctx))`` on ``dut`` in Amaranth's simulator."""
    sim = Simulator(dut)
    sim.add_clock(1e-8)

    async def testbench(ctx):
        await bench(driver(dut, ctx))
    sim.add_testbench(testbench)
    sim.run()


def check_passes(max_rows, max_cols, band, jobs):
    """One pass per state: the state read back, ``changed`` and ``conflict`` equal the model's."""
    dut = Sweep(max_rows, max_cols, band=band)
    geo_b = dut.geometry
    failures = []
    outcomes = set()

    async def bench(drv):
        for puzzle, engine, states in jobs:
            await drv.load_puzzle(puzzle)
            for state in states:
                await drv.load_state(to_build(engine.geo, geo_b, state))
                changed, conflict = await drv.run_pass()
                want = sweep(engine.geo, engine.anchors, state)
                bad = any(want[i] & want[i + 1] for i in range(0, 10, 2))
                got = await drv.read_state()
                if (got != to_build(engine.geo, geo_b, want) or changed != (want != state)
                        or conflict != bad):
                    failures.append((puzzle.name, state))
                outcomes.add((bad, want != state))

    simulate(dut, bench)
    assert not failures, (len(failures), failures[:1])
    return outcomes


def sweep_fixpoint(engine, state):
    """The model's sweep loop (``Engine.propagate``'s inner loop): ``(state, sweeps, conflict)``."""
    sweeps = 0
    while True:
        sweeps += 1
        new = sweep(engine.geo, engine.anchors, state)
        bad = any(new[i] & new[i + 1] for i in range(0, 10, 2))
        if bad or new == state:
            return new, sweeps, bad
        state = new


def jobs_for(names, recorded=8, random=6):
    """Per puzzle: recorded states and corruptions, random states, and the sweep
    fixpoint of the initial state (a pass that changes nothing)."""
    jobs = []
    for i, name in enumerate(names):
        puzzle = puzzle_of(name)
        engine, states = recorded_states(puzzle, recorded, i)
        fixed, _, _ = sweep_fixpoint(engine, engine.initial_state())
        jobs.append((puzzle, engine, states + random_states(engine, random, 100 + i) + [fixed]))
    return jobs


def test_halo_is_computed_from_the_rule_table():
    halo = halo_rows()
    assert halo["state"] == rule_reach()
    up, down = halo["clues"]
    assert up >= halo["state"][0] and down >= halo["state"][1]
    dut = Sweep(6, 6, band=1)
    assert dut.state_halo == halo["state"] and dut.clue_halo == halo["clues"]
    assert dut.pass_clocks == dut.groups + halo["clues"][1] + 1
    whole = Sweep(6, 6, band=8)  # one group: no halo, two clocks
    assert whole.groups == 1 and whole.state_halo == whole.clue_halo == (0, 0)
    assert whole.pass_clocks == 2
    for block in (dut, whole):  # and both elaborate
        Fragment.get(block, None)


@pytest.mark.parametrize("max_rows,max_cols,band,names", CASES)
def test_one_pass_is_one_sweep(max_rows, max_cols, band, names):
    outcomes = check_passes(max_rows, max_cols, band, jobs_for(names))
    # conflicts, deductions and fixpoints all met
    assert {bad for bad, _ in outcomes} == {False, True}
    assert {found for _, found in outcomes} == {False, True}


@pytest.mark.slow
@pytest.mark.parametrize("max_rows,max_cols,band", [(7, 7, 1), (7, 7, 2), (8, 9, 1), (8, 9, 4)])
def test_one_pass_is_one_sweep_more(max_rows, max_cols, band):
    names = ["loopy_7x7_normal_01", "janko_0022", "janko_0014"] + PAIRS
    check_passes(max_rows, max_cols, band, jobs_for(names, 12, 8))


@pytest.mark.parametrize("max_rows,max_cols,band,names", [
    (4, 5, 1, ["janko_0002", "edge_2x4_global_unsat", "edge_1x5_ends"]),
    (6, 6, 1, ["loopy_5x5_easy_02", "janko_0022"] + PAIRS),
    (6, 6, 2, ["loopy_5x5_easy_02", "janko_0014"]),
    (6, 6, 8, ["janko_0022", PAIRS[1]]),
])
def test_passes_reach_the_model_fixpoint(max_rows, max_cols, band, names):
    """Repeated passes stop (no change, or a conflict) after as many sweeps as the
    model's sweep loop (``Engine.propagate``) and leave the same state."""
    dut = Sweep(max_rows, max_cols, band=band)
    geo_b = dut.geometry
    jobs = [(puzzle, engine, states[:5]) for puzzle, engine, states in jobs_for(names, 4, 3)]
    counts = []

    async def bench(drv):
        for puzzle, engine, states in jobs:
            await drv.load_puzzle(puzzle)
            for state in states:
                await drv.load_state(to_build(engine.geo, geo_b, state))
                want, sweeps, bad = sweep_fixpoint(engine, state)
                passes = 0
                while True:
                    passes += 1
                    changed, conflict = await drv.run_pass()
                    if conflict or not changed:
                        break
                    assert passes < 100
                assert (passes, conflict) == (sweeps, bad), puzzle.name
                assert await drv.read_state() == to_build(engine.geo, geo_b, want)
                counts.append(sweeps)

    simulate(dut, bench)
    assert max(counts) > 2


@pytest.mark.parametrize("max_rows,max_cols,band,names", [
    (6, 6, 1, ["loopy_5x5_easy_02", "janko_0022"] + PAIRS),
    (6, 6, 2, ["loopy_5x5_easy_02", "janko_0014"]),
    (7, 5, 3, ["janko_0014", PAIRS[1]]),
])
def test_a_span_writes_its_groups_and_nothing_else(max_rows, max_cols, band, names):
    """A pass over the span ``first .. last``: the span's groups as the model's sweep has
    them (the rows above and below read as they are), every other group untouched;
    ``changed``, ``changed_first`` / ``changed_last`` and ``conflict`` over the span; the
    clocks of the span (run_pass checks them).  And ``live`` after every load and pass:
    some grid cell of the memory is IN or unknown (the model's "no loop" test)."""
    import random as rnd
    dut = Sweep(max_rows, max_cols, band=band)
    geo_b, bits = dut.geometry, band * dut.geometry.width
    rng = rnd.Random(band)
    jobs = [(puzzle, engine, states[:6]) for puzzle, engine, states in jobs_for(names, 5, 3)]
    seen = {"inner": 0, "first": 0, "changed": 0, "dead": 0}

    def live(engine, state):
        grid = engine.geo.grid
        return bool(state[C1] & grid or grid & ~state[C0])

    async def bench(drv):
        ctx = drv.ctx
        for puzzle, engine, states in jobs:
            await drv.load_puzzle(puzzle)
            dead = list(engine.initial_state())
            dead[C0] |= engine.geo.grid          # every cell OUT
            for state in states + [dead]:
                build = to_build(engine.geo, geo_b, state)
                await drv.load_state(build)
                assert ctx.get(dut.live) == live(engine, state)
                seen["dead"] += not live(engine, state)
                first = rng.randrange(dut.groups)
                last = rng.randrange(first, dut.groups)
                changed, conflict = await drv.run_pass(first, last)
                want = to_build(engine.geo, geo_b, sweep(engine.geo, engine.anchors, state))
                span = sum(((1 << bits) - 1) << (g * bits) for g in range(first, last + 1))
                expect = [(w & span) | (b & ~span) for w, b in zip(want, build)]
                assert await drv.read_state() == expect, (puzzle.name, first, last)
                moved = [g for g in range(first, last + 1)
                         if any((e ^ b) >> (g * bits) & ((1 << bits) - 1)
                                for e, b in zip(expect, build))]
                assert changed == bool(moved)
                if moved:
                    assert (ctx.get(dut.changed_first), ctx.get(dut.changed_last)) == \
                        (moved[0], moved[-1])
                assert conflict == any(expect[i] & expect[i + 1] & span
                                       for i in range(0, 10, 2))
                if not conflict:
                    grid = to_build(engine.geo, geo_b, [engine.geo.grid] + [0] * 9)[0]
                    assert ctx.get(dut.live) == bool(expect[C1] & grid or grid & ~expect[C0])
                seen["inner"] += first > 0
                seen["first"] += first == 0
                seen["changed"] += bool(moved)

    simulate(dut, bench)
    assert seen["inner"] and seen["first"] and seen["changed"] and seen["dead"]


def test_the_fixpoint_loop_is_the_engines():
    """sweep_fixpoint counts the sweeps of Engine.propagate's first sweep loop."""
    import slitherlink.model.deduce as D
    for name in ("janko_0002", "loopy_5x5_easy_02"):
        engine = D.Engine(puzzle_of(name))
        saved = D.floods

        def stop(*args):
            raise StopIteration
        D.floods = stop  # propagate calls the floods right after its first sweep loop
        try:
            with pytest.raises(StopIteration):
                engine.propagate(engine.initial_state())
        finally:
            D.floods = saved
        _, sweeps, bad = sweep_fixpoint(engine, engine.initial_state())
        assert not bad and sweeps == engine.counters.sweeps > 1


class FixHarness(Elaboratable):
    """A Sweep with a memory of deduction words on its ``fix`` port (as the flood or
    label memory will be in the engine), loaded through ``fix_we``/``fix_word``."""

    def __init__(self, dut):
        self.dut = dut
        self.fix_we = Signal()
        self.fix_word = Signal(len(dut.state_in.as_value()))

    def elaborate(self, platform):
        m = Module()
        dut = self.dut
        m.submodules.dut = dut
        m.submodules.fix = mem = Memory(shape=len(self.fix_word), depth=dut.groups, init=[])
        rd, wr = mem.read_port(), mem.write_port()
        m.d.comb += [rd.addr.eq(dut.fix_addr), dut.fix_in.as_value().eq(rd.data),
                     wr.addr.eq(dut.addr), wr.data.eq(self.fix_word), wr.en.eq(self.fix_we)]
        return m


@pytest.mark.parametrize("max_rows,max_cols,band,names", [
    (4, 5, 1, ["janko_0002", "edge_1x5_ends"]),
    (6, 6, 1, ["loopy_5x5_easy_02", "janko_0022"]),
    (6, 6, 3, ["loopy_5x5_easy_02"]),
])
def test_a_pass_applies_the_deductions_it_is_given(max_rows, max_cols, band, names):
    """With deduction words on the ``fix`` port, a pass is the model's sweep of
    ``state | fix`` (the sweep that follows a flood or label stage that deduced), and
    ``changed`` compares with ``state | fix``; with zero words, the plain sweep.
    ``word_changed`` marks exactly the groups whose word the pass changed in the memory
    (the prober's snapshot copies those), also those that only the fix changed."""
    import random
    dut = Sweep(max_rows, max_cols, band=band)
    top = FixHarness(dut)
    geo_b = dut.geometry
    rng = random.Random(5)
    jobs = jobs_for(names, 6, 2)
    failures, outcomes = [], set()

    sim = Simulator(top)
    sim.add_clock(1e-8)
    pulsed = set()

    async def monitor(ctx):
        async for _ in ctx.tick():
            if ctx.get(dut.word_changed):
                pulsed.add(ctx.get(dut.word_group))

    async def bench(ctx):
        drv = Driver(dut, ctx)
        for puzzle, engine, states in jobs:
            await drv.load_puzzle(puzzle)
            for state in states:
                new, _, _ = floods(engine.geo, state)  # the floods' deductions, if any
                fix = [a & ~b for a, b in zip(new, state)]
                if not any(fix):  # else a few unknown cells, one colour each
                    known = state[C0] | state[C1]
                    unknown = engine.geo.grid & ~known
                    picks = [b for b in range(engine.geo.cells) if unknown >> b & 1]
                    # and one with no known neighbour, if any: the sweep may conclude
                    # nothing more in its word (``word_changed`` from the fix alone)
                    w = engine.geo.width
                    alone = [b for b in picks if not known & (
                        (1 << b + 1) | (1 << b - 1) | (1 << b + w) | (1 << b - w))]
                    for b in rng.sample(picks, min(2, len(picks))) + alone[:1]:
                        fix[rng.choice((C0, C1))] |= 1 << b
                for g, word in enumerate(words(dut, to_build(engine.geo, geo_b, fix))):
                    ctx.set(dut.addr, g)
                    ctx.set(top.fix_word, word)
                    ctx.set(top.fix_we, 1)
                    await ctx.tick()
                ctx.set(top.fix_we, 0)
                await drv.load_state(to_build(engine.geo, geo_b, state))
                pulsed.clear()
                changed, conflict = await drv.run_pass()
                fixed = [a | b for a, b in zip(state, fix)]
                want = sweep(engine.geo, engine.anchors, fixed)
                bad = any(want[i] & want[i + 1] for i in range(0, 10, 2))
                got = await drv.read_state()
                old_w, fix_w, new_w = (words(dut, to_build(engine.geo, geo_b, x))
                                       for x in (state, fixed, want))
                differ = {g for g in range(dut.groups) if new_w[g] != old_w[g]}
                if (got != to_build(engine.geo, geo_b, want) or changed != (want != fixed)
                        or conflict != bad or (not bad and pulsed != differ)):
                    failures.append((puzzle.name, state, fix))
                outcomes.add(want != fixed)
                if any(new_w[g] == fix_w[g] != old_w[g] for g in differ):
                    outcomes.add("fix only")
    sim.add_testbench(bench)
    sim.add_testbench(monitor, background=True)
    sim.run()
    assert not failures, (len(failures), failures[:1])
    assert True in outcomes  # the deductions led the sweep on (they reach the rules)
    # some group changed by the fix alone (the sweep concluded nothing more in it; with
    # three rows a word, the sweep always concludes something beside these fixes)
    assert "fix only" in outcomes or band > 1


def test_the_3_3_cases_use_every_pair_window():
    """The puzzles of CASES anchor every window of the rule table (the 3-3 pair windows
    with and without the island flag among them)."""
    from slitherlink.model.deduce import Engine
    anchors = {}
    for name in {name for *_, names in CASES for name in names}:
        engine = Engine(puzzle_of(name))
        for window, board in engine.anchors.items():
            anchors[window] = anchors.get(window, 0) | board
    assert all(anchors.values()), [w for w, b in anchors.items() if not b]
