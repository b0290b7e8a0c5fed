"""The band flood processor (hw/deduce/floods.py) against the band model's
floods (model.band.band_floods, and so model.deduce.floods), in Amaranth's
simulator: conflict, "a deduction exists", the number of passes and the
deductions read from the fix port, on states recorded from real searches of
corpus puzzles and random states, on builds larger than the puzzle, for
several band heights; and hand-made states (no IN cell, an IN conflict, an
OUT conflict, a serpentine region needing many passes)."""

import random

import pytest
from amaranth import Elaboratable, Module, Signal
from amaranth.hdl import Fragment
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

import slitherlink.model.deduce as D
from slitherlink.hw.deduce.floods import Floods
from slitherlink.model.band import band_floods
from slitherlink.model.deduce import C0, C1, H1, V1, Geometry, floods
from tests.hw.deduce.gateware_cases import (puzzle_of, random_states, remap, run_command,
                                            to_build)
from tests.hw.deduce.test_sweep import unwords, words


class Harness(Elaboratable):
    """Floods with the state and clue memories it reads (as the engine's
    Sweep holds them), loaded through write ports."""

    def __init__(self, dut):
        self.dut = dut
        self.addr = Signal(range(dut.groups))
        self.state_we = Signal()
        self.state_in = Signal(dut.state_layout)
        self.clue_we = Signal()
        self.clue_in = Signal(dut.clue_layout)

    def elaborate(self, platform):
        m = Module()
        dut = self.dut
        m.submodules.dut = dut
        m.submodules.state = state = Memory(shape=dut.state_layout, depth=dut.groups, init=[])
        m.submodules.clues = clues = Memory(shape=dut.clue_layout, depth=dut.groups, init=[])
        s_rd, s_wr = state.read_port(), state.write_port()
        c_rd, c_wr = clues.read_port(), clues.write_port()
        m.d.comb += [s_rd.addr.eq(dut.state_addr), dut.state_data.eq(s_rd.data),
                     c_rd.addr.eq(dut.clue_addr), dut.clue_data.eq(c_rd.data),
                     s_wr.addr.eq(self.addr), s_wr.en.eq(self.state_we),
                     s_wr.data.eq(self.state_in),
                     c_wr.addr.eq(self.addr), c_wr.en.eq(self.clue_we),
                     c_wr.data.eq(self.clue_in)]
        return m


class Driver:
    def __init__(self, harness, ctx):
        self.h, self.dut, self.ctx = harness, harness.dut, ctx

    async def load(self, grid, build):
        """The run-time grid (clue words: grid only) and a state (build geometry)."""
        h, ctx = self.h, self.ctx
        for g, (sw, cw) in enumerate(zip(words(self.dut, build), words(self.dut, [grid]))):
            ctx.set(h.addr, g)
            ctx.set(h.state_in.as_value(), sw)
            ctx.set(h.clue_in.as_value(), cw)
            ctx.set(h.state_we, 1)
            ctx.set(h.clue_we, 1)
            await ctx.tick()
        ctx.set(h.state_we, 0)
        ctx.set(h.clue_we, 0)

    async def run(self):
        """Both floods; returns (conflict, deduced, passes) and checks the clocks."""
        dut, ctx = self.dut, self.ctx
        busy = await run_command(dut, ctx, dut.max_passes * dut.pass_clocks, "the floods")
        passes = ctx.get(dut.passes)
        assert busy == ctx.get(dut.clocks) == passes * dut.pass_clocks == \
            passes * (dut.groups + 2)
        return bool(ctx.get(dut.conflict)), bool(ctx.get(dut.deduced)), passes

    async def fixes(self):
        dut, ctx = self.dut, self.ctx
        c0, c1 = [], []
        for g in range(dut.groups):
            ctx.set(dut.fix_addr, g)
            await ctx.tick()
            c0.append(ctx.get(dut.fix_c0))
            c1.append(ctx.get(dut.fix_c1))
        return unwords(dut, c0, 1)[0], unwords(dut, c1, 1)[0]


def simulate(harness, bench):
    sim = Simulator(harness)
    sim.add_clock(1e-8)

    async def testbench(ctx):
        await bench(Driver(harness, ctx))
    sim.add_testbench(testbench)
    sim.run()


def expected(geo, state, band):
    """The model's (conflict, new state, passes, deduced); band_floods agrees with floods."""
    new, bad, passes = band_floods(geo, state, band)
    want_new, want_bad, _ = floods(geo, state)
    assert bad == want_bad and (bad or new == want_new)
    return bad, new, passes


