"""The band label processor (hw/deduce/labels.py) against the band model's label
stage (model.band.band_labels) and the engine's (model.deduce.labels), in Amaranth's
simulator: the labels after a run, the passes and clocks, closed / multi / conflict,
and the NOLINE deductions read through the fix port, on random line states (cold
and from labels settled on fewer lines) and on the sequences of label runs of real
corpus searches (the label memory kept between runs, reloaded as from the trail
after a restore), on builds larger than the puzzle, for several band heights."""

import gc
import random
import warnings

import pytest
from amaranth import Elaboratable, Module, Signal
from amaranth.hdl import Fragment, UnusedElaboratable
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

import slitherlink.model.band as band_model
import slitherlink.model.deduce as D
from slitherlink.hw.deduce.labels import DRAIN, LATENCY, NETWORKS, Labels, run_min
from slitherlink.model.band import band_labels, register_labels
from slitherlink.model.deduce import (C0, EMPTY_BASE, H0, H1, V0, V1, Geometry, labels,
                                      segment_base)
from tests.hw.deduce.gateware_cases import puzzle_of, remap, run_command, to_build
from tests.hw.deduce.test_sweep import unwords, words
from tests.line_states import fewer_lines, line_states, solution_state


class Harness(Elaboratable):
    """The block with a state memory answering its reads (as the sweep's would)."""

    def __init__(self, dut):
        self.dut = dut
        self.addr = Signal(range(dut.groups))
        self.we = Signal()
        self.data = Signal(len(dut.state_data.as_value()))

    def elaborate(self, platform):
        m = Module()
        m.submodules.dut = dut = self.dut
        m.submodules.state = mem = Memory(shape=len(self.data), depth=dut.groups, init=[])
        wr, rd = mem.write_port(), mem.read_port()
        m.d.comb += [wr.addr.eq(self.addr), wr.en.eq(self.we), wr.data.eq(self.data),
                     rd.addr.eq(dut.state_addr), dut.state_data.eq(rd.data)]
        return m


def to_build_labels(geo_m, dut, lab):
    """The build's label array (index = build point) for a model label array."""
    geo_b = dut.geometry
    wm, wb = geo_m.width, geo_b.width
    out = {}
    for r in range(geo_b.rows + 1):
        for c in range(geo_b.cols + 1):
            q = r * wb + c
            out[q] = q
            if r <= geo_m.rows and c <= geo_m.cols:
                lr, lc = divmod(lab[r * wm + c], wm)
                out[q] = lr * wb + lc
    return out


class LabelPorts:
    """Loads and reads the label memory of a band label block ``self.lb`` through the
    label ports of ``self.dut`` (the block itself, or a propagator or prober around it)."""

    def _words(self, labs):
        lb = self.lb
        p, nb, w = lb.points_per_row, lb.label_bits, lb.geometry.width
        out = []
        for g in range(lb.groups):
            own = lb.own_labels(g)
            value = 0
            for j in range(lb.band):
                for c in range(p):
                    q = (g * lb.band + j) * w + c
                    value |= labs.get(q, own[j * p + c]) << ((j * p + c) * nb)
            out.append(value)
        return out

    async def load_labels(self, labs):
        """``labs``: build point -> label (others: their own index)."""
        dut, ctx = self.dut, self.ctx
        for g, word in enumerate(self._words(labs)):
            ctx.set(dut.label_addr, g)
            ctx.set(dut.label_in.as_value(), word)
            ctx.set(dut.label_we, 1)
            await ctx.tick()
        ctx.set(dut.label_we, 0)

    async def read_labels(self):
        """The labels of the build's points, by point index."""
        dut, ctx, lb = self.dut, self.ctx, self.lb
        p, nb, w = lb.points_per_row, lb.label_bits, lb.geometry.width
        out = {}
        for g in range(lb.groups):
            ctx.set(dut.label_addr, g)
            await ctx.tick()
            value = ctx.get(dut.label_out.as_value())
            for j in range(lb.band):
                r = g * lb.band + j
                if r <= lb.max_rows:
                    for c in range(p):
                        out[r * w + c] = value >> ((j * p + c) * nb) & ((1 << nb) - 1)
        return out


