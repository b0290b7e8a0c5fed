"""Flood register array (hw/flood.py) against model.paper.flood.

Iterations must equal the model's count exactly, and the block must be busy
for exactly iterations + 1 cycles (one seed cycle).  Random states, worst-case
snakes and the floods of real searches, on builds larger than the puzzle.
"""

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gateware_sim import golden, grid_board, run  # noqa: E402

from slitherlink.hw.flood import Flood  # noqa: E402
from slitherlink.model.paper import FloodMode, Geometry, flood  # noqa: E402


def random_flood_state(rng, rows, cols):
    """Random s0 (frame included) and s1 bitboards, frame cells included in s1 at times."""
    geo = Geometry(rows, cols)
    inside = rng.random()
    outside = rng.random() * (1 - inside)
    s1 = s0 = 0
    for r in range(rows):
        for c in range(cols):
            x = rng.random()
            if x < inside:
                s1 |= geo.bit(r, c)
            elif x < inside + outside:
                s0 |= geo.bit(r, c)
            elif x < inside + outside + 0.03:  # a conflict now and then
                s0 |= geo.bit(r, c)
                s1 |= geo.bit(r, c)
    if rng.random() < 0.3:  # requirements on frame cells (from clues at the edge)
        s1 |= geo.frame & rng.getrandbits(geo.cells)
    return geo.frame | s0, s1


def snake(rows, cols):
    """An inside path winding through the grid: the longest REACH flood for its size."""
    geo = Geometry(rows, cols)
    s1 = 0
    for r in range(0, rows, 2):
        for c in range(cols):
            s1 |= geo.bit(r, c)
        if r + 1 < rows:
            s1 |= geo.bit(r + 1, cols - 1 if (r // 2) % 2 == 0 else 0)
    return geo.frame | (geo.grid & ~s1), s1


def check_floods(build, floods):
    """Run ``(rows, cols, mode, s0, s1)`` floods on a Flood of size ``build``."""
    max_rows, max_cols = build
    dut = Flood(max_rows, max_cols)
    stats = {"iterations": 0, "complete": 0}

    async def bench(ctx):
        for i, (rows, cols, mode, s0, s1) in enumerate(floods):
            geo = Geometry(rows, cols)
            ref = flood(geo, mode, s0, s1)
            ctx.set(dut.s0, golden.expected_s0(s0, rows, cols, max_rows, max_cols))
            ctx.set(dut.s1, golden.to_build(s1, rows, cols, max_rows, max_cols))
            ctx.set(dut.grid, grid_board(rows, cols, max_rows, max_cols))
            ctx.set(dut.mode, mode)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            cycles = 0
            while ctx.get(dut.busy):
                await ctx.tick()
                cycles += 1
            assert ctx.get(dut.iterations) == ref.iterations, i
            assert cycles == ref.iterations + 1, i
            assert ctx.get(dut.complete) == ref.complete, i
            model_cells = golden.to_build(geo.all, rows, cols, max_rows, max_cols)
            assert ctx.get(dut.reached) & model_cells == \
                golden.to_build(ref.reached, rows, cols, max_rows, max_cols), i
            stats["iterations"] += ref.iterations
            stats["complete"] += ref.complete

    run(dut, bench)
    return stats


BUILDS = [((1, 1), 100), ((1, 9), 300), ((9, 1), 300), ((4, 6), 600), ((10, 10), 800)]


@pytest.mark.parametrize("build,count", BUILDS, ids=[f"{r}x{c}" for (r, c), _ in BUILDS])
def test_random_floods(build, count):
    rng = random.Random(hash(build) & 0xFFFF)
    floods = []
    for i in range(count):
        rows, cols = ((build if i % 4 == 0 else (rng.randint(1, build[0]),
                                                 rng.randint(1, build[1]))))
        s0, s1 = random_flood_state(rng, rows, cols)
        floods.append((rows, cols, rng.choice(list(FloodMode)), s0, s1))
    stats = check_floods(build, floods)
    assert 0 < stats["complete"] < count or build == (1, 1)


def test_snakes_and_edge_cases():
    floods = []
    for rows, cols in ((7, 8), (8, 7), (1, 8), (8, 1), (5, 5)):
        s0, s1 = snake(rows, cols)
        floods.append((rows, cols, FloodMode.REACH, s0, s1))
        floods.append((rows, cols, FloodMode.ESCAPE, s0, s1))
        geo = Geometry(rows, cols)
        # nothing inside; everything inside; everything required outside
        floods.append((rows, cols, FloodMode.REACH, geo.frame, 0))
        floods.append((rows, cols, FloodMode.REACH, geo.frame, geo.grid))
        floods.append((rows, cols, FloodMode.ESCAPE, geo.all, 0))
        floods.append((rows, cols, FloodMode.ESCAPE, geo.frame, geo.grid))
        # the first inside cell is in the last row (no row-1 assumption)
        floods.append((rows, cols, FloodMode.REACH, geo.frame, geo.bit(rows - 1, cols - 1)))
    stats = check_floods((8, 8), floods)
    assert stats["iterations"] > 200


def test_search_floods():
    """Every flood the golden search runs on a few puzzles (bigger build than puzzle)."""
    floods = []
    for name in ("edge_3x3_noclues", "edge_5x5_noclues", "janko_0003", "janko_0014",
                 "edge_1x5_ends", "edge_2x2_noclues"):
        puzzle = golden.load_puzzle(name)
        events = list(golden.replay(puzzle, max_checks=3000))
        golden.check_replay(puzzle, events, max_checks=3000)
        floods += [(puzzle.rows, puzzle.cols, e[1], e[2], e[3]) for e in events if e[0] == "flood"]
    assert len(floods) > 100
    check_floods((6, 7), floods)


def test_mode_is_latched_at_start():
    """Changing ``mode`` during a flood does not change the running flood."""
    dut = Flood(3, 3)
    geo = Geometry(3, 3)
    s0, s1 = geo.frame, geo.bit(0, 0) | geo.bit(2, 2)

    async def bench(ctx):
        ctx.set(dut.s0, s0)
        ctx.set(dut.s1, s1)
        ctx.set(dut.grid, geo.grid)
        ctx.set(dut.mode, FloodMode.REACH)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        ctx.set(dut.mode, FloodMode.ESCAPE)
        while ctx.get(dut.busy):
            await ctx.tick()
        ref = flood(geo, FloodMode.REACH, s0, s1)
        assert ctx.get(dut.iterations) == ref.iterations
        assert ctx.get(dut.reached) == ref.reached

    run(dut, bench)


@pytest.mark.slow
@pytest.mark.parametrize("build", [(20, 20), (20, 36)])
def test_random_floods_large(build):
    rng = random.Random(21)
    floods = []
    for i in range(200):
        rows, cols = rng.randint(1, build[0]), rng.randint(1, build[1])
        s0, s1 = random_flood_state(rng, rows, cols)
        floods.append((rows, cols, rng.choice(list(FloodMode)), s0, s1))
    s0, s1 = snake(*build)
    floods.append((build[0], build[1], FloodMode.REACH, s0, s1))
    check_floods(build, floods)