def check(max_rows, max_cols, band, jobs):
    """``jobs``: (model geometry, states).  Every finding equals the model's; returns
    the outcomes met and the passes."""
    dut = Floods(max_rows, max_cols, band=band)
    harness = Harness(dut)
    geo_b = dut.geometry
    failures, outcomes, counts = [], set(), []

    async def bench(drv):
        for geo, states in jobs:
            grid = remap(geo, geo_b, geo.grid)
            for state in states:
                build = to_build(geo, geo_b, state)
                await drv.load(grid, build)
                bad, new, passes = expected(geo, state, band)
                conflict, deduced, got_passes = await drv.run()
                fix_c0, fix_c1 = await drv.fixes()
                ok = (conflict, got_passes) == (bad, passes)
                if not bad:
                    want = to_build(geo, geo_b, new)
                    unknown = grid & ~(build[C0] | build[C1])
                    ok &= deduced == (new != state)
                    ok &= (build[C0] | fix_c0, build[C1] | fix_c1) == (want[C0], want[C1])
                    # the model's deductions unknown & ~reach
                    ok &= fix_c0 & unknown == want[C0] & ~build[C0]
                    ok &= fix_c1 & unknown == want[C1] & ~build[C1]
                ok &= not (fix_c0 | fix_c1) & ~grid
                if not ok:
                    failures.append((geo.rows, geo.cols, state, (conflict, deduced, got_passes),
                                     (bad, passes)))
                outcomes.add("conflict" if bad else "deduced" if new != state else "none")
                counts.append(passes)

    simulate(harness, bench)
    assert not failures, (len(failures), failures[:1])
    return outcomes, counts