class Driver(LabelPorts):
    def __init__(self, h, ctx):
        self.h, self.dut, self.ctx = h, h.dut, ctx
        self.lb = self.dut

    async def load_state(self, build):
        h, ctx = self.h, self.ctx
        for g, word in enumerate(words(self.dut, build)):
            ctx.set(h.addr, g)
            ctx.set(h.data, word)
            ctx.set(h.we, 1)
            await ctx.tick()
        ctx.set(h.we, 0)

    async def read_fix(self):
        dut, ctx = self.dut, self.ctx
        values = []
        for g in range(dut.groups):
            ctx.set(dut.fix_addr, g)
            await ctx.tick()
            bits = dut.band * dut.geometry.width
            values.append(ctx.get(dut.fix_h0) | ctx.get(dut.fix_v0) << bits)
        return unwords(dut, values, 2)

    async def clear(self):
        dut, ctx = self.dut, self.ctx
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        clocks = 0
        while ctx.get(dut.busy):
            assert not ctx.get(dut.done)
            await ctx.tick()
            clocks += 1
        assert clocks == dut.groups

    async def run(self, clocks=None):
        """One run; checks ``busy`` and ``clocks`` against ``clocks`` (default: whole
        passes); returns the passes."""
        dut, ctx = self.dut, self.ctx
        busy = await run_command(dut, ctx, 100 * dut.pass_clocks - 1, "the label run")
        passes = ctx.get(dut.passes)
        if clocks is None:
            clocks = passes * (dut.groups + LATENCY) + DRAIN
        assert busy == ctx.get(dut.clocks) == clocks
        return passes


def simulate(dut, bench):
    h = Harness(dut)
    sim = Simulator(h)
    sim.add_clock(1e-8)

    async def testbench(ctx):
        await bench(Driver(h, ctx))
    sim.add_testbench(testbench)
    sim.run()


def expect(geo, state, band, warm, start, partial_after=None):
    """The model's run: (new, conflict, passes, labels, closed, multi), checked
    against model.deduce.labels."""
    new, bad, passes, lab, closed = band_labels(geo, state, band, warm, start,
                                                partial_after=partial_after)
    want_new, want_bad, _, _ = labels(geo, state, warm)
    assert bad == want_bad and (bad or new == want_new)
    on = band_model._line_adjacency(geo, state[H1], state[V1])
    roots = sum(lab[q] == q for q in on)
    return new, bad, passes, lab, closed, roots > 1


def build_clocks(geo, dut, state, warm, start, partial_after):
    """The clocks of the model's run on the build's geometry (its passes stream the
    build's groups): the words each pass streams, 2 clocks a pass, and the drain."""
    geo_b = dut.geometry
    held = register_labels(geo, warm) if start is None else start
    labs = to_build_labels(geo, dut, held)
    array = [labs.get(q, q) for q in range(geo_b.cells)]
    streamed = []
    band_labels(geo_b, to_build(geo, geo_b, state), dut.band, start=array,
                partial_after=partial_after, pass_words=streamed)
    return sum(streamed) + LATENCY * len(streamed) + DRAIN, streamed


async def check_run(drv, geo, state, warm, start, outcomes, hurry=False):
    """Run on ``state`` with the label memory holding ``start`` (a model array);
    every output against the model; returns the model's label array after it.
    ``hurry``: held high through the run, so every pass after the first may be
    partial (the model's ``partial_after=1``); the clocks are then the model's on
    the build's geometry, and a run with a partial pass adds "partial" to
    ``outcomes``."""
    dut, ctx = drv.dut, drv.ctx
    geo_b = dut.geometry
    after = 1 if hurry else None
    new, bad, passes, lab, closed, multi = expect(geo, state, dut.band, warm, start, after)
    build = to_build(geo, geo_b, state)
    await drv.load_state(build)
    ctx.set(dut.hurry, hurry)
    clocks, streamed = build_clocks(geo, dut, state, warm, start, after)
    got_passes = await drv.run(clocks)
    ctx.set(dut.hurry, 0)
    assert got_passes == passes == len(streamed)
    if hurry and any(k < dut.groups for k in streamed):
        outcomes.add("partial")
    assert ctx.get(dut.conflict) == bad
    assert ctx.get(dut.closed) == closed
    assert ctx.get(dut.multi) == multi
    assert ctx.get(dut.deduced) == (not bad and new != state)
    fix_h, fix_v = await drv.read_fix()
    if bad:
        assert fix_h == fix_v == 0
    else:
        assert fix_h == remap(geo, geo_b, new[H0] & ~state[H0])
        assert fix_v == remap(geo, geo_b, new[V0] & ~state[V0])
    assert await drv.read_labels() == to_build_labels(geo, dut, lab)
    outcomes.add("conflict" if bad else "settle" if closed else
                 "pairs" if new != state else "lines" if state[H1] | state[V1] else "none")
    return lab


