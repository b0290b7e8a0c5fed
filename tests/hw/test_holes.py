"""Pick's-theorem hole detector (hw/holes.py) and the popcount trees (hw/popcount.py)."""

import random
import sys
from pathlib import Path

import pytest
from amaranth.back import rtlil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gateware_sim import golden, run  # noqa: E402

from slitherlink.hw.holes import Holes  # noqa: E402
from slitherlink.model.paper import Geometry, pick  # noqa: E402
from slitherlink.hw.popcount import PopCount, popcount_latency, popcount_levels  # noqa: E402


def check_picks(build, boards):
    max_rows, max_cols = build
    dut = Holes(max_rows, max_cols)
    verdicts = set()

    async def bench(ctx):
        for i, (rows, cols, s1) in enumerate(boards):
            geo = Geometry(rows, cols)
            ref = pick(geo, s1)
            # the checker's inside: s1 within the run-time grid
            ctx.set(dut.inside, golden.to_build(s1 & geo.grid, rows, cols, max_rows, max_cols))
            await ctx.tick().repeat(dut.latency - 1)
            # one cycle short of the latency the outputs still show the cleared state
            assert (ctx.get(dut.S), ctx.get(dut.B), ctx.get(dut.empty)) == (0, 0, 1), i
            await ctx.tick()
            got = (ctx.get(dut.S), ctx.get(dut.I), ctx.get(dut.B))
            assert got == (ref.S, ref.I, ref.B), i
            assert ctx.get(dut.ok) == ref.ok, i
            assert ctx.get(dut.empty) == (ref.S == 0), i
            verdicts.add(ref.ok)
            # clear, for the next state's latency check
            ctx.set(dut.inside, 0)
            await ctx.tick().repeat(dut.latency)

    run(dut, bench)
    return verdicts


def random_region(rng, rows, cols):
    """A random s1: either noise, or a grown blob (connected, often hole-free)."""
    geo = Geometry(rows, cols)
    if rng.random() < 0.5:
        density = rng.random()
        return sum(geo.bit(r, c) for r in range(rows) for c in range(cols)
                   if rng.random() < density)
    cells = {(rng.randrange(rows), rng.randrange(cols))}
    for _ in range(rng.randrange(rows * cols)):
        r, c = rng.choice(sorted(cells))
        dr, dc = rng.choice(((0, 1), (1, 0), (0, -1), (-1, 0)))
        if 0 <= r + dr < rows and 0 <= c + dc < cols:
            cells.add((r + dr, c + dc))
    return sum(geo.bit(r, c) for r, c in cells)


BUILDS = [((1, 1), 50), ((1, 8), 200), ((8, 1), 200), ((5, 6), 600), ((10, 10), 600)]


@pytest.mark.parametrize("build,count", BUILDS, ids=[f"{r}x{c}" for (r, c), _ in BUILDS])
def test_random_regions(build, count):
    rng = random.Random(hash(build) & 0xFFFF)
    boards = []
    for i in range(count):
        rows, cols = build if i % 4 == 0 else (rng.randint(1, build[0]), rng.randint(1, build[1]))
        boards.append((rows, cols, random_region(rng, rows, cols)))
    verdicts = check_picks(build, boards)
    assert verdicts == {True, False} or build == (1, 1)


def test_search_candidates():
    """The Pick tests and states of real searches."""
    rng = random.Random(31)
    boards = []
    for name in ("edge_3x3_noclues", "edge_5x5_noclues", "janko_0006", "janko_0014",
                 "edge_2x2_noclues", "edge_1x3_two_solutions"):
        puzzle = golden.load_puzzle(name)
        for event in golden.replay(puzzle, max_checks=2000):
            if event[0] == "pick":
                boards.append((puzzle.rows, puzzle.cols, event[1]))
            elif event[0] == "check" and rng.random() < 0.1:
                boards.append((puzzle.rows, puzzle.cols, event[2].s1))
    assert len(boards) > 100
    check_picks((6, 6), boards)


@pytest.mark.slow
@pytest.mark.parametrize("build", [(20, 36), (32, 32)])
def test_random_regions_large(build):
    rng = random.Random(32)
    boards = [(r, c, random_region(rng, r, c)) for r, c in
              [(rng.randint(1, build[0]), rng.randint(1, build[1])) for _ in range(150)]]
    check_picks(build, boards)


@pytest.mark.parametrize("width,every", [(0, None), (1, None), (1, 2), (2, 1), (7, 3),
                                         (64, 4), (300, 3), (1000, 5)])
def test_popcount(width, every):
    rng = random.Random(width)
    dut = PopCount(width, register_every=every)
    assert dut.latency == popcount_latency(width, every)

    async def bench(ctx):
        values = [0, (1 << width) - 1] + [rng.getrandbits(width) if width else 0
                                          for _ in range(60)]
        for value in values:
            ctx.set(dut.bits, value)
            if dut.latency:
                await ctx.tick().repeat(dut.latency)
            assert ctx.get(dut.count) == bin(value).count("1")

    run(dut, bench, clock=bool(dut.latency))


def test_popcount_tree_is_shallow_and_not_recursive():
    """Thousands of bits elaborate (no RecursionError) into a few counter levels."""
    # n bits: counter levels (each one LUT6 deep) + 1 for the final carry-chain add
    assert [popcount_levels(n) for n in (0, 1, 2, 3, 6, 7, 36, 840, 1476, 5000)] == \
        [0, 0, 1, 1, 1, 2, 5, 9, 9, 12]
    assert popcount_latency(1476, 4) == 3 and popcount_latency(1, 4) == 1
    assert popcount_latency(9, None) == 0
    dut = PopCount(2000, register_every=4)
    text = rtlil.convert(dut)
    assert "$add" in text
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="register_every"):
            popcount_latency(8, bad)