def recorded_flood_states(name, count, seed):
    """The inputs of the model's floods during a search of ``name`` (a sample)."""
    puzzle = puzzle_of(name)
    seen = []
    real = D.floods

    def spy(geo, state):
        seen.append(list(state))
        return real(geo, state)
    D.floods = spy
    try:
        D.solve(puzzle, max_solutions=2, max_decisions=30)
    finally:
        D.floods = real
    rng = random.Random(seed)
    geo = Geometry(puzzle.rows, puzzle.cols)
    picked = rng.sample(seen, min(count, len(seen)))
    # and wrong guesses: a grid cell of each coloured against its colour (or coloured)
    for state in picked[:count // 2]:
        s = list(state)
        q = rng.choice(geo.grid_bits)
        inside = s[C1] >> q & 1 or (not s[C0] >> q & 1 and rng.random() < 0.5)
        s[C1], s[C0] = s[C1] & ~(1 << q), s[C0] & ~(1 << q)
        s[C0 if inside else C1] |= 1 << q
        picked.append(s)
    return geo, picked


def jobs_for(names, recorded=10, rand=10):
    jobs = []
    for i, name in enumerate(names):
        geo, states = recorded_flood_states(name, recorded, i)
        engine = D.Engine(puzzle_of(name))
        jobs.append((geo, states + random_states(engine, rand, 200 + i)))
    return jobs


CASES = [
    # (build rows, build cols, band, puzzles)
    (3, 3, 1, ["edge_2x2_33", "edge_2x2_3_corner", "3.3\n.3.\n33.\n"]),
    (4, 5, 1, ["janko_0002", "edge_2x4_global_unsat", "edge_1x5_ends"]),
    (6, 6, 1, ["loopy_5x5_easy_02", "janko_0022", "3.3.1\n23..0\n33.23\n1...3\n.3033\n"]),
    (4, 5, 2, ["janko_0002", "edge_1x5_ends"]),
    (6, 6, 3, ["loopy_5x5_easy_02", "janko_0022"]),
    (3, 3, 5, ["edge_2x2_33", "3.3\n.3.\n33.\n"]),   # one group: the whole framed grid
]


def test_elaborates_and_clocks():
    # groups + 2 clocks a pass: 10x10 14, 20x36 24, 10x10 band 2: 8
    blocks = [Floods(10, 10), Floods(20, 36), Floods(10, 10, band=2)]
    assert [(b.groups, b.pass_clocks) for b in blocks] == [(12, 14), (22, 24), (6, 8)]
    for block in blocks[::2] + [Floods(6, 6, band=3), Floods(3, 3, band=5)]:
        Fragment.get(block, None)
    Fragment.get(blocks[1], None)
    # the state and clue words are Sweep's
    from slitherlink.hw.deduce.sweep import Sweep
    sweep, floods6 = Sweep(6, 6, band=3), Floods(6, 6, band=3)
    assert (floods6.state_layout, floods6.clue_layout) == (sweep.state_layout, sweep.clue_layout)
    for block in (sweep, floods6):
        Fragment.get(block, None)


@pytest.mark.parametrize("max_rows,max_cols,band,names", CASES)
def test_floods_equal_the_model(max_rows, max_cols, band, names):
    outcomes, counts = check(max_rows, max_cols, band, jobs_for(names))
    assert outcomes == {"conflict", "deduced", "none"}
    assert max(counts) >= 2   # runs of several passes (the pending test ends the others early)


@pytest.mark.slow
@pytest.mark.parametrize("max_rows,max_cols,band", [(7, 7, 1), (7, 7, 2), (10, 10, 1),
                                                    (10, 10, 4), (11, 12, 3)])
def test_floods_equal_the_model_more(max_rows, max_cols, band):
    names = ["loopy_7x7_normal_01", "janko_0022", "janko_0014", "edge_5x5_noclues"]
    if max_rows >= 10:
        names += ["loopy_10x10_hard_01", "edge_10x10_two_solutions"]
    check(max_rows, max_cols, band, jobs_for(names, 25, 15))


# -- hand-made states --------------------------------------------------------------------------

def blank(geo):
    s = [0] * 10
    s[C0] = geo.frame
    return s


def serpentine(geo, entry_top=True):
    """Every grid cell unknown; LINE walls between neighbouring columns except at
    the alternate ends (a corridor down column 0, up column 1, ...) and around
    the grid except above column 0: the OUT flood enters at the top of column 0
    and needs a pass for every column."""
    s = blank(geo)
    w = geo.width
    rows, cols = geo.rows, geo.cols
    for r in range(rows):
        for c in range(cols - 1):
            gap = r == rows - 1 if c % 2 == 0 else r == 0
            if not gap:
                s[H1] |= geo.bit(r, c)                    # H@q: between (r, c) and (r, c+1)
        s[H1] |= geo.bit(r, 0) >> 1                       # west wall
        s[H1] |= geo.bit(r, cols - 1)                     # east wall
    for c in range(cols):
        if c or not entry_top:
            s[V1] |= geo.bit(0, c) >> w                   # north wall (V@q: q and q+W)
        s[V1] |= geo.bit(rows - 1, c)                     # south wall
    return s


def hand_states():
    geo = Geometry(5, 5)
    out = []
    # no IN cell: only the OUT flood; nothing to deduce, or an enclosed unknown cell
    s = blank(geo)
    out.append(("no IN cell", s))
    s = blank(geo)
    for c in (1, 2, 3):
        s[C0] |= geo.bit(1, c) | geo.bit(3, c)
    s[C0] |= geo.bit(2, 1) | geo.bit(2, 3)
    s[H1] |= geo.bit(2, 1) | geo.bit(2, 2)       # (2,2) walled in by LINE edges
    s[V1] |= geo.bit(1, 2) | geo.bit(2, 2)
    out.append(("no IN cell, enclosed", s))
    # an IN conflict: two IN cells separated by a ring of OUT cells
    s = blank(geo)
    s[C1] |= geo.bit(0, 0) | geo.bit(2, 2)
    for r, c in ((1, 1), (1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3)):
        s[C0] |= geo.bit(r, c)
    out.append(("IN conflict", s))
    # an OUT conflict: an OUT cell walled in by IN cells
    s = blank(geo)
    s[C0] |= geo.bit(2, 2)
    for r, c in ((1, 1), (1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3)):
        s[C1] |= geo.bit(r, c)
    out.append(("OUT conflict", s))
    # serpentines: the OUT flood through the corridor; with an IN cell at its far end
    out.append(("serpentine", serpentine(geo)))
    s = serpentine(geo)
    s[C1] |= geo.bit(geo.rows - 1, geo.cols - 1)
    out.append(("serpentine, IN at the end", s))
    s = serpentine(geo, entry_top=False)       # closed: the IN flood from (0,0) winds through
    s[C1] |= geo.bit(0, 0)
    out.append(("closed serpentine, IN flood", s))
    return geo, out


@pytest.mark.parametrize("band, rows, cols", [
    # a puzzle smaller than the build, a partial last band, a band of all but one framed
    # row; the same bands on the other build under slow (band 1 on an exact build and the
    # whole framed grid in one word: test_floods_equal_the_model)
    (1, 6, 7), (2, 5, 5), (7, 6, 7),
    *(pytest.param(*case, marks=pytest.mark.slow) for case in ((1, 5, 5), (2, 6, 7), (7, 5, 5)))])
def test_hand_states(band, rows, cols):
    geo, states = hand_states()
    results = {}
    for name, s in states:
        bad, new, passes = expected(geo, s, 1)
        results[name] = (bad, new != s, passes)
    # the cases are what they say
    assert results["no IN cell"][:2] == (False, False)
    assert results["no IN cell, enclosed"][:2] == (False, True)
    assert results["IN conflict"][0] and results["OUT conflict"][0]
    assert results["serpentine"][2] >= geo.cols and results["serpentine"][:2] == (False, False)
    assert results["closed serpentine, IN flood"][:2] == (False, True)
    assert results["closed serpentine, IN flood"][2] >= geo.cols
    check(rows, cols, band, [(geo, [s for _, s in states])])