async def run_in_order(drv, runs, outcomes, hurry=False):
    """The recorded ``runs`` of one search (:func:`recorded_runs`), in order, from a
    cleared label memory: kept from one run to the next, loaded as from the trail where
    the model's registers are not the ones the last run left; returns how many runs
    found it kept."""
    await drv.clear()
    last, held, kept = EMPTY_BASE, list(range(runs[0][0].cells)), 0
    for geo, state, warm, settled in runs:
        if warm is not last:
            held = register_labels(geo, warm)
            await drv.load_labels(to_build_labels(geo, drv.dut, held))
        else:
            kept += 1
        held = await check_run(drv, geo, state, warm, held, outcomes, hurry)
        last = settled
    return kept


# -- inputs ----------------------------------------------------------------------------------

def recorded_runs(names, limit):
    """Per puzzle, in order, the label stage's runs of a whole search (BandEngine):
    ``(geo, state, warm, settled)``."""
    out = []
    real = D.labels
    for name in names:
        runs = []

        def spy(geo, state, warm=EMPTY_BASE):
            result = real(geo, state, warm)
            runs.append((geo, list(state), warm, result[3]))
            return result
        D.labels = spy  # Engine._label_stage calls model.deduce.labels
        try:
            band_model.band_solve(puzzle_of(name), max_solutions=2, max_decisions=30, check=False)
        finally:
            D.labels = real
        out.append(runs[:limit])
    return out


# -- tests -------------------------------------------------------------------------------------

def test_geometry_and_elaboration():
    dut = Labels(6, 6, band=1)
    assert (dut.groups, dut.pass_clocks, dut.label_bits, dut.points_per_row) == (8, 10, 6, 7)
    big = Labels(20, 36)
    assert big.pass_clocks == 22 + 2 and big.label_bits == 10
    whole = Labels(3, 3, band=5)
    assert whole.groups == 1 and whole.pass_clocks == 3
    for block in (dut, whole, big, Labels(4, 5, band=2)):
        Fragment.get(block, None)
    # a band taller than the framed grid is refused (the half-made object is no design,
    # so Amaranth's "created but never used" warning for it says nothing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)
        with pytest.raises(ValueError):
            Labels(3, 3, band=6)
        gc.collect()


def reference_run_min(values, links):
    """Every element the minimum of its run (``links[i]`` joins elements i-1 and i)."""
    out, start = [], 0
    for i in range(1, len(values) + 1):
        if i == len(values) or not links[i]:
            out += [min(values[start:i])] * (i - start)
            start = i
    return out


@pytest.mark.parametrize("n, network", [
    # "pairs" is one compare level and a balanced OR at every n, without the prefix
    # networks' power-of-two levels: n up to 17 has its every shape, and 31 and 37 (a minute
    # of simulation of n (n - 1) / 2 comparators) run under slow
    pytest.param(n, network, marks=[pytest.mark.slow] if network == "pairs" and n > 17 else [])
    for n in (1, 2, 3, 5, 11, 17, 31, 37) for network in NETWORKS])
def test_run_min_networks(n, network):
    """The row network alone, every kind, against the reference on random values and
    runs (every run length, ties included)."""
    rng = random.Random(n)
    m = Module()
    values = [Signal(6, name=f"v{i}") for i in range(n)]
    link = Signal(n)
    outs = run_min(m, "t", values, link, network=network)
    cases = [([rng.randrange(64 if t % 3 else 4) for _ in range(n)], rng.getrandbits(n))
             for t in range(60)]
    cases += [([n - i for i in range(n)], (1 << n) - 1), (list(range(n)), 0)]
    sim = Simulator(m)

    async def bench(ctx):
        for vals, links in cases:
            for sig, v in zip(values, vals):
                ctx.set(sig, v)
            ctx.set(link, links)
            want = reference_run_min(vals, [links >> i & 1 for i in range(n)])
            assert [ctx.get(o) for o in outs] == want

    sim.add_testbench(bench)
    sim.run()


def test_network_is_checked():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)
        with pytest.raises(ValueError, match="network must be one of small, fast"):
            Labels(4, 5, network="quick")
        with pytest.raises(ValueError, match="network must be one of"):
            run_min(Module(), "t", [Signal(2)], Signal(1), network="quick")
        gc.collect()


RANDOM_CASES = [
    # (build rows, build cols, band, puzzles)
    (3, 3, 1, ["edge_2x2_33", "edge_3x3_noclues"]),
    (4, 5, 1, ["janko_0002", "edge_1x5_ends"]),
    (6, 6, 1, ["loopy_5x5_easy_02", "janko_0022"]),
    (4, 5, 2, ["janko_0002"]),
    (6, 6, 3, ["loopy_5x5_easy_02"]),
    (3, 3, 5, ["edge_3x3_noclues"]),    # the whole framed grid in one word
]


FAST_CASES = [RANDOM_CASES[2], RANDOM_CASES[3], RANDOM_CASES[4]]


@pytest.mark.parametrize("max_rows,max_cols,band,names,network",
                         [case + ("small",) for case in RANDOM_CASES]
                         + [case + (net,) for case in FAST_CASES for net in NETWORKS[1:]])
def test_random_line_states(max_rows, max_cols, band, names, network):
    """Each state from cleared labels (``clear``) and from labels settled on fewer lines;
    the fast row network (section 8.3) gives the same labels, passes and clocks."""
    dut = Labels(max_rows, max_cols, band=band, network=network)
    rng = random.Random(11)
    count = 5 if band == 1 else 3
    states = list(line_states(names, 3, count))
    outcomes = set()

    async def bench(drv):
        for geo, state in states:
            await drv.clear()
            await check_run(drv, geo, state, EMPTY_BASE, None, outcomes)
            base = segment_base(geo, fewer_lines(rng, geo, state))
            if base is not None:
                start = register_labels(geo, base)
                await drv.load_labels(to_build_labels(geo, drv.dut, start))
                await check_run(drv, geo, state, base, start, outcomes)

    simulate(dut, bench)
    assert {"conflict", "settle", "lines", "none"} <= outcomes
    assert "pairs" in outcomes or max_rows == 3  # 2x2 and 3x3 puzzles may have no end pair


SEQUENCES = [
    (4, 5, 1, ["janko_0003", "edge_3x3_noclues", "janko_0002"]),
    (6, 6, 1, ["janko_0025", "janko_0014", "edge_5x5_noclues"]),
    (6, 6, 2, ["janko_0022", "janko_0026"]),
]


@pytest.mark.parametrize("max_rows,max_cols,band,names,network",
                         [case + ("small",) for case in SEQUENCES]
                         + [SEQUENCES[i] + (net,) for i in (1, 2) for net in NETWORKS[1:]])
def test_recorded_search_runs(max_rows, max_cols, band, names, network, limit=30):
    """The label runs of whole searches in order: the label memory keeps its contents
    from one run to the next; after a restore (the run starts from registers other
    than the last run's) the words are loaded as from the trail."""
    dut = Labels(max_rows, max_cols, band=band, network=network)
    sequences = recorded_runs(names, limit)
    outcomes = set()
    kept = []

    async def bench(drv):
        for runs in sequences:
            kept.append(await run_in_order(drv, runs, outcomes))

    simulate(dut, bench)
    assert sum(kept) > 5
    assert len(outcomes) >= 2


@pytest.mark.parametrize("max_rows,max_cols,band,names,network",
                         [SEQUENCES[0] + ("small",), SEQUENCES[1] + ("fast",),
                          SEQUENCES[1] + ("pairs",),
                          (10, 18, 2, ["janko_0982"], "small")])
def test_partial_passes(max_rows, max_cols, band, names, network, limit=30):
    """With ``hurry`` high (docs/deduce.md section 7.3: the flood run beside has
    ended) the passes after the first may be partial: the recorded runs of whole
    searches in order and random line states give the model's labels, passes,
    findings and fix words (``band_labels(partial_after=1)``), and its clocks on the
    build's geometry, fewer than whole passes would take in some runs."""
    dut = Labels(max_rows, max_cols, band=band, network=network)
    sequences = recorded_runs(names, limit)
    states = list(line_states(names, 5, 3))
    outcomes = set()

    async def bench(drv):
        for runs in sequences:
            await run_in_order(drv, runs, outcomes, hurry=True)
        for geo, state in states:
            await drv.clear()
            await check_run(drv, geo, state, EMPTY_BASE, None, outcomes, hurry=True)

    simulate(dut, bench)
    assert "partial" in outcomes


def test_end_pairs_after_a_bottom_up_pass():
    """janko_0982's first label runs, in order, on a 10x18 build: runs whose last pass
    changes labels.  A bottom-up pass must not end a run early (the end pairs across a
    row's upper H edges would use the row above before that pass updated it): the fix
    words here differed from the model's when it did."""
    dut = Labels(10, 18)
    (runs,) = recorded_runs(["janko_0982"], 4)
    outcomes = set()

    async def bench(drv):
        await run_in_order(drv, runs, outcomes)

    simulate(dut, bench)
    assert "pairs" in outcomes


@pytest.mark.slow
@pytest.mark.parametrize("max_rows,max_cols,band", [(8, 9, 1), (8, 9, 2), (8, 9, 4), (11, 11, 1)])
def test_larger_builds(max_rows, max_cols, band):
    names = ["loopy_7x7_normal_01", "janko_0022", "janko_0014"]
    dut = Labels(max_rows, max_cols, band=band)
    rng = random.Random(5)
    states = list(line_states(names, 9, 6))
    sequences = recorded_runs(["loopy_7x7_normal_01", "janko_0047"], 40)
    outcomes = set()

    async def bench(drv):
        for geo, state in states:
            await drv.clear()
            await check_run(drv, geo, state, EMPTY_BASE, None, outcomes)
            base = segment_base(geo, fewer_lines(rng, geo, state))
            if base is not None:
                start = register_labels(geo, base)
                await drv.load_labels(to_build_labels(geo, drv.dut, start))
                await check_run(drv, geo, state, base, start, outcomes)
        for runs in sequences:
            if runs[0][0].rows > max_rows or runs[0][0].cols > max_cols:
                continue
            await run_in_order(drv, runs, outcomes)

    simulate(dut, bench)
    assert outcomes == {"conflict", "settle", "pairs", "lines", "none"}


def test_clear_dirty_and_snapshot_ports():
    """``clear`` writes every label's own index (also the power-up contents); a
    snapshot word written through ``label_we`` reads back; ``dirty`` follows the
    engine's rule (set by ``lines_changed``, cleared by a run and by ``clear``,
    restored through ``dirty_we``)."""
    dut = Labels(4, 5, band=1)
    geo, full = solution_state("janko_0002")
    own = {q: q for q in to_build_labels(geo, dut, list(range(geo.cells)))}

    async def bench(drv):
        ctx = drv.ctx
        assert await drv.read_labels() == own          # power-up
        assert not ctx.get(dut.dirty)
        ctx.set(dut.lines_changed, 1)
        await ctx.tick()
        ctx.set(dut.lines_changed, 0)
        assert ctx.get(dut.dirty)
        outcomes = set()
        await check_run(drv, geo, full, EMPTY_BASE, None, outcomes)
        assert outcomes == {"settle"} and not ctx.get(dut.dirty)
        assert await drv.read_labels() != own
        snapshot = [None] * dut.groups
        for g in range(dut.groups):
            ctx.set(dut.label_addr, g)
            await ctx.tick()
            snapshot[g] = ctx.get(dut.label_out.as_value())
        ctx.set(dut.lines_changed, 1)
        await ctx.tick()
        ctx.set(dut.lines_changed, 0)
        await drv.clear()
        assert await drv.read_labels() == own and not ctx.get(dut.dirty)
        for g, word in enumerate(snapshot):
            ctx.set(dut.label_addr, g)
            ctx.set(dut.label_in.as_value(), word)
            ctx.set(dut.label_we, 1)
            await ctx.tick()
        ctx.set(dut.label_we, 0)
        ctx.set(dut.dirty_in, 1)
        ctx.set(dut.dirty_we, 1)
        await ctx.tick()
        ctx.set(dut.dirty_we, 0)
        assert ctx.get(dut.dirty)
        assert await drv.read_labels() != own
        # the restored labels are the settled ones: the same run again, one pass
        new, bad, passes, lab, *_ = band_labels(geo, full, 1, EMPTY_BASE, None)
        await drv.load_state(to_build(geo, dut.geometry, full))
        assert await drv.run() == 1
        assert await drv.read_labels() == to_build_labels(geo, dut, lab)

    simulate(dut, bench)


@pytest.mark.parametrize("band", [1, 2])
def test_abort_keeps_the_passes_so_far(band):
    """``abort`` in the clock in which a pass's last findings are taken (the engine drops
    the run there when the flood run beside it deduced something) ends the run with no
    ``done``: the labels are those of the model's run cut after that many passes
    (``band_labels(max_passes=)``), ``dirty`` stays set, and the next run from them gives
    the model's findings."""
    dut = Labels(6, 6, band=band)
    runs = [(geo, state) for geo, state in line_states(["janko_0025", "janko_0014"], 5, 6)
            if band_labels(geo, state, band)[2] >= 3]
    assert len(runs) >= 3

    async def bench(drv):
        ctx = drv.ctx
        for geo, state in runs:
            full = band_labels(geo, state, band)[2]
            for cut in (1, full - 1):
                await drv.clear()
                await drv.load_state(to_build(geo, dut.geometry, state))
                ctx.set(dut.lines_changed, 1)
                ctx.set(dut.start, 1)
                await ctx.tick()
                ctx.set(dut.lines_changed, 0)
                ctx.set(dut.start, 0)
                await ctx.tick().repeat(cut * dut.pass_clocks)   # the tail of pass ``cut``
                assert ctx.get(dut.busy) and ctx.get(dut.passes) == cut
                ctx.set(dut.abort, 1)
                await ctx.tick()
                ctx.set(dut.abort, 0)
                for _ in range(3 * dut.pass_clocks):
                    assert not ctx.get(dut.busy) and not ctx.get(dut.done)
                    await ctx.tick()
                assert ctx.get(dut.dirty)
                *_, spent, lab, _ = band_labels(geo, state, band, max_passes=cut)
                assert spent == cut
                assert await drv.read_labels() == to_build_labels(geo, dut, lab)
                outcomes = set()
                await check_run(drv, geo, state, EMPTY_BASE, lab, outcomes)
                assert not ctx.get(dut.dirty)

    simulate(dut, bench)


@pytest.mark.parametrize("band", [1, 2, 3])
def test_hand_example_against_the_pass_direction(band):
    """A component settled on (1,5)-(2,5)-(3,5)-(3,4)-(3,3) (label: point (1,5)) and a
    new line (2,3)-(3,3): in pass 1 (top-down) point (2,3) takes the old label of the
    point below it (the row after it, across a LINE H edge), and no row is left with a
    label lower than the row before it: 1 pass (2 without the pending test, 3 without
    that link).  With the path (0,0)-(0,1): two roots, no cycle, no end pair."""
    geo = Geometry(4, 5)
    w = geo.width
    pt = lambda r, c: r * w + c  # noqa: E731
    old = [0] * 10
    old[C0] = geo.frame
    old[H1] = (1 << pt(2, 5)) | (1 << pt(3, 5))
    old[V1] = (1 << pt(3, 5)) | (1 << pt(3, 4)) | (1 << pt(0, 1))
    new = list(old)
    new[H1] |= 1 << pt(3, 3)
    warm = segment_base(geo, old)
    start = register_labels(geo, warm)
    assert start[pt(3, 3)] == pt(1, 5)
    dut = Labels(4, 5, band=band)
    outcomes = set()

    async def bench(drv):
        await drv.load_labels(to_build_labels(geo, drv.dut, start))
        lab = await check_run(drv, geo, new, warm, start, outcomes)
        assert lab[pt(2, 3)] == pt(1, 5)
        assert drv.ctx.get(drv.dut.passes) == 1   # nothing pending after pass 1

    simulate(dut, bench)
    assert outcomes == {"lines"}


@pytest.mark.parametrize("band", [2, 3])
def test_end_pairs_across_group_edges(band):
    """A U of three lines around a cell, open across the H edge between point rows
    ``r - 1`` and ``r``, for every ``r`` (so across every edge between two groups, in
    both of its rows' places in a word), and a stray line far from it: two roots, no
    cycle, and the open H edge an end pair set NOLINE.  The pair compares the labels
    of the word's first row with those of the row above it, the last row of the word
    before: a findings stage that took another row there passes the random states but
    not these."""
    geo = Geometry(6, 6)
    dut = Labels(6, 6, band=band)
    w = geo.width
    pt = lambda r, c: r * w + c  # noqa: E731
    outcomes = set()

    def u_state(r, c):
        s = [0] * 10
        s[C0] = geo.frame
        s[V1] |= (1 << pt(r - 1, c + 1)) | (1 << pt(r, c + 1))
        s[H1] |= 1 << pt(r, c + 1)
        far = 0 if r >= 3 else geo.rows
        s[V1] |= 1 << pt(far, geo.cols)
        return s

    states = [u_state(r, c) for r in range(1, geo.rows + 1) for c in (0, 2)]

    async def bench(drv):
        for state in states:
            await drv.clear()
            await check_run(drv, geo, state, EMPTY_BASE, None, outcomes)

    simulate(dut, bench)
    assert outcomes == {"pairs"}
